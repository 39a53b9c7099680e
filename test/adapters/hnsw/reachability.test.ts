/**
 * Every entry an hnsw collection counts must be found by a search. hnswlib's pruning can leave a
 * point that no link leads to (seen after a crash: 36 entries counted, 35 returned by a search for
 * all of them); the index links such points again on load, after inserts and before each write.
 */
import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex } from '../../../adapters/hnsw/index.js';
import { nativeGraph, type NativeGraph } from '../../../adapters/hnsw/binding/native-graph.js';
import { collectionDirectory, writeGeneration } from '../../../adapters/hnsw/files/persistence.js';
import type { IndexCollection, IndexEntry, VectorIndex } from '../../../src/ports/index.js';
import { clusteredVectors, seededRandom } from '../../../src/testing/random.js';
import { InMemoryIndexSource as Source, openSettled } from '../../../src/testing/vector-index-conformance.js';
import { writtenHeader } from '../../helpers/hnsw-header.js';

const DIMENSIONS = 32;
const DATASTORE = 'ds-reachable';
const COLLECTION: IndexCollection = { datastoreId: DATASTORE, dimensions: DIMENSIONS, model: 'model-a' };

/** Fields of hnswlib's file header (hnswalg.h saveIndex) and the links file's record layout (graph-file.ts). */
interface LinksLayout {
  count: number;
  recordBytes: number;
  dataOffset: number;
  entryPoint: number;
  maxM: number;
}

function layoutOf(file: Buffer): LinksLayout {
  const field = (at: number) => Number(file.readBigUInt64LE(at));
  return { count: field(16), recordBytes: field(24), dataOffset: field(40), entryPoint: file.readUInt32LE(52), maxM: field(56) };
}

/**
 * Every link list in a links file (level 0 of each element, then its upper levels), as the offset
 * of its count; a list's targets follow its count.
 */
function linkLists(file: Buffer): { at: number; slot: number }[] {
  const { count, recordBytes, dataOffset, maxM } = layoutOf(file);
  const lists: { at: number; slot: number }[] = [];
  let at = 96;
  for (let slot = 0; slot < count; slot++) {
    lists.push({ at, slot });
    const deleted = ((file[at + 2] as number) & 1) !== 0;
    at += deleted ? recordBytes : dataOffset + 8;
  }
  const upperBytes = 4 + maxM * 4;
  for (let slot = 0; slot < count; slot++) {
    const size = file.readUInt32LE(at);
    at += 4;
    for (let level = 0; level < size / upperBytes; level++) lists.push({ at: at + level * upperBytes, slot });
    at += size;
  }
  return lists;
}

/** Removes every link to `target`: no walk reaches it any more, though the file still lists it. */
function cutLinksTo(file: Buffer, target: number): number {
  let cut = 0;
  for (const { at } of linkLists(file)) {
    const size = file.readUInt16LE(at);
    const kept: number[] = [];
    for (let i = 0; i < size; i++) {
      const link = file.readUInt32LE(at + 4 + i * 4);
      if (link === target) cut++;
      else kept.push(link);
    }
    file.writeUInt16LE(kept.length, at);
    kept.forEach((link, i) => file.writeUInt32LE(link, at + 4 + i * 4));
  }
  return cut;
}

function linksTo(file: Buffer, target: number): number {
  let links = 0;
  for (const { at } of linkLists(file)) {
    const size = file.readUInt16LE(at);
    for (let i = 0; i < size; i++) if (file.readUInt32LE(at + 4 + i * 4) === target) links++;
  }
  return links;
}

/** One tight cluster, as near-duplicate texts give: where hnswlib's pruning drops the most links. */
function entries(count: number): IndexEntry[] {
  return clusteredVectors({ count, dimensions: DIMENSIONS, clusters: 1, seed: 11 }).map((vector, i) => ({
    id: `c${i}`,
    vector,
    datasourceId: 'ds',
    customId: null,
  }));
}

/** The ids a search for all of them returns, once per entry's own vector. */
async function unfound(index: VectorIndex, all: readonly IndexEntry[]): Promise<string[]> {
  const missing = new Set<string>();
  for (const entry of all) {
    const hits = await index.query(DATASTORE, { vector: entry.vector, topK: all.length });
    const ids = new Set(hits.map((hit) => hit.id));
    for (const other of all) if (!ids.has(other.id)) missing.add(other.id);
  }
  return [...missing].sort();
}

/**
 * A seeded stream of changes to a graph of points near one centre (inserts, updates of a point's
 * vector, removals) as the index sends them; `step` gets each change and returns after it.
 */
