import { z } from 'zod';
import {
  interfaceConfigSchema,
  schemas,
  type AgentResponse,
  type PublicAgentView,
  type DatastoreRecord,
  type DocumentFragment,
  type CrawlPageList,
} from '../../../src/index.js';
import type { AgentWire, DatasourceWire } from '../wire.js';
import type { UploadLinkWire } from '../upload-links.js';

/**
 * What the routes answer, for the OpenAPI document. The compile-time checks at the bottom fail the
 * build when a record type changes without this file, so the document cannot drift from the code.
 */
const timestamp = z.string().describe('ISO-8601 date-time, UTC');
const metadata = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

export const errorResponseSchema = z.object({
  error: z.object({
    code: z.string().describe('Stable error code, e.g. invalid_request, unauthorized, not_found, usage_limit'),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional().describe('For invalid_request: `issues`, one `{ path, message }` per bad field'),
  }),
});

/**
 * An agent's `interfaceConfig` as stored: its fields described as create and update check them, the
 * record typed loosely (a config stored before a check was added is answered as it is).
 */
const interfaceConfigResponse = z
  .record(z.string(), z.unknown())
  .meta({
    description:
      'How chat widgets draw the agent (`displayName`, `primaryColor`, `initialMessages`, `messageTemplates` as suggested ' +
      'questions, `iconUrl`, `position`), and `authorizedDomains`: the sites whose pages may call its public routes from a browser.',
    properties: (z.toJSONSchema(interfaceConfigSchema, { io: 'output', unrepresentable: 'any' }) as { properties: unknown }).properties,
  })
  .nullable();

/** The agent settings again at the top level, with their values in effect, where the reference's widget reads them. */
const displaySettings = {
  includeSources: z.boolean(),
  useMarkdown: z.boolean(),
  useLanguageDetection: z.boolean(),
  iconUrl: z.string().nullable(),
  interfaceConfig: interfaceConfigResponse,
};

export const agentResponseSchema = z.object({
  id: z.string(),
  ownerId: z.string().nullable(),
  name: z.string(),
  description: z.string(),
  modelName: schemas.specModelNameSchema,
  temperature: z.number(),
  visibility: schemas.visibilitySchema,
  systemPrompt: z.string().nullable(),
  userPrompt: z.string().nullable(),
  promptType: schemas.promptTypeSchema.nullable(),
  promptTemplate: z.string().nullable(),
  allowOverrides: schemas.allowOverridesSchema,
  datastoreIds: z.array(z.string()),
  handle: z.string().nullable(),
  settings: z.object({
    includeSources: z.boolean().optional(),
    restrictKnowledge: z.boolean().optional(),
    useMarkdown: z.boolean().optional(),
    useLanguageDetection: z.boolean().optional(),
    iconUrl: z.string().nullable().optional(),
    interfaceConfig: interfaceConfigResponse.optional(),
    prompt: z.string().nullable().optional(),
    openaiCompatPublic: z.boolean().optional(),
    allowVisitorContext: z.boolean().optional(),
    allowConversationReadById: z.boolean().optional(),
    rerankTopN: z.int().nullable().optional(),
  }),
  ...displaySettings,
  restrictKnowledge: z.boolean(),
  tools: z.array(z.object({ type: z.literal('datastore'), datastoreId: z.string() })),
  createdAt: timestamp,
  updatedAt: timestamp,
});

/** What anyone may read of a public agent without a key (Agent Get without the owner's key). */
export const publicAgentResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  handle: z.string().nullable(),
  visibility: z.literal('public'),
  ...displaySettings,
});

export const agentOrPublicAgentSchema = z.union([agentResponseSchema, publicAgentResponseSchema]);

export const agentUpdateResponseSchema = agentResponseSchema.extend({
  warnings: z.array(z.string()).describe('Read-only fields of the body that were ignored'),
});

