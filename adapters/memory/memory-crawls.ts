import type { CrawlPageRecord, CrawlState } from '../../src/ports/store.js';

/** Crawl states and pages of the memory store, copied in and out; `known` says whether a datasource exists. */
export function memoryCrawls(known: (datasourceId: string) => boolean) {
  const states = new Map<string, CrawlState>();
  const pages = new Map<string, Map<string, CrawlPageRecord>>();
  const copy = <T>(value: T): T => structuredClone(value);

  return {
    putCrawlState(state: CrawlState): void {
      if (known(state.datasourceId)) states.set(state.datasourceId, copy(state));
    },
    getCrawlStates(ids: readonly string[]): CrawlState[] {
      return ids.flatMap((id) => {
        const state = states.get(id);
        return state ? [copy(state)] : [];
      });
    },
    putCrawlPages(records: readonly CrawlPageRecord[]): void {
      for (const record of records) {
        if (!known(record.datasourceId)) continue;
        let ofSource = pages.get(record.datasourceId);
        if (!ofSource) pages.set(record.datasourceId, (ofSource = new Map<string, CrawlPageRecord>()));
        // An unknown fetch time is left out, as the SQL stores read it back.
        const { fetchedAt, ...rest } = record;
        ofSource.set(record.url, fetchedAt === null || fetchedAt === undefined ? rest : { ...rest, fetchedAt });
      }
    },
    listCrawlPages(datasourceId: string, page: { offset: number; limit: number }): { items: CrawlPageRecord[]; total: number } {
      // Code point order, as the SQL stores sort (binary collation).
      const all = [...(pages.get(datasourceId)?.values() ?? [])].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
      return { items: all.slice(page.offset, page.offset + page.limit).map((record) => ({ ...record })), total: all.length };
    },
    deleteCrawlPages(datasourceId: string, urls: readonly string[]): void {
      const ofSource = pages.get(datasourceId);
      for (const url of urls) ofSource?.delete(url);
    },
    /** The datasource is deleted: its crawl goes with it. */
    dropDatasource(datasourceId: string): void {
      states.delete(datasourceId);
      pages.delete(datasourceId);
    },
  };
}
