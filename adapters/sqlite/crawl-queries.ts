import type { CrawlPageRecord, CrawlState } from '../../src/ports/store.js';
import {
  CRAWL_PAGE_COLUMNS,
  crawlPageFromRow,
  crawlPageValues,
  crawlStateFromText,
  crawlStateText,
  type CrawlPageRow,
} from '../kit/crawl-rows.js';
import { inTransaction, type SqliteDatabase } from './database.js';

const COLUMNS = CRAWL_PAGE_COLUMNS.join(', ');

/** Crawl states and pages; both rows go with their datasource (foreign keys, ON DELETE CASCADE). */
export function crawlQueries(db: SqliteDatabase) {
  const putState = db.prepare(
    `INSERT INTO crawl_states (datasource_id, state) SELECT id, ? FROM datasources WHERE id = ?
     ON CONFLICT (datasource_id) DO UPDATE SET state = excluded.state`,
  );
  const selectState = db.prepare('SELECT state FROM crawl_states WHERE datasource_id = ?');
  const putPage = db.prepare(
    `INSERT INTO crawl_pages (${COLUMNS}) SELECT ${CRAWL_PAGE_COLUMNS.map(() => '?').join(', ')} WHERE EXISTS (SELECT 1 FROM datasources WHERE id = ?)
     ON CONFLICT (datasource_id, url) DO UPDATE SET ${CRAWL_PAGE_COLUMNS.slice(2)
       .map((column) => `${column} = excluded.${column}`)
       .join(', ')}`,
  );
  const selectPages = db.prepare(`SELECT ${COLUMNS} FROM crawl_pages WHERE datasource_id = ? ORDER BY url LIMIT ? OFFSET ?`);
  const countPages = db.prepare('SELECT count(*) AS total FROM crawl_pages WHERE datasource_id = ?');
  const deletePage = db.prepare('DELETE FROM crawl_pages WHERE datasource_id = ? AND url = ?');

  return {
    putCrawlState(state: CrawlState): void {
      putState.run(crawlStateText(state), state.datasourceId);
    },
    getCrawlStates(ids: readonly string[]): CrawlState[] {
      return ids.flatMap((id) => {
        const row = selectState.get(id) as { state: string } | undefined;
        return row ? [crawlStateFromText(row.state)] : [];
      });
    },
    putCrawlPages(pages: readonly CrawlPageRecord[]): void {
      // One transaction per call: a crawl writes its pages in small groups as they come.
      inTransaction(db, () => {
        for (const page of pages) putPage.run(...crawlPageValues(page), page.datasourceId);
      });
    },
    listCrawlPages(datasourceId: string, page: { offset: number; limit: number }): { items: CrawlPageRecord[]; total: number } {
      const rows = selectPages.all(datasourceId, page.limit, page.offset) as CrawlPageRow[];
      const { total } = countPages.get(datasourceId) as { total: number };
      return { items: rows.map(crawlPageFromRow), total };
    },
    deleteCrawlPages(datasourceId: string, urls: readonly string[]): void {
      inTransaction(db, () => {
        for (const url of urls) deletePage.run(datasourceId, url);
      });
    },
  };
}
