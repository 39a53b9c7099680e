/**
 * What the crash harness (harness.ts, the parent) and its worker (worker.ts, the child it kills)
 * agree on. The child prints `loaded` once started, reads one JSON config line from stdin, prints
 * `ready` when its data directory is open, then one `op ...` line per operation it starts.
 */
export interface WorkerConfig {
  /** Data directory, laid out like `openRagdesk`: `ragdesk.db` and `indexes/`. */
  dataDir: string;
  /** Folder of test files (made by fixtures/make-fixtures.ts) the worker uploads as `file` datasources. */
  fixturesDir: string;
  /** `http://127.0.0.1:<port>` of the parent's test site. */
  origin: string;
  seed: number;
  /**
   * `work`: run a seeded stream of ingestion until killed. `recover`: only reopen (jobs resume,
   * indexes are opened, maybe rebuilt) so the parent can kill the recovery itself.
   */
  mode: 'work' | 'recover';
  /** The HNSW idle-flush delay; short values put index writes inside the kill window. */
  flushAfterMs: number;
}

/** Lines the worker prints. */
export const LOADED_LINE = 'loaded';
export const READY_LINE = 'ready';
export const OP_PREFIX = 'op ';
