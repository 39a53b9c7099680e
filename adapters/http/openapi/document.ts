import { z } from 'zod';
import type { Route } from '../operation.js';
import {
  agentQueryResponseSchema,
  agentOrPublicAgentSchema,
  agentResponseSchema,
  agentUpdateResponseSchema,
  publicAgentResponseSchema,
  crawlPageListSchema,
  datasourceResponseSchema,
  datastoreResponseSchema,
  documentUpdateResponseSchema,
  errorResponseSchema,
  fragmentResponseSchema,
  keyOwnerResponseSchema,
  sourceEntrySchema,
  uploadedFileResponseSchema,
  uploadLinkResponseSchema,
  upsertResponseSchema,
} from './response-schemas.js';
import {
  apiKeyResponseSchema,
  chunkPageResponseSchema,
  createdApiKeyResponseSchema,
  datastoreStatsResponseSchema,
  serverModelsResponseSchema,
  usageResponseSchema,
} from './console-schemas.js';
import { chatCompletionSchema, modelListSchema, openaiErrorSchema } from './chat-client-schemas.js';
import {
  conversationMessageSchema,
  conversationPageSchema,
  conversationSchema,
  conversationWithMessagesSchema,
} from './conversation-schemas.js';

type JsonObject = Record<string, unknown>;

const ORIGIN_REFUSED =
  "a browser page on a site neither the agent's interfaceConfig.authorizedDomains nor the server's cors option allows (the answer carries Access-Control-Allow-Origin so the page can read it)";

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request: `details.issues` names each bad field; malformed JSON is also a 400',
  401: 'Missing, malformed, unknown or revoked API key',
  402: 'Usage limit reached (for a streaming query: before the stream opens)',
  403: 'The API key lacks the scope, or is limited to other datastores',
  404: "No such resource for this key (another owner's id answers the same)",
  405: 'Method not allowed on this path (see the Allow header)',
  409: 'Conflict, e.g. the datastore was embedded with another model (embedding_mismatch)',
  413: 'Body or file too large',
  415: 'Unsupported media type: wrong Content-Type, or a file type the loaders do not read',
  429: 'Rate limited (see Retry-After)',
};

const RESPONSES: Record<string, z.ZodType> = {
  Agent: agentResponseSchema,
  PublicAgent: publicAgentResponseSchema,
  AgentOrPublicAgent: agentOrPublicAgentSchema,
  AgentUpdateResponse: agentUpdateResponseSchema,
  Datastore: datastoreResponseSchema,
  Datasource: datasourceResponseSchema,
  CrawlPageList: crawlPageListSchema,
  DocumentFragment: fragmentResponseSchema,
  SourceEntry: sourceEntrySchema,
  AgentQueryResponse: agentQueryResponseSchema,
  KeyOwner: keyOwnerResponseSchema,
  ApiKey: apiKeyResponseSchema,
  CreatedApiKey: createdApiKeyResponseSchema,
  Usage: usageResponseSchema,
  ServerModels: serverModelsResponseSchema,
  DatastoreStats: datastoreStatsResponseSchema,
  ChunkPage: chunkPageResponseSchema,
  UploadLink: uploadLinkResponseSchema,
  UploadedFile: uploadedFileResponseSchema,
  UpsertResponse: upsertResponseSchema,
  DocumentUpdateResponse: documentUpdateResponseSchema,
  Error: errorResponseSchema,
  ChatCompletion: chatCompletionSchema,
  ModelList: modelListSchema,
  OpenAIError: openaiErrorSchema,
  Conversation: conversationSchema,
  ConversationMessage: conversationMessageSchema,
  ConversationWithMessages: conversationWithMessagesSchema,
  ConversationPage: conversationPageSchema,
};

const AGENT_QUERY_FRAMES = 'SSE: `event: answer` deltas, one `event: endpoint_response`, then `data: [DONE]` (data URI-encoded)';

/**
 * The OpenAPI 3.1 document, generated from the route table and from the same zod schemas that
 * validate the requests (request bodies as the schemas accept them, responses as the code emits them).
 */
export function buildOpenApiDocument(routes: readonly Route[], basePath: string, info: { title: string; version: string }): JsonObject {
  const schemas = { ...componentSchemas(routes, 'input'), ...responseSchemas() };
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.outsideBasePath ? route.path : `${basePath}${route.path}`;
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description:
        'ragdesk: agents, datastores and datasources over HTTP (described route by route in docs/api.md). Every route needs `Authorization: Bearer <API key>` unless marked otherwise.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/' }],
    tags: [
      { name: 'agents', description: 'Conversational agents answering from datastores' },
      { name: 'conversations', description: "Agents' conversations, their messages and feedback on answers" },
      { name: 'datastores', description: 'Searchable document stores' },
      { name: 'datasources', description: 'Files, web pages and sites feeding datastores' },
      { name: 'uploads', description: 'Upload links for files attached to chat messages' },
      { name: 'keys', description: "The key owner's API keys (an `admin` key manages them)" },
      { name: 'meta', description: 'This document and the key owner' },
      { name: 'openai', description: 'OpenAI-compatible chat (only when the handler was created with `openaiCompat`)' },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`rdk_...`) created with `ragdesk keys create` or `ragdesk.keys.create()`',
        },
      },
    },
  };
}

