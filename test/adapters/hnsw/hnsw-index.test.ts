import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hnswIndex, type HnswIndex, type HnswIndexOptions } from '../../../adapters/hnsw/index.js';
import { headerFile } from '../../../adapters/hnsw/files/header-codec.js';
import { collectionDirectory, HEADER_FILE } from '../../../adapters/hnsw/files/persistence.js';
import { writtenHeader } from '../../helpers/hnsw-header.js';
import type { IndexCollection, IndexEntry, VectorIndex } from '../../../src/ports/index.js';
import { clusteredVectors } from '../../../src/testing/random.js';
import { InMemoryIndexSource as Source, openSettled } from '../../../src/testing/vector-index-conformance.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const DIMENSIONS = 16;
const DATASTORE = 'ds-main';
const COLLECTION: IndexCollection = { datastoreId: DATASTORE, dimensions: DIMENSIONS, model: 'model-a' };

function entries(count: number, seed = 1, prefix = 'c'): IndexEntry[] {
  return clusteredVectors({ count, dimensions: DIMENSIONS, clusters: 8, seed }).map((vector, i) => ({
    id: `${prefix}${i}`,
    vector,
    datasourceId: i % 100 === 1 ? 'rare' : `ds-${i % 3}`,
    customId: i % 2 === 0 ? 'even' : null,
  }));
}

/**
 * `source` as a store that yields `change(every entry)` from `vectors()`, in pages of `page`: other
 * vectors than the index holds, or the same ones in another order.
 */
function changedSource(source: Source, change: (all: IndexEntry[]) => IndexEntry[], page = Number.POSITIVE_INFINITY): Source {
  return Object.assign(
    new Source(),
    { current: source.current },
    {
      async *vectors() {
        const all = change([...source.byId.values()]).map(({ id, vector }) => ({ id, vector }));
        for (let at = 0; at < all.length; at += page) yield all.slice(at, at + page);
      },
      async *entries() {
        yield [...source.byId.values()];
      },
    },
  );
}