export const datastoreResponseSchema = z.object({
  id: z.string(),
  ownerId: z.string().nullable(),
  name: z.string(),
  description: z.string(),
  embeddingModel: z.string(),
  embeddingDimensions: z.int(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

const crawlCountsSchema = {
  found: z.int(),
  fetched: z.int(),
  unchanged: z.int(),
  skipped: z.object({ robots: z.int(), type: z.int(), limit: z.int() }),
  failed: z.int(),
};

const crawlResponseSchema = z.object({
  ...crawlCountsSchema,
  startedAt: timestamp.nullable(),
  finishedAt: timestamp.nullable(),
  lastResult: z.object({ added: z.int(), changed: z.int(), removed: z.int(), unchanged: z.int(), failed: z.int() }).nullable(),
  refresh: z.object({ every: z.string() }).nullable(),
  nextRefreshAt: timestamp.nullable(),
});

export const crawlPageListSchema = z.object({
  items: z.array(
    z.object({
      url: z.string(),
      status: z.enum(['fetched', 'unchanged', 'skipped', 'failed']),
      reason: z.string().nullable(),
      error: z.string().nullable(),
      pageId: z.string().nullable(),
      updatedAt: timestamp,
    }),
  ),
  total: z.int(),
  offset: z.int(),
  limit: z.int(),
});

export const datasourceResponseSchema = z.object({
  id: z.string(),
  datastoreId: z.string(),
  type: z.enum(['file', 'text', 'web_page', 'web_site']),
  name: z.string(),
  status: z.enum(['unsynched', 'pending', 'running', 'synched', 'error', 'usage_limit_reached']),
  groupId: z.string().nullable(),
  custom_id: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  metadata,
  error: z.string().nullable(),
  contentHash: z.string().nullable(),
  nbChunks: z.int(),
  nbTokens: z.int(),
  textSize: z.int(),
  createdAt: timestamp,
  updatedAt: timestamp,
  lastSynch: timestamp.nullable(),
  crawl: crawlResponseSchema.optional(),
});

export const fragmentResponseSchema = z.object({
  text: z.string(),
  score: z.number().min(0).max(1),
  vector_score: z.number().nullable(),
  lexical_score: z.number().nullable(),
  fusion_score: z.number().nullable(),
  rerank_score: z.number().optional(),
  source: z.string(),
  datasource_id: z.string(),
  datasource_name: z.string(),
  custom_id: z.string().nullable(),
  chunk_id: z.string(),
  page_number: z.int().nullable(),
  metadata,
});

const sourcePassageSchema = z
  .object({
    chunk_id: z.string(),
    page_number: z.int().nullable(),
    text: z.string(),
    score: z.number(),
  })
  .describe('One passage of the datasource given to the model.');

export const sourceEntrySchema = z.object({
  chunk_id: z.string(),
  datasource_id: z.string(),
  datasource_name: z.string(),
  datasource_type: z.string(),
  source_url: z.string().nullable(),
  custom_id: z.string().nullable(),
  mime_type: z.string().nullable(),
  page_number: z.int().nullable(),
  total_pages: z.int().nullable(),
  score: z.number(),
  text: z.string(),
  passages: z
    .array(sourcePassageSchema)
    .describe(
      "Every passage of this datasource the model was given, best first; the entry's own chunk_id, page_number, score and text are those of the first.",
    ),
});

export const agentQueryResponseSchema = z.object({
  answer: z.string(),
  conversationId: z.string(),
  visitorId: z.string(),
  sources: z.array(sourceEntrySchema),
  messageId: z.string(),
  usage: z.object({ promptTokens: z.int(), completionTokens: z.int(), totalTokens: z.int(), cost: z.number() }),
  model: z.string(),
  finishReason: z.enum(['stop', 'length', 'content_filter', 'error', 'other']),
  warnings: z.array(z.string()),
  rerank: z.object({ model: z.string(), candidates: z.int(), ms: z.number() }).optional(),
});

export const keyOwnerResponseSchema = z.object({
  id: z.string().describe('The owner id'),
  name: z.string().describe('The owner id again (the reference service names its organization here)'),
  ownerId: z.string(),
  keyId: z.string(),
  scopes: z.array(schemas.apiKeyScopeSchema),
  datastoreIds: z.array(z.string()).nullable().describe('null: every datastore of the owner'),
});

export const uploadLinkResponseSchema = z.object({
  signedUrl: z.string().describe('PUT the file here, once, before expiresAt'),
  fileUrl: z.string().describe("The attachment's url in an agent query"),
  uploadId: z.string(),
  mimeType: z.string(),
  maxBytes: z.int(),
  expiresAt: timestamp,
});

export const uploadedFileResponseSchema = z.object({
  id: z.string(),
  fileName: z.string(),
  mimeType: z.string(),
  size: z.int(),
  uploadedAt: timestamp,
  keepUntil: timestamp.describe('Queries read the file until then'),
});

export const upsertResponseSchema = z.object({ ids: z.array(z.string()) });
export const documentUpdateResponseSchema = z.object({ id: z.string() });

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Each line fails to compile when the response type and its schema disagree.
const _DRIFT_CHECKS: [
  Same<z.output<typeof agentResponseSchema>, AgentWire>,
  Same<z.output<typeof publicAgentResponseSchema>, PublicAgentView>,
  Same<z.output<typeof uploadLinkResponseSchema>, UploadLinkWire>,
  Same<z.output<typeof datastoreResponseSchema>, DatastoreRecord>,
  Same<z.output<typeof datasourceResponseSchema>, DatasourceWire>,
  Same<z.output<typeof crawlPageListSchema>, CrawlPageList>,
  Same<z.output<typeof fragmentResponseSchema>, DocumentFragment>,
  Same<z.output<typeof agentQueryResponseSchema>, AgentResponse>,
] = [true, true, true, true, true, true, true, true];
