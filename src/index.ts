export { createRagdesk, type Ragdesk, type RagdeskOptions } from './ragdesk.js';
export type { ChunkingOptions } from './context.js';
export { Datastore } from './datastores/datastore.js';
export { DatastoreService } from './datastores/datastore-service.js';
export type { DocumentFragment } from './datastores/fragment.js';
export { reciprocalRankFusion, RRF_K } from './datastores/fusion.js';
export {
  DEFAULT_TOP_K,
  MAX_TOP_K,
  MAX_DOCUMENT_CHARS,
  MAX_UPSERT_CHARS,
  MAX_UPSERT_DOCUMENTS,
  type DatastoreCreateInput,
  type DatastoreUpdateInput,
  type DatastoreQueryInput,
  type DocumentInput,
  type DocumentUpdateInput,
  type RetrievalMode,
} from './datastores/schemas.js';
export { RagdeskError, isRagdeskError, type RagdeskErrorCode, type RagdeskErrorOptions, type FieldIssue } from './errors.js';
export type * from './ports/index.js';
export { chunkSections, cleanText, type TextChunk, type Tokenizer } from './ingest/index.js';
export { DatasourceService, type DatasourceLookup } from './datasources/datasource-service.js';
export type { DatasourceCreateInput, DatasourceUpdateInput } from './datasources/schemas.js';
export {
  MAX_PAGE_SIZE,
  type ChunkPage,
  type ChunkPageInput,
  type ChunkView,
  type DatasourcePage,
  type DatasourcePageInput,
} from './datasources/pages.js';
export { matchesMetadata } from './filters/metadata-filter.js';
export type { QueryDetails } from './datastores/retrieval.js';
export { MAX_RERANK_CANDIDATES, type RerankInput, type RerankReport } from './datastores/rerank.js';
export type { UsageLimits } from './datasources/usage-limits.js';
export { UsageService, type OwnerUsage, type UsageFigure } from './usage/usage-service.js';
export type { StoredTotals } from './usage/stored-totals.js';
export type { JobRunnerOptions } from './datasources/job-runner.js';
export type { CrawlPage, CrawlPageList, CrawlPagesQuery, DatasourceCrawl } from './datasources/crawl-view.js';
export type { RetryPolicy } from './ports/retry-policy.js';
export { DatasourceEvents, type StatusEventPayload, type ProgressEventPayload } from './datasources/events.js';
export { AgentService, type AgentCallOptions } from './agents/agent-service.js';
export type { Agent, AgentResponse, AgentStreamEvent } from './agents/agent.js';
export type { HistoryMessage } from './agents/history.js';
export { agentDisplaySettings, publicAgentView, type AgentDisplaySettings, type PublicAgentView } from './agents/agent-views.js';
export { interfaceConfigSchema, type InterfaceConfig } from './agents/interface-config.js';
export { allowedOriginsOf } from './agents/allowed-origins.js';
export { UploadService, type UploadOptions, type UploadLink, type UploadLinkRequest } from './uploads/upload-service.js';
export { UPLOAD_TYPES } from './uploads/upload-types.js';
export { ConversationService } from './conversations/conversation-service.js';
export type {
  Conversation,
  ConversationMessage,
  ConversationPage,
  ConversationSummary,
  ConversationWithMessages,
} from './conversations/conversation-types.js';
export type {
  ConversationListInput,
  ConversationLookupInput,
  ConversationReadInput,
  MessageFeedbackInput,
} from './conversations/conversation-schemas.js';
export type { AgentCreateInput, AgentUpdateInput, AgentQueryInput } from './agents/schemas.js';
export type { AgentOptionsInput, AgentOptions } from './agents/agent-options.js';
export { DEFAULT_PRICES, type ModelPrice } from './agents/pricing.js';
export type { QueryLimit } from './agents/usage-policy.js';
export type { AttachmentLimits } from './agents/attachment-limits.js';
export type { PromptBudgetOptions } from './agents/budget.js';
export { DEFAULT_SYSTEM_PROMPT, DEFAULT_USER_PROMPT, PROMPT_PRESETS } from './agents/prompt-presets.js';
export { MODEL_CONTEXT_WINDOWS, SPEC_MODEL_WINDOWS } from './agents/model-windows.js';
export { HOSTED_MODEL_NAMES, MODEL_NAMES, type ModelList } from './agents/model-offer.js';
export { OVERRIDABLE_FIELDS, MAX_VISITOR_CONTEXT_CHARS, type AgentCaller } from './agents/override-policy.js';
export {
  ApiKeyService,
  apiKeyCreateSchema,
  apiKeyScopeSchema,
  allowsDatastore,
  allowsDatastores,
  assertWithinGrant,
  hasScope,
  KEY_PREFIX,
  type ApiKey,
  type ApiKeyCreateInput,
  type ApiKeyServiceOptions,
  type CreatedApiKey,
  type KeyGrant,
  type GrantLimit,
} from './auth/index.js';
export * as schemas from './schemas.js';
export { parseInput } from './validation.js';
export { migrateStore, type MigrateStoreOptions, type MigrationProgress, type MigrationReport } from './migrate/migrate-store.js';
export { toWellFormed, SurrogateJoiner } from './text/well-formed.js';
