/**
 * The store conformance suites (`ragdesk/testing`): every store adapter runs them; an adapter is
 * done when it passes. Like unstorage's shared driver tests, a suite only needs a factory; like
 * Auth.js's adapter tests, it can also check what the adapter wrote with the adapter's own queries.
 *
 *   const stores = () => sqliteStores({ path: fresh() });
 *   describeRetrievalStoreConformance('sqlite', { create: async () => stores().retrieval, ... });
 *   describeAccountStoreConformance('sqlite', { create: async () => stores().accounts, ... });
 *
 * The retrieval suite's parts follow the parts of `RetrievalStore`: records (`DatastoreStore`,
 * `DatasourceStore`), chunks (`ChunkStore`), search and lifecycle (`TextSearchStore`, `close`) and
 * the datasource pipeline (`DatasourceStore` status and files, `JobStore`) and crawls (`CrawlStore`). The account suite's
 * follow `AccountStore`: agents (`AgentStore`, `ConversationStore`, `ApiKeyStore`, `UsageStore`)
 * and uploads (`UploadStore`).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatasourceRecord } from '../ports/records.js';
import type { AccountStore, DatasourcePatch, RetrievalStore, Store, StoreLifecycle } from '../ports/store.js';
import { describeAccountCloseConformance } from './store-conformance-account-close.js';
import { describeAgentConformance } from './store-conformance-agents.js';
import { describeBigReplaceConformance } from './store-conformance-big-replace.js';
import { describeChunkConformance } from './store-conformance-chunks.js';
import { describeCrawlConformance } from './store-conformance-crawls.js';
import { describeConversationReadingConformance } from './store-conformance-conversations.js';
import { describeDocumentIdConformance } from './store-conformance-document-ids.js';
import { describeJobConformance } from './store-conformance-jobs.js';
import { describeMetadataFilterConformance } from './store-conformance-metadata.js';
import { describeOwnerIdConformance } from './store-conformance-owner-ids.js';
import { describePageConformance } from './store-conformance-pages.js';
import { describeScriptConformance } from './store-conformance-scripts.js';
import { describeSearchConformance } from './store-conformance-search.js';
import { describeUploadConformance } from './store-conformance-uploads.js';
import { isoAt, makeDatasource, makeDatastore } from './fixtures.js';
import { expectCode, type StoreHarness, type StoreSuiteContext } from './store-harness.js';

export type { StoreHarness } from './store-harness.js';

/** The `RetrievalStore` suite: datastores, datasources, chunks, search, jobs, crawls. */
export function describeRetrievalStoreConformance(name: string, harness: StoreHarness<RetrievalStore>): void {
  describeStoreSuite(`Retrieval store conformance: ${name}`, harness, (context) => {
    describeRecordConformance(context);
    describeChunkConformance(context);
    describePageConformance(context);
    describeBigReplaceConformance(context);
    describeSearchConformance(context);
    describeMetadataFilterConformance(context);
    describeScriptConformance(context);
    describeJobConformance(context);
    describeCrawlConformance(context);
    describeDocumentIdConformance(context);
  });
}

/** The `AccountStore` suite: agents, conversations and messages, API keys, usage, uploads. */
export function describeAccountStoreConformance(name: string, harness: StoreHarness<AccountStore>): void {
  describeStoreSuite(`Account store conformance: ${name}`, harness, (context) => {
    describeAgentConformance(context);
    describeUploadConformance(context);
    describeConversationReadingConformance(context);
    describeOwnerIdConformance(context);
    describeAccountCloseConformance(context);
  });
}

/**
 * Both suites against one object serving as both stores.
 *
 * @deprecated Run `describeRetrievalStoreConformance` and `describeAccountStoreConformance`.
 */
export function describeStoreConformance(name: string, harness: StoreHarness<Store>): void {
  describeRetrievalStoreConformance(name, harness);
  describeAccountStoreConformance(name, harness);
}

