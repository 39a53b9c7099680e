import type { RagdeskContext } from '../context.js';
import { notFound, RagdeskError } from '../errors.js';
import type { DatasourceRecord, DatasourceStatus, StatusEvent } from '../ports/records.js';
import { newId, nowIso } from '../util/ids.js';
import { idSchema, parseInput } from '../validation.js';
import { DatasourceEvents } from './events.js';
import { JobRunner, type JobRunnerOptions } from './job-runner.js';
import { settleInterrupted } from './interrupted.js';
import { newDatasource } from './new-datasource.js';
import { pageMetadata } from './page-metadata.js';
import { datasourceCreateSchema, datasourceUpdateSchema, type DatasourceCreateInput, type DatasourceUpdateInput } from './schemas.js';
import { isSettled } from './status-machine.js';
import {
  chunkPageSchema,
  chunkView,
  datasourcePageSchema,
  pageOf,
  type ChunkPage,
  type ChunkPageInput,
  type DatasourcePage,
  type DatasourcePageInput,
} from './pages.js';
import { scheduleRefresh } from './refresh-schedule.js';
import {
  crawlPagesQuerySchema,
  crawlPageView,
  readCrawls,
  type CrawlPageList,
  type CrawlPagesQuery,
  type DatasourceCrawl,
} from './crawl-view.js';
import { findDatasource, publicDatasource, publicDatasourceId } from '../datastores/document-ids.js';

/**
 * Whose ids a datasource id given to a method is read as. Document ids are unique within an owner
 * only: with `ownerId` (null: owner-less datastores), the id names that owner's datasource and
 * another owner's answers `not_found`; without it, the owner-less document with that id or any
 * datasource stored under the id itself (a library caller holds every datastore).
 */
export interface DatasourceLookup {
  ownerId?: string | null;
}

/**
 * `ragdesk.datasources`: the documents of datastores. Files, web pages and sites are synced in the
 * background by persisted jobs; `events` reports status changes and progress.
 */
export class DatasourceService {
  readonly events = new DatasourceEvents();
  private readonly runner: JobRunner;
  /** Records last changed before this are a previous run's (see `settleInterrupted`). */
  private readonly openedAt = nowIso();
  private started: Promise<void> | undefined;

  /** @internal Created by `createRagdesk`. */
  constructor(
    private readonly context: RagdeskContext,
    jobs: JobRunnerOptions = {},
  ) {
    this.runner = new JobRunner(context, this.events, jobs);
    context.onClose(() => this.runner.close());
  }

  /**
   * Resumes jobs a previous run left unfinished, and moves on datasources a crash left pending or
   * running without a job. Called by `createRagdesk`; safe to call again.
   */
  start(): Promise<void> {
    this.started ??= this.runner
      .start()
      .then(() => settleInterrupted(this.context, this.events, this.openedAt, (record) => this.enqueue(record)));
    return this.started;
  }

  /**
   * Datasource Create: creates a `file`, `web_page` or `web_site` datasource in `pending` and queues
   * its sync. A file's size and type are checked first: nothing is stored for a refused file.
   */
  async create(input: DatasourceCreateInput): Promise<DatasourceRecord> {
    const parsed = parseInput(datasourceCreateSchema, input, 'datasource');
    return this.context.operation(() => this.createNow(parsed));
  }

  private async createNow(parsed: ReturnType<typeof datasourceCreateSchema.parse>): Promise<DatasourceRecord> {
    await this.start();
    const datastore = await this.context.retrieval.getDatastore(parsed.datastoreId);
    if (!datastore) throw notFound('datastore', parsed.datastoreId);
    let mimeType: string | undefined;
    if (parsed.type === 'file') {
      if (!this.context.files)
        throw new RagdeskError('invalid_adapter', 'This ragdesk instance has no file loading (createRagdesk({ files }))');
      mimeType = this.context.files.inspect(parsed.file).mimeType;
    } else if (!this.context.web) {
      throw new RagdeskError('invalid_adapter', 'This ragdesk instance has no web loading (createRagdesk({ web }))');
    }
    const record = newDatasource({
      datastoreId: datastore.id,
      type: parsed.type,
      name: parsed.name?.trim() || (parsed.type === 'file' ? (parsed.file.fileName ?? '') : ''),
      customId: parsed.custom_id ?? null,
      config:
        parsed.type === 'file'
          ? { mime_type: mimeType, file_name: parsed.file.fileName ?? null, file_size: parsed.file.bytes.byteLength }
          : { ...parsed.config },
      metadata: parsed.metadata ?? {},
    });
    await this.context.retrieval.createDatasource(record);
    if (parsed.type === 'file') {
      await this.context.retrieval.putDatasourceFile(record.id, {
        bytes: parsed.file.bytes,
        mimeType: mimeType as string,
        fileName: parsed.file.fileName ?? null,
      });
    }
    await this.enqueue(record);
    return publicDatasource(record);
  }

