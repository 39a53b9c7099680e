import type { RagdeskContext } from '../context.js';
import { writeDocuments, type DocumentWrite } from '../datastores/document-writer.js';
import type { DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import type { WebPage } from '../ports/web-loader.js';
import { newDatasource } from './new-datasource.js';
import { pageMetadata } from './page-metadata.js';

/** A page's write: into its known `web_page` datasource, or a new one in the site's group. */
export function pageWrite(
  datastore: DatastoreRecord,
  site: DatasourceRecord,
  known: DatasourceRecord | undefined,
  page: WebPage,
): DocumentWrite {
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

/**
 * Stores a crawl's new pages while the crawl goes on, so the site's chunk count (and the
 * datastore's totals, which sum the pages) move with it. One write at a time: pages that arrive
 * during a write go together in the next. After each write the site's own `nbChunks` / `nbTokens`
 * are raised by what was stored. Changed pages are not written here: the crawl's end writes them,
 * so a crawl that fails keeps their last content; the new pages written here are removed again
 * (`rollback`), leaving nothing of the failed crawl behind.
 */
export class SitePageWriter {
  /** New `web_page` datasources stored so far, as stored (with their counts). */
  readonly written: DatasourceRecord[] = [];
  private queue: WebPage[] = [];
  private writing: Promise<void> | undefined;
  private failure: Error | undefined;
  private chunks: number;
  private tokens: number;

  constructor(
    private readonly context: RagdeskContext,
    private readonly datastore: DatastoreRecord,
    private readonly site: DatasourceRecord,
    /** The site's counts when the crawl started (its pages already stored). */
    private readonly baseline: { chunks: number; tokens: number },
    /** Called for each page once its datasource is stored. */
    private readonly onStored: (page: WebPage, child: DatasourceRecord) => void,
  ) {
    this.chunks = baseline.chunks;
    this.tokens = baseline.tokens;
  }

  /** The site's chunks now: the pages it had plus the new ones stored. */
  get storedChunks(): number {
    return this.chunks;
  }

  /** Queues a new page; a write starts at once unless one is running (it takes the page next). */
  add(page: WebPage): void {
    this.queue.push(page);
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
    });
  }

  /** Throws what a write threw so far (the crawl stops at once instead of at its end). */
  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Waits until every queued page is stored; throws what a write threw. */
  async settle(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Waits for the write under way, if any, and starts no other (a stopped crawl must not write after it returns). */
  async stop(): Promise<void> {
    this.queue = [];
    while (this.writing) await this.writing;
  }

  /** The crawl failed: its new pages go, and the site's counts are what they were. */
  async rollback(): Promise<void> {
    await this.stop();
    const written = this.written.splice(0);
    if (written.length === 0) return;
    await this.context.writes.run(this.datastore.id, async () => {
      for (const child of written) {
        const change = await this.context.retrieval.deleteDatasource(child.id);
        if (change) await this.context.index.remove(this.datastore.id, change.removedIds, change.sequence);
      }
    });
    await this.context.retrieval.updateDatasource(this.site.id, { nbChunks: this.baseline.chunks, nbTokens: this.baseline.tokens });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0 && this.failure === undefined) {
        const pages = this.queue;
        this.queue = [];
        const writes = pages.map((page) => pageWrite(this.datastore, this.site, undefined, page));
        await writeDocuments(this.context, this.datastore, writes);
        const stored = await this.context.retrieval.getDatasources(writes.map((write) => write.datasource.id));
        for (const child of stored) {
          this.written.push(child);
          this.chunks += child.nbChunks;
          this.tokens += child.nbTokens;
        }
        const byId = new Map(stored.map((child) => [child.id, child]));
        pages.forEach((page, index) => {
          const child = byId.get(writes[index]!.datasource.id);
          if (child) this.onStored(page, child);
        });
        await this.context.retrieval.updateDatasource(this.site.id, { nbChunks: this.chunks, nbTokens: this.tokens });
      }
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
    }
  }
}
