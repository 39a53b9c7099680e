import {
  RagdeskError,
  allowsDatastore,
  parseInput,
  schemas,
  type DatasourceRecord,
  type FieldIssue,
  type Metadata,
} from '../../../src/index.js';
import { ownedDatasource, ownedDatastore } from '../access.js';
import { requirePrincipal, type Principal } from '../auth.js';
import { readJsonObject } from '../body.js';
import { cleanFileName, isMultipart, readMultipart, type ParsedForm } from '../multipart.js';
import { json, param, type OperationContext, type Route } from '../operation.js';
import { queryObject } from '../query-params.js';
import {
  chunkPageToWire,
  datasourceToWire,
  type DatasourceWire,
  fileFormFieldsSchema,
  fileUploadFieldsSchema,
  webDatasourceBodySchema,
} from '../wire.js';
import type { z } from 'zod';

/** Datasources on the wire, the web ones with their crawl. */
async function withCrawls(context: OperationContext, records: readonly DatasourceRecord[]): Promise<DatasourceWire[]> {
  const crawls = await context.ragdesk.datasources.crawls(records);
  return records.map((record) => datasourceToWire(record, crawls.get(record.id)));
}

export const datasourceRoutes: Route[] = [
  {
    method: 'POST',
    path: '/datasources',
    operationId: 'createDatasource',
    summary:
      'Datasource Create. Form A: multipart/form-data with `file`, `type=file`, `datastoreId` (and optional `fileName`, `custom_id`). ' +
      'Form B: JSON for `web_page` (`config.source_url`) and `web_site` (`config.sitemap` or `config.source_url`). The sync runs in the background: poll the datasource status.',
    tag: 'datasources',
    auth: { scope: 'write' },
    body: {
      json: webDatasourceBodySchema,
      name: 'WebDatasourceCreateRequest',
      multipart: fileFormFieldsSchema,
      multipartName: 'FileDatasourceForm',
    },
    response: 'Datasource',
    errors: [400, 404, 413, 415],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      if (isMultipart(context.request)) {
        const form = await readMultipart(context.request, context.options.maxFileBytes);
        const fields = formFields(form, fileFormFieldsSchema);
        return json(datasourceToWire(await createFile(context, principal, fields.datastoreId, form, fields)));
      }
      const body = await readJsonObject(context.request, context.options.maxJsonBytes);
      if (body.type === 'file') {
        throw new RagdeskError('unsupported_media_type', 'A file datasource is created with multipart/form-data (form A)', {
          details: { expected: 'multipart/form-data' },
        });
      }
      const parsed = parseInput(webDatasourceBodySchema, body, 'datasource');
      const datastore = await ownedDatastore(context.ragdesk, principal, parsed.datastoreId);
      return json(datasourceToWire(await context.ragdesk.datasources.create({ ...parsed, datastoreId: datastore.id })));
    },
  },
  {
    method: 'GET',
    path: '/datasources',
    operationId: 'listDatasources',
    summary:
      "Datasources of one datastore (`datastoreId`), or of all the key owner's datastores, oldest first. With `datastoreId`, " +
      '`offset`, `limit` (1-200), `name` (part of the name, any case) and `groupId` (`none`: top level; a site id: its pages) page and filter the list, and the `X-Total-Count` header says how many match.',
    tag: 'datasources',
    auth: { scope: 'read' },
    queryParameters: [
      { name: 'datastoreId', description: 'Only the datasources of this datastore', required: false },
      { name: 'offset', description: 'With datastoreId: skip this many (default 0)', required: false },
      { name: 'limit', description: 'With datastoreId: at most this many (1-200); without it every match', required: false },
      { name: 'name', description: 'With datastoreId: only datasources whose name contains this (any case)', required: false },
      {
        name: 'groupId',
        description: 'With datastoreId: `none` for top-level datasources only, or the id of a site for its pages',
        required: false,
      },
    ],
    response: 'Datasource[]',
    errors: [400, 404],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const datastoreId = context.request.query.get('datastoreId');
      if (datastoreId !== null) {
        const datastore = await ownedDatastore(context.ragdesk, principal, datastoreId);
        const query = queryObject(context, ['offset', 'limit', 'name', 'groupId']);
        if (Object.keys(query).length === 0) return json(await withCrawls(context, await context.ragdesk.datasources.list(datastore.id)));
        const page = await context.ragdesk.datasources.page(datastore.id, query);
        return { ...json(await withCrawls(context, page.datasources)), headers: { 'x-total-count': String(page.total) } };
      }
      const datastores = await context.ragdesk.datastores.list({ ownerId: principal.ownerId });
      const lists = await Promise.all(
        datastores
          .filter((datastore) => allowsDatastore(principal, datastore.id))
          .map((datastore) => context.ragdesk.datasources.list(datastore.id)),
      );
      return json(await withCrawls(context, lists.flat()));
    },
  },
  {
    method: 'GET',
    path: '/datasources/{id}',
    operationId: 'getDatasource',
    summary:
      'Datasource Get: its status (`pending`, `running`, `synched`, `error`, `usage_limit_reached`, ...) and counts. ' +
      "`{id}` is read as the key owner's: a document id names the owner's document with that id (document ids are per owner). " +
      'A web page or site also has `crawl`: pages found, fetched, unchanged, skipped and failed by the crawl under way (written as it goes) ' +
      'or the last one, what the last one changed, the refresh schedule and the next refresh.',
    tag: 'datasources',
    auth: { scope: 'read' },
    response: 'Datasource',
    errors: [404],
    async run(context) {
      const datasource = await ownedDatasource(context.ragdesk, requirePrincipal(context.principal), param(context, 'id'));
      const [wire] = await withCrawls(context, [datasource]);
      return json(wire);
    },
  },
  {
    method: 'GET',
    path: '/datasources/{id}/pages',
    operationId: 'listDatasourcePages',
    summary:
      "The URLs a web page's or site's last crawl looked at (the one under way as it goes), ordered by URL, a page at a time: " +
      '`status` `fetched`, `unchanged`, `skipped` (`reason`: `robots`, `type`, `limit`) or `failed` (`reason`: the error code, `error`: the message), ' +
      'and `pageId`, the web_page datasource holding its chunks. Other datasource types have none.',
    tag: 'datasources',
    auth: { scope: 'read' },
    queryParameters: [
      { name: 'offset', description: 'URLs to skip (default 0)', required: false },
      { name: 'limit', description: 'URLs per page (1-200, default 50)', required: false },
    ],
    response: 'CrawlPageList',
    errors: [400, 404],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const datasource = await ownedDatasource(context.ragdesk, principal, param(context, 'id'));
      const query = context.request.query;
      for (const name of query.keys()) {
        if (name !== 'offset' && name !== 'limit') {
          throw new RagdeskError('invalid_request', `Unknown query parameter ${name}`, {
            details: { issues: [{ path: name, message: 'unknown' }] },
          });
        }
      }
      const paging = {
        ...(query.get('offset') ? { offset: query.get('offset')! } : {}),
        ...(query.get('limit') ? { limit: query.get('limit')! } : {}),
      };
      return json(await context.ragdesk.datasources.pages(datasource.id, paging, { ownerId: principal.ownerId }));
    },
  },
  {
    method: 'GET',
    path: '/datasources/{id}/chunks',
    operationId: 'listDatasourceChunks',
    summary:
      'The chunks of a datasource in reading order, a page at a time (`offset`, `limit` 1-200, default 50): `id`, `position`, `text`, `page_number`, ' +
      '`token_count`, `custom_id`, and `total` (how many match). `q` keeps the chunks whose text contains it (any case): a text filter, not a ranked search.',
    tag: 'datasources',
    auth: { scope: 'read' },
    queryParameters: [
      { name: 'offset', description: 'Skip this many matching chunks (default 0)', required: false },
      { name: 'limit', description: 'At most this many chunks (1-200, default 50)', required: false },
      { name: 'q', description: 'Only chunks whose text contains this (any case)', required: false },
    ],
    response: 'ChunkPage',
    errors: [400, 404],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const datasource = await ownedDatasource(context.ragdesk, principal, param(context, 'id'));
      const query = queryObject(context, ['offset', 'limit', 'q']);
      const page = await context.ragdesk.datasources.chunks(datasource.id, query, { ownerId: principal.ownerId });
      return json(chunkPageToWire(page));
    },
  },
  {
    method: 'PATCH',
    path: '/datasources/{id}',
    operationId: 'updateDatasource',
    summary:
      "Datasource Update: `name` and `metadata` (replaced whole), changed in place without loading or embedding again, and a web page's or site's " +
      '`refresh` schedule (`{ "every": "daily" }`: `hourly`, `daily`, `weekly` or `90m`, `12h`, `3d`; null stops it); ' +
      "metadata filters see the new values at once. A site's pages take the site's metadata.",
    tag: 'datasources',
    auth: { scope: 'write' },
    body: { json: schemas.datasourceUpdateSchema, name: 'DatasourceUpdateRequest' },
    response: 'Datasource',
    errors: [400, 404, 413, 415],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const datasource = await ownedDatasource(context.ragdesk, principal, param(context, 'id'));
      const body = parseInput(
        schemas.datasourceUpdateSchema,
        await readJsonObject(context.request, context.options.maxJsonBytes),
        'datasource update',
      );
      const [wire] = await withCrawls(context, [
        await context.ragdesk.datasources.update(datasource.id, body, { ownerId: principal.ownerId }),
      ]);
      return json(wire);
    },
  },
  {
    method: 'POST',
    path: '/datasources/{id}/sync',
    operationId: 'syncDatasource',
    summary:
      'Re-sync: loads a file, web page or site datasource again (back through `pending`; unchanged chunks keep their embeddings). ' +
      'A datasource still syncing is answered as it is; a text datasource changes through Datastore Update instead (409).',
    tag: 'datasources',
    auth: { scope: 'write' },
    response: 'Datasource',
    errors: [404, 409],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const datasource = await ownedDatasource(context.ragdesk, principal, param(context, 'id'));
      await readJsonObject(context.request, context.options.maxJsonBytes);
      return json(datasourceToWire(await context.ragdesk.datasources.sync(datasource.id, { ownerId: principal.ownerId })));
    },
  },
  {
    method: 'DELETE',
    path: '/datasources/{id}',
    operationId: 'deleteDatasource',
    summary: 'Datasource Delete: with its chunks (and the pages of a site); answers the datasource as it was.',
    tag: 'datasources',
    auth: { scope: 'write' },
    response: 'Datasource',
    errors: [404],
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const datasource = await ownedDatasource(context.ragdesk, principal, param(context, 'id'));
      await readJsonObject(context.request, context.options.maxJsonBytes);
      return json(datasourceToWire(await context.ragdesk.datasources.delete(datasource.id, { ownerId: principal.ownerId })));
    },
  },
  {
    method: 'POST',
    path: '/external/datastores/file-upload/{datastoreId}',
    operationId: 'uploadFile',
    summary: 'Datastore File Upload (deprecated family): multipart `file` (+ `fileName`, `custom_id`); answers the new datasource.',
    tag: 'datasources',
    auth: { scope: 'write' },
    body: { multipart: fileUploadFieldsSchema, name: 'FileUploadForm' },
    response: 'Datasource',
    errors: [400, 404, 413, 415],
    deprecated: true,
    async run(context) {
      const principal = requirePrincipal(context.principal);
      const datastore = await ownedDatastore(context.ragdesk, principal, param(context, 'datastoreId'));
      const form = await readMultipart(context.request, context.options.maxFileBytes);
      const fields = formFields(form, fileUploadFieldsSchema);
      return json(datasourceToWire(await createFile(context, principal, datastore.id, form, fields)));
    },
  },
];

