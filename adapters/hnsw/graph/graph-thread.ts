import type { Worker } from 'node:worker_threads';
import { RagdeskError } from '../../../src/errors.js';
import { startWorker, workerEntry } from '../../kit/worker-pool.js';
import type { GraphKey, GraphOp, GraphReply, GraphRequest } from './graph-protocol.js';
import { type LabelScores, searchGraph, type SearchFilter } from './graph-search.js';
import { type NativeGraph, nativeGraph } from '../binding/native-graph.js';
import { blocksSearch, pendingVectors } from './pending-vectors.js';

export type Done = Extract<GraphReply, { ok: true }>;

interface PendingOp {
  request: GraphRequest;
  /** The buffer an add or restore-vectors op carries; a shared one goes back to the pool once answered. */
  buffer: ArrayBufferLike | undefined;
  /** Settles (never rejects) once the thread has answered. */
  answered: Promise<void>;
  resolve(reply: Done): void;
  reject(error: Error): void;
}

/**
 * Bytes of vectors the thread may hold queued before an upsert waits for it. A search never waits
 * for queued inserts (it scans their vectors exactly, pending-vectors.ts), so the bound is memory,
 * and the scan it adds to a search (on the calling thread) while the thread catches up: 16 MiB is
 * ~4M floats, a few ms.
 * Enough that the caller's chunking, embedding and storing is not held back by the graph: on
 * SciFact through the offline embedder (1,024 dimensions, ~2 ms per insert) the inserts take longer
 * than everything else, and an upsert waited for them when the queue was bounded to 1 s of inserts.
 */
const QUEUE_BYTES = 16 * 2 ** 20;

const YOUNG_GENERATION_MB = 8;

/**
 * Add ops travel in shared buffers that the next add reuses once the thread has answered, in
 * power-of-two sizes from 64 KiB; at most this many bytes wait in the pool. A new buffer per add,
 * freed on the graph thread, left glibc's main arena at 85 MiB after a 100k ingest with a 1 s
 * backlog (38 MiB with 250 ms): the holes between them could not be returned.
 */
const POOL_BYTES = 32 * 2 ** 20;
const SMALLEST_BUFFER = 64 * 2 ** 10;

/**
 * The hnswlib graphs of one `hnswIndex` live on a worker thread of their own, and are searched
 * from the index's thread.
 *
 * Why the thread: an insert is synchronous native work (~1 ms at 384 dimensions and
 * efConstruction 200, more as the graph grows), and with the graph on the main thread an ingest
 * was the event loop's inserts plus the store's writes, one after the other (0.71x a raw hnswlib
 * build at 100k chunks). On the thread, inserts run (on several threads, native-graph.ts) while
 * the main thread stores the next group, and the loop stays free.
 *
 * Why searches stay here: the binding shares one native graph between threads (hnswlib searches
 * while it inserts), so a search costs no trip to the thread and back (two thread wake-ups,
 * 0.1-0.2 ms on a virtual machine) and never waits for an insert.
 *
 * The order is what the index sees: an upsert returns once its vectors are queued (and the queue is
 * under {@link QUEUE_BYTES}), and a search sees every op sent for its graph before it: the graph's
 * hits merged with an exact scan of the vectors of the ops the thread has not answered yet
 * (pending-vectors.ts). An op that fails on the thread fails every later call on its graph (the
 * index then rebuilds it on the next open, as after any failed mutation); a thread that dies fails
 * every graph.
 */
