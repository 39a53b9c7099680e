import type { RagdeskContext } from '../context.js';
import { writeDocuments } from '../datastores/document-writer.js';
import { RagdeskError } from '../errors.js';
import type { DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import type { DatasourceEvents } from './events.js';
import { syncSite } from './site-sync.js';
import { documentLimits, usageLimit } from './usage-limits.js';

/**
 * Loads a datasource's content and writes its chunks (status `synched` in the same step). A
 * `web_site` fans out into child `web_page` datasources.
 */
export async function syncContent(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  datasource: DatasourceRecord,
  events: DatasourceEvents,
  signal: AbortSignal,
): Promise<void> {
  switch (datasource.type) {
    case 'file': {
      const files = requireAdapter(context.files, 'file loading (createRagdesk({ files }))');
      const stored = await context.retrieval.getDatasourceFile(datasource.id);
      if (!stored) throw new RagdeskError('not_found', `The uploaded file of datasource ${datasource.id} is missing`);
      const maxFileBytes = context.usage.maxFileBytes;
      if (maxFileBytes !== undefined && stored.bytes.byteLength > maxFileBytes) {
        throw usageLimit(`The file is ${stored.bytes.byteLength} bytes, over the usage limit of ${maxFileBytes}`, { limit: maxFileBytes });
      }
      const document = await files.load({
        bytes: stored.bytes,
        mimeType: stored.mimeType,
        ...(stored.fileName ? { fileName: stored.fileName } : {}),
        ...(datastore.ownerId === null ? {} : { owner: datastore.ownerId }),
        maxChars: documentLimits(context.usage).maxChars,
        signal,
      });
      const patch = document.totalPages === undefined ? undefined : { config: { ...datasource.config, total_pages: document.totalPages } };
      await writeDocuments(context, datastore, [{ datasource, isNew: false, content: document.sections, ...(patch ? { patch } : {}) }]);
      break;
    }
    case 'web_page': {
      const web = requireAdapter(context.web, 'web loading (createRagdesk({ web }))');
      const url = datasource.config.source_url;
      if (typeof url !== 'string') throw new RagdeskError('invalid_request', `Datasource ${datasource.id} has no config.source_url`);
      const page = await web.loadPage(url, { signal, ignoreRobots: datasource.config.ignore_robots_txt === true });
      const named = datasource.name ? undefined : { name: page.title ?? page.finalUrl };
      await writeDocuments(context, datastore, [
        { datasource, isNew: false, content: page.document.sections, ...(named ? { patch: named } : {}) },
      ]);
      break;
    }
    case 'web_site':
      await syncSite(context, datastore, datasource, events, signal);
      return;
    case 'text':
      throw new RagdeskError('conflict', `Text datasource ${datasource.id} is written by upsert/update, not synced`);
  }
  const after = await context.retrieval.getDatasource(datasource.id);
  events.emit('progress', {
    datasourceId: datasource.id,
    datastoreId: datastore.id,
    pagesDone: 1,
    pagesTotal: 1,
    chunksDone: after?.nbChunks ?? 0,
    tokensDone: after?.nbTokens ?? 0,
  });
}

function requireAdapter<T>(adapter: T | undefined, what: string): T {
  if (!adapter) throw new RagdeskError('invalid_adapter', `This ragdesk instance has no ${what}`);
  return adapter;
}