async function changeStream(
  seed: number,
  changes: number,
  step: (change: { labels: number[]; update: boolean; vectors: Float32Array[] } | { remove: number }) => Promise<boolean> | boolean,
): Promise<void> {
  const random = seededRandom(seed);
  const centre = Float32Array.from({ length: DIMENSIONS }, () => random());
  const near = () => Float32Array.from(centre, (value) => value + (random() - 0.5) * 0.3);
  const live: number[] = [];
  let next = 0;
  for (let change = 0; change < changes; change++) {
    const roll = random();
    let stop: boolean;
    if (roll < 0.5 || live.length < 3) {
      const count = 1 + Math.floor(random() * 4);
      const labels = Array.from({ length: count }, () => next++);
      const vectors = labels.map(() => near());
      live.push(...labels);
      stop = await step({ labels, update: false, vectors });
    } else if (roll < 0.75) {
      const label = live[Math.floor(random() * live.length)] as number;
      stop = await step({ labels: [label], update: true, vectors: [near()] });
    } else {
      const label = live.splice(Math.floor(random() * live.length), 1)[0] as number;
      stop = await step({ remove: label });
    }
    if (stop) return;
    // The stream also draws one query vector per change (kept so the seed below stays meaningful).
    near();
  }
}

/** A seed whose stream leaves hnswlib's own graph with an unreachable point at change 59 (of 42 live points). */
const UNREACHABLE_SEED = 85;

