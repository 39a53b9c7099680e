/** Chunk part of the Store conformance suite (`ChunkStore`): replace, reads, vectors, sequences, cascades. */
import type { RetrievalStore } from '../ports/store.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChunkHit, ChunkRecord, DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import { isoAt, makeChunk, makeChunks, makeDatasource, makeDatastore } from './fixtures.js';
import { samplePassages } from './sample-texts.js';
import { expectCode, type StoreSuiteContext } from './store-harness.js';

const ids = (chunks: readonly { id: string }[]) => chunks.map((chunk) => chunk.id);
const sorted = (values: readonly string[]) => [...values].sort();

/** Byte-for-byte equality, so -0, NaN payloads and the last mantissa bit all count. */
function expectSameBits(actual: Float32Array, expected: Float32Array): void {
  expect(actual).toBeInstanceOf(Float32Array);
  expect(Array.from(new Uint8Array(actual.buffer, actual.byteOffset, actual.byteLength))).toEqual(
    Array.from(new Uint8Array(expected.buffer, expected.byteOffset, expected.byteLength)),
  );
}

export function describeChunkConformance(context: StoreSuiteContext<RetrievalStore>): void {
  const store = () => context.store();

  describe('chunks', () => {
    let datastore: DatastoreRecord;
    let source: DatasourceRecord;
    let sibling: DatasourceRecord;

    beforeEach(async () => {
      datastore = makeDatastore({ name: 'Field guide' });
      source = makeDatasource(datastore, { name: 'guide.md', customId: 'tenant-a' });
      sibling = makeDatasource(datastore, { name: 'appendix.md' });
      await store().createDatastore(datastore);
      await store().createDatasource(source);
      await store().createDatasource(sibling);
    });

    it('replaces the chunk set, reporting added and removed ids and a rising sequence', async () => {
      expect(await store().chunkSequence(datastore.id)).toBe(0);
      const texts = samplePassages(5, 3);
      const first = makeChunks(source, texts);
      const change1 = await store().replaceChunks(source.id, first);
      expect(sorted(change1.addedIds)).toEqual(sorted(ids(first)));
      expect(change1.removedIds).toEqual([]);
      expect(change1.sequence).toBeGreaterThan(0);

      // Re-sync after an edit: passage 2 changed, passage 4 removed, a new one appended.
      const edited = [...texts.slice(0, 2), `${texts[2]} Revised.`, texts[3] as string, samplePassages(1, 9)[0] as string];
      const second = makeChunks(source, edited);
      const change2 = await store().replaceChunks(source.id, second);
      const before = new Set(ids(first));
      const after = new Set(ids(second));
      expect(sorted(change2.addedIds)).toEqual(sorted(ids(second).filter((id) => !before.has(id))));
      expect(sorted(change2.removedIds)).toEqual(sorted(ids(first).filter((id) => !after.has(id))));
      expect(change2.sequence).toBeGreaterThan(change1.sequence);
      expect(ids(await store().listChunks(source.id))).toEqual(ids(second));

      const change3 = await store().replaceChunks(source.id, second);
      expect(change3).toEqual({ addedIds: [], removedIds: [], sequence: expect.any(Number) });
      expect(change3.sequence).toBeGreaterThan(change2.sequence);
      expect(await store().chunkSequence(datastore.id)).toBe(change3.sequence);

      const emptied = await store().replaceChunks(source.id, []);
      expect(sorted(emptied.removedIds)).toEqual(sorted(ids(second)));
      expect(await store().listChunks(source.id)).toEqual([]);
    });

    it('applies the datasource patch in the same step', async () => {
      const chunks = makeChunks(source, samplePassages(3, 4));
      await store().replaceChunks(source.id, chunks, {
        status: 'synched',
        nbChunks: 3,
        contentHash: 'abc',
        lastSynch: '2025-02-01T00:00:00.000Z',
      });
      expect(await store().getDatasource(source.id)).toMatchObject({
        status: 'synched',
        nbChunks: 3,
        contentHash: 'abc',
        lastSynch: '2025-02-01T00:00:00.000Z',
        name: source.name,
      });
    });

    it('creates new documents together as createDatasource then replaceChunks would (createDocuments, when the store has it)', async (context) => {
      const create = store().createDocuments?.bind(store());
      if (!create) {
        context.skip();
        return;
      }
      const patch = {
        status: 'synched',
        error: null,
        contentHash: 'c0ffee',
        nbChunks: 2,
        nbTokens: 41,
        textSize: 377,
        lastSynch: isoAt(5),
        updatedAt: isoAt(5),
      } as const;
      const running = (id: string) =>
        makeDatasource(datastore, {
          id,
          name: 'same.md',
          status: 'running',
          customId: 'tenant-b',
          createdAt: isoAt(1),
          updatedAt: isoAt(1),
        });
      const chunksOf = (record: DatasourceRecord) => makeChunks(record, samplePassages(2, record.id.length), { metadata: { part: 1 } });
      const together = [running('doc-one'), running('doc-two')];
      const change = await create(together.map((record) => ({ datasource: record, chunks: chunksOf(record), patch })));
      expect(sorted(change.addedIds)).toEqual(sorted(together.flatMap((record) => ids(chunksOf(record)))));
      expect(change.removedIds).toEqual([]);
      expect(change.sequence).toBe(await store().chunkSequence(datastore.id));

      const alone = running('doc-six');
      await store().createDatasource(alone);
      await store().replaceChunks(alone.id, chunksOf(alone), patch);
      const withoutId = (record: DatasourceRecord | null) => ({ ...record, id: null });
      const expected = withoutId(await store().getDatasource(alone.id));
      const expectedEvents = (await store().listStatusEvents(alone.id)).map((event) => ({ ...event, datasourceId: null }));
      expect(expectedEvents.map((event) => [event.from, event.to])).toEqual([
        [null, 'running'],
        ['running', 'synched'],
      ]);
      for (const record of together) {
        expect(withoutId(await store().getDatasource(record.id))).toEqual(expected);
        expect((await store().listStatusEvents(record.id)).map((event) => ({ ...event, datasourceId: null }))).toEqual(expectedEvents);
        expect(await store().listChunks(record.id)).toEqual(chunksOf(record));
      }

      // All or nothing: a taken id fails the step and the documents before it are not written.
      const fresh = running('doc-new');
      await expectCode(
        create([fresh, together[0] as DatasourceRecord].map((record) => ({ datasource: record, chunks: chunksOf(record), patch }))),
        'conflict',
      );
      expect(await store().getDatasource(fresh.id)).toBeNull();
      expect(await store().getChunks(ids(chunksOf(fresh)))).toEqual([]);
    });

    it('is atomic: a chunk of another datasource or datastore rejects the whole batch', async () => {
      const original = makeChunks(source, samplePassages(4, 5));
      const { sequence } = await store().replaceChunks(source.id, original, { nbChunks: 4 });
      const next = makeChunks(source, samplePassages(4, 6));
      const badDatasource = [...next.slice(0, 3), { ...(next[3] as ChunkRecord), datasourceId: sibling.id }];
      const badDatastore = [{ ...(next[0] as ChunkRecord), datastoreId: 'another-datastore' }, ...next.slice(1)];
      for (const batch of [badDatasource, badDatastore]) {
        await expectCode(store().replaceChunks(source.id, batch, { nbChunks: 99 }), 'invalid_request');
      }
      expect(ids(await store().listChunks(source.id))).toEqual(ids(original));
      expect((await store().getDatasource(source.id))?.nbChunks).toBe(4);
      expect(await store().chunkSequence(datastore.id)).toBe(sequence);
      expect(await store().getChunks(ids(next))).toEqual([]);
      if (context.harness.inspect) expect(await context.harness.inspect.chunkRows(source.id)).toBe(4);
    });

    it('rejects an unknown datasource with not_found and an id owned by another datasource with conflict', async () => {
      await expectCode(store().replaceChunks('missing', []), 'not_found');
      const shared = makeChunk(sibling, 0, 'A passage both datasources claim.');
      await store().replaceChunks(sibling.id, [shared]);
      const stolen = { ...shared, datasourceId: source.id, customId: source.customId };
      await expectCode(store().replaceChunks(source.id, [stolen]), 'conflict');
      expect(ids(await store().listChunks(sibling.id))).toEqual([shared.id]);
      expect(await store().listChunks(source.id)).toEqual([]);
    });

    it('returns copies: by id in the order asked, by datasource in position order', async () => {
      const chunks = makeChunks(source, samplePassages(6, 7)).reverse();
      await store().replaceChunks(source.id, chunks);
      const read = await store().getChunks([chunks[4]!.id, 'unknown', chunks[1]!.id]);
      expect(ids(read)).toEqual([chunks[4]!.id, chunks[1]!.id]);
      expect(read[0]).toEqual(chunks[4]);
      expect((await store().listChunks(source.id)).map((chunk) => chunk.position)).toEqual([0, 1, 2, 3, 4, 5]);
      read[0]!.vector[0] = 42;
      read[0]!.metadata.source = 'mutated';
      expect((await store().getChunks([chunks[4]!.id]))[0]).toEqual(chunks[4]);
      expect(await store().getChunks([])).toEqual([]);
    });

    it('reads without vectors when asked: every other field the same, vector empty or intact', async () => {
      const chunks = makeChunks(source, samplePassages(4, 17), { pageNumber: 3, metadata: { section: 'B' } });
      await store().replaceChunks(source.id, chunks);
      const read = await store().getChunks([chunks[2]!.id, 'unknown', chunks[0]!.id], { vectors: false });
      expect(read.map((chunk) => ({ ...chunk, vector: null }))).toEqual(
        [chunks[2]!, chunks[0]!].map((chunk) => ({ ...chunk, vector: null })),
      );
      for (const [i, chunk] of read.entries()) {
        const stored = [chunks[2]!, chunks[0]!][i]!;
        // Adapters may skip the vector (length 0) or return it whole; never a part of it.
        if (chunk.vector.length > 0) expectSameBits(chunk.vector, stored.vector);
      }
      expect(await store().getChunks([chunks[1]!.id], { vectors: true })).toEqual([chunks[1]]);
    });

    it('reads hits with their datasources in one call (getChunkHits, when the store has it)', async (context) => {
      const hitsOf = store().getChunkHits?.bind(store());
      if (!hitsOf) {
        context.skip();
        return;
      }
      const other = makeDatasource(datastore, { name: 'other', config: { source_url: 'https://example.com/o' } });
      await store().createDatasource(other);
      const chunks = makeChunks(source, samplePassages(3, 21), { metadata: { section: 'C' } });
      const elsewhere = makeChunks(other, samplePassages(2, 22));
      await store().replaceChunks(source.id, chunks);
      await store().replaceChunks(other.id, elsewhere);
      const wanted = [elsewhere[1]!.id, 'unknown', chunks[2]!.id, chunks[0]!.id];
      const read = await hitsOf(wanted);
      const expected = await store().getChunks(wanted, { vectors: false });
      // A hit carries the fields of a ChunkHit (a store may return whole records).
      const hitFields = ({ id, datasourceId, customId, text, pageNumber, metadata }: ChunkHit) => ({
        id,
        datasourceId,
        customId,
        text,
        pageNumber,
        metadata,
      });
      expect(read.chunks.map(hitFields)).toEqual(expected.map(hitFields));
      const refs = await store().getDatasources([source.id, other.id]);
      expect(sorted(read.datasources.map((ref) => ref.id))).toEqual(sorted([source.id, other.id]));
      for (const ref of read.datasources) {
        const record = refs.find((candidate) => candidate.id === ref.id)!;
        expect(ref).toEqual({ id: record.id, type: record.type, name: record.name, config: record.config, metadata: record.metadata });
      }
      expect(await hitsOf([])).toEqual({ chunks: [], datasources: [] });
    });

    it('keeps every field of a chunk, and vectors bit for bit', async () => {
      const special = new Float32Array([0, -0, 1 / 3, -1e-45, 3.4028234663852886e38, -3.4028234663852886e38, Math.PI, 1e-38]);
      const chunk = makeChunk(source, 0, 'Special values survive.', {
        vector: special,
        pageNumber: 12,
        tokenCount: 3,
        charOffset: 1234,
        metadata: { source: 'guide.md', section: 'Intro', rank: 2.5, draft: true, reviewer: null },
      });
      const offset = new Float32Array(new ArrayBuffer(64), 4, 8);
      offset.set([1.5, -2.25, 1e-7, 7, 0.1, 0.2, 0.3, 0.4]);
      const viewChunk = makeChunk(source, 1, 'A vector viewing part of a larger buffer.', { vector: offset });
      await store().replaceChunks(source.id, [chunk, viewChunk]);
      const [read, readView] = await store().getChunks([chunk.id, viewChunk.id]);
      expect({ ...read, vector: null }).toEqual({ ...chunk, vector: null });
      expectSameBits(read!.vector, special);
      expectSameBits(readView!.vector, offset);
      expect(readView!.vector.byteOffset % 4).toBe(0);
    });

    it('counts and iterates every chunk of a datastore exactly once', async () => {
      const other = makeDatastore({ name: 'Elsewhere' });
      const otherSource = makeDatasource(other, { name: 'elsewhere.md' });
      await store().createDatastore(other);
      await store().createDatasource(otherSource);
      const mine = [...makeChunks(source, samplePassages(23, 11)), ...makeChunks(sibling, samplePassages(14, 12))];
      await store().replaceChunks(
        source.id,
        mine.filter((c) => c.datasourceId === source.id),
      );
      await store().replaceChunks(
        sibling.id,
        mine.filter((c) => c.datasourceId === sibling.id),
      );
      await store().replaceChunks(otherSource.id, makeChunks(otherSource, samplePassages(5, 13)));
      expect(await store().countChunks(datastore.id)).toBe(37);
      expect(await store().countChunks('missing')).toBe(0);

      for (const batchSize of [7, 37, undefined]) {
        const seen: string[] = [];
        for await (const batch of store().iterateChunks(datastore.id, batchSize === undefined ? undefined : { batchSize })) {
          expect(batch.length).toBeGreaterThan(0);
          expect(batch.length).toBeLessThanOrEqual(batchSize ?? 1000);
          for (const chunk of batch) {
            expect(chunk.datastoreId).toBe(datastore.id);
            expectSameBits(chunk.vector, mine.find((c) => c.id === chunk.id)!.vector);
          }
          seen.push(...ids(batch));
        }
        expect(sorted(seen)).toEqual(sorted(ids(mine)));
      }
      const none: ChunkRecord[][] = [];
      for await (const batch of store().iterateChunks('missing')) none.push(batch);
      expect(none).toEqual([]);
    });

    it('iterates the ids and vectors of a datastore exactly once (iterateChunkVectors, when the store has it)', async (context) => {
      const vectorsOf = store().iterateChunkVectors?.bind(store());
      if (!vectorsOf) {
        context.skip();
        return;
      }
      const other = makeDatastore({ name: 'Interleaved' });
      const otherSource = makeDatasource(other, { name: 'interleaved.md' });
      await store().createDatastore(other);
      await store().createDatasource(otherSource);
      // Rows of the two datastores interleaved in storage order, and rows replaced in place.
      const first = makeChunks(source, samplePassages(19, 31));
      await store().replaceChunks(source.id, first);
      await store().replaceChunks(otherSource.id, makeChunks(otherSource, samplePassages(6, 32)));
      const second = makeChunks(sibling, samplePassages(11, 33));
      await store().replaceChunks(sibling.id, second);
      const replaced = first.map((chunk, i) => (i % 3 === 0 ? { ...chunk, vector: chunk.vector.map((value) => -value) } : chunk));
      await store().replaceChunks(source.id, replaced);
      const mine = [...replaced, ...second];

      for (const batchSize of [7, 30, undefined]) {
        const seen: string[] = [];
        for await (const batch of vectorsOf(datastore.id, batchSize === undefined ? undefined : { batchSize })) {
          expect(batch.length).toBeGreaterThan(0);
          if (batchSize !== undefined) expect(batch.length).toBeLessThanOrEqual(batchSize);
          for (const entry of batch) {
            expect(Object.keys(entry).sort()).toEqual(['id', 'vector']);
            expectSameBits(entry.vector, mine.find((chunk) => chunk.id === entry.id)!.vector);
            entry.vector[0] = 42;
          }
          seen.push(...batch.map((entry) => entry.id));
        }
        expect(sorted(seen)).toEqual(sorted(ids(mine)));
      }
      const none: unknown[] = [];
      for await (const batch of vectorsOf('missing')) none.push(batch);
      expect(none).toEqual([]);
    });

    it('reads the ids and vectors of named chunks of one datastore (getChunkVectors, when the store has it)', async (context) => {
      const vectorsOf = store().getChunkVectors?.bind(store());
      if (!vectorsOf) {
        context.skip();
        return;
      }
      const other = makeDatastore({ name: 'Elsewhere' });
      const otherSource = makeDatasource(other, { name: 'elsewhere.md' });
      await store().createDatastore(other);
      await store().createDatasource(otherSource);
      const mine = makeChunks(source, samplePassages(12, 41));
      await store().replaceChunks(source.id, mine);
      const foreign = makeChunks(otherSource, samplePassages(3, 42));
      await store().replaceChunks(otherSource.id, foreign);
      const asked = [mine[3]!.id, 'nope', mine[0]!.id, foreign[1]!.id, mine[11]!.id];
      const found = await vectorsOf(datastore.id, asked);
      expect(sorted(found.map((entry) => entry.id))).toEqual(sorted([mine[3]!.id, mine[0]!.id, mine[11]!.id]));
      for (const entry of found) {
        expect(Object.keys(entry).sort()).toEqual(['id', 'vector']);
        expectSameBits(entry.vector, mine.find((chunk) => chunk.id === entry.id)!.vector);
      }
      // More ids than a short list binds, and none at all.
      expect((await vectorsOf(datastore.id, ids(mine))).length).toBe(mine.length);
      expect(await vectorsOf(datastore.id, [])).toEqual([]);
      // A replaced set is read as it is now.
      const replaced = mine.map((chunk) => ({ ...chunk, vector: chunk.vector.map((value) => -value) }));
      await store().replaceChunks(source.id, replaced);
      const [again] = await vectorsOf(datastore.id, [replaced[5]!.id]);
      expectSameBits(again!.vector, replaced[5]!.vector);
    });

    it('finds stored vectors by hash across datasources, of the asked length only', async () => {
      const text = 'The observatory maps a faint nebula.';
      const reused = makeChunk(sibling, 0, text);
      const otherLength = makeChunk(sibling, 1, 'Embedded with an older, longer model.', { dimensions: 16 });
      await store().replaceChunks(sibling.id, [reused, otherLength]);
      const other = makeDatastore({ name: 'Second' });
      const otherSource = makeDatasource(other, { name: 'second.md' });
      await store().createDatastore(other);
      await store().createDatasource(otherSource);
      const foreign = makeChunk(otherSource, 0, 'Only in the other datastore.');
      await store().replaceChunks(otherSource.id, [foreign]);

      const found = await store().findVectorsByHash(datastore.id, [reused.hash, otherLength.hash, foreign.hash, 'nope'], 8);
      expect([...found.keys()]).toEqual([reused.hash]);
      expectSameBits(found.get(reused.hash)!, reused.vector);
      found.get(reused.hash)![0] = 9;
      expectSameBits((await store().findVectorsByHash(datastore.id, [reused.hash], 8)).get(reused.hash)!, reused.vector);
      expect([...(await store().findVectorsByHash(datastore.id, [otherLength.hash], 16)).keys()]).toEqual([otherLength.hash]);
      expect((await store().findVectorsByHash(datastore.id, [], 8)).size).toBe(0);
    });

    it('deletes a datasource with its chunks, leaving its children and siblings', async () => {
      const child = makeDatasource(datastore, { name: 'child.md', groupId: source.id });
      await store().createDatasource(child);
      const chunks = makeChunks(source, samplePassages(6, 14));
      const kept = makeChunks(sibling, samplePassages(2, 15));
      const { sequence } = await store().replaceChunks(source.id, chunks);
      await store().replaceChunks(sibling.id, kept);
      const indexRows = await context.harness.inspect?.textIndexRows?.();
      const before = await store().chunkSequence(datastore.id);

      const change = await store().deleteDatasource(source.id);
      expect(change).not.toBeNull();
      expect(sorted(change!.removedIds)).toEqual(sorted(ids(chunks)));
      expect(change!.addedIds).toEqual([]);
      expect(before).toBeGreaterThan(sequence);
      expect(change!.sequence).toBeGreaterThan(before);
      expect(await store().chunkSequence(datastore.id)).toBe(change!.sequence);
      expect(await store().getDatasource(source.id)).toBeNull();
      expect(await store().getChunks(ids(chunks))).toEqual([]);
      expect(await store().getDatasource(child.id)).toEqual(child);
      expect(ids(await store().listChunks(sibling.id))).toEqual(ids(kept));
      expect(await store().countChunks(datastore.id)).toBe(kept.length);
      expect(await store().deleteDatasource(source.id)).toBeNull();
      const inspect = context.harness.inspect;
      if (inspect) {
        expect(await inspect.chunkRows(source.id)).toBe(0);
        if (indexRows !== undefined) expect(await inspect.textIndexRows!()).toBe(indexRows - chunks.length);
      }
    });

    it('deletes a datastore with its datasources and chunks, leaving other datastores', async () => {
      const other = makeDatastore({ name: 'Survivor' });
      const otherSource = makeDatasource(other, { name: 'survivor.md' });
      await store().createDatastore(other);
      await store().createDatasource(otherSource);
      const survivors = makeChunks(otherSource, samplePassages(3, 16));
      await store().replaceChunks(otherSource.id, survivors);
      await store().replaceChunks(source.id, makeChunks(source, samplePassages(5, 17)));
      await store().replaceChunks(sibling.id, makeChunks(sibling, samplePassages(4, 18)));

      expect(await store().deleteDatastore(datastore.id)).toBe(true);
      expect(await store().listDatasources(datastore.id)).toEqual([]);
      expect(await store().getDatasource(source.id)).toBeNull();
      expect(await store().countChunks(datastore.id)).toBe(0);
      expect(await store().chunkSequence(datastore.id)).toBe(0);
      expect(ids(await store().listChunks(otherSource.id))).toEqual(ids(survivors));
      expect(await store().listDatastores()).toEqual([other]);
      const inspect = context.harness.inspect;
      if (inspect) {
        expect(await inspect.chunkRows(source.id)).toBe(0);
        expect(await inspect.chunkRows(sibling.id)).toBe(0);
        if (inspect.datasourceRows) expect(await inspect.datasourceRows(datastore.id)).toBe(0);
        if (inspect.textIndexRows) expect(await inspect.textIndexRows()).toBe(survivors.length);
      }
    });
  });
}
