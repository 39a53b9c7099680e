import type pg from 'pg';
import type { CrawlPageRecord, CrawlState } from '../../src/ports/store.js';
import {
  CRAWL_PAGE_COLUMNS,
  crawlPageFromRow,
  crawlPageValues,
  crawlStateFromText,
  crawlStateText,
  type CrawlPageRow,
} from '../kit/crawl-rows.js';
import { inTransaction, selectRow, selectRows } from './connection.js';

const COLUMNS = CRAWL_PAGE_COLUMNS.join(', ');

/** Crawl states and pages; both rows go with their datasource (foreign keys, ON DELETE CASCADE). */
export function crawlQueries(pool: pg.Pool, s: string) {
  const putPage = `INSERT INTO ${s}.crawl_pages (${COLUMNS})
    SELECT ${CRAWL_PAGE_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')}
    WHERE EXISTS (SELECT 1 FROM ${s}.datasources WHERE id = $1)
    ON CONFLICT (datasource_id, url) DO UPDATE SET ${CRAWL_PAGE_COLUMNS.slice(2)
      .map((column) => `${column} = excluded.${column}`)
      .join(', ')}`;
  return {
    async putCrawlState(state: CrawlState): Promise<void> {
      await pool.query(
        `INSERT INTO ${s}.crawl_states (datasource_id, state) SELECT id, $2 FROM ${s}.datasources WHERE id = $1
         ON CONFLICT (datasource_id) DO UPDATE SET state = excluded.state`,
        [state.datasourceId, crawlStateText(state)],
      );
    },
    async getCrawlStates(ids: readonly string[]): Promise<CrawlState[]> {
      if (ids.length === 0) return [];
      const rows = await selectRows<{ datasource_id: string; state: string }>(
        pool,
        `SELECT datasource_id, state FROM ${s}.crawl_states WHERE datasource_id = ANY($1::text[])`,
        [ids],
      );
      const byId = new Map(rows.map((row) => [row.datasource_id, row.state]));
      return ids.flatMap((id) => {
        const text = byId.get(id);
        return text === undefined ? [] : [crawlStateFromText(text)];
      });
    },
    async putCrawlPages(pages: readonly CrawlPageRecord[]): Promise<void> {
      if (pages.length === 0) return;
      await inTransaction(pool, async (client) => {
        for (const page of pages) await client.query(putPage, crawlPageValues(page));
      });
    },
    async listCrawlPages(
      datasourceId: string,
      page: { offset: number; limit: number },
    ): Promise<{ items: CrawlPageRecord[]; total: number }> {
      const rows = await selectRows<CrawlPageRow>(
        pool,
        `SELECT ${COLUMNS} FROM ${s}.crawl_pages WHERE datasource_id = $1 ORDER BY url LIMIT $2 OFFSET $3`,
        [datasourceId, page.limit, page.offset],
      );
      const count = await selectRow<{ total: string }>(pool, `SELECT count(*) AS total FROM ${s}.crawl_pages WHERE datasource_id = $1`, [
        datasourceId,
      ]);
      return { items: rows.map(crawlPageFromRow), total: Number(count?.total ?? 0) };
    },
    async deleteCrawlPages(datasourceId: string, urls: readonly string[]): Promise<void> {
      if (urls.length === 0) return;
      await pool.query(`DELETE FROM ${s}.crawl_pages WHERE datasource_id = $1 AND url = ANY($2::text[])`, [datasourceId, urls]);
    },
  };
}
