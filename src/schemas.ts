/**
 * The zod schemas that validate input at the library's edges, in one public place, so an adapter
 * that serves the library (the HTTP adapter's OpenAPI document) describes exactly what is checked.
 */
export { filtersSchema, metadataSchema, idSchema } from './validation.js';
export { metadataFilterSchema } from './filters/metadata-filter.js';
export {
  datastoreCreateSchema,
  datastoreUpdateSchema,
  datastoreQuerySchema,
  documentSchema,
  upsertSchema,
  documentUpdateSchema,
  retrievalModeSchema,
} from './datastores/schemas.js';
export {
  datasourceCreateSchema,
  datasourceUpdateSchema,
  fileDatasourceSchema,
  webPageDatasourceSchema,
  webSiteDatasourceSchema,
} from './datasources/schemas.js';
export {
  agentCreateSchema,
  agentUpdateSchema,
  agentQuerySchema,
  specModelNameSchema,
  queryModelNameSchema,
  promptTypeSchema,
  visibilitySchema,
} from './agents/schemas.js';
export { allowOverridesSchema } from './agents/override-policy.js';
export { apiKeyCreateSchema, apiKeyScopeSchema } from './auth/schemas.js';
export {
  conversationListSchema,
  conversationReadSchema,
  messageFeedbackSchema,
  evalAnswerSchema,
} from './conversations/conversation-schemas.js';
