/**
 * Per-owner document ids in the Store conformance suite. The core stores the datasource of an
 * owner's document `doc-1` under `<owner tag>~doc-1` and looks an id up as both that and the bare
 * id, in one `getDatasources` call; these cases hold a store to what that needs: the same document
 * id under two owners is two datasources, a lookup answers the candidates in the order asked,
 * and deletes and search filters reach one owner's datasource only. Datasources stored under a
 * bare id (before ids were per owner) live beside them.
 */
import type { RetrievalStore } from '../ports/store.js';
import { describe, expect, it } from 'vitest';
import { candidateIds, storedDocumentId } from '../datastores/document-ids.js';
import { makeChunks, makeDatasource, makeDatastore } from './fixtures.js';
import type { StoreSuiteContext } from './store-harness.js';

export function describeDocumentIdConformance(context: StoreSuiteContext<RetrievalStore>): void {
  const store = () => context.store();
  describe('per-owner document ids', () => {
    const alices = makeDatastore({ id: 'ds-alice', name: 'Alice', ownerId: 'owner-alice' });
    const bobs = makeDatastore({ id: 'ds-bob', name: 'Bob', ownerId: 'owner-bob' });
    const longest = 'd'.repeat(100);

    async function fill() {
      for (const datastore of [alices, bobs]) await store().createDatastore(datastore);
      const alice = makeDatasource(alices, { id: storedDocumentId('owner-alice', 'doc-1'), name: 'alice doc' });
      const bob = makeDatasource(bobs, { id: storedDocumentId('owner-bob', 'doc-1'), name: 'bob doc' });
      const legacy = makeDatasource(alices, { id: 'old-doc', name: 'stored before' });
      const long = makeDatasource(bobs, { id: storedDocumentId('owner-bob', longest), name: 'long id' });
      for (const datasource of [alice, bob, legacy, long]) await store().createDatasource(datasource);
      await store().replaceChunks(alice.id, makeChunks(alice, ['Alice keeps the lighthouse ledger.']));
      await store().replaceChunks(bob.id, makeChunks(bob, ['Bob keeps the lighthouse ledger too.']));
      await store().replaceChunks(legacy.id, makeChunks(legacy, ['The old lighthouse ledger of Alice.']));
      return { alice, bob, legacy, long };
    }

    it('keeps the same document id of two owners as two datasources, each read in candidate order', async () => {
      const { alice, bob, legacy, long } = await fill();
      expect(await store().getDatasources(candidateIds('owner-alice', 'doc-1'))).toEqual([alice]);
      expect(await store().getDatasources(candidateIds('owner-bob', 'doc-1'))).toEqual([bob]);
      expect(await store().getDatasources(candidateIds('owner-carol', 'doc-1'))).toEqual([]);
      // A bare id is found as the second candidate of any owner: the core checks the owner.
      expect(await store().getDatasources(candidateIds('owner-bob', 'old-doc'))).toEqual([legacy]);
      expect(await store().getDatasources(candidateIds('owner-bob', longest))).toEqual([long]);
      expect((await store().listDatasources(alices.id)).map((datasource) => datasource.id)).toEqual([alice.id, legacy.id]);
    });

    it("filters search to one owner's document and deletes it alone", async () => {
      const { alice, bob, legacy } = await fill();
      const search = (datastoreId: string, datasourceIds: string[]) =>
        store().searchText({ datastoreId, query: 'lighthouse ledger', topK: 10, filter: { datasourceIds } });
      const owners = async (hits: { id: string }[]) => (await store().getChunks(hits.map((hit) => hit.id))).map((c) => c.datasourceId);
      expect(await owners(await search(alices.id, candidateIds('owner-alice', 'doc-1')))).toEqual([alice.id]);
      expect(await owners(await search(bobs.id, candidateIds('owner-bob', 'doc-1')))).toEqual([bob.id]);
      expect(await owners(await search(alices.id, candidateIds('owner-alice', 'old-doc')))).toEqual([legacy.id]);

      expect(await store().deleteDatasource(bob.id)).not.toBeNull();
      expect(await store().getDatasources(candidateIds('owner-bob', 'doc-1'))).toEqual([]);
      expect(await store().getDatasources(candidateIds('owner-alice', 'doc-1'))).toEqual([alice]);
      expect(await owners(await search(alices.id, candidateIds('owner-alice', 'doc-1')))).toEqual([alice.id]);
      expect(await search(bobs.id, candidateIds('owner-bob', 'doc-1'))).toEqual([]);
    });
  });
}
