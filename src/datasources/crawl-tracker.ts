import type { CrawlCounts, CrawlPageRecord, CrawlResult, CrawlState, RetrievalStore } from '../ports/store.js';
import type { PageValidators } from '../ports/web-loader.js';

export function emptyCounts(): CrawlCounts {
  return { found: 0, fetched: 0, unchanged: 0, skipped: { robots: 0, type: 0, limit: 0 }, failed: 0 };
}

/** The validators a page record keeps, in the loader's terms. */
export function validatorsOf(record: CrawlPageRecord): PageValidators {
  return { etag: record.etag, lastModified: record.lastModified, bodyHash: record.contentHash, fetchedAt: record.fetchedAt ?? null };
}

/** A datasource's pages as the last crawl left them, read in groups (a site has at most `max_pages` of them, plus skips). */
export async function listAllCrawlPages(store: RetrievalStore, datasourceId: string): Promise<CrawlPageRecord[]> {
  const all: CrawlPageRecord[] = [];
  for (let offset = 0; ; offset += 1_000) {
    const { items, total } = await store.listCrawlPages(datasourceId, { offset, limit: 1_000 });
    all.push(...items);
    if (items.length === 0 || all.length >= total) return all;
  }
}

/**
 * The counts and page records of one crawl, written to the store while it runs so that readers
 * (the datasource's GET, its pages list) see it move. Writes are chained and coalesced: an event
 * never waits for the store, and a burst of events costs one write of the latest counts.
 */
export class CrawlTracker {
  readonly counts = emptyCounts();
  /** When this crawl started: the request time its pages are recorded with (`fetchedAt`), on the safe side. */
  readonly startedAt: string;
  /** URLs this crawl recorded a page for. */
  readonly touched = new Set<string>();
  private pendingPages = new Map<string, CrawlPageRecord>();
  private dirty = false;
  private writing: Promise<void> | undefined;
  private failure: Error | undefined;

  constructor(
    private readonly store: RetrievalStore,
    private readonly datasourceId: string,
    private readonly now: () => string,
    private readonly lastResult: CrawlResult | null,
  ) {
    this.startedAt = now();
  }

  /** Records a page (replacing an earlier record of its URL in this crawl) and counts nothing. */
  page(record: Omit<CrawlPageRecord, 'datasourceId' | 'updatedAt'>): void {
    this.touched.add(record.url);
    this.pendingPages.set(record.url, { ...record, datasourceId: this.datasourceId, updatedAt: this.now() });
    this.changed();
  }

  /** The counts changed: write them (soon). */
  changed(): void {
    this.dirty = true;
    this.writing ??= this.flush().finally(() => {
      this.writing = undefined;
    });
  }

  /** Waits for what was recorded so far to be written; throws what a write threw. */
  async settle(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failure) throw this.failure;
  }

  /** Writes the final state with the crawl's result. */
  async finish(result: CrawlResult): Promise<void> {
    await this.settle();
    await this.store.putCrawlState(this.state(this.now(), result));
  }

  /** Writes the state as stopped, keeping the last finished crawl's result. */
  async abandon(): Promise<void> {
    while (this.writing) await this.writing;
    await this.store.putCrawlState(this.state(this.now(), this.lastResult));
  }

  private state(finishedAt: string | null, result: CrawlResult | null): CrawlState {
    return {
      datasourceId: this.datasourceId,
      counts: structuredClone(this.counts),
      startedAt: this.startedAt,
      finishedAt,
      lastResult: result,
    };
  }

  private async flush(): Promise<void> {
    try {
      while (this.dirty) {
        this.dirty = false;
        const pages = [...this.pendingPages.values()];
        this.pendingPages = new Map();
        if (pages.length > 0) await this.store.putCrawlPages(pages);
        await this.store.putCrawlState(this.state(null, this.lastResult));
      }
    } catch (error) {
      this.failure ??= error instanceof Error ? error : new Error(String(error));
    }
  }
}
