/**
 * Big-document part of the Store conformance suite: a `replaceChunks` of thousands of chunks may
 * be written over several turns of the event loop (the SQLite store does), and must still look
 * atomic to every reader and to a restart.
 */
import type { RetrievalStore } from '../ports/store.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChunkRecord, DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import { makeChunk, makeChunks, makeDatasource, makeDatastore } from './fixtures.js';
import { samplePassages } from './sample-texts.js';
import { expectCode, type StoreSuiteContext } from './store-harness.js';

const ids = (chunks: readonly { id: string }[]) => chunks.map((chunk) => chunk.id);
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
/** Words only the old set, or only the new set, contains. */
const OLD_WORD = 'quillwort';
const NEW_WORD = 'liverwort';

/** `count` distinct passages, each with `word`. */
function texts(count: number, seed: number, word: string): string[] {
  const passages = samplePassages(64, seed);
  return Array.from({ length: count }, (_, i) => `${passages[i % passages.length] ?? ''} ${word} ${i}.`);
}

export function describeBigReplaceConformance(context: StoreSuiteContext<RetrievalStore>): void {
  const store = () => context.store();

  describe('chunks of a big document', () => {
    let datastore: DatastoreRecord;
    let source: DatasourceRecord;
    let sibling: DatasourceRecord;
    let before: ChunkRecord[];
    let after: ChunkRecord[];

    beforeEach(async () => {
      datastore = makeDatastore({ name: 'Big documents' });
      source = makeDatasource(datastore, { name: 'big.pdf' });
      sibling = makeDatasource(datastore, { name: 'small.md' });
      await store().createDatastore(datastore);
      await store().createDatasource(source);
      await store().createDatasource(sibling);
      await store().replaceChunks(sibling.id, makeChunks(sibling, texts(3, 5, 'sibling')));
      before = makeChunks(source, texts(700, 1, OLD_WORD));
      // The first 300 passages are unchanged (same ids), the rest are new.
      after = makeChunks(source, [...texts(300, 1, OLD_WORD), ...texts(1700, 2, NEW_WORD)]);
      await store().replaceChunks(source.id, before);
    });

    it('readers during a big replace see the old set or the new one, never a mix', async () => {
      const oldIds = new Set(ids(before));
      const newIds = new Set(ids(after));
      const sample = [...ids(before).slice(-20), ...ids(after).slice(-20), ...ids(after).slice(0, 5)];
      const either = (got: readonly string[], whole: (set: Set<string>) => string[]) =>
        expect([whole(oldIds), whole(newIds)]).toContainEqual(got);
      const textOf = new Map([...before, ...after].map((chunk) => [chunk.id, chunk.text]));
      const withWord = (set: Set<string>, word: string) => [...set].filter((id) => (textOf.get(id) ?? '').includes(word)).sort();
      const search = async (word: string) =>
        (await store().searchText({ datastoreId: datastore.id, query: word, topK: 3000 })).map((hit) => hit.id).sort();
      await search(OLD_WORD);

      let settled = false;
      const replacing = store()
        .replaceChunks(source.id, after)
        .finally(() => {
          settled = true;
        });
      let observations = 0;
      while (!settled) {
        // Each read on its own: a store may answer them from different instants.
        const [listed, got, count, oldHits, newHits] = await Promise.all([
          store().listChunks(source.id),
          store().getChunks(sample, { vectors: false }),
          store().countChunks(datastore.id),
          search(OLD_WORD),
          search(NEW_WORD),
        ]);
        either(ids(listed), (set) => (set === oldIds ? ids(before) : ids(after)));
        either(ids(got), (set) => sample.filter((id) => set.has(id)));
        expect([before.length + 3, after.length + 3]).toContain(count);
        // The old set has 700 chunks with the old word; the new one 300 with it and 1,700 with the new word.
        either(oldHits, (set) => withWord(set, OLD_WORD));
        either(newHits, (set) => withWord(set, NEW_WORD));
        observations += 1;
        await nextTurn();
      }
      const change = await replacing;
      expect(observations).toBeGreaterThan(0);
      expect(change.addedIds.length).toBe(1700);
      expect(change.removedIds.length).toBe(400);
      expect(ids(await store().listChunks(source.id))).toEqual(ids(after));
      expect(await store().countChunks(datastore.id)).toBe(after.length + 3);
      if (context.harness.inspect) expect(await context.harness.inspect.chunkRows(source.id)).toBe(after.length);
    });

    it('a big batch rejected part-way leaves the previous set and no stray rows', async () => {
      const [owned] = await store().listChunks(sibling.id);
      const rejected = [...after, makeChunk(source, after.length, 'taken', { id: owned?.id ?? '' })];
      await expectCode(store().replaceChunks(source.id, rejected), 'conflict');
      expect(ids(await store().listChunks(source.id))).toEqual(ids(before));
      expect(await store().countChunks(datastore.id)).toBe(before.length + 3);
      if (context.harness.inspect) expect(await context.harness.inspect.chunkRows(source.id)).toBe(before.length);
    });

    it('a big replace cut short by closing the store leaves the old or the new set after reopening, and no stray rows', async (test) => {
      if (context.harness.reopen === undefined) test.skip();
      const replacing = store()
        .replaceChunks(source.id, after)
        .then(
          () => 'stored',
          () => 'refused',
        );
      // Close once rows of the new set exist (a store writing in slices is then part-way through).
      const inspect = context.harness.inspect;
      for (let turn = 0; turn < 200 && (await inspect?.chunkRows(source.id)) === before.length; turn += 1) await nextTurn();
      const reopened = await context.reopen();
      await replacing;
      const listed = ids(await reopened.listChunks(source.id));
      expect([ids(before), ids(after)]).toContainEqual(listed);
      expect(await reopened.countChunks(datastore.id)).toBe(listed.length + 3);
      if (context.harness.inspect) expect(await context.harness.inspect.chunkRows(source.id)).toBe(listed.length);
      // The datasource takes a new set as usual.
      await reopened.replaceChunks(source.id, after);
      expect(ids(await reopened.listChunks(source.id))).toEqual(ids(after));
    });

    it('deleting a big datasource removes every chunk at once for readers and names them all', async () => {
      const sequence = await store().chunkSequence(datastore.id);
      let settled = false;
      const deleting = store()
        .deleteDatasource(source.id)
        .finally(() => {
          settled = true;
        });
      while (!settled) {
        // Readers see the whole set or none of it.
        const listed = ids(await store().listChunks(source.id));
        expect([ids(before), []]).toContainEqual(listed);
        expect([before.length + 3, 3]).toContain(await store().countChunks(datastore.id));
        await nextTurn();
      }
      const change = await deleting;
      expect(change?.removedIds.slice().sort()).toEqual(ids(before).sort());
      expect(change?.addedIds).toEqual([]);
      expect(change?.sequence).toBeGreaterThan(sequence);
      expect(await store().getDatasource(source.id)).toBeNull();
      expect(await store().listChunks(source.id)).toEqual([]);
      expect(await store().getChunks(ids(before).slice(0, 10))).toEqual([]);
      expect(await store().searchText({ datastoreId: datastore.id, query: OLD_WORD, topK: 10 })).toEqual([]);
      expect(await store().countChunks(datastore.id)).toBe(3);
      if (context.harness.inspect) expect(await context.harness.inspect.chunkRows(source.id)).toBe(0);
      expect(await store().deleteDatasource(source.id)).toBeNull();
    });

    it('a datasource deleted during a big replace stays deleted', async () => {
      // A store that writes in one step has finished before the delete; one that slices has not.
      const replacing = store()
        .replaceChunks(source.id, after)
        .then(
          () => 'stored',
          (error: unknown) => (error as { code?: string }).code,
        );
      await nextTurn();
      await store().deleteDatasource(source.id);
      expect(['stored', 'not_found']).toContain(await replacing);
      expect(await store().listChunks(source.id)).toEqual([]);
      expect(await store().countChunks(datastore.id)).toBe(3);
      if (context.harness.inspect) expect(await context.harness.inspect.chunkRows(source.id)).toBe(0);
    });
  });
}
