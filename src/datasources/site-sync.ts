import type { RagdeskContext } from '../context.js';
import { writeDocuments } from '../datastores/document-writer.js';
import { RagdeskError } from '../errors.js';
import type { DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import type { CrawlPageRecord } from '../ports/store.js';
import type { PageValidators, SiteCrawlOptions, WebPage, WebPageUnchanged } from '../ports/web-loader.js';
import { CrawlTracker, listAllCrawlPages, validatorsOf } from './crawl-tracker.js';
import { nowIso } from '../util/ids.js';
import type { DatasourceEvents } from './events.js';
import { pageWrite, SitePageWriter } from './site-page-writer.js';
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
  const [lastState] = await context.retrieval.getCrawlStates([site.id]);
  const tracker = new CrawlTracker(context.retrieval, site.id, nowIso, lastState?.lastResult ?? null);
  const written: { writer?: SitePageWriter } = {};
  try {
    await crawlAndWrite(context, datastore, site, events, signal, tracker, written);
  } catch (error) {
    // The new pages this crawl stored go again (a stop for shutdown keeps them: the resumed crawl
    // finds them). Either way no write of this crawl is left running once it returns: a deleted
    // site's pages are deleted after its crawl stops, and a late write would outlive them.
    if (signal.aborted) await written.writer?.stop();
    else await written.writer?.rollback().catch(() => undefined);
    // A crawl that stops (failure, limit, shutdown) is not shown as still under way; its result stays the last one's.
    await tracker.abandon().catch(() => undefined);
    throw error;
  }
}