describe('hnsw: every counted entry is reachable', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ragdesk-hnsw-reach-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the binding finds the point hnswlib left unreachable and links it again', async () => {
    const graph: NativeGraph = new (nativeGraph())(DIMENSIONS, 1024, 16, 200);
    const live = new Set<number>();
    let lost: number[] = [];
    try {
      await changeStream(UNREACHABLE_SEED, 300, (change) => {
        if ('remove' in change) {
          graph.remove(change.remove);
          live.delete(change.remove);
        } else {
          const vectors = new Float32Array(change.labels.length * DIMENSIONS);
          change.vectors.forEach((vector, i) => vectors.set(vector, i * DIMENSIONS));
          graph.add(
            Uint32Array.from(change.labels),
            new Uint8Array(change.labels.length).fill(change.update ? 1 : 0),
            vectors,
            0,
            change.labels.length,
            1,
          );
          for (const label of change.labels) live.add(label);
        }
        lost = [...graph.unreachable()];
        return lost.length > 0;
      });
      // The stream must have reached the state this test is about.
      expect(lost).toHaveLength(1);
      const [point] = lost as [number];
      const search = (query: Float32Array) => [...graph.search(query, live.size, 400, null, null).labels];
      const centre = new Float32Array(DIMENSIONS).fill(0.5);
      expect(search(centre)).not.toContain(point);

      expect(graph.reconnect()).toBe(1);
      expect([...graph.unreachable()]).toEqual([]);
      expect(search(centre).sort((a, b) => a - b)).toEqual([...live].sort((a, b) => a - b));
    } finally {
      graph.release();
    }
  });

  it('many identical vectors (boilerplate chunks): hnswlib leaves some unreachable, the index finds them all', async () => {
    const random = seededRandom(5);
    const distinct = Array.from({ length: 8 }, () => Float32Array.from({ length: DIMENSIONS }, () => random() - 0.5));
    const all: IndexEntry[] = Array.from({ length: 2000 }, (_, i) => ({
      id: `dup${i}`,
      vector: distinct[i % distinct.length] as Float32Array,
      datasourceId: 'ds',
      customId: null,
    }));
    const graph: NativeGraph = new (nativeGraph())(DIMENSIONS, all.length, 16, 200);
    try {
      const vectors = new Float32Array(all.length * DIMENSIONS);
      all.forEach((entry, i) => vectors.set(entry.vector, i * DIMENSIONS));
      graph.add(
        Uint32Array.from(all, (_, i) => i),
        new Uint8Array(all.length),
        vectors,
        0,
        all.length,
        1,
      );
      // hnswlib's own graph, before any check: the state this test is about.
      expect(graph.unreachable().length).toBeGreaterThan(0);
    } finally {
      graph.release();
    }

    const source = new Source();
    const index = hnswIndex({ dir, insertThreads: 1 });
    await openSettled(index, COLLECTION, source);
    await index.upsert(DATASTORE, all, source.put(all));
    await index.flush(DATASTORE);
    const hits = await index.query(DATASTORE, { vector: all[0]!.vector, topK: all.length });
    expect(hits).toHaveLength(all.length);
    await index.close();
  });

  it('an index file with an entry no link leads to: reopening links it, finds it, and writes the repaired file', async () => {
    const all = entries(40);
    const source = new Source();
    const first = hnswIndex({ dir, insertThreads: 1 });
    await openSettled(first, COLLECTION, source);
    await first.upsert(DATASTORE, all, source.put(all));
    await first.close();

    // The state a crash left in the reported case: the entry is in the file's label map and
    // counted, but no link in the graph leads to it.
    const directory = collectionDirectory(dir, DATASTORE);
    const header = await writtenHeader(directory);
    const file = await readFile(join(directory, header.binary.file));
    const { entryPoint } = layoutOf(file);
    const victim = entryPoint === 7 ? 8 : 7;
    expect(cutLinksTo(file, victim)).toBeGreaterThan(0);
    expect(linksTo(file, victim)).toBe(0);
    const { format: _format, version: _version, binary: _binary, ...content } = header;
    await writeGeneration(directory, { ...content, generation: header.generation + 1 }, (path) => writeFile(path, file));

    const reopened = hnswIndex({ dir });
    expect(await openSettled(reopened, COLLECTION, source)).toEqual({ rebuilt: false });
    expect(await reopened.count(DATASTORE)).toBe(all.length);
    expect(await unfound(reopened, all)).toEqual([]);
    await reopened.close();

    // close wrote the repaired graph: the file itself now links the entry.
    const repaired = await writtenHeader(directory);
    expect(repaired.generation).toBeGreaterThan(header.generation + 1);
    expect(linksTo(await readFile(join(directory, repaired.binary.file)), victim)).toBeGreaterThan(0);
    const third = hnswIndex({ dir });
    expect(await openSettled(third, COLLECTION, source)).toEqual({ rebuilt: false });
    expect(await unfound(third, all)).toEqual([]);
    await third.close();
  });

  it('an index file where one entry in five has no link leading to it: reopening finds them all', async () => {
    const all = entries(600);
    const source = new Source();
    const first = hnswIndex({ dir });
    await openSettled(first, COLLECTION, source);
    await first.upsert(DATASTORE, all, source.put(all));
    await first.close();

    const directory = collectionDirectory(dir, DATASTORE);
    const header = await writtenHeader(directory);
    const file = await readFile(join(directory, header.binary.file));
    const { entryPoint } = layoutOf(file);
    const victims = all.map((_, slot) => slot).filter((slot) => slot % 5 === 1 && slot !== entryPoint);
    for (const victim of victims) cutLinksTo(file, victim);
    expect(victims.filter((victim) => linksTo(file, victim) > 0)).toEqual([]);
    const { format: _format, version: _version, binary: _binary, ...content } = header;
    await writeGeneration(directory, { ...content, generation: header.generation + 1 }, (path) => writeFile(path, file));

    const reopened = hnswIndex({ dir });
    expect(await openSettled(reopened, COLLECTION, source)).toEqual({ rebuilt: false });
    expect(await reopened.count(DATASTORE)).toBe(all.length);
    const centre = all[0] as IndexEntry;
    const hits = await reopened.query(DATASTORE, { vector: centre.vector, topK: all.length });
    expect(hits.map((hit) => hit.id).sort()).toEqual(all.map((entry) => entry.id).sort());
    await reopened.close();
  });

  it('a stream of upserts, updates and removals never writes an entry no search finds', async () => {
    const source = new Source();
    const index = hnswIndex({ dir, insertThreads: 1, flushAfterMs: Number.POSITIVE_INFINITY });
    await openSettled(index, COLLECTION, source);
    const entryOf = (label: number, vector: Float32Array): IndexEntry => ({ id: `p${label}`, vector, datasourceId: 'ds', customId: null });
    const failures: string[] = [];
    let changes = 0;
    await changeStream(UNREACHABLE_SEED, 70, async (change) => {
      changes++;
      if ('remove' in change) {
        await index.remove(DATASTORE, [`p${change.remove}`], source.delete([`p${change.remove}`]));
      } else {
        const batch = change.labels.map((label, i) => entryOf(label, change.vectors[i] as Float32Array));
        await index.upsert(DATASTORE, batch, source.put(batch));
      }
      await index.flush(DATASTORE);
      const missing = await unfound(index, [...source.byId.values()]);
      if (missing.length > 0) failures.push(`after change ${changes}: ${missing.join(', ')} not found`);
      return false;
    });
    await index.close();
    expect(changes).toBe(70);
    expect(failures).toEqual([]);
  });
});