function operation(route: Route): JsonObject {
  const parameters = [
    ...[...route.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string', minLength: 1, maxLength: 200 },
    })),
    ...(route.queryParameters ?? []).map((query) => ({
      name: query.name,
      in: 'query',
      required: query.required,
      description: query.description,
      schema: { type: 'string' },
    })),
  ];
  const scope = typeof route.auth === 'object' ? route.auth.scope : null;
  return {
    operationId: route.operationId,
    summary: route.summary.split('.')[0],
    description: route.summary + (scope ? ` Needs the \`${scope}\` scope.` : ''),
    tags: [route.tag],
    ...(route.deprecated ? { deprecated: true } : {}),
    security: route.auth === 'none' ? [] : route.auth === 'public-agent' ? [{ bearer: [] }, {}] : [{ bearer: [] }],
    ...(scope ? { 'x-ragdesk-scope': scope } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: requestBody(route.body) } : {}),
    responses: responses(route),
  };
}

function requestBody(body: NonNullable<Route['body']>): JsonObject {
  const content: JsonObject = {};
  if ('raw' in body) {
    for (const type of body.raw) content[type] = { schema: { type: 'string', contentMediaType: type, description: body.description } };
    return { required: true, content };
  }
  if ('json' in body) content['application/json'] = { schema: ref(body.name) };
  if ('multipart' in body) {
    const name = 'multipartName' in body ? body.multipartName : body.name;
    content['multipart/form-data'] = { schema: ref(name), encoding: { file: { contentType: 'application/octet-stream' } } };
  }
  return { required: true, content };
}

function responses(route: Route): JsonObject {
  const result: JsonObject = { '200': success(route) };
  const statuses = new Set(route.errors);
  if (route.auth !== 'none') [401, 429].forEach((status) => statuses.add(status));
  if (typeof route.auth === 'object') statuses.add(403);
  const error = { 'application/json': { schema: ref(route.tag === 'openai' ? 'OpenAIError' : 'Error') } };
  for (const status of [...statuses].sort()) {
    const text = STATUS_TEXT[status] ?? 'Error';
    const description = status === 403 && route.originAgents ? `${text}; or \`origin_not_allowed\`: ${ORIGIN_REFUSED}` : text;
    result[String(status)] = { description, content: error };
  }
  result.default = { description: 'Any other error (405, 5xx with a request id)', content: error };
  return result;
}

function success(route: Route): JsonObject {
  if (route.response === 'raw')
    return { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } };
  const content: JsonObject = {};
  if (route.response !== 'event-stream') {
    content['application/json'] = {
      schema: route.response.endsWith('[]') ? { type: 'array', items: ref(route.response.slice(0, -2)) } : ref(route.response),
    };
  }
  if (route.streams) {
    content['text/event-stream'] = { schema: { type: 'string', description: route.streams === true ? AGENT_QUERY_FRAMES : route.streams } };
  }
  return { description: 'Success', content };
}

function ref(name: string): JsonObject {
  return { $ref: `#/components/schemas/${name}` };
}

function componentSchemas(routes: readonly Route[], io: 'input'): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  const multipart = new Set<string>();
  for (const route of routes) {
    const body = route.body;
    if (!body || 'raw' in body) continue;
    if ('json' in body && !registry.has(body.json)) registry.add(body.json, { id: body.name });
    if ('multipart' in body) {
      const name = 'multipartName' in body ? body.multipartName : body.name;
      if (!registry.has(body.multipart)) registry.add(body.multipart, { id: name });
      multipart.add(name);
    }
  }
  const generated = generate(registry, io);
  for (const name of multipart) {
    const schema = generated[name] as { properties?: JsonObject; required?: string[] };
    schema.properties = {
      file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The file; its type is sniffed from its bytes' },
      ...schema.properties,
    };
    schema.required = ['file', ...(schema.required ?? [])];
  }
  return generated;
}

function responseSchemas(): Record<string, JsonObject> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of Object.entries(RESPONSES)) registry.add(schema, { id: name });
  return generate(registry, 'output');
}

function generate(registry: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output'): Record<string, JsonObject> {
  const output = z.toJSONSchema(registry, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonObject> };
  for (const schema of Object.values(output.schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return output.schemas;
}
