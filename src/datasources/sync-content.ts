import type { RagdeskContext } from '../context.js';
import { writeDocuments } from '../datastores/document-writer.js';
import { RagdeskError } from '../errors.js';
import type { DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import type { WebPage, WebPageUnchanged } from '../ports/web-loader.js';
import { nowIso } from '../util/ids.js';
import { emptyCounts, validatorsOf } from './crawl-tracker.js';
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
      const loadOptions = { signal, ignoreRobots: datasource.config.ignore_robots_txt === true };
      const [kept] = (await context.retrieval.listCrawlPages(datasource.id, { offset: 0, limit: 1 })).items;
      // Asked conditionally only while the page's chunks are there (a page never synced has none).
      const previous = kept && datasource.lastSynch !== null && kept.url === url ? validatorsOf(kept) : undefined;
      const page =
        previous && web.loadPageIfChanged ? await web.loadPageIfChanged(url, previous, loadOptions) : await web.loadPage(url, loadOptions);
      await recordPage(context, datasource.id, url, page);
      if ('unchanged' in page) {
        const now = nowIso();
        await context.retrieval.updateDatasource(datasource.id, { status: 'synched', error: null, lastSynch: now, updatedAt: now });
        break;
      }
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

/** Keeps the page's validators (and the one-page crawl state) for the next sync's conditional request. */
async function recordPage(context: RagdeskContext, datasourceId: string, url: string, page: WebPage | WebPageUnchanged): Promise<void> {
  const validators = page.validators ?? {};
  const unchanged = 'unchanged' in page;
  const now = nowIso();
  const stale = (await context.retrieval.listCrawlPages(datasourceId, { offset: 0, limit: 10 })).items.filter(
    (record) => record.url !== url,
  );
  await context.retrieval.deleteCrawlPages(
    datasourceId,
    stale.map((record) => record.url),
  );
  await context.retrieval.putCrawlPages([
    {
      datasourceId,
      url,
      status: unchanged ? 'unchanged' : 'fetched',
      reason: null,
      error: null,
      pageId: datasourceId,
      etag: validators.etag ?? null,
      lastModified: validators.lastModified ?? null,
      contentHash: validators.bodyHash ?? null,
      updatedAt: now,
    },
  ]);
  const counts = emptyCounts();
  counts.found = 1;
  if (unchanged) counts.unchanged = 1;
  else counts.fetched = 1;
  const result = { added: 0, changed: unchanged ? 0 : 1, removed: 0, unchanged: unchanged ? 1 : 0, failed: 0 };
  await context.retrieval.putCrawlState({ datasourceId, counts, startedAt: now, finishedAt: now, lastResult: result });
}

function requireAdapter<T>(adapter: T | undefined, what: string): T {
  if (!adapter) throw new RagdeskError('invalid_adapter', `This ragdesk instance has no ${what}`);
  return adapter;
}