export class GraphThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private nextKey = 1;
  /** Ops sent and not answered, in the order sent (the thread answers in that order). */
  private readonly ops = new Map<number, PendingOp>();
  /** Per graph, its unanswered ops in order: what a search must add to the graph's hits. */
  private readonly queued = new Map<GraphKey, PendingOp[]>();
  /** Per graph, this thread's object for the graph the thread created or loaded. */
  private readonly graphs = new Map<GraphKey, NativeGraph>();
  private readonly failed = new Map<GraphKey, Error>();
  private failure: Error | undefined;
  private queuedBytes = 0;
  private roomWaiters: (() => void)[] = [];
  private indexedWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private held = false;
  private closed = false;
  private readonly pool = new Map<number, SharedArrayBuffer[]>();
  private pooledBytes = 0;

  /** `insertThreads`: threads an add op's inserts share (`HnswIndexOptions.insertThreads`). */
  constructor(private readonly insertThreads: number) {}

  newKey(): GraphKey {
    return this.nextKey++;
  }

  /** Throws when an earlier op on this graph, or the thread, failed. */
  check(key: GraphKey): void {
    if (this.closed) throw new RagdeskError('closed', 'hnsw index is closed');
    const error = this.failure ?? this.failed.get(key);
    if (error) throw error;
  }

  /**
   * A shared buffer of at least `bytes` for an add or restore-vectors op: one answered before, else
   * a new one. Its content is stale.
   */
  opBuffer(bytes: number): SharedArrayBuffer {
    let size = SMALLEST_BUFFER;
    while (size < bytes) size *= 2;
    const reused = this.pool.get(size)?.pop();
    if (reused === undefined) return new SharedArrayBuffer(size);
    this.pooledBytes -= size;
    return reused;
  }

  /**
   * Starts the thread ahead of its first op (~50 ms of start-up and module loading), so that it
   * overlaps with reading a collection's header. An idle thread does not keep the process alive.
   */
  warm(): void {
    if (!this.closed && !this.failure) this.started();
  }

  /** Sends an op and resolves with its reply (after the ops sent before it). */
  request(op: GraphOp): Promise<Done> {
    try {
      // A failed graph is still released, or it would stay in the thread's memory.
      if (this.closed || op.op !== 'release') this.check(op.key);
    } catch (error) {
      return Promise.reject(error);
    }
    const worker = this.started();
    const id = this.nextId++;
    const request: GraphRequest = { ...op, id };
    const buffer = op.op === 'add' || op.op === 'restore-vectors' ? op.vectors.buffer : undefined;
    this.queuedBytes += buffer?.byteLength ?? 0;
    let settle = (): void => undefined;
    const answered = new Promise<void>((resolve) => (settle = resolve));
    const reply = new Promise<Done>((resolve, reject) => {
      const pending: PendingOp = {
        request,
        buffer,
        answered,
        resolve: (done) => (settle(), resolve(done)),
        reject: (error) => (settle(), reject(error)),
      };
      this.ops.set(id, pending);
      const forKey = this.queued.get(op.key);
      if (forKey) forKey.push(pending);
      else this.queued.set(op.key, [pending]);
    });
    this.hold();
    worker.postMessage(request);
    return reply;
  }

  /** Sends an op whose failure is reported by the next call on its graph, not here. */
  post(op: GraphOp): void {
    this.request(op).catch(() => undefined);
  }

  /** Resolves once the queued vectors are under {@link QUEUE_BYTES}. */
  room(): Promise<void> {
    if (this.queuedBytes <= QUEUE_BYTES || this.failure) return Promise.resolve();
    return new Promise((resolve) => this.roomWaiters.push(resolve));
  }

  /** Resolves once every vector queued so far is in its graph (or its op failed). */
  indexed(): Promise<void> {
    if (this.queuedBytes === 0 || this.failure) return Promise.resolve();
    return new Promise((resolve) => this.indexedWaiters.push(resolve));
  }

  /**
   * The graph as after every op sent for it: searched here, on the calling thread, with the vectors
   * of unanswered adds scanned exactly. Only an unanswered restore, load or release is waited for.
   */
  async search(key: GraphKey, vector: Float32Array, k: number, ef: number, filter: SearchFilter | null): Promise<LabelScores> {
    for (;;) {
      this.check(key);
      const queued = this.queued.get(key) ?? [];
      const pending = queued.length === 0 ? undefined : pendingVectors(queued.map(({ request }) => request));
      if (queued.length > 0 && !pending) {
        await (queued.find((op) => blocksSearch(op.request)) as PendingOp).answered;
        continue;
      }
      const graph = pending?.unborn ? undefined : this.graphs.get(key);
      if (!graph && !pending?.unborn) throw new RagdeskError('internal', `hnsw graph ${key} is not in memory`);
      return searchGraph(graph, vector, k, ef, filter, pending);
    }
  }

  /**
   * Per label, the cosine of `vector` with the label's point in the graph as after every op sent
   * for it; NaN where this cannot be read from the graph: a label a queued op adds, changes or
   * removes (its point is stale or half written), every label while a load, restore or release is
   * queued, and a restored graph's points still without their vector. The caller reads those from
   * its source of truth instead.
   */
  similarities(key: GraphKey, vector: Float32Array, labels: Uint32Array): Float64Array {
    this.check(key);
    const queued = this.queued.get(key) ?? [];
    const pending = queued.length === 0 ? undefined : pendingVectors(queued.map(({ request }) => request));
    const graph = this.graphs.get(key);
    if ((queued.length > 0 && !pending) || pending?.unborn || !graph) return new Float64Array(labels.length).fill(NaN);
    if (!pending || pending.hidden.size === 0) return graph.similarities(vector, labels);
    const settled = labels.filter((label) => !pending.hidden.has(label));
    const fromGraph = graph.similarities(vector, settled);
    const scores = new Float64Array(labels.length).fill(NaN);
    let next = 0;
    labels.forEach((label, i) => {
      if (!pending.hidden.has(label)) scores[i] = fromGraph[next++] as number;
    });
    return scores;
  }

  /**
   * Vectors fetched for a search of a graph being restored, put in place here on the calling
   * thread (native-graph.ts `lend`): the search cannot wait for the store's whole pass.
   */
  lend(key: GraphKey, labels: Uint32Array, vectors: Float32Array): void {
    this.check(key);
    const graph = this.graphs.get(key);
    if (!graph) throw new RagdeskError('internal', `hnsw graph ${key} is not in memory`);
    graph.lend(labels, vectors);
  }

  /** Ends the thread once every op sent has been answered. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    if (this.ops.size > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.worker = undefined;
    await worker.terminate();
    this.queued.clear();
    this.releaseGraphs();
    this.failed.clear();
    this.pool.clear();
    this.pooledBytes = 0;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(workerEntry(new URL('./graph-worker.js', import.meta.url)), {
      workerData: { insertThreads: this.insertThreads },
      // The thread's JavaScript is a loop over typed arrays; its graphs are native memory. V8's
      // default young generation (tens of MB per isolate) would be resident memory for nothing.
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    worker.on('message', (reply: GraphReply) => this.answered(reply));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.fail(new Error(`the graph thread exited with code ${code}`));
    });
    // An idle thread must not keep the process alive; one with work in flight must (see hold).
    worker.unref();
    this.worker = worker;
    this.held = false;
    return worker;
  }

  private answered(reply: GraphReply): void {
    const op = this.ops.get(reply.id);
    if (!op) return;
    this.ops.delete(reply.id);
    const { key } = op.request;
    const forKey = this.queued.get(key);
    if (forKey) {
      forKey.splice(forKey.indexOf(op), 1);
      if (forKey.length === 0) this.queued.delete(key);
    }
    this.queuedBytes -= op.buffer?.byteLength ?? 0;
    if (op.request.op === 'release') {
      this.graphs.get(key)?.release();
      this.graphs.delete(key);
      if (!this.queued.has(key)) this.failed.delete(key);
    }
    if (reply.ok) {
      if (reply.handle !== undefined) this.attach(key, reply.handle);
      if (op.buffer instanceof SharedArrayBuffer) this.recycle(op.buffer);
      op.resolve(reply);
    } else {
      const error = graphError(reply.message);
      if (!this.failed.has(key)) this.failed.set(key, error);
      op.reject(error);
    }
    this.wakeRoomWaiters();
    this.release();
  }

  private attach(key: GraphKey, handle: number): void {
    const graph = nativeGraph().attach(handle);
    if (graph) this.graphs.set(key, graph);
    else this.failed.set(key, graphError(`graph ${key} was gone before it could be attached`));
  }

  private releaseGraphs(): void {
    for (const graph of this.graphs.values()) graph.release();
    this.graphs.clear();
  }

  private recycle(buffer: SharedArrayBuffer): void {
    const size = buffer.byteLength;
    // Only the sizes opBuffer hands out (power of two, at least the smallest).
    if (size < SMALLEST_BUFFER || (size & (size - 1)) !== 0 || this.pooledBytes + size > POOL_BYTES) return;
    const sized = this.pool.get(size) ?? [];
    sized.push(buffer);
    this.pool.set(size, sized);
    this.pooledBytes += size;
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = new RagdeskError('internal', `the hnsw graph thread stopped: ${error.message}`, { cause: error });
    for (const op of this.ops.values()) op.reject(this.failure);
    this.ops.clear();
    this.queued.clear();
    this.releaseGraphs();
    this.queuedBytes = 0;
    this.wakeRoomWaiters();
    this.release();
  }

  private wakeRoomWaiters(): void {
    if (this.queuedBytes === 0 || this.failure) for (const wake of this.indexedWaiters.splice(0)) wake();
    if (this.roomWaiters.length === 0 || (this.queuedBytes > QUEUE_BYTES && !this.failure)) return;
    const waiters = this.roomWaiters;
    this.roomWaiters = [];
    for (const wake of waiters) wake();
  }

  private hold(): void {
    if (this.held) return;
    this.held = true;
    this.worker?.ref();
  }

  private release(): void {
    if (this.ops.size > 0) return;
    for (const wake of this.idleWaiters.splice(0)) wake();
    if (!this.held) return;
    this.held = false;
    this.worker?.unref();
  }
}

function graphError(message: string): RagdeskError {
  return new RagdeskError('internal', `hnsw graph: ${message}`);
}
