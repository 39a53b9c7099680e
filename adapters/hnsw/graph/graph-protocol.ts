/**
 * Messages between the index (main thread) and the graph thread (graph-worker.ts), which owns every
 * hnswlib graph of one `hnswIndex`. Mutations and file work go through the thread's port in order;
 * searches do not travel: the index searches the shared graphs itself (see graph-thread.ts).
 */

/** A collection's graph in the thread, numbered by the index: a rebuilt collection gets a new key. */
export type GraphKey = number;

export type GraphOp =
  | { op: 'create'; key: GraphKey; dimensions: number; capacity: number; m: number; efConstruction: number }
  /**
   * The graph of a links-only file (graph-file.ts), read by the binding and answered as `load` is,
   * shared before its live elements' vectors are back: they follow in `restore-vectors` ops (a
   * search meanwhile lends itself the ones it needs), then `restore-done` checks none is missing.
   */
  | { op: 'restore'; key: GraphKey; linksPath: string; dimensions: number }
  /** Vectors of a restore, back to back, one per label, in a buffer of `GraphThread.opBuffer`. */
  | { op: 'restore-vectors'; key: GraphKey; labels: Uint32Array; vectors: Float32Array }
  | { op: 'restore-done'; key: GraphKey; live: number }
  /** hnswlib reads `path`; the reply carries the labels it holds. `live`: the entries the index's header lists. */
  | { op: 'load'; key: GraphKey; dimensions: number; path: string; live: number }
  /**
   * `vectors` holds `labels.length` vectors back to back; `update[i]` is 1 when label i is already in
   * the graph (a new vector for the same entry), else the label is new and takes a free slot. The
   * index packs all three into one shared buffer of `GraphThread.opBuffer`, which it also scans
   * while the op is queued (pending-vectors.ts), and reuses once the op is answered.
   */
  | { op: 'add'; key: GraphKey; labels: Uint32Array; update: Uint8Array; vectors: Float32Array }
  | { op: 'remove'; key: GraphKey; labels: Uint32Array }
  /** hnswlib's file at `fullPath`, then the links-only file at `linksPath` (graph-file.ts); `fullPath` is removed. */
  | { op: 'write'; key: GraphKey; fullPath: string; linksPath: string; dimensions: number }
  | { op: 'release'; key: GraphKey };

export type GraphRequest = GraphOp & { id: number };

/**
 * `handle`: a created or loaded graph, for `Graph.attach` on the index's thread (native-graph.ts).
 * `relinked`: unreachable points a load or the end of a restore linked again (the file needs rewriting).
 */
export type GraphReply =
  | { id: number; ok: true; labels?: Uint32Array; count?: number; handle?: number; relinked?: number }
  | { id: number; ok: false; message: string };
