import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeLinksFile } from '../../adapters/hnsw/graph-file.js';
import { nativeGraph } from '../../adapters/hnsw/native-graph.js';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { collectionDirectory, HEADER_FILE } from '../../adapters/hnsw/persistence.js';
import { readPacked } from '../../adapters/kit/packed-strings.js';
import type { IndexCollection, IndexEntry } from '../../src/ports/index.js';
import { clusteredVectors } from '../../src/testing/random.js';
import { InMemoryIndexSource as Source, openSettled } from '../../src/testing/vector-index-conformance.js';

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

/** A header's entry numbers as versions 3 and 4 write them (base64 of little-endian int32) back as numbers. */
function base64Ints(value: unknown): number[] {
  return Array.from(new Int32Array(new Uint8Array(Buffer.from(value as string, 'base64')).buffer));
}

/** A version 4 string list (base64 of a packed list) back as strings. */
function base64Strings(value: unknown): string[] {
  return readPacked(new Uint8Array(Buffer.from(value as string, 'base64')), 0).strings.toArray();
}

/**
 * A version 4 header (entries by label) as an older version wrote it: (3) the live entries as
 * parallel arrays, their numbers base64 of int32, the ids and the datasource and custom id tables
 * as JSON arrays of strings; (1, 2) the numbers as JSON arrays too.
 */
function olderHeader(header: Record<string, unknown>, version: 1 | 2 | 3): Record<string, unknown> {
  const entries = header.entries as Record<string, unknown>;
  const ids = base64Strings(entries.ids);
  const tenants = base64Ints(entries.customIds);
  const live = { ids: [] as string[], labels: [] as number[], datasources: [] as number[], customIds: [] as number[] };
  base64Ints(entries.datasources).forEach((source, label) => {
    if (source < 0) return;
    live.ids.push(ids[label]!);
    live.labels.push(label);
    live.datasources.push(source);
    live.customIds.push(tenants[label]!);
  });
  const strings = { datasourceIds: base64Strings(header.datasourceIds), customIds: base64Strings(header.customIds) };
  if (version !== 3) return { ...header, ...strings, version, entries: live };
  const base64 = (values: number[]) => Buffer.from(Int32Array.from(values).buffer).toString('base64');
  const numbers = { labels: base64(live.labels), datasources: base64(live.datasources), customIds: base64(live.customIds) };
  return { ...header, ...strings, version, entries: { ids: live.ids, ...numbers } };
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
    const header = JSON.parse(await readFile(join(directory, HEADER_FILE), 'utf8')) as { version: number; binary: { file: string } };
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

  it('keeps ids, datasource and custom ids of any script through an ASCII header', async () => {
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
    const bytes = await readFile(join(collectionDirectory(dir, collection.datastoreId), HEADER_FILE));
    expect(isAscii(bytes)).toBe(true);
    expect((JSON.parse(bytes.toString('latin1')) as { datastoreId: string }).datastoreId).toBe(collection.datastoreId);
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

  it.each([2, 3] as const)(
    'loads a header of version %i (strings as JSON arrays; numbers too in 2), as written before',
    async (version) => {
      const source = new Source();
      const all = entries(200);
      const index = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
      await index.open(COLLECTION, source);
      await index.upsert(DATASTORE, all, source.put(all));
      await index.close();
      const headerPath = join(collectionDirectory(dir, DATASTORE), HEADER_FILE);
      const header = JSON.parse(await readFile(headerPath, 'utf8')) as { version: number; entries: Record<string, unknown> };
      expect(header.version).toBe(4);
      await writeFile(headerPath, JSON.stringify(olderHeader(header, version)));
      const reopened = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
      expect(await openSettled(reopened, COLLECTION, source)).toEqual({ rebuilt: false });
      const [best] = await reopened.query(DATASTORE, {
        vector: (all[17] as IndexEntry).vector,
        topK: 1,
        filter: { datasourceIds: ['ds'] },
      });
      expect(best?.id).toBe('c17');
      await reopened.close();
      // A version 4 header whose numbers do not decode to whole 32-bit values, or whose ids are not a
      // packed list, is corrupt.
      const damaged = [
        { ...header, entries: { ...header.entries, datasources: 'AAA' } },
        { ...header, entries: { ...header.entries, customIds: Buffer.from(Int32Array.of(0).buffer).toString('base64') } },
        { ...header, entries: { ...header.entries, datasources: Buffer.from(new Int32Array(200).fill(1).buffer).toString('base64') } },
        { ...header, entries: { ...header.entries, ids: Buffer.from('not a list').toString('base64') } },
        { ...header, entries: { ...header.entries, ids: base64Strings(header.entries.ids) } },
      ];
      for (const bad of damaged) {
        await writeFile(headerPath, JSON.stringify(bad));
        const third = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
        expect(await openSettled(third, COLLECTION, source)).toEqual({ rebuilt: true, reason: 'corrupt' });
        await third.close();
      }
    },
  );

  it('loads a folder written by the previous format (hnswlib’s whole file) and rewrites it without the vectors', async () => {
    const source = new Source();
    const all = entries(300);
    const index = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    await index.open(COLLECTION, source);
    await index.upsert(DATASTORE, all, source.put(all));
    await index.close();
    // The previous format: version 1, the binary is hnswlib's own file, no stamp.
    const directory = collectionDirectory(dir, DATASTORE);
    const headerPath = join(directory, HEADER_FILE);
    const header = JSON.parse(await readFile(headerPath, 'utf8')) as { binary: { file: string } };
    const linksPath = join(directory, header.binary.file);
    const wholePath = join(directory, 'index.9.0badc0de.bin');
    const { entries: persisted } = JSON.parse(await readFile(headerPath, 'utf8')) as { entries: { ids: string; datasources: string } };
    const sources = base64Ints(persisted.datasources);
    const labelById = new Map(base64Strings(persisted.ids).flatMap((id, label) => (sources[label]! >= 0 ? [[id, label] as const] : [])));
    await restoreFullFile(linksPath, wholePath, DIMENSIONS, (id) => labelById.get(id), source.entries());
    await rm(linksPath);
    const whole = await readFile(wholePath);
    const binary = { file: 'index.9.0badc0de.bin', bytes: whole.length, sha256: createHash('sha256').update(whole).digest('hex') };
    // Version 1 also wrote the entry numbers as JSON arrays.
    const current = JSON.parse(await readFile(headerPath, 'utf8')) as Record<string, unknown>;
    await writeFile(headerPath, JSON.stringify({ ...olderHeader(current, 1), binary }));

    const reopened = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    expect(await openSettled(reopened, COLLECTION, source)).toEqual({ rebuilt: false });
    const [best] = await reopened.query(DATASTORE, { vector: (all[42] as IndexEntry).vector, topK: 1 });
    expect(best?.id).toBe('c42');
    const more = entries(10, 5).map((entry) => ({ ...entry, id: `more${entry.id}` }));
    await reopened.upsert(DATASTORE, more, source.put(more));
    await reopened.close();
    const rewritten = JSON.parse(await readFile(headerPath, 'utf8')) as { version: number; binary: { file: string } };
    expect(rewritten.version).toBe(4);
    expect((await stat(join(directory, rewritten.binary.file))).size).toBeLessThan(whole.length - 300 * DIMENSIONS * 4 + 4096);
    const third = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY });
    expect(await openSettled(third, COLLECTION, source)).toEqual({ rebuilt: false });
    await third.close();
  });
});
