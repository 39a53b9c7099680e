import { availableParallelism } from 'node:os';
import { integerOption, numberOption, optionError } from '../kit/option-checks.js';

const OWNER = 'hnswIndex';

/**
 * The graph settings `hnswIndex` uses when none are given (benchmarks build their references with
 * them). `efSearch` is the query beam of a collection up to 300k entries; see {@link defaultEfSearch}.
 */
export const HNSW_DEFAULTS = { m: 16, efConstruction: 200, efSearch: 100 } as const;

/** The query beam the default grows to, from 400k entries on. */
const LARGE_COLLECTION_EF = 256;
/** The last size measured at full recall with the base beam: the ramp starts here. */
const RAMP_START = 300_000;
/** The first size given the large beam. */
const RAMP_END = 400_000;

/**
 * The query beam of a collection of `count` entries when `efSearch` is not given: 100 up to 300k
 * entries, 256 from 400k, a straight line between. Measured on 2,000 wide clusters of 384-d
 * vectors (2026-11-27): recall@10 at 300k 0.9995 at ef 100 (200 queries); at 500k 0.970 at 100,
 * 0.980 at 125 and 1.000 at 256; at 1M 0.939 at 100 and 1.000 at 256 (100 queries each), for a
 * hybrid p50 of 1.92-1.94 ms at 256 against 1.76-1.91 at 100. Between 300k and 400k the line is
 * an interpolation, not a measurement.
 */
export function defaultEfSearch(count: number): number {
  const progress = Math.min(1, Math.max(0, (count - RAMP_START) / (RAMP_END - RAMP_START)));
  return Math.round(HNSW_DEFAULTS.efSearch + progress * (LARGE_COLLECTION_EF - HNSW_DEFAULTS.efSearch));
}

/** More insert threads than this contend for the graph's locks more than they gain by default. */
const MAX_DEFAULT_INSERT_THREADS = 4;

export interface HnswIndexOptions {
  /** Directory holding one sub-directory per datastore; created when missing. */
  dir: string;
  /** Graph degree (hnswlib `M`). Default 16. Baked into a persisted index: changing it applies on the next rebuild. */
  m?: number;
  /**
   * Build-time beam width (hnswlib `efConstruction`). Default 200. A lower beam builds faster and
   * costs recall as the collection grows: at 1M clustered 384-d vectors 160 built in 23.5 instead of
   * ~31 minutes, and recall@10 at efSearch 100 fell from 0.939 to 0.897 (`bench:ef-construction`,
   * `bench:scale`, docs/decisions/004-hnsw-build-beam-200.md). It is written into a graph when the graph is built, so a
   * new value applies to new and rebuilt collections.
   */
  efConstruction?: number;
  /**
   * Query-time beam width; each query uses max(efSearch, topK). Default: grows with the
   * collection, 100 up to 300k entries and 256 from 400k ({@link defaultEfSearch}). At 100k x 384
   * clustered vectors recall@10 was 0.983 at 64, 0.999 at 128, for ~1 ms per query; at 1M (2,000
   * wide clusters, 100 queries) 0.834 at 64, 0.939 at 100, 0.969 at 128 and 1.000 at 256; at 500k
   * 0.970 at 100 and 1.000 at 256. A value given here is used at every size.
   */
  efSearch?: number;
  /** Slots allocated for a new collection; the graph doubles when full. Default 1024. */
  initialCapacity?: number;
  /**
   * Write pending changes once a collection has seen no change for this long. Default 5000 ms;
   * `Infinity` disables the timer (then only `flush`, `close` and `flushAfterChanges` write).
   * The timer never keeps the process alive.
   */
  flushAfterMs?: number;
  /**
   * Also write, at the end of the mutation that reaches it, once this many entries changed since the
   * last write. Default: no limit. Any unflushed change makes the whole file stale (it is rebuilt on
   * the next open), so flushing during a long ingest only costs time; this exists for callers that
   * want bounded work between writes anyway.
   */
  flushAfterChanges?: number;
  /**
   * Filters matching at most this many entries are answered by an exact scan instead of a filtered
   * graph walk (see filtered-search.ts for the measurements). Default: 98304 / dimensions, i.e. 256
   * at 384 dimensions and 64 at 1536, where both paths cost about the same.
   */
  exactSearchThreshold?: number;
  /**
   * Threads that share the inserts of an upsert on the graph thread (hnswlib inserts distinct
   * points concurrently). Default: the machine's available parallelism, at most 4. On a 2-core
   * machine two threads built 20k 384-d vectors in 4.9 s against 9.4 s for one (2026-11-27); 1
   * keeps the graph thread's single core and makes a build reproducible.
   */
  insertThreads?: number;
}

export type ResolvedOptions = Required<Omit<HnswIndexOptions, 'exactSearchThreshold' | 'efSearch'>> &
  Pick<HnswIndexOptions, 'exactSearchThreshold' | 'efSearch'>;

export function resolveOptions(options: HnswIndexOptions): ResolvedOptions {
  if (typeof options?.dir !== 'string' || options.dir === '') throw optionError(OWNER, 'dir', 'is required', options?.dir);
  // Graph sizes are 32-bit in hnswlib.
  const graphSize = (name: 'm' | 'efConstruction' | 'efSearch' | 'initialCapacity', fallback: number) =>
    integerOption(OWNER, name, options[name], fallback, 1, 0xffff_ffff);
  const nonNegative = { min: 0, infinite: true };
  return {
    dir: options.dir,
    m: graphSize('m', HNSW_DEFAULTS.m),
    efConstruction: graphSize('efConstruction', HNSW_DEFAULTS.efConstruction),
    efSearch: options.efSearch === undefined ? undefined : graphSize('efSearch', HNSW_DEFAULTS.efSearch),
    initialCapacity: graphSize('initialCapacity', 1024),
    flushAfterMs: numberOption(OWNER, 'flushAfterMs', options.flushAfterMs, 5000, nonNegative),
    flushAfterChanges: numberOption(OWNER, 'flushAfterChanges', options.flushAfterChanges, Number.POSITIVE_INFINITY, nonNegative),
    exactSearchThreshold: numberOption(OWNER, 'exactSearchThreshold', options.exactSearchThreshold, undefined, nonNegative),
    insertThreads: integerOption(
      OWNER,
      'insertThreads',
      options.insertThreads,
      Math.min(MAX_DEFAULT_INSERT_THREADS, availableParallelism()),
      1,
      256,
    ),
  };
}