/** A fresh store from the harness before each test, every store it opened closed after. */
function describeStoreSuite<S extends StoreLifecycle>(
  title: string,
  harness: StoreHarness<S>,
  parts: (context: StoreSuiteContext<S>) => void,
): void {
  describe(title, () => {
    const opened: S[] = [];
    let current: S | undefined;

    const context: StoreSuiteContext<S> = {
      harness,
      store() {
        if (current === undefined) throw new Error('no store: the suite creates one before each test');
        return current;
      },
      async reopen() {
        if (harness.reopen === undefined) throw new Error('this harness has no reopen()');
        await context.store().close();
        const reopened = await harness.reopen();
        current = reopened;
        opened.push(reopened);
        return reopened;
      },
    };

    beforeEach(async () => {
      const created = await harness.create();
      current = created;
      opened.push(created);
    });

    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      current = undefined;
      await harness.cleanup?.();
    });

    parts(context);
  });
}

/** Record part: `DatastoreStore` and the record methods of `DatasourceStore`. */
function describeRecordConformance(context: StoreSuiteContext<RetrievalStore>): void {
  const store = () => context.store();

  describe('owners', () => {
    it("keeps a datastore's owner and lists one owner's datastores, oldest first", async () => {
      const mine = makeDatastore({ name: 'Mine', ownerId: 'owner-a', createdAt: isoAt(3) });
      const mineOlder = makeDatastore({ name: 'Mine older', ownerId: 'owner-a', createdAt: isoAt(1) });
      const theirs = makeDatastore({ name: 'Theirs', ownerId: 'owner-b', createdAt: isoAt(2) });
      const nobody = makeDatastore({ name: 'Nobody', createdAt: isoAt(0) });
      for (const record of [mine, theirs, nobody, mineOlder]) await store().createDatastore(record);
      expect(await store().getDatastore(mine.id)).toEqual(mine);
      expect(await store().getDatastore(nobody.id)).toEqual({ ...nobody, ownerId: null });
      const names = async (filter?: { ownerId?: string }) => (await store().listDatastores(filter)).map((d) => d.name);
      expect(await names({ ownerId: 'owner-a' })).toEqual(['Mine older', 'Mine']);
      expect(await names({ ownerId: 'owner-b' })).toEqual(['Theirs']);
      expect(await names({ ownerId: 'owner-c' })).toEqual([]);
      expect(await names({})).toEqual(['Nobody', 'Mine older', 'Theirs', 'Mine']);
      expect(await names()).toEqual(['Nobody', 'Mine older', 'Theirs', 'Mine']);
      // A datastore patch never moves it to another owner.
      const updated = await store().updateDatastore(mine.id, { name: 'Renamed', ownerId: 'owner-b' } as never);
      expect(updated).toEqual({ ...mine, name: 'Renamed' });
      expect(await names({ ownerId: 'owner-b' })).toEqual(['Theirs']);
    });
  });

  describe('datastores', () => {
    it('creates, reads back equal copies, and returns null for unknown ids', async () => {
      const record = makeDatastore({ name: 'Support' });
      await store().createDatastore(record);
      const read = await store().getDatastore(record.id);
      expect(read).toEqual(record);
      read!.name = 'mutated';
      record.name = 'mutated too';
      expect((await store().getDatastore(record.id))?.name).toBe('Support');
      expect(await store().getDatastore('missing')).toBeNull();
    });

    it('rejects a duplicate id with conflict', async () => {
      await store().createDatastore(makeDatastore({ id: 'same', name: 'First' }));
      await expectCode(store().createDatastore(makeDatastore({ id: 'same', name: 'Second' })), 'conflict');
      expect((await store().getDatastore('same'))?.name).toBe('First');
    });

    it('lists oldest first', async () => {
      await store().createDatastore(makeDatastore({ name: 'Later', createdAt: isoAt(20) }));
      await store().createDatastore(makeDatastore({ name: 'Earliest', createdAt: isoAt(5) }));
      await store().createDatastore(makeDatastore({ name: 'Middle', createdAt: isoAt(10) }));
      expect((await store().listDatastores()).map((d) => d.name)).toEqual(['Earliest', 'Middle', 'Later']);
    });

    it('applies a patch to the given fields only and returns the result', async () => {
      const record = makeDatastore({ name: 'Docs' });
      await store().createDatastore(record);
      const updated = await store().updateDatastore(record.id, { description: 'Product docs', updatedAt: isoAt(60) });
      expect(updated).toEqual({ ...record, description: 'Product docs', updatedAt: isoAt(60) });
      expect(await store().getDatastore(record.id)).toEqual(updated);
      expect(await store().updateDatastore('missing', { name: 'x' })).toBeNull();
    });

    it('deletes, reporting whether the id existed', async () => {
      const record = makeDatastore();
      await store().createDatastore(record);
      expect(await store().deleteDatastore(record.id)).toBe(true);
      expect(await store().getDatastore(record.id)).toBeNull();
      expect(await store().deleteDatastore(record.id)).toBe(false);
    });
  });

  describe('datasources', () => {
    const datastore = makeDatastore({ name: 'Knowledge' });
    beforeEach(async () => {
      await store().createDatastore(datastore);
    });

    it('creates and reads back equal copies, config and metadata included', async () => {
      const record = makeDatasource(datastore, {
        type: 'web_page',
        customId: 'tenant-1',
        config: { source_url: 'https://example.com/a', depth: 2, tags: ['a', 'b'] },
        metadata: { author: 'Ada', year: 1843, draft: false, date: null },
      });
      await store().createDatasource(record);
      const read = await store().getDatasource(record.id);
      expect(read).toEqual(record);
      (read!.config as { tags: string[] }).tags.push('c');
      read!.metadata.author = 'mutated';
      expect(await store().getDatasource(record.id)).toEqual(record);
      expect(await store().getDatasource('missing')).toBeNull();
    });

    it('reads several by id in the order asked, skipping unknown ids, as copies', async () => {
      const a = makeDatasource(datastore, { name: 'a', createdAt: isoAt(1) });
      const b = makeDatasource(datastore, { name: 'b', createdAt: isoAt(2) });
      await store().createDatasource(a);
      await store().createDatasource(b);
      const read = await store().getDatasources([b.id, 'missing', a.id]);
      expect(read).toEqual([b, a]);
      read[0]!.metadata.author = 'mutated';
      expect(await store().getDatasources([b.id])).toEqual([b]);
      expect(await store().getDatasources([])).toEqual([]);
    });

    it('reads the citation fields of several by id (getDatasourceRefs, when the store has it), as copies, current after an update', async (context) => {
      const refsOf = store().getDatasourceRefs?.bind(store());
      if (!refsOf) {
        context.skip();
        return;
      }
      const a = makeDatasource(datastore, {
        name: 'a',
        config: { source_url: 'https://example.com/a', total_pages: 3 },
        metadata: { author: 'x' },
      });
      const b = makeDatasource(datastore, { name: 'b', type: 'web_page' });
      await store().createDatasource(a);
      await store().createDatasource(b);
      const ref = (record: DatasourceRecord) => ({
        id: record.id,
        type: record.type,
        name: record.name,
        config: record.config,
        metadata: record.metadata,
      });
      const read = await refsOf([b.id, 'missing', a.id, b.id]);
      expect(read).toEqual([ref(b), ref(a), ref(b)]);
      read[1]!.metadata.author = 'mutated';
      (read[1]!.config as { total_pages: number }).total_pages = 99;
      expect(await refsOf([a.id])).toEqual([ref(a)]);
      await store().updateDatasource(a.id, { name: 'renamed', metadata: { author: 'y' } });
      expect(await refsOf([a.id])).toEqual([{ ...ref(a), name: 'renamed', metadata: { author: 'y' } }]);
      expect(await refsOf([])).toEqual([]);
    });

    it('rejects a duplicate id with conflict and an unknown datastore with not_found', async () => {
      const record = makeDatasource(datastore);
      await store().createDatasource(record);
      await expectCode(store().createDatasource({ ...record, name: 'again' }), 'conflict');
      await expectCode(store().createDatasource(makeDatasource('no-such-datastore', { name: 'orphan' })), 'not_found');
      expect(await store().getDatasource(makeDatasource('no-such-datastore', { name: 'orphan' }).id)).toBeNull();
    });

    it("lists a datastore's datasources oldest first, optionally one group's children", async () => {
      const other = makeDatastore({ name: 'Other' });
      await store().createDatastore(other);
      const site = makeDatasource(datastore, { name: 'site', type: 'web_site', createdAt: isoAt(1) });
      const pageB = makeDatasource(datastore, { name: 'page-b', type: 'web_page', groupId: site.id, createdAt: isoAt(3) });
      const pageA = makeDatasource(datastore, { name: 'page-a', type: 'web_page', groupId: site.id, createdAt: isoAt(2) });
      const loose = makeDatasource(datastore, { name: 'loose', createdAt: isoAt(4) });
      const elsewhere = makeDatasource(other, { name: 'elsewhere' });
      for (const record of [pageB, site, loose, pageA, elsewhere]) await store().createDatasource(record);
      const names = async (groupId?: string) =>
        (await store().listDatasources(datastore.id, groupId === undefined ? undefined : { groupId })).map((d) => d.name);
      expect(await names()).toEqual(['site', 'page-a', 'page-b', 'loose']);
      expect(await names(site.id)).toEqual(['page-a', 'page-b']);
      expect(await store().listDatasources('missing')).toEqual([]);
    });

    it('lists only the datasources in the given statuses, with or without a group', async () => {
      const site = makeDatasource(datastore, { name: 'site', type: 'web_site', status: 'synched', createdAt: isoAt(1) });
      const running = makeDatasource(datastore, {
        name: 'running',
        type: 'web_page',
        groupId: site.id,
        status: 'running',
        createdAt: isoAt(2),
      });
      const done = makeDatasource(datastore, { name: 'done', type: 'web_page', groupId: site.id, status: 'synched', createdAt: isoAt(3) });
      const pending = makeDatasource(datastore, { name: 'pending', status: 'pending', createdAt: isoAt(4) });
      for (const record of [site, running, done, pending]) await store().createDatasource(record);
      const names = async (options: { groupId?: string; statuses?: ('pending' | 'running' | 'synched')[] }) =>
        (await store().listDatasources(datastore.id, options)).map((d) => d.name);
      expect(await names({ statuses: ['pending', 'running'] })).toEqual(['running', 'pending']);
      expect(await names({ statuses: ['synched'] })).toEqual(['site', 'done']);
      expect(await names({ groupId: site.id, statuses: ['running'] })).toEqual(['running']);
      expect(await names({ statuses: [] })).toEqual([]);
    });

    it('patches: given fields change, absent ones stay, null clears, fixed fields are ignored', async () => {
      const record = makeDatasource(datastore, { customId: 'tenant-1', error: null });
      await store().createDatasource(record);
      const patch = {
        status: 'error' as const,
        error: 'fetch failed',
        customId: null,
        config: { source_url: 'https://example.com' },
        metadata: { source: 'example.com' },
        nbChunks: 3,
        updatedAt: isoAt(9),
        name: undefined,
      };
      const updated = await store().updateDatasource(record.id, patch);
      const expected = { ...record, ...patch, name: record.name };
      expect(updated).toEqual(expected);
      expect(await store().getDatasource(record.id)).toEqual(expected);
      // Not in DatasourcePatch, but JavaScript callers can still send them.
      const sneaky = { id: 'other', datastoreId: 'other', type: 'file', createdAt: isoAt(99) } as unknown as DatasourcePatch;
      expect(await store().updateDatasource(record.id, sneaky)).toEqual(expected);
      expect(await store().updateDatasource('missing', { name: 'x' })).toBeNull();
    });
  });
}
