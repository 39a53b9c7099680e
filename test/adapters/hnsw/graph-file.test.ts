import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeLinksFile } from '../../../adapters/hnsw/files/graph-file.js';
import { nativeGraph } from '../../../adapters/hnsw/binding/native-graph.js';
import { hnswIndex } from '../../../adapters/hnsw/index.js';
import { headerFile, JSON_HEADER_FILE } from '../../../adapters/hnsw/files/header-codec.js';
import { collectionDirectory, HEADER_FILE, type IndexHeader } from '../../../adapters/hnsw/files/persistence.js';
import { writtenHeader } from '../../helpers/hnsw-header.js';
import type { IndexCollection, IndexEntry } from '../../../src/ports/index.js';
import { clusteredVectors } from '../../../src/testing/random.js';
import { InMemoryIndexSource as Source, openSettled } from '../../../src/testing/vector-index-conformance.js';

const DIMENSIONS = 128;
const DATASTORE = 'ds-graph';
const COLLECTION: IndexCollection = { datastoreId: DATASTORE, dimensions: DIMENSIONS, model: 'model-a' };

/**
 * hnswlib's full file at `fullPath` from the links file and every live entry's vector, by id: the
 * binding restores the graph (as a reopen does on the graph thread), then hnswlib writes it.
 */
async function restoreFullFile(
  linksPath: string,
  fullPath: string,
  dimensions: number,
  labelOf: (id: string) => number | undefined,
  vectors: AsyncIterable<readonly { id: string; vector: Float32Array }[]>,
): Promise<void> {
  const graph = await nativeGraph().restore(linksPath, dimensions);
  try {
    for await (const batch of vectors) {
      const packed = new Float32Array(batch.length * dimensions);
      batch.forEach((entry, i) => packed.set(entry.vector, i * dimensions));
      graph.place(
        Uint32Array.from(batch, (entry) => labelOf(entry.id) ?? 0xffff_ffff),
        packed,
      );
    }
    graph.settle();
    await graph.write(fullPath);
  } finally {
    graph.release();
  }
}

/**
 * A header as an older version wrote it, as JSON (`header.json`): (3) the live entries as parallel
 * arrays, their numbers base64 of int32, the ids and the datasource and custom id tables as JSON
 * arrays of strings; (1, 2) the numbers as JSON arrays too.
 */
function olderHeader(header: IndexHeader, version: 1 | 2 | 3): Record<string, unknown> {
  const live = { ids: [] as string[], labels: [] as number[], datasources: [] as number[], customIds: [] as number[] };
  header.entries.datasources.forEach((source, label) => {
    if (source < 0) return;
    live.ids.push(header.entries.ids.at(label));
    live.labels.push(label);
    live.datasources.push(source);
    live.customIds.push(header.entries.customIds[label]!);
  });
  const fields = { ...header, version, datasourceIds: header.datasourceIds.toArray(), customIds: header.customIds.toArray() };
  if (version !== 3) return { ...fields, entries: live };
  const base64 = (values: number[]) => Buffer.from(Int32Array.from(values).buffer).toString('base64');
  const numbers = { labels: base64(live.labels), datasources: base64(live.datasources), customIds: base64(live.customIds) };
  return { ...fields, entries: { ids: live.ids, ...numbers } };
}

/** Not unit length: the restored bytes must be what hnswlib's cosine space stored (normalised). */
function entries(count: number, seed = 3): IndexEntry[] {
  return clusteredVectors({ count, dimensions: DIMENSIONS, clusters: 6, seed }).map((vector, i) => ({
    id: `c${i}`,
    vector: vector.map((value) => value * (1 + (i % 7))),
    datasourceId: 'ds',
    customId: null,
  }));
}

/** The float32 length hnswlib's cosine space computes (a float sum of squares, its square root). */
function floatLength(vector: Float32Array): number {
  let sum = 0;
  for (const value of vector) sum = Math.fround(sum + Math.fround(value * value));
  return Math.fround(Math.sqrt(sum));
}

/** Scaled to unit length in double precision: in float32 some come out of length exactly 1, some not. */
function unitEntries(count: number): IndexEntry[] {
  return entries(count, 9).map((entry, i) => {
    const length = Math.hypot(...entry.vector);
    return { ...entry, id: `c${300 + i}`, vector: entry.vector.map((value) => value / length) };
  });
}

