/** What callers read of a web datasource's crawls: live counts, the last result, the schedule, the pages. */
import { z } from 'zod';
import type { RagdeskContext } from '../context.js';
import type { DatasourceRecord } from '../ports/records.js';
import type { CrawlCounts, CrawlPageRecord, CrawlPageStatus, CrawlResult } from '../ports/store.js';
import { emptyCounts } from './crawl-tracker.js';
import { pendingRefresh } from './refresh-schedule.js';

/** The crawl side of a `web_page` or `web_site` datasource. */
export interface DatasourceCrawl {
  /** Counts of the crawl under way, or of the last one (all zero before the first). */
  counts: CrawlCounts;
  startedAt: string | null;
  /** Null while a crawl runs (and before the first). */
  finishedAt: string | null;
  /** What the last finished crawl changed. */
  lastResult: CrawlResult | null;
  /** The refresh schedule (`config.refresh`), null when it has none. */
  refresh: { every: string } | null;
  /** When the next scheduled refresh is due, null when none is. */
  nextRefreshAt: string | null;
}

/** One URL of a datasource's last crawl. */
export interface CrawlPage {
  url: string;
  status: CrawlPageStatus;
  /** Why it was skipped (`robots`, `type`, `limit`) or the failure's error code. */
  reason: string | null;
  error: string | null;
  /** The `web_page` datasource holding its chunks. */
  pageId: string | null;
  updatedAt: string;
}

export interface CrawlPageList {
  items: CrawlPage[];
  total: number;
  offset: number;
  limit: number;
}

export const crawlPagesQuerySchema = z
  .object({
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
    limit: z.coerce.number().int().min(1).max(200).default(50),
  })
  .strict();

export type CrawlPagesQuery = z.input<typeof crawlPagesQuerySchema>;

function isWebDatasource(record: Pick<DatasourceRecord, 'type'>): boolean {
  return record.type === 'web_page' || record.type === 'web_site';
}

/** The crawls of these datasources, by id: web pages and sites, not the pages of a site (its crawl is the site's). */
export async function readCrawls(context: RagdeskContext, records: readonly DatasourceRecord[]): Promise<Map<string, DatasourceCrawl>> {
  const web = records.filter((record) => isWebDatasource(record) && record.groupId === null);
  const states = new Map(
    (await context.retrieval.getCrawlStates(web.map((record) => record.id))).map((state) => [state.datasourceId, state]),
  );
  const crawls = new Map<string, DatasourceCrawl>();
  for (const record of web) {
    const state = states.get(record.id);
    const refresh = record.config.refresh as { every?: unknown } | null | undefined;
    crawls.set(record.id, {
      counts: state?.counts ?? emptyCounts(),
      startedAt: state?.startedAt ?? null,
      finishedAt: state?.finishedAt ?? null,
      lastResult: state?.lastResult ?? null,
      refresh: typeof refresh?.every === 'string' ? { every: refresh.every } : null,
      nextRefreshAt: (await pendingRefresh(context, record.id))?.runAt ?? null,
    });
  }
  return crawls;
}

export function crawlPageView(record: CrawlPageRecord): CrawlPage {
  return {
    url: record.url,
    status: record.status,
    reason: record.reason,
    error: record.error,
    pageId: record.pageId,
    updatedAt: record.updatedAt,
  };
}
