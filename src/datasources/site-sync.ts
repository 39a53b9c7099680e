import { pageMetadata } from './page-metadata.js';
import type { RagdeskContext } from '../context.js';
import { writeDocuments, type DocumentWrite } from '../datastores/document-writer.js';
import { RagdeskError } from '../errors.js';
import type { DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import type { WebPage } from '../ports/web-loader.js';
import { nowIso } from '../util/ids.js';
import { newDatasource } from './new-datasource.js';
import type { DatasourceEvents } from './events.js';
import { documentLimits, documentTooLarge, usageLimit } from './usage-limits.js';

/** Default page cap of a site sync (the API leaves it open; 100 keeps a first sync short). */
const DEFAULT_MAX_PAGES = 100;

/**
 * Crawls a site and keeps one child `web_page` datasource per page (groupId = the site): new pages
 * are added, changed pages re-embedded (unchanged chunks are reused by hash), and pages that
 * vanished are removed. A page that failed transiently keeps its previous content.
 */
export async function syncSite(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  site: DatasourceRecord,
  events: DatasourceEvents,
  signal: AbortSignal,
): Promise<void> {
  const web = context.web;
  if (!web) throw new RagdeskError('invalid_adapter', 'This ragdesk instance has no web loading (createRagdesk({ web }))');
  const { retrieval: store } = context;
  const existing = new Map<string, DatasourceRecord>();
  for (const child of await store.listDatasources(datastore.id, { groupId: site.id })) {
    const url = child.config.source_url;
    if (typeof url === 'string') existing.set(url, child);
  }
  const config = site.config;
  const pageCap = context.usage.maxPagesPerSite;
  const requested = typeof config.max_pages === 'number' ? config.max_pages : DEFAULT_MAX_PAGES;
  // One page past the usage cap is enough to know the site is over it.
  const maxPages = pageCap === undefined ? requested : Math.min(requested, pageCap + 1);
  const keep = new Set<string>();
  const failures: string[] = [];
  let transientFailures = 0;
  const pages: WebPage[] = [];
  // A site is one datasource to its owner: its pages share the datasource's text limit. Counted as
  // pages arrive, so a site over it stops crawling there (100 pages of 220,000 characters were
  // 21,600 chunks and minutes of writing, all held until the write).
  const { maxChars } = documentLimits(context.usage);
  let characters = 0;

  for await (const item of web.crawlSite({
    ...(typeof config.sitemap === 'string' ? { sitemap: config.sitemap } : {}),
    ...(typeof config.source_url === 'string' ? { sourceUrl: config.source_url } : {}),
    maxPages,
    ...(typeof config.max_depth === 'number' ? { maxDepth: config.max_depth } : {}),
    ...(isStringList(config.include) ? { include: config.include } : {}),
    ...(isStringList(config.exclude) ? { exclude: config.exclude } : {}),
    signal,
  })) {
    if (!('document' in item)) {
      failures.push(`${item.url}: ${item.message}`);
      // A page that may come back keeps what it had; a page that is gone for good is dropped.
      if (item.retryable) {
        keep.add(item.url);
        transientFailures++;
      }
      continue;
    }
    for (const section of item.document.sections) characters += section.text.length;
    if (characters > maxChars) {
      throw documentTooLarge(
        `the site's pages have more than ${maxChars} characters of text (${pages.length + 1} pages read), the limit (usage.maxExtractedChars)`,
        { reason: 'too_much_text', characters, limit: maxChars, pages: pages.length + 1 },
      );
    }
    // The crawl has queued the page's links already; kept until the write, they were most of a
    // crawl's memory (pages of 220,000 links: 1.2 GB for 100 pages).
    pages.push({ ...item, links: [] });
    events.emit('progress', {
      datasourceId: site.id,
      datastoreId: datastore.id,
      pagesDone: pages.length,
      pagesTotal: null,
      chunksDone: 0,
      tokensDone: 0,
    });
  }
  if (pageCap !== undefined && pages.length > pageCap) {
    throw usageLimit(`The site has more than ${pageCap} pages, the limit per site`, { limit: pageCap });
  }
  // Every page is written in one batch: the token budget is checked for the whole site before
  // anything is stored, so a site over the limit leaves nothing partial behind.
  const writes = pages.map((page) => pageWrite(datastore, site, existing.get(page.finalUrl) ?? existing.get(page.url), page));
  await writeDocuments(context, datastore, writes);
  for (const [index, page] of pages.entries()) {
    existing.set(page.finalUrl, writes[index]!.datasource);
    keep.add(page.finalUrl);
  }
  signal.throwIfAborted();

  await removeVanished(
    context,
    datastore.id,
    [...existing.entries()].filter(([url]) => !keep.has(url)).map(([, child]) => child),
  );
  const children = await store.listDatasources(datastore.id, { groupId: site.id });
  const chunksDone = children.reduce((sum, child) => sum + child.nbChunks, 0);
  const tokensDone = children.reduce((sum, child) => sum + child.nbTokens, 0);
  events.emit('progress', {
    datasourceId: site.id,
    datastoreId: datastore.id,
    pagesDone: pages.length,
    pagesTotal: pages.length,
    chunksDone,
    tokensDone,
  });
  if (pages.length === 0 && failures.length > 0) {
    throw new RagdeskError('upstream_failed', `No page of the site could be loaded: ${failures.slice(0, 3).join('; ')}`, {
      retryable: transientFailures > 0,
    });
  }
  const now = nowIso();
  await store.updateDatasource(site.id, {
    status: 'synched',
    error: failures.length ? `${failures.length} page(s) failed: ${failures.slice(0, 3).join('; ')}` : null,
    nbChunks: chunksDone,
    nbTokens: tokensDone,
    lastSynch: now,
    updatedAt: now,
  });
}

function pageWrite(datastore: DatastoreRecord, site: DatasourceRecord, known: DatasourceRecord | undefined, page: WebPage): DocumentWrite {
  // A known page stays `synched` while its site syncs: the site's status tells the sync's state.
  if (known) return { datasource: known, isNew: false, content: page.document.sections };
  const child = newDatasource({
    datastoreId: datastore.id,
    type: 'web_page',
    name: page.title ?? page.finalUrl,
    groupId: site.id,
    customId: site.customId,
    config: { source_url: page.finalUrl },
    metadata: pageMetadata(site.metadata, { source: page.finalUrl }),
  });
  return { datasource: child, isNew: true, content: page.document.sections };
}

async function removeVanished(context: RagdeskContext, datastoreId: string, children: readonly DatasourceRecord[]): Promise<void> {
  if (children.length === 0) return;
  await context.writes.run(datastoreId, async () => {
    for (const child of children) {
      const change = await context.retrieval.deleteDatasource(child.id);
      if (change) await context.index.remove(datastoreId, change.removedIds, change.sequence);
    }
  });
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