describe('hnsw index file without the store-held vectors', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ragdesk-graph-file-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the file without live vectors and restores hnswlib’s file byte for byte', async () => {
    const all = [...entries(300), ...unitEntries(40)];
    // Both paths of the restore: divided by their length, and of length exactly 1 (copied).
    expect(all.some((entry) => floatLength(entry.vector) === 1)).toBe(true);
    expect(all.filter((entry) => floatLength(entry.vector) !== 1).length).toBeGreaterThan(300);
    const graph = new hnswlib.HierarchicalNSW('cosine', DIMENSIONS);
    graph.initIndex(400, 8, 50, 100, true);
    all.forEach((entry, label) => graph.addPoint(Array.from(entry.vector), label, false));
    // Deleted elements keep their vectors in the file: the store no longer has them.
    const deleted = new Set([4, 70, 299]);
    for (const label of deleted) graph.markDelete(label);
    const live = (label: number) => !deleted.has(label);
    const full = join(dir, 'full.bin');
    await graph.writeIndex(full);
    const links = join(dir, 'links.bin');
    await writeLinksFile(full, links, DIMENSIONS);
    expect((await stat(full)).size - (await stat(links)).size).toBe((all.length - deleted.size) * DIMENSIONS * 4);

    const restored = join(dir, 'restored.bin');
    const liveEntries = all.filter((_, label) => live(label));
    // In another order than the file's, in two batches.
    const batches = [liveEntries.slice(150).reverse(), liveEntries.slice(0, 150)];
    const labelOf = (id: string) => Number(id.slice(1));
    await restoreFullFile(
      links,
      restored,
      DIMENSIONS,
      labelOf,
      (async function* () {
        yield* batches;
      })(),
    );
    expect((await readFile(restored)).equals(await readFile(full))).toBe(true);

    // A source missing a vector, or holding one the file has no live element for, does not match.
    const missing = (async function* () {
      yield liveEntries.slice(1);
    })();
    await expect(restoreFullFile(links, restored, DIMENSIONS, labelOf, missing)).rejects.toThrow(/no vector for 1 live/);
    const extra = (async function* () {
      yield [...liveEntries, all[4] as IndexEntry];
    })();
    await expect(restoreFullFile(links, restored, DIMENSIONS, labelOf, extra)).rejects.toThrow(/not a live element/);
  });

  it('cuts and restores a file of several steps (1 MB each), deletes on both sides of a step boundary', async () => {
    // At 1,024 dimensions a record is ~4 KB, so a step holds ~250 of them and 700 take three.
    const dimensions = 1024;
    const vectors = clusteredVectors({ count: 700, dimensions, clusters: 4, seed: 21 });
    const graph = new hnswlib.HierarchicalNSW('cosine', dimensions);
    graph.initIndex(vectors.length, 8, 20, 100, true);
    vectors.forEach((vector, label) => graph.addPoint(Array.from(vector), label, false));
    const deleted = new Set([0, 250, 251, 252, 503, 699]);
    for (const label of deleted) graph.markDelete(label);
    const full = join(dir, 'full.bin');
    await graph.writeIndex(full);
    const links = join(dir, 'links.bin');
    await writeLinksFile(full, links, dimensions);
    expect((await stat(full)).size - (await stat(links)).size).toBe((vectors.length - deleted.size) * dimensions * 4);
    const restored = join(dir, 'restored.bin');
    const live = vectors.map((vector, label) => ({ id: `v${label}`, vector })).filter((_, label) => !deleted.has(label));
    await restoreFullFile(
      links,
      restored,
      dimensions,
      (id) => Number(id.slice(1)),
      (async function* () {
        yield live;
      })(),
    );
    expect((await readFile(restored)).equals(await readFile(full))).toBe(true);
  });

  it('refuses a links file that is cut short, runs on, or is not one, before any vector is placed', async () => {
    const vectors = clusteredVectors({ count: 120, dimensions: DIMENSIONS, clusters: 3, seed: 5 });
    const graph = new hnswlib.HierarchicalNSW('cosine', DIMENSIONS);
    graph.initIndex(vectors.length, 8, 20, 100, true);
    vectors.forEach((vector, label) => graph.addPoint(Array.from(vector), label, false));
    const full = join(dir, 'full.bin');
    await graph.writeIndex(full);
    const links = join(dir, 'links.bin');
    await writeLinksFile(full, links, DIMENSIONS);
    const bytes = await readFile(links);
    const damaged = join(dir, 'damaged.bin');
    const restoreOf = async (content: Buffer, dimensions = DIMENSIONS) => {
      await writeFile(damaged, content);
      const restored = await nativeGraph().restore(damaged, dimensions);
      restored.release();
    };
    await expect(restoreOf(bytes.subarray(0, bytes.length - 3))).rejects.toThrow(/links file: truncated/);
    await expect(restoreOf(bytes.subarray(0, 50))).rejects.toThrow(/links file: truncated/);
    await expect(restoreOf(Buffer.concat([bytes, Buffer.alloc(8)]))).rejects.toThrow(/links file: trailing bytes/);
    // Read as another dimension count, or a full file read as a links file: not this layout.
    await expect(restoreOf(bytes, DIMENSIONS * 2)).rejects.toThrow(/links file: unexpected layout/);
    await expect(restoreOf(await readFile(full))).rejects.toThrow(/links file: /);
    // A level-0 link to an element the file does not have (a search would follow it).
    const linked = Buffer.from(bytes);
    expect(linked.readUInt16LE(96)).toBeGreaterThan(0);
    linked.writeUInt32LE(vectors.length + 5, 100);
    await expect(restoreOf(linked)).rejects.toThrow(/links file: level-0 links/);
    // The intact file restores, and wants every vector.
    const intact = await nativeGraph().restore(links, DIMENSIONS);
    expect(intact.missing()).toBe(vectors.length);
    intact.release();
  });

  it('keeps each vector once on disk, reloads from the source, and rebuilds when the source disagrees', async () => {
    const source = new Source();
    const all = entries(500);
    const index = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    await index.open(COLLECTION, source);
    await index.upsert(DATASTORE, all, source.put(all));
    await index.remove(DATASTORE, ['c1', 'c2'], source.delete(['c1', 'c2']));
    await index.close();
    const directory = collectionDirectory(dir, DATASTORE);
    const header = await writtenHeader(directory);
    expect(header.version).toBe(4);
    // Links and labels only: far less than the 498 live vectors alone.
    expect((await stat(join(directory, header.binary.file))).size).toBeLessThan(498 * DIMENSIONS * 4);

    const reopened = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    expect(await openSettled(reopened, COLLECTION, source)).toEqual({ rebuilt: false });
    const [best] = await reopened.query(DATASTORE, { vector: (all[9] as IndexEntry).vector, topK: 1 });
    expect(best?.id).toBe('c9');
    expect(best?.score).toBeCloseTo(1, 5);
    await reopened.close();

    // Same sequence, other vectors than the file's live elements: not a pair, so rebuilt.
    const other = new Source();
    other.put(entries(498, 11));
    while ((await other.sequence()) < (await source.sequence())) other.delete([]);
    const third = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    expect(await openSettled(third, COLLECTION, other)).toEqual({ rebuilt: true, reason: 'corrupt' });
    await third.close();
  });

  it('keeps ids, datasource and custom ids of any script through the header', async () => {
    const collection: IndexCollection = { datastoreId: 'données-数据-🗂', dimensions: DIMENSIONS, model: 'modèle' };
    const source = new Source();
    const all = entries(120).map((entry, i) => ({
      ...entry,
      id: `ч${i}-𝒳`,
      datasourceId: i % 2 === 0 ? 'source-é' : 'source-中',
      customId: i % 3 === 0 ? 'tenant-ü' : null,
    }));
    const index = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    await index.open(collection, source);
    await index.upsert(collection.datastoreId, all, source.put(all));
    await index.close();
    const written = await writtenHeader(collectionDirectory(dir, collection.datastoreId));
    expect([written.datastoreId, written.model]).toEqual([collection.datastoreId, collection.model]);
    expect(written.datasourceIds.toArray().sort()).toEqual(['source-é', 'source-中']);
    const reopened = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    expect(await openSettled(reopened, collection, source)).toEqual({ rebuilt: false });
    const hits = await reopened.query(collection.datastoreId, {
      vector: (all[6] as IndexEntry).vector,
      topK: 3,
      filter: { datasourceIds: ['source-é'], customIds: ['tenant-ü'] },
    });
    expect(hits[0]?.id).toBe('ч6-𝒳');
    expect(hits.every((hit) => Number(/^ч(\d+)/.exec(hit.id)?.[1]) % 6 === 0)).toBe(true);
    await reopened.close();
  });

  /** A collection of `count` entries written and closed: its source, entries, directory and header. */
  async function writtenFolder(count: number) {
    const source = new Source();
    const all = entries(count);
    const index = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    await index.open(COLLECTION, source);
    await index.upsert(DATASTORE, all, source.put(all));
    await index.close();
    const directory = collectionDirectory(dir, DATASTORE);
    return { source, all, directory, header: await writtenHeader(directory) };
  }

  it.each([2, 3] as const)(
    'loads a header of version %i (strings as JSON arrays; numbers too in 2), as written before',
    async (version) => {
      const { source, all, directory, header } = await writtenFolder(200);
      const current = await readFile(join(directory, HEADER_FILE));
      await rm(join(directory, HEADER_FILE));
      await writeFile(join(directory, JSON_HEADER_FILE), JSON.stringify(olderHeader(header, version)));
      const reopened = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
      expect(await openSettled(reopened, COLLECTION, source)).toEqual({ rebuilt: false });
      const [best] = await reopened.query(DATASTORE, {
        vector: (all[17] as IndexEntry).vector,
        topK: 1,
        filter: { datasourceIds: ['ds'] },
      });
      expect(best?.id).toBe('c17');
      await reopened.close();
      // A version 4 header cut short, running on, or naming a datasource or custom id its tables
      // do not have, is corrupt.
      const outOfRange = (key: 'datasources' | 'customIds') => {
        const entries = { ...header.entries, [key]: header.entries[key].slice() };
        entries[key][5] = 7;
        return headerFile({ ...header, entries }).bytes;
      };
      const damaged = [
        current.subarray(0, current.length - 4),
        Buffer.concat([current, Buffer.alloc(4)]),
        outOfRange('datasources'),
        outOfRange('customIds'),
      ];
      for (const bad of damaged) {
        await writeFile(join(directory, HEADER_FILE), bad);
        const third = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
        expect(await openSettled(third, COLLECTION, source)).toEqual({ rebuilt: true, reason: 'corrupt' });
        await third.close();
      }
    },
  );

  it('loads a folder written by the previous format (hnswlib’s whole file) and rewrites it without the vectors', async () => {
    const { source, all, directory, header } = await writtenFolder(300);
    // The previous format: version 1, the binary is hnswlib's own file, no stamp.
    const linksPath = join(directory, header.binary.file);
    const wholePath = join(directory, 'index.9.0badc0de.bin');
    const { ids, datasources } = header.entries;
    const labelById = new Map(ids.toArray().flatMap((id, label) => (datasources[label]! >= 0 ? [[id, label] as const] : [])));
    await restoreFullFile(linksPath, wholePath, DIMENSIONS, (id) => labelById.get(id), source.entries());
    await rm(linksPath);
    const whole = await readFile(wholePath);
    const binary = { file: 'index.9.0badc0de.bin', bytes: whole.length, sha256: createHash('sha256').update(whole).digest('hex') };
    // Version 1 also wrote the entry numbers as JSON arrays, in header.json.
    await rm(join(directory, HEADER_FILE));
    await writeFile(join(directory, JSON_HEADER_FILE), JSON.stringify({ ...olderHeader(header, 1), binary }));

    const reopened = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    expect(await openSettled(reopened, COLLECTION, source)).toEqual({ rebuilt: false });
    const [best] = await reopened.query(DATASTORE, { vector: (all[42] as IndexEntry).vector, topK: 1 });
    expect(best?.id).toBe('c42');
    const more = entries(10, 5).map((entry) => ({ ...entry, id: `more${entry.id}` }));
    await reopened.upsert(DATASTORE, more, source.put(more));
    await reopened.close();
    const rewritten = await writtenHeader(directory);
    expect(rewritten.version).toBe(4);
    await expect(stat(join(directory, JSON_HEADER_FILE))).rejects.toThrow(/ENOENT/);
    expect((await stat(join(directory, rewritten.binary.file))).size).toBeLessThan(whole.length - 300 * DIMENSIONS * 4 + 4096);
    const third = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    expect(await openSettled(third, COLLECTION, source)).toEqual({ rebuilt: false });
    await third.close();
  });
});
