/**
 * ragdesk's own binding to hnswlib (`native/graph.cc`). The package ships a prebuilt binary for the
 * platforms it was packed on (`prebuilds/`, N-API); elsewhere the install compiles it from
 * `binding.gyp` against the hnswlib headers shipped in `dist/vendor/hnswlib`. Why not hnswlib-node's class: it inserts one plain-array vector at a
 * time on one thread, filters through a JavaScript callback per candidate, and npm compiles it
 * for the baseline CPU, so its distances never use AVX. This binding inserts a batch on several
 * threads, takes typed arrays, filters by the label tables in C++ and picks the SIMD kernel at run
 * time. Files are hnswlib's format: a folder written with hnswlib-node reads here unchanged.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RagdeskError } from '../../../src/errors.js';

/** Labels and cosines, best first for a search, in slot order for an exact scan. */
interface NativeHits {
  labels: Uint32Array;
  scores: Float64Array;
  /**
   * Set while a restored graph still waits for vectors: labels the search reached whose vector is
   * not in place. The hits are final only without it; else lend those vectors and search again.
   */
  missing?: Uint32Array;
}

/** The label tables a search accepts by (see graph-protocol.ts `LabelTables`). */
export interface NativeFilter {
  source: Int32Array;
  tenant: Int32Array;
  /** Datasource numbers accepted; null: any. */
  sources: Int32Array | null;
  /** Custom id numbers accepted; null: any. */
  tenants: Int32Array | null;
  /** Live labels are below this. */
  nextLabel: number;
}

export interface NativeGraph {
  /** A number `attach` takes on another thread for this same graph. */
  share(): number;
  /**
   * Lets go of the graph: its memory is freed once every thread holding it has (the collector does
   * not see its size, so it is not left to it). Every later call on this object throws.
   */
  release(): void;
  write(path: string): Promise<void>;
  /**
   * A restored graph's live vectors, one per label, back to back, normalised into place; throws
   * when a label is not a live element of the links file or comes again (graph-file.ts).
   */
  place(labels: Uint32Array, vectors: Float32Array): void;
  /**
   * Vectors a search fetched from the store before `place` brought them (see `missing` in the
   * hits); slots that have theirs are skipped. `place` later only counts them.
   */
  lend(labels: Uint32Array, vectors: Float32Array): void;
  /** Live slots of a restored graph that `place` has not given a vector yet (0 for any other graph). */
  missing(): number;
  /**
   * Copies a restored graph's level 0 from its file into hnswlib's memory, once (until then a
   * search reads the links from the file). On the thread that places.
   */
  layOut(): void;
  /**
   * Ends a restore: throws when `place` left a live slot without its vector (the source and the
   * file do not match), else lays out and frees what the restore kept. The graph is then whole.
   */
  settle(): void;
  /**
   * Inserts entries [from, to): `update[i]` 1 replaces label i's point, else the label takes a
   * deleted slot or a new one (resize first). With `threads` > 1 the labels must be distinct.
   */
  add(labels: Uint32Array, update: Uint8Array, vectors: Float32Array, from: number, to: number, threads: number): void;
  remove(label: number): void;
  resize(capacity: number): void;
  count(): number;
  capacity(): number;
  /** Every label with a slot, deleted ones included. */
  labels(): Uint32Array;
  /** The `k` (at most the capacity) nearest accepted labels not in `hidden`. */
  search(query: Float32Array, k: number, ef: number, filter: NativeFilter | null, hidden: Uint32Array | null): NativeHits;
  /** Every accepted live label not in `hidden`, with its exact cosine, in label order. */
  exact(query: Float32Array, filter: NativeFilter, hidden: Uint32Array | null): NativeHits;
  /**
   * Per label, the cosine of `query` with its point, in the order given (computed in double from
   * the point and its own norm); NaN where the graph cannot tell: no live point has the label, or a
   * restored graph still waits for its vector. Labels an unanswered op is changing must not be
   * passed: their point may be half written.
   */
  similarities(query: Float32Array, labels: Uint32Array): Float64Array;
  /**
   * Labels of live points that no level-0 link leads to from the entry point: a search never
   * returns them (native/reachability.h). Empty for a sound graph; not for a restore before `settle`.
   */
  unreachable(): Uint32Array;
  /**
   * Links every unreachable live point from reachable points near it; returns how many links it
   * made. Only a graph whose reachable lists are all full can keep some unreachable (see
   * `unreachable`); the next call retries them. Not for a restore before `settle`.
   */
  reconnect(): number;
}

interface NativeGraphClass {
  new (dimensions: number, capacity: number, m: number, efConstruction: number): NativeGraph;
  read(path: string, dimensions: number): Promise<NativeGraph>;
  /** The graph of a links-only file (graph-file.ts): every live slot waits for `place`. */
  restore(linksPath: string, dimensions: number): Promise<NativeGraph>;
  /**
   * This thread's object for a graph another thread shared; null once no thread holds it. Searches
   * may run here while that thread inserts or removes (hnswlib allows it; a resize waits for them).
   */
  attach(handle: number): NativeGraph | null;
  /** The distance kernel this CPU runs: "avx512", "avx2" or "portable". */
  kernel(): string;
}

/** The package root: the folder holding `binding.gyp`, three folders up from the source, four from `dist/`. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let up = 0; up < 5; up++, dir = dirname(dir)) if (existsSync(join(dir, 'binding.gyp'))) return dir;
  throw new RagdeskError(
    'invalid_adapter',
    "ragdesk's HNSW addon: no binding.gyp above the adapter; the package is incomplete, reinstall ragdesk",
  );
}

/** A build of this checkout (build/Release) first, then the package's prebuilt binary for this platform. */
function loadAddon(): { Graph: NativeGraphClass } {
  const require = createRequire(import.meta.url);
  const nodeGypBuild = require('node-gyp-build') as (dir: string) => unknown;
  try {
    return nodeGypBuild(packageRoot()) as { Graph: NativeGraphClass };
  } catch (error) {
    throw new RagdeskError(
      'invalid_adapter',
      `ragdesk's HNSW addon could not be loaded (${(error as Error).message}): no prebuilt binary fits ${process.platform}-${process.arch} and none was compiled; run \`npm rebuild ragdesk\` (it needs a C++ compiler and Python)`,
      { cause: error },
    );
  }
}

function checkedKernel(graph: NativeGraphClass): NativeGraphClass {
  const wanted = process.env.RAGDESK_HNSW_KERNEL;
  if (wanted && graph.kernel() !== wanted) {
    throw new RagdeskError(
      'invalid_request',
      `RAGDESK_HNSW_KERNEL=${wanted}: this CPU has no such kernel (it can run ${graph.kernel()}); use portable, avx2 or avx512`,
      { details: { wanted, available: graph.kernel() } },
    );
  }
  return graph;
}

let loaded: NativeGraphClass | undefined;

export function nativeGraph(): NativeGraphClass {
  loaded ??= checkedKernel(loadAddon().Graph);
  return loaded;
}