describe('hnswIndex (hnsw-specific behaviour)', () => {
  let dir: string;
  let directory: string;
  const opened: VectorIndex[] = [];
  const make = (options: Partial<HnswIndexOptions> = {}): VectorIndex => {
    const index = hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY, initialCapacity: 8, ...options });
    opened.push(index);
    return index;
  };
  const header = () => writtenHeader(directory);

  it('refuses a bad option with invalid_request naming it', () => {
    const refusal = (path: string): unknown =>
      expect.objectContaining({ code: 'invalid_request', details: { issues: [expect.objectContaining({ path })] } });
    expect(() => hnswIndex({ dir: '' })).toThrow(refusal('dir'));
    expect(() => hnswIndex({ dir, m: 0 })).toThrow(refusal('m'));
    expect(() => hnswIndex({ dir, efSearch: 2 ** 32 })).toThrow(refusal('efSearch'));
    expect(() => hnswIndex({ dir, flushAfterMs: -1 })).toThrow(refusal('flushAfterMs'));
    expect(() => hnswIndex({ dir, exactSearchThreshold: Number.NaN })).toThrow(refusal('exactSearchThreshold'));
    expect(hnswIndex({ dir, flushAfterMs: Number.POSITIVE_INFINITY })).toBeDefined();
  });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ragdesk-hnsw-test-'));
    directory = collectionDirectory(dir, DATASTORE);
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((index) => index.close().catch(() => undefined)));
    await rm(dir, { recursive: true, force: true });
  });

  it('detects a header and a binary from different flushes (torn write) and rebuilds', async () => {
    const source = new Source();
    const first = entries(200);
    const index = make();
    await index.open(COLLECTION, source);
    await index.upsert(DATASTORE, first, source.put(first));
    await index.flush(DATASTORE);
    const header1 = await readFile(join(directory, HEADER_FILE));
    const file1 = (await header()).binary.file;
    // Same ids, new vectors: the second binary has the same size, so only the checksum can tell.
    const second = entries(200, 2);
    await index.upsert(DATASTORE, second, 2);
    await index.flush(DATASTORE);
    const binary2 = await readFile(join(directory, (await header()).binary.file));
    await index.close();
    expect(binary2.length).toBe((await readFile(join(directory, (await header()).binary.file))).length);

    await writeFile(join(directory, HEADER_FILE), header1); // the header of flush 1 ...
    await writeFile(join(directory, file1), binary2); // ... with the binary of flush 2 under its name
    const stale = new Source();
    stale.put(first); // sequence 1, matching header 1: only the binary check can catch this
    const reopened = make();
    expect(await openSettled(reopened, COLLECTION, stale)).toEqual({ rebuilt: true, reason: 'corrupt' });
    const [best] = await reopened.query(DATASTORE, { vector: (first[3] as IndexEntry).vector, topK: 1 });
    expect(best?.id).toBe('c3');
    expect(best?.score).toBeCloseTo(1, 4);
  });

  it('hashes a binary only when its stamp differs from the one recorded at write time', async () => {
    const source = new Source();
    const first = entries(50);
    const index = make();
    await index.open(COLLECTION, source);
    await index.upsert(DATASTORE, first, source.put(first));
    await index.close();
    // A wrong checksum with the recorded stamp: the file is the one written, so it is not hashed.
    const written = await header();
    expect(typeof written.binary.stamp).toBe('string');
    written.binary.sha256 = '0'.repeat(64);
    await writeFile(join(directory, HEADER_FILE), headerFile(written).bytes);
    expect(await openSettled(make(), COLLECTION, source)).toEqual({ rebuilt: false });
    // The same bytes written again (a copy, a restore): another stamp, so the checksum is read.
    await opened.pop()?.close();
    const file = join(directory, (await header()).binary.file);
    await writeFile(file, await readFile(file));
    await writeFile(join(directory, HEADER_FILE), headerFile(written).bytes);
    expect(await openSettled(make(), COLLECTION, source)).toEqual({ rebuilt: true, reason: 'corrupt' });
  });

  it('rebuilds when the header is torn or names a missing binary, and ignores crash leftovers', async () => {
    const source = new Source();
    const index = make();
    await index.open(COLLECTION, source);
    const data = entries(100);
    await index.upsert(DATASTORE, data, source.put(data));
    await index.close();

    // Leftovers of a flush that crashed before its rename: the previous pair must still load.
    await writeFile(join(directory, 'index.9.deadbeef.bin.tmp'), 'partial');
    await writeFile(join(directory, `${HEADER_FILE}.cafe.tmp`), '{"format":');
    expect(await openSettled(make(), COLLECTION, source)).toEqual({ rebuilt: false });
    const files = await readdir(directory);
    expect(files.filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const bytes = await readFile(join(directory, HEADER_FILE));
    await writeFile(join(directory, HEADER_FILE), bytes.subarray(0, bytes.length / 2));
    expect(await openSettled(make(), COLLECTION, source)).toEqual({ rebuilt: true, reason: 'corrupt' });
    await rm(join(directory, (await header()).binary.file));
    expect(await openSettled(make(), COLLECTION, source)).toEqual({ rebuilt: true, reason: 'corrupt' });
  });

  it('leaves a stale header after a crash before a flush, and rebuilds from the source', async () => {
    const source = new Source();
    const index = make();
    await index.open(COLLECTION, source);
    const data = entries(120);
    await index.upsert(DATASTORE, data.slice(0, 60), source.put(data.slice(0, 60)));
    await index.flush();
    await index.upsert(DATASTORE, data.slice(60), source.put(data.slice(60)));
    expect((await header()).sequence).toBe(1); // the "crash": nothing wrote sequence 2
    const after = make();
    expect(await openSettled(after, COLLECTION, source)).toEqual({ rebuilt: true, reason: 'stale' });
    expect(await after.count(DATASTORE)).toBe(120);
  });

  /** A new index holding `count` entries, and the source holding the same. */
  async function filled(count: number): Promise<{ data: IndexEntry[]; source: Source; index: VectorIndex }> {
    const data = entries(count);
    const source = new Source();
    const index = make();
    await index.open(COLLECTION, source);
    await index.upsert(DATASTORE, data, source.put(data));
    return { data, source, index };
  }

  it('rebuilds (corrupt) when the store gives other vectors than the links-only binary needs, and leaves no temporary file', async () => {
    const { data, source, index: first } = await filled(300);
    await first.close();
    const wrong = (change: (all: IndexEntry[]) => IndexEntry[]) => changedSource(source, change);
    const cases: [string, (all: IndexEntry[]) => IndexEntry[]][] = [
      ['one missing', (all) => all.slice(1)],
      ['an unknown id', (all) => [...all.slice(1), { ...(all[0] as IndexEntry), id: 'nobody' }]],
      ['one twice', (all) => [...all, all[5] as IndexEntry]],
    ];
    for (const [label, change] of cases) {
      const index = make();
      expect(await openSettled(index, COLLECTION, wrong(change)), label).toEqual({ rebuilt: true, reason: 'corrupt' });
      const [hit] = await index.query(DATASTORE, { vector: (data[7] as IndexEntry).vector, topK: 1 });
      expect(hit?.id, label).toBe('c7');
      await index.close();
      expect(
        (await readdir(directory)).filter((name) => name.endsWith('.tmp')),
        label,
      ).toEqual([]);
      // The rebuild wrote a binary of its own: put back the one the next case should reject.
      const again = make();
      await again.open(COLLECTION, source);
      await again.close();
    }
  });

  it('restores the same graph whatever order the store gives the vectors in', async () => {
    const { data, source, index: first } = await filled(300);
    const probes = [3, 150, 299].map((i) => (data[i] as IndexEntry).vector);
    // Answers from the graph itself, not from the exact scan of vectors still queued for it.
    await (first as HnswIndex).indexed();
    const expected = await Promise.all(probes.map((vector) => first.query(DATASTORE, { vector, topK: 5 })));
    await first.close();
    // Several pages, as a store yields them.
    const ordered = (order: (all: IndexEntry[]) => IndexEntry[]) => changedSource(source, order, 64);
    const orders: [string, (all: IndexEntry[]) => IndexEntry[]][] = [
      ['the header order', (all) => all],
      ['reversed', (all) => [...all].reverse()],
      ['in order, then parting midway', (all) => [...all.slice(0, 150), ...all.slice(150).reverse()]],
    ];
    for (const [label, order] of orders) {
      const index = make();
      expect(await openSettled(index, COLLECTION, ordered(order)), label).toEqual({ rebuilt: false });
      expect(await Promise.all(probes.map((vector) => index.query(DATASTORE, { vector, topK: 5 }))), label).toEqual(expected);
      await index.close();
    }
    // In order but one missing midway: the pair is still refused.
    const index = make();
    expect(
      await openSettled(
        index,
        COLLECTION,
        ordered((all) => [...all.slice(0, 100), ...all.slice(101)]),
      ),
    ).toEqual({ rebuilt: true, reason: 'corrupt' });
  });

  it('writes after the idle delay and after flushAfterChanges', async () => {
    const source = new Source();
    // 1.5 s: the read just after the upsert comes long before it, even on a loaded machine.
    const timed = make({ flushAfterMs: 1_500 });
    await timed.open(COLLECTION, source);
    const data = entries(50);
    await timed.upsert(DATASTORE, data, source.put(data));
    expect((await header()).sequence).toBe(0);
    const deadline = Date.now() + 30_000; // waits for the write (fsync may be slow on a busy machine); no bound on its time
    while ((await header()).sequence !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    expect((await header()).sequence).toBe(1);
    await timed.close();

    const counted = make({ flushAfterChanges: 30 });
    await counted.open(COLLECTION, source);
    await counted.upsert(DATASTORE, data.slice(0, 20), source.put(data.slice(0, 20)));
    expect((await header()).sequence).toBe(1);
    await counted.upsert(DATASTORE, data.slice(20, 40), source.put(data.slice(20, 40)));
    expect((await header()).sequence).toBe(3);
  });

  it('hands the event loop back while adding a large batch, and claims its sequence only at the end', async () => {
    const source = new Source();
    const index = make();
    await index.open(COLLECTION, source);
    // Slices hold 1,024 entries: 3,000 inserts take three of them on any machine.
    const data = entries(3000);
    const order: string[] = [];
    // One immediate per event-loop turn (a timer would count milliseconds, not turns).
    let turns = 0;
    let working = true;
    const tick = (): void => {
      turns++;
      if (working) setImmediate(tick);
    };
    setImmediate(tick);
    const work = index.upsert(DATASTORE, data, source.put(data)).then(() => order.push('upserted'));
    setImmediate(() => order.push('other work'));
    await work.finally(() => (working = false));
    expect(order).toEqual(['other work', 'upserted']);
    expect(turns).toBeGreaterThan(1);
    expect(await index.count(DATASTORE)).toBe(3000);
    await index.close();
    expect((await header()).sequence).toBe(1);
  });

  it('keeps one binary per collection and loads it after churn without a rebuild', async () => {
    const source = new Source();
    const index = make();
    await index.open(COLLECTION, source);
    let live = entries(300);
    await index.upsert(DATASTORE, live, source.put(live));
    for (let round = 0; round < 6; round++) {
      const removed = live.filter((_, i) => i % 3 === round % 3).map((entry) => entry.id);
      await index.remove(DATASTORE, removed, source.delete(removed));
      const added = entries(100, 10 + round, `r${round}-`);
      await index.upsert(DATASTORE, added, source.put(added));
      live = [...source.byId.values()];
      await index.flush(DATASTORE);
    }
    expect((await readdir(directory)).filter((name) => name.endsWith('.bin'))).toHaveLength(1);
    await index.close();
    const reopened = make();
    expect(await openSettled(reopened, COLLECTION, source)).toEqual({ rebuilt: false });
    expect(await reopened.count(DATASTORE)).toBe(source.byId.size);
    // Slots freed before the write are reused after the load.
    const dropped = live.slice(0, 50).map((entry) => entry.id);
    await reopened.remove(DATASTORE, dropped, source.delete(dropped));
    const later = entries(80, 99, 'later-');
    await reopened.upsert(DATASTORE, later, source.put(later));
    expect(await reopened.count(DATASTORE)).toBe(source.byId.size);
    const gone = new Set(dropped);
    for (const entry of source.byId.values()) {
      const hits = await reopened.query(DATASTORE, { vector: entry.vector, topK: 5 });
      expect(hits[0]?.id).toBe(entry.id);
      expect(hits.some((hit) => gone.has(hit.id))).toBe(false);
    }
  });

  it('reuses an add buffer the graph thread handed back without its stale update flags', async () => {
    const source = new Source();
    const index = make();
    await index.open(COLLECTION, source);
    // Updates (every flag 1), then as many new entries in a buffer of the same size: stale flags
    // would take the new labels for updates, skip the graph's growth past 8 and fail the insert.
    const first = entries(8, 1, 'a');
    await index.upsert(DATASTORE, first, source.put(first));
    await index.flush(DATASTORE);
    const moved = first.map((entry, i) => ({ ...entry, vector: (first[(i + 1) % 8] as IndexEntry).vector }));
    await index.upsert(DATASTORE, moved, source.put(moved));
    await index.flush(DATASTORE);
    const added = entries(8, 2, 'b');
    await index.upsert(DATASTORE, added, source.put(added));
    await index.flush(DATASTORE);
    expect(await index.count(DATASTORE)).toBe(16);
    for (const entry of added) expect((await index.query(DATASTORE, { vector: entry.vector, topK: 1 }))[0]?.id).toBe(entry.id);
  });

  it('after loading, filters, updates and removals find entries through the maps built on first need', async () => {
    const source = new Source();
    const index = make();
    await index.open(COLLECTION, source);
    const all = entries(400);
    await index.upsert(DATASTORE, all, source.put(all));
    await index.close();

    const reopened = make();
    expect(await openSettled(reopened, COLLECTION, source)).toEqual({ rebuilt: false });
    expect(await reopened.count(DATASTORE)).toBe(400);
    const rare = all.filter((entry) => entry.datasourceId === 'rare').map((entry) => entry.id);
    const hits = await reopened.query(DATASTORE, { vector: all[1]!.vector, topK: 50, filter: { datasourceIds: ['rare'] } });
    expect(hits.map((hit) => hit.id).sort()).toEqual([...rare].sort());
    // An existing id gets a new vector: replaced in place, not added twice.
    const moved = { ...all[7]!, vector: all[300]!.vector };
    await reopened.upsert(DATASTORE, [moved], source.put([moved]));
    expect(await reopened.count(DATASTORE)).toBe(400);
    const near = await reopened.query(DATASTORE, { vector: all[300]!.vector, topK: 2 });
    expect(near.map((hit) => hit.id).sort()).toEqual([all[7]!.id, all[300]!.id].sort());
    await reopened.remove(DATASTORE, rare, source.delete(rare));
    expect(await reopened.count(DATASTORE)).toBe(400 - rare.length);
    expect(await reopened.query(DATASTORE, { vector: all[1]!.vector, topK: 5, filter: { datasourceIds: ['rare'] } })).toEqual([]);
  });

  it('still returns every match when the graph walk is forced for a selective filter', async () => {
    const source = new Source();
    const index = make({ exactSearchThreshold: 0, efSearch: 10 });
    await index.open(COLLECTION, source);
    const data = entries(1000);
    await index.upsert(DATASTORE, data, source.put(data));
    const rare = data.filter((entry) => entry.datasourceId === 'rare').map((entry) => entry.id);
    for (const entry of data.slice(0, 20)) {
      const hits = await index.query(DATASTORE, { vector: entry.vector, topK: 20, filter: { datasourceIds: ['rare'] } });
      expect(hits.map((hit) => hit.id).sort()).toEqual([...rare].sort());
    }
  });

  it('does not keep the process alive with a pending flush timer', async () => {
    const work = await transpileAdapter();
    try {
      const script = join(work, 'pending-flush.mjs');
      await writeFile(
        script,
        `import { hnswIndex } from './adapters/hnsw/index.js';
const index = hnswIndex({ dir: process.argv[2], flushAfterMs: 600000 });
const source = { sequence: async () => 0, async *entries() {} };
await index.open({ datastoreId: 'd', dimensions: 4, model: 'm' }, source);
await index.upsert('d', [{ id: 'a', vector: new Float32Array([1, 2, 3, 4]), datasourceId: 's', customId: null }], 1);
console.log('pending');
`,
      );
      const started = Date.now();
      const stdout = await new Promise<string>((resolve, reject) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- execFile passes an ExecFileException, an Error the rule does not recognise (its type is an Omit<> of one)
        execFile(process.execPath, [script, dir], { timeout: 30_000 }, (error, out) => (error ? reject(error) : resolve(out)));
      });
      expect(stdout.trim()).toBe('pending');
      expect(Date.now() - started).toBeLessThan(20_000);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

/** The child process cannot load TypeScript on Node 20, so the adapter is transpiled for it. */
async function transpileAdapter(): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'ragdesk-hnsw-child-'));
  await symlink(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  // The package's own HNSW addon, found beside the package root as in an install.
  await symlink(join(ROOT, 'build'), join(work, 'build'), 'dir');
  await symlink(join(ROOT, 'binding.gyp'), join(work, 'binding.gyp'), 'file');
  await writeFile(join(work, 'package.json'), '{"type":"module"}');
  const folder = async (path: string) =>
    (await readdir(join(ROOT, path), { recursive: true })).filter((name) => name.endsWith('.ts')).map((name) => `${path}/${name}`);
  const sources = [
    ...(await folder('adapters/hnsw')),
    ...(await folder('adapters/kit')),
    'src/errors.ts',
    'src/util/keyed-mutex.ts',
    'src/util/next-turn.ts',
  ];
  for (const file of sources) {
    const { outputText } = ts.transpileModule(await readFile(join(ROOT, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const target = join(work, file.replace(/\.ts$/, '.js'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
  return work;
}
