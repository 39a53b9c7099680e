export { ApiKeyService, type ApiKey, type ApiKeyServiceOptions, type CreatedApiKey } from './api-keys.js';
export { apiKeyCreateSchema, apiKeyScopeSchema, type ApiKeyCreateInput } from './schemas.js';
export { allowsDatastore, allowsDatastores, hasScope, type KeyGrant } from './scopes.js';
export { KEY_PREFIX } from './secrets.js';
export { assertWithinGrant, type GrantLimit } from './grant-limits.js';
