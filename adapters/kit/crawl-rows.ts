import type { CrawlPageRecord, CrawlState } from '../../src/ports/store.js';

/**
 * Rows of crawl pages and crawl states for the SQL stores (SQLite and Postgres share the column
 * names). A crawl state is one JSON text: it is read and written whole, never searched.
 */
export const CRAWL_PAGE_COLUMNS = [
  'datasource_id',
  'url',
  'status',
  'reason',
  'error',
  'page_id',
  'etag',
  'last_modified',
  'content_hash',
  'updated_at',
  'fetched_at',
] as const;

export interface CrawlPageRow {
  datasource_id: string;
  url: string;
  status: string;
  reason: string | null;
  error: string | null;
  page_id: string | null;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  updated_at: string;
  fetched_at: string | null;
}

export function crawlPageValues(page: CrawlPageRecord): Array<string | null> {
  return [
    page.datasourceId,
    page.url,
    page.status,
    page.reason,
    page.error,
    page.pageId,
    page.etag,
    page.lastModified,
    page.contentHash,
    page.updatedAt,
    page.fetchedAt ?? null,
  ];
}

export function crawlPageFromRow(row: CrawlPageRow): CrawlPageRecord {
  return {
    datasourceId: row.datasource_id,
    url: row.url,
    status: row.status as CrawlPageRecord['status'],
    reason: row.reason,
    error: row.error,
    pageId: row.page_id,
    etag: row.etag,
    lastModified: row.last_modified,
    contentHash: row.content_hash,
    updatedAt: row.updated_at,
    // Absent rather than null when unknown: records written before the column read as they were.
    ...(row.fetched_at === null ? {} : { fetchedAt: row.fetched_at }),
  };
}

export function crawlStateText(state: CrawlState): string {
  return JSON.stringify(state);
}

export function crawlStateFromText(text: string): CrawlState {
  return JSON.parse(text) as CrawlState;
}