/** Validates the text fields and the presence of the file together, so one 400 names every problem. */
function formFields<Schema extends z.ZodType>(form: ParsedForm, schema: Schema): z.output<Schema> {
  const result = schema.safeParse(Object.fromEntries(form.fields));
  const issues: FieldIssue[] = result.success
    ? []
    : result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  if (!form.file) issues.unshift({ path: 'file', message: 'a file part named "file" is required' });
  if (issues.length > 0 || !result.success) {
    throw new RagdeskError('invalid_request', `Invalid form: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`, {
      details: { issues },
    });
  }
  return result.data;
}

async function createFile(
  context: OperationContext,
  principal: Principal,
  datastoreId: string,
  form: ParsedForm,
  fields: { fileName?: string | undefined; custom_id?: string | undefined; metadata?: Metadata | undefined },
) {
  const datastore = await ownedDatastore(context.ragdesk, principal, datastoreId);
  const file = form.file as NonNullable<ParsedForm['file']>;
  const fileName = cleanFileName(fields.fileName) ?? cleanFileName(file.fileName);
  return context.ragdesk.datasources.create({
    type: 'file',
    datastoreId: datastore.id,
    ...(fileName ? { name: fileName } : {}),
    ...(fields.custom_id === undefined ? {} : { custom_id: fields.custom_id }),
    ...(fields.metadata === undefined ? {} : { metadata: fields.metadata }),
    file: {
      bytes: file.bytes,
      ...(file.mimeType ? { mimeType: file.mimeType } : {}),
      ...(fileName ? { fileName } : {}),
    },
  });
}