async function crawlAndWrite(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  site: DatasourceRecord,
  events: DatasourceEvents,
  signal: AbortSignal,
  tracker: CrawlTracker,
  written: { writer?: SitePageWriter },
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
  /** Changed pages of known datasources: written when the crawl ends (a failed crawl keeps their content). */
  const pages: WebPage[] = [];
  let fetched = 0;
  const unchanged: WebPageUnchanged[] = [];
  // A site is one datasource to its owner: its pages share the datasource's text limit. Counted as
  // pages arrive, so a site over it stops crawling there (100 pages of 220,000 characters were
  // 21,600 chunks and minutes of writing, all held until the write).
  const { maxChars } = documentLimits(context.usage);
  let characters = 0;

  const before = await listAllCrawlPages(store, site.id);
  tracker.changed();
  // Only pages whose chunks are still there are asked for conditionally: a 304 must not leave a page without text.
  const previous = new Map(
    before.filter((record) => record.pageId !== null && existing.has(record.url)).map((record) => [record.url, validatorsOf(record)]),
  );
  const progress = (): void => {
    events.emit('progress', {
      datasourceId: site.id,
      datastoreId: datastore.id,
      pagesDone: fetched + unchanged.length,
      pagesTotal: null,
      chunksDone: written.writer?.storedChunks ?? 0,
      tokensDone: 0,
    });
  };
  // A page whose datasource is stored (during the crawl, or at its end for changed pages) is kept and recorded as fetched.
  const pageStored = (page: WebPage, child: DatasourceRecord): void => {
    existing.set(page.finalUrl, child);
    keep.add(page.finalUrl);
    tracker.page({
      ...blankPage(page.finalUrl),
      status: 'fetched',
      pageId: child.id,
      ...validatorColumns(page.validators ?? {}),
      fetchedAt: tracker.startedAt,
    });
  };
  const existingChildren = [...existing.values()];
  // New pages are stored as they come, so the site's chunk count moves during the crawl.
  const writer = new SitePageWriter(
    context,
    datastore,
    site,
    {
      chunks: existingChildren.reduce((sum, child) => sum + child.nbChunks, 0),
      tokens: existingChildren.reduce((sum, child) => sum + child.nbTokens, 0),
    },
    (page, child) => {
      pageStored(page, child);
      progress();
    },
  );
  written.writer = writer;
  const crawlOptions: SiteCrawlOptions = {
    ...(typeof config.sitemap === 'string' ? { sitemap: config.sitemap } : {}),
    ...(typeof config.source_url === 'string' ? { sourceUrl: config.source_url } : {}),
    maxPages,
    ...(typeof config.max_depth === 'number' ? { maxDepth: config.max_depth } : {}),
    ...(isStringList(config.include) ? { include: config.include } : {}),
    ...(isStringList(config.exclude) ? { exclude: config.exclude } : {}),
    signal,
    onUrl: (event) => {
      if (event.kind === 'found') tracker.counts.found++;
      else {
        tracker.counts.skipped[event.reason]++;
        tracker.page({ ...blankPage(event.url), status: 'skipped', reason: event.reason });
      }
      tracker.changed();
    },
  };
  const crawl =
    web.recrawlSite && previous.size > 0
      ? web.recrawlSite({ ...crawlOptions, previous: (url) => previous.get(url), known: [...previous.keys()] })
      : web.crawlSite(crawlOptions);

  for await (const item of crawl) {
    writer.throwIfFailed();
    if ('unchanged' in item) {
      unchanged.push(item);
      keep.add(item.finalUrl);
      tracker.counts.unchanged++;
      const child = existing.get(item.finalUrl) ?? existing.get(item.url);
      // Not requested (its sitemap <lastmod> is older): the last request's time stays the page's.
      const fetchedAt = item.requested === false ? (item.validators.fetchedAt ?? null) : tracker.startedAt;
      tracker.page({
        ...blankPage(item.finalUrl),
        status: 'unchanged',
        pageId: child?.id ?? null,
        ...validatorColumns(item.validators),
        fetchedAt,
      });
      progress();
      continue;
    }
    if (!('document' in item)) {
      if (item.skipped) {
        tracker.counts.skipped[item.skipped]++;
        tracker.page({ ...blankPage(item.url), status: 'skipped', reason: item.skipped, error: item.message });
      } else {
        tracker.counts.failed++;
        tracker.page({ ...blankPage(item.url), status: 'failed', reason: item.code, error: item.message });
      }
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
        `the site's pages have more than ${maxChars} characters of text (${fetched + 1} pages read), the limit (usage.maxExtractedChars)`,
        { reason: 'too_much_text', characters, limit: maxChars, pages: fetched + 1 },
      );
    }
    fetched++;
    // The crawl has queued the page's links already; kept until the write, they were most of a
    // crawl's memory (pages of 220,000 links: 1.2 GB for 100 pages).
    const page = { ...item, links: [] };
    const known = existing.get(item.finalUrl) ?? existing.get(item.url);
    // A page past the site's page cap is not stored: the crawl ends over the limit below.
    const overCap = pageCap !== undefined && fetched + unchanged.length > pageCap;
    if (known || overCap) pages.push(page);
    else writer.add(page);
    tracker.counts.fetched++;
    tracker.page({
      ...blankPage(item.finalUrl),
      status: 'fetched',
      ...validatorColumns(item.validators ?? {}),
      fetchedAt: tracker.startedAt,
    });
    progress();
  }
  const seenPages = fetched + unchanged.length;
  if (pageCap !== undefined && seenPages > pageCap) {
    throw usageLimit(`The site has more than ${pageCap} pages, the limit per site`, { limit: pageCap });
  }
  await writer.settle();
  // Changed pages in one batch: the token budget is checked for all of them before any is
  // stored; a failure here removes the new pages too (syncSite), leaving nothing of this crawl.
  const writes = pages.map((page) => pageWrite(datastore, site, existing.get(page.finalUrl) ?? existing.get(page.url), page));
  await writeDocuments(context, datastore, writes);
  const added = writer.written.length + writes.filter((write) => write.isNew).length;
  for (const [index, page] of pages.entries()) pageStored(page, writes[index]!.datasource);
  signal.throwIfAborted();

  const vanished = [...existing.entries()].filter(([url]) => !keep.has(url)).map(([, child]) => child);
  await removeVanished(context, datastore.id, vanished);
  // Records of URLs this crawl did not look at are the last crawl's: dropped with their pages.
  await tracker.settle();
  const stale = before.map((record) => record.url).filter((url) => !tracker.touched.has(url) && !keep.has(url));
  await store.deleteCrawlPages(site.id, stale);
  const children = await store.listDatasources(datastore.id, { groupId: site.id });
  const chunksDone = children.reduce((sum, child) => sum + child.nbChunks, 0);
  const tokensDone = children.reduce((sum, child) => sum + child.nbTokens, 0);
  events.emit('progress', {
    datasourceId: site.id,
    datastoreId: datastore.id,
    pagesDone: seenPages,
    pagesTotal: seenPages,
    chunksDone,
    tokensDone,
  });
  await tracker.finish({
    added,
    changed: writes.filter((write) => !write.isNew).length,
    removed: vanished.length,
    unchanged: unchanged.length,
    failed: tracker.counts.failed,
  });
  if (seenPages === 0 && failures.length > 0) {
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

function blankPage(url: string): Omit<CrawlPageRecord, 'datasourceId' | 'updatedAt'> {
  return {
    url,
    status: 'fetched',
    reason: null,
    error: null,
    pageId: null,
    etag: null,
    lastModified: null,
    contentHash: null,
    fetchedAt: null,
  };
}

function validatorColumns(validators: PageValidators): Pick<CrawlPageRecord, 'etag' | 'lastModified' | 'contentHash'> {
  return { etag: validators.etag ?? null, lastModified: validators.lastModified ?? null, contentHash: validators.bodyHash ?? null };
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