  /** Queues a re-sync of a finished datasource (back through `pending`). */
  async sync(id: string, lookup: DatasourceLookup = {}): Promise<DatasourceRecord> {
    return this.context.operation(() => this.syncNow(id, lookup));
  }

  private async syncNow(id: string, lookup: DatasourceLookup): Promise<DatasourceRecord> {
    const record = await this.stored(id, lookup);
    await this.start();
    if (record.type === 'text') throw new RagdeskError('conflict', `Text datasource ${id} changes through datastore.update, not sync`);
    if (!isSettled(record.status)) return publicDatasource(record);
    const moved = await this.context.retrieval.transitionDatasource(record.id, ['synched', 'error', 'usage_limit_reached', 'unsynched'], {
      status: 'pending',
      updatedAt: nowIso(),
    });
    if (!moved) return publicDatasource(await this.stored(record.id, {}));
    this.emitStatus(record, 'pending');
    await this.enqueue(moved);
    return publicDatasource(moved);
  }

  /** Resolves when the datasource reaches a settled status (or rejects after `timeoutMs`). */
  async waitUntilSettled(id: string, timeoutMs = 60_000, lookup: DatasourceLookup = {}): Promise<DatasourceRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await this.get(id, lookup);
      if (isSettled(record.status)) return record;
      if (Date.now() > deadline)
        throw new RagdeskError('upstream_failed', `Datasource ${id} is still ${record.status} after ${timeoutMs} ms`, { retryable: true });
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.events.off('status', listener);
          resolve();
        };
        const listener = (event: { datasourceId: string }) => {
          if (event.datasourceId === record.id) done();
        };
        const timer = setTimeout(done, 200);
        this.events.on('status', listener);
      });
    }
  }

  /** The datasource with this id (see {@link DatasourceLookup}); throws `not_found` when there is none. */
  async get(id: string, lookup: DatasourceLookup = {}): Promise<DatasourceRecord> {
    return publicDatasource(await this.stored(id, lookup));
  }

  /** The record as stored, under its stored id. */
  private async stored(id: string, lookup: DatasourceLookup): Promise<DatasourceRecord> {
    parseInput(idSchema, id, 'datasource id');
    this.context.assertOpen();
    const found = await findDatasource(this.context, id, lookup.ownerId);
    if (!found) throw notFound('datasource', id);
    return found.datasource;
  }

  /** Datasources of a datastore, oldest first. Throws `not_found` for an unknown datastore. */
  async list(datastoreId: string): Promise<DatasourceRecord[]> {
    parseInput(idSchema, datastoreId, 'datastore id');
    this.context.assertOpen();
    if (!(await this.context.retrieval.getDatastore(datastoreId))) throw notFound('datastore', datastoreId);
    return (await this.context.retrieval.listDatasources(datastoreId)).map(publicDatasource);
  }

  /**
   * One page of a datastore's datasources, oldest first, with the number that match. `name` keeps
   * those whose name contains it (any case); `groupId` keeps the top-level ones (`none`) or the
   * pages of one site. The console pages through 10,000 datasources this way.
   */
  async page(datastoreId: string, options: DatasourcePageInput = {}): Promise<DatasourcePage> {
    const parsed = parseInput(datasourcePageSchema, options, 'datasource page');
    const group = parsed.groupId === undefined ? undefined : parsed.groupId === 'none' ? null : parsed.groupId;
    const store = this.context.retrieval;
    if (store.pageDatasources) {
      parseInput(idSchema, datastoreId, 'datastore id');
      this.context.assertOpen();
      if (!(await store.getDatastore(datastoreId))) throw notFound('datastore', datastoreId);
      const page = await store.pageDatasources(datastoreId, {
        offset: parsed.offset,
        limit: parsed.limit,
        ...(parsed.name ? { nameContains: parsed.name } : {}),
        ...(group === undefined ? {} : { groupId: group }),
      });
      return { datasources: page.items.map(publicDatasource), total: page.total, ...pageOf(parsed) };
    }
    // A store without pages: every datasource is read and the page cut here.
    const all = await this.list(datastoreId);
    const needle = parsed.name?.toLocaleLowerCase();
    const matching = all.filter(
      (record) =>
        (group === undefined || record.groupId === group) && (needle === undefined || record.name.toLocaleLowerCase().includes(needle)),
    );
    return { datasources: matching.slice(parsed.offset, parsed.offset + parsed.limit), total: matching.length, ...pageOf(parsed) };
  }

  /**
   * One page of a datasource's chunks in reading order (`position`), with the number that match.
   * `q` keeps the chunks whose text contains it (any case): a plain text filter, so the order and
   * the paging stay stable, unlike a ranked search.
   */
  async chunks(id: string, options: ChunkPageInput = {}, lookup: DatasourceLookup = {}): Promise<ChunkPage> {
    const parsed = parseInput(chunkPageSchema, options, 'chunk page');
    const record = await this.stored(id, lookup);
    const store = this.context.retrieval;
    if (store.pageChunks) {
      const page = await store.pageChunks(record.id, {
        offset: parsed.offset,
        limit: parsed.limit,
        ...(parsed.q ? { textContains: parsed.q } : {}),
      });
      return { chunks: page.items.map(chunkView), total: page.total, ...pageOf(parsed) };
    }
    // A store without pages: every chunk of the datasource is read and the page cut here.
    const all = await store.listChunks(record.id);
    const needle = parsed.q?.toLocaleLowerCase();
    const matching = needle ? all.filter((chunk) => chunk.text.toLocaleLowerCase().includes(needle)) : all;
    return {
      chunks: matching.slice(parsed.offset, parsed.offset + parsed.limit).map(chunkView),
      total: matching.length,
      ...pageOf(parsed),
    };
  }

  /**
   * Datasource Update: renames a datasource or replaces its metadata, without loading or embedding
   * anything. A site's pages take the site's new metadata (each keeps its own `source`), as they
   * took it when they were found.
   */
  async update(id: string, input: DatasourceUpdateInput, lookup: DatasourceLookup = {}): Promise<DatasourceRecord> {
    const parsed = parseInput(datasourceUpdateSchema, input, 'datasource update');
    return this.context.operation(async () => {
      const record = await this.stored(id, lookup);
      const storedId = record.id;
      const now = nowIso();
      if (parsed.refresh !== undefined && record.type !== 'web_page' && record.type !== 'web_site') {
        throw new RagdeskError('invalid_request', 'only web_page and web_site datasources have a refresh schedule', {
          details: { issues: [{ path: 'refresh', message: `a ${record.type} datasource is not refreshed` }] },
        });
      }
      const patch = {
        ...(parsed.name === undefined ? {} : { name: parsed.name }),
        ...(parsed.metadata === undefined ? {} : { metadata: parsed.metadata }),
        ...(parsed.refresh === undefined ? {} : { config: { ...record.config, refresh: parsed.refresh } }),
        updatedAt: now,
      };
      const updated = await this.context.retrieval.updateDatasource(storedId, patch);
      if (!updated) throw notFound('datasource', id);
      if (parsed.refresh !== undefined) {
        // The next refresh counts from the last sync; a datasource syncing now is scheduled when it ends.
        const clock = this.runner.now();
        if (isSettled(updated.status)) {
          await scheduleRefresh(this.context, updated, updated.lastSynch ? Math.min(Date.parse(updated.lastSynch), clock) : clock, clock);
        }
        this.runner.wake();
      }
      if (parsed.metadata !== undefined && record.type === 'web_site') {
        for (const page of await this.context.retrieval.listDatasources(record.datastoreId, { groupId: storedId })) {
          await this.context.retrieval.updateDatasource(page.id, {
            metadata: pageMetadata(parsed.metadata, page.metadata),
            updatedAt: now,
          });
        }
      }
      return publicDatasource(updated);
    });
  }

  /**
   * The crawl side of a `web_page` or `web_site` datasource: the counts of the crawl under way
   * (written as it goes) or of the last one, what the last one changed, the refresh schedule and
   * the next refresh. Null for other types.
   */
  async crawl(id: string, lookup: DatasourceLookup = {}): Promise<DatasourceCrawl | null> {
    const record = await this.stored(id, lookup);
    return (await readCrawls(this.context, [record])).get(record.id) ?? null;
  }

  /** `crawl` of several datasources at once (the web ones), by id; for lists. */
  async crawls(records: readonly DatasourceRecord[]): Promise<Map<string, DatasourceCrawl>> {
    this.context.assertOpen();
    return readCrawls(this.context, records);
  }

  /**
   * The URLs a web datasource's last crawl looked at, by URL, a page at a time: loaded, unchanged,
   * skipped (robots.txt, type, page limit) or failed, with the error.
   */
  async pages(id: string, query: CrawlPagesQuery = {}, lookup: DatasourceLookup = {}): Promise<CrawlPageList> {
    const { offset, limit } = parseInput(crawlPagesQuerySchema, query, 'pages query');
    const record = await this.stored(id, lookup);
    const { items, total } = await this.context.retrieval.listCrawlPages(record.id, { offset, limit });
    return { items: items.map(crawlPageView), total, offset, limit };
  }

  /** Every persisted status change of a datasource, oldest first. */
  async history(id: string, lookup: DatasourceLookup = {}): Promise<StatusEvent[]> {
    const record = await this.stored(id, lookup);
    const events = await this.context.retrieval.listStatusEvents(record.id);
    return events.map((event) => ({ ...event, datasourceId: publicDatasourceId(event.datasourceId) }));
  }

  /**
   * Deletes a datasource, the datasources grouped under it, their chunks (store and index), files
   * and jobs; a running sync is stopped first. Returns the deleted record.
   */
  async delete(id: string, lookup: DatasourceLookup = {}): Promise<DatasourceRecord> {
    return this.context.operation(() => this.deleteNow(id, lookup));
  }

  private async deleteNow(publicId: string, lookup: DatasourceLookup): Promise<DatasourceRecord> {
    const record = await this.stored(publicId, lookup);
    const { id } = record;
    const { retrieval: store, index } = this.context;
    const children = await store.listDatasources(record.datastoreId, { groupId: id });
    for (const target of [record, ...children]) await this.runner.cancel(target.id);
    const datastore = await store.getDatastore(record.datastoreId);
    if (datastore) await this.context.ensureIndex(datastore);
    await this.context.writes.run(record.datastoreId, async () => {
      for (const target of [...(await store.listDatasources(record.datastoreId, { groupId: id })), record]) {
        const change = await store.deleteDatasource(target.id);
        if (change) await index.remove(record.datastoreId, change.removedIds, change.sequence);
      }
    });
    return publicDatasource(record);
  }

  /** Stops every running sync of a datastore's datasources (the datastore is being deleted). */
  async stopSyncsOf(datastoreId: string): Promise<void> {
    for (const source of await this.context.retrieval.listDatasources(datastoreId)) await this.runner.cancel(source.id);
  }

  private async enqueue(record: DatasourceRecord): Promise<void> {
    const now = nowIso();
    await this.context.retrieval.createJob({
      id: newId(),
      kind: 'sync',
      datastoreId: record.datastoreId,
      datasourceId: record.id,
      status: 'pending',
      attempts: 0,
      // Due by the runner's clock, which claims it.
      runAt: new Date(this.runner.now()).toISOString(),
      leaseOwner: null,
      leaseUntil: null,
      lastError: null,
      createdAt: now,
      updatedAt: now,
    });
    this.runner.wake();
  }

  private emitStatus(record: DatasourceRecord, to: DatasourceStatus): void {
    this.events.emit('status', {
      datasourceId: publicDatasourceId(record.id),
      datastoreId: record.datastoreId,
      from: record.status,
      to,
      message: null,
    });
  }
}
