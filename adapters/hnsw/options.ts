import { invalidRequest } from '../../src/errors.js';

export interface HnswIndexOptions {
  /** Directory holding one sub-directory per datastore; created when missing. */
  dir: string;
  /** Graph degree (hnswlib `M`). Default 16. Baked into a persisted index: changing it applies on the next rebuild. */
  m?: number;
  /** Build-time beam width (hnswlib `efConstruction`). Default 200. */
  efConstruction?: number;
  /**
   * Query-time beam width; each query uses max(efSearch, topK). Default 100: at 100k x 384
   * clustered vectors recall@10 was 0.983 at 64, 0.999 at 128, for ~1 ms per query.
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
}

export type ResolvedOptions = Required<Omit<HnswIndexOptions, 'exactSearchThreshold'>> & Pick<HnswIndexOptions, 'exactSearchThreshold'>;

export function resolveOptions(options: HnswIndexOptions): ResolvedOptions {
  if (typeof options?.dir !== 'string' || options.dir === '') {
    throw invalidRequest('hnswIndex: `dir` is required', [{ path: 'dir', message: 'required' }]);
  }
  const resolved: ResolvedOptions = {
    dir: options.dir,
    m: options.m ?? 16,
    efConstruction: options.efConstruction ?? 200,
    efSearch: options.efSearch ?? 100,
    initialCapacity: options.initialCapacity ?? 1024,
    flushAfterMs: options.flushAfterMs ?? 5000,
    flushAfterChanges: options.flushAfterChanges ?? Number.POSITIVE_INFINITY,
    exactSearchThreshold: options.exactSearchThreshold,
  };
  for (const key of ['m', 'efConstruction', 'efSearch', 'initialCapacity'] as const) {
    if (!Number.isInteger(resolved[key]) || resolved[key] < 1 || resolved[key] > 0xffff_ffff) {
      throw invalidRequest(`hnswIndex: \`${key}\` must be a positive integer`, [{ path: key, message: String(resolved[key]) }]);
    }
  }
  for (const key of ['flushAfterMs', 'flushAfterChanges', 'exactSearchThreshold'] as const) {
    const value = resolved[key];
    if (value !== undefined && (typeof value !== 'number' || Number.isNaN(value) || value < 0)) {
      throw invalidRequest(`hnswIndex: \`${key}\` must be a non-negative number`, [{ path: key, message: String(resolved[key]) }]);
    }
  }
  return resolved;
}
