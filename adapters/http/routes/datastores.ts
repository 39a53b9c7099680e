import {
  RagdeskError,
  allowsDatastore,
  parseInput,
  schemas,
  type DatastoreQueryInput,
  type DatastoreUpdateInput,
  type DocumentUpdateInput,
  type QueryDetails,
} from '../../../src/index.js';
import { ownedDatastore } from '../access.js';
import { requirePrincipal } from '../auth.js';
import { readJsonObject } from '../body.js';
import { json, param, type OperationContext, type Route } from '../operation.js';
import { rerankTiming } from '../server-timing.js';
import { datastoreCreateBodySchema, upsertBodySchema } from '../wire.js';

async function datastoreOf(context: OperationContext, name = 'id') {
  return ownedDatastore(context.ragdesk, requirePrincipal(context.principal), param(context, name));
}

/**
 * A body the library validates itself with the very schema the OpenAPI document shows: passed on
 * as it came, so it is parsed once. The library answers `invalid_request` naming each bad field.
 */
function libraryInput<T>(value: Record<string, unknown>): T {
  return value as T;
}

function body(context: OperationContext) {
  return readJsonObject(context.request, context.options.maxJsonBytes);
}

/** Datastore Upsert and Update live under two prefixes: `/datastores/...` and the deprecated `/external/datastores/...`. */
function documentRoutes(prefix: '' | '/external'): Route[] {
  const alias = prefix === '/external';
  return [
    {
      method: 'POST',
      path: `${prefix}/datastores/upsert/{datastoreId}`,
      operationId: alias ? 'upsertDocumentsExternal' : 'upsertDocuments',
      summary: `Datastore Upsert (deprecated family): adds documents; answers their ids. A document \`id\` is unique within the key owner: another owner's use of it is invisible; the owner's own use in another datastore is a 409.${alias ? ' Alias of /datastores/upsert/{datastoreId}.' : ''}`,
      tag: 'datastores',
      auth: { scope: 'write' },
      body: { json: upsertBodySchema, name: 'UpsertRequest' },
      response: 'UpsertResponse',
      errors: [400, 404, 409, 413, 415],
      deprecated: true,
      async run(context) {
        const datastore = await datastoreOf(context, 'datastoreId');
        const parsed = parseInput(upsertBodySchema, await body(context), 'upsert');
        return json(await datastore.upsert(parsed.documents));
      },
    },
    {
      method: 'POST',
      path: `${prefix}/datastores/update/{datastoreId}`,
      operationId: alias ? 'updateDocumentExternal' : 'updateDocument',
      summary: `Datastore Update (deprecated family): replaces one document's text.${alias ? ' Alias of /datastores/update/{datastoreId}.' : ''}`,
      tag: 'datastores',
      auth: { scope: 'write' },
      body: { json: schemas.documentUpdateSchema, name: 'DocumentUpdateRequest' },
      response: 'DocumentUpdateResponse',
      errors: [400, 404, 409, 413, 415],
      deprecated: true,
      async run(context) {
        const datastore = await datastoreOf(context, 'datastoreId');
        return json(await datastore.update(libraryInput<DocumentUpdateInput>(await body(context))));
      },
    },
  ];
}

export const datastoreRoutes: Route[] = [
  {
    method: 'POST',
    path: '/datastores',
    operationId: 'createDatastore',
    summary: 'Datastore Create: an empty datastore owned by the key owner.',
    tag: 'datastores',
    auth: { scope: 'write' },
    body: { json: datastoreCreateBodySchema, name: 'DatastoreCreateRequest' },
    response: 'Datastore',
    errors: [400, 413, 415],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      if (principal.datastoreIds !== null) {
        throw new RagdeskError('forbidden', 'This API key is limited to given datastores and cannot create new ones');
      }
      const parsed = parseInput(datastoreCreateBodySchema, await body(context), 'datastore');
      const datastore = await context.ragdesk.datastores.create(parsed, { ownerId: principal.ownerId });
      return json(datastore.toJSON());
    },
  },
  {
    method: 'GET',
    path: '/datastores',
    operationId: 'listDatastores',
    summary: "The key owner's datastores, oldest first.",
    tag: 'datastores',
    auth: { scope: 'read' },
    response: 'Datastore[]',
    errors: [],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const datastores = await context.ragdesk.datastores.list({ ownerId: principal.ownerId });
      return json(datastores.filter((datastore) => allowsDatastore(principal, datastore.id)).map((datastore) => datastore.toJSON()));
    },
  },
  {
    method: 'GET',
    path: '/datastores/{id}',
    operationId: 'getDatastore',
    summary: 'Datastore Get.',
    tag: 'datastores',
    auth: { scope: 'read' },
    response: 'Datastore',
    errors: [404],
    async run(context) {
      return json((await datastoreOf(context)).toJSON());
    },
  },
  {
    method: 'GET',
    path: '/datastores/{id}/stats',
    operationId: 'getDatastoreStats',
    summary:
      'Datastore totals: `datasources` (sites and pages included), `documents` (files, texts and pages), `chunks`, `tokens`, `textChars` and `fileBytes` (uploaded files kept for re-syncs).',
    tag: 'datastores',
    auth: { scope: 'read' },
    response: 'DatastoreStats',
    errors: [404],
    async run(context) {
      return json(await (await datastoreOf(context)).stats());
    },
  },
  {
    method: 'PATCH',
    path: '/datastores/{id}',
    operationId: 'updateDatastore',
    summary: 'Datastore Update: name and description.',
    tag: 'datastores',
    auth: { scope: 'write' },
    body: { json: schemas.datastoreUpdateSchema, name: 'DatastoreUpdateRequest' },
    response: 'Datastore',
    errors: [400, 404, 413, 415],
    async run(context) {
      const datastore = await datastoreOf(context);
      const input = libraryInput<DatastoreUpdateInput>(await body(context));
      return json((await context.ragdesk.datastores.update(datastore.id, input)).toJSON());
    },
  },
  {
    method: 'DELETE',
    path: '/datastores/{id}',
    operationId: 'deleteDatastore',
    summary: 'Datastore Delete: with its datasources, chunks and vector index; answers the datastore as it was.',
    tag: 'datastores',
    auth: { scope: 'write' },
    response: 'Datastore',
    errors: [404],
    async run(context) {
      const datastore = await datastoreOf(context);
      await body(context);
      return json((await context.ragdesk.datastores.delete(datastore.id)).toJSON());
    },
  },
  {
    method: 'POST',
    path: '/datastores/{id}/query',
    operationId: 'queryDatastore',
    summary:
      'Datastore Query: the most similar fragments, best first (hybrid retrieval unless `mode` says otherwise). ' +
      'With `rerank: { topN }` the reranker orders the best topN first (each fragment gets `rerank_score`; the time it took is in the `Server-Timing` header).',
    tag: 'datastores',
    auth: { scope: 'query' },
    body: { json: schemas.datastoreQuerySchema, name: 'DatastoreQueryRequest' },
    response: 'DocumentFragment[]',
    errors: [400, 404, 409, 413, 415],
    async run(context) {
      const datastore = await datastoreOf(context);
      const details: QueryDetails = {};
      const fragments = await datastore.query(libraryInput<DatastoreQueryInput>(await body(context)), details);
      // The array body has no room for it: what reranking added goes in a Server-Timing header.
      return details.rerank ? { ...json(fragments), headers: { 'server-timing': rerankTiming(details.rerank) } } : json(fragments);
    },
  },
  ...documentRoutes(''),
  ...documentRoutes('/external'),
];
