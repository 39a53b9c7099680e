import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
import { RagdeskError } from '../../src/errors.js';
import { startWorker, workerEntry } from '../kit/worker-pool.js';
import type { GraphKey, GraphOp, GraphReply, SearchFilter, SearchReply } from './graph-protocol.js';
import type { LabelScores } from './graph-search.js';

type Done = Extract<GraphReply, { ok: true }>;

interface PendingOp {
  key: GraphKey;
  /** Bytes of the buffer an add or restore-vectors op carries. */
  bytes: number;
  /** A release: the graph's bookkeeping here goes with it. */
  releases: boolean;
  resolve(reply: Done): void;
  reject(error: Error): void;
}

interface PendingSearch {
  resolve(result: LabelScores): void;
  reject(error: Error): void;
}

/**
 * Bytes of vectors the thread may hold queued before an upsert waits for it. A search never waits
 * for queued inserts (it scans their vectors exactly, pending-vectors.ts), so the bound is memory,
 * and the scan it adds to a search while the thread catches up: 16 MiB is ~4M floats, a few ms.
 * Enough that the caller's chunking, embedding and storing is not held back by the graph: on
 * SciFact through the offline embedder (1,024 dimensions, ~2 ms per insert) the inserts take longer
 * than everything else, and an upsert waited for them when the queue was bounded to 1 s of inserts.
 */
const QUEUE_BYTES = 16 * 2 ** 20;

const YOUNG_GENERATION_MB = 8;

/**
 * Add ops travel in buffers that the thread hands back and the next add reuses, in power-of-two
 * sizes from 64 KiB; at most this many bytes wait in the pool. A new buffer per add, freed on the
 * graph thread, left glibc's main arena at 85 MiB after a 100k ingest with a 1 s backlog (38 MiB
 * with 250 ms): the holes between them could not be returned.
 */
const POOL_BYTES = 32 * 2 ** 20;
const SMALLEST_BUFFER = 64 * 2 ** 10;

/**
 * The hnswlib graphs of one `hnswIndex` live on a worker thread of their own.
 *
 * Why: an insert is synchronous native work (~1 ms at 384 dimensions and efConstruction 200, more
 * as the graph grows), and with the graph on the main thread an ingest was the event loop's
 * inserts plus the store's writes, one after the other (0.71x a raw hnswlib build at 100k chunks).
 * On the thread, inserts run while the main thread stores the next group, and the loop stays free.
 *
 * The order is what the index sees: an upsert returns once its vectors are queued (and the queue is
 * under {@link QUEUE_BYTES}), and a search sees every op sent for its graph before it, so a query
 * after an upsert always sees it: the thread answers it between two inserts with the graph's hits
 * and an exact scan of the vectors still queued, so a long ingest holds back no query. An op that
 * fails on the thread fails every later call on its graph (the index then rebuilds it on the next
 * open, as after any failed mutation); a thread that dies fails every graph.
 */
export class GraphThread {
  private worker: Worker | undefined;
  private searchPort: MessagePort | undefined;
  private nextId = 1;
  private nextKey = 1;
  private readonly ops = new Map<number, PendingOp>();
  private readonly searches = new Map<number, PendingSearch>();
  /** Per graph: the id of the last op sent, which a search waits for. */
  private readonly lastOp = new Map<GraphKey, number>();
  private readonly failed = new Map<GraphKey, Error>();
  private failure: Error | undefined;
  private queuedBytes = 0;
  private roomWaiters: (() => void)[] = [];
  private indexedWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private held = false;
  private closed = false;
  private readonly pool = new Map<number, ArrayBuffer[]>();
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

  /** A buffer of at least `bytes` for an add op: one the thread handed back, else a new one. Its content is stale. */
  opBuffer(bytes: number): ArrayBuffer {
    let size = SMALLEST_BUFFER;
    while (size < bytes) size *= 2;
    const reused = this.pool.get(size)?.pop();
    if (reused === undefined) return new ArrayBuffer(size);
    this.pooledBytes -= size;
    return reused;
  }

  /** Sends an op and resolves with its reply (after the ops sent before it). */
  request(op: GraphOp, transfer: ArrayBuffer[] = []): Promise<Done> {
    try {
      // A failed graph is still released, or it would stay in the thread's memory.
      if (this.closed || op.op !== 'release') this.check(op.key);
    } catch (error) {
      return Promise.reject(error);
    }
    const worker = this.started();
    const id = this.nextId++;
    const bytes = op.op === 'add' || op.op === 'restore-vectors' ? op.vectors.buffer.byteLength : 0;
    this.queuedBytes += bytes;
    this.lastOp.set(op.key, id);
    const releases = op.op === 'release';
    const reply = new Promise<Done>((resolve, reject) => this.ops.set(id, { key: op.key, bytes, releases, resolve, reject }));
    this.hold();
    worker.postMessage({ ...op, id }, transfer);
    return reply;
  }

  /** Sends an op whose failure is reported by the next call on its graph, not here. */
  post(op: GraphOp, transfer: ArrayBuffer[] = []): void {
    this.request(op, transfer).catch(() => undefined);
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

  search(key: GraphKey, vector: Float32Array, k: number, ef: number, filter: SearchFilter | null): Promise<LabelScores> {
    try {
      this.check(key);
    } catch (error) {
      return Promise.reject(error);
    }
    const port = this.startedSearchPort();
    const id = this.nextId++;
    const result = new Promise<LabelScores>((resolve, reject) => this.searches.set(id, { resolve, reject }));
    this.hold();
    port.postMessage({ id, key, after: this.lastOp.get(key) ?? 0, vector, k, ef, filter });
    return result;
  }

  /** Ends the thread once every op sent has been answered. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    if (this.ops.size > 0 || this.searches.size > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.worker = undefined;
    this.searchPort?.close();
    this.searchPort = undefined;
    await worker.terminate();
    this.lastOp.clear();
    this.failed.clear();
    this.pool.clear();
    this.pooledBytes = 0;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const { port1, port2 } = new MessageChannel();
    const worker = startWorker(workerEntry(new URL('./graph-worker.js', import.meta.url)), {
      workerData: { searches: port2, insertThreads: this.insertThreads },
      transferList: [port2],
      // The thread's JavaScript is a loop over typed arrays; its graphs are native memory. V8's
      // default young generation (tens of MB per isolate) would be resident memory for nothing.
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
    worker.on('message', (reply: GraphReply) => this.answered(reply));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.fail(new Error(`the graph thread exited with code ${code}`));
    });
    port1.on('message', (reply: SearchReply) => this.searched(reply));
    // An idle thread must not keep the process alive; one with work in flight must (see hold).
    worker.unref();
    port1.unref();
    this.worker = worker;
    this.searchPort = port1;
    this.held = false;
    return worker;
  }

  private startedSearchPort(): MessagePort {
    this.started();
    return this.searchPort as MessagePort;
  }

  private answered(reply: GraphReply): void {
    const op = this.ops.get(reply.id);
    if (!op) return;
    this.ops.delete(reply.id);
    this.queuedBytes -= op.bytes;
    if (op.releases && this.lastOp.get(op.key) === reply.id) {
      this.lastOp.delete(op.key);
      this.failed.delete(op.key);
    }
    if (reply.ok) {
      if (reply.spare) this.recycle(reply.spare);
      op.resolve(reply);
    } else {
      const error = graphError(reply.message);
      if (!this.failed.has(op.key)) this.failed.set(op.key, error);
      op.reject(error);
    }
    this.wakeRoomWaiters();
    this.release();
  }

  private recycle(buffer: ArrayBuffer): void {
    const size = buffer.byteLength;
    // Only the sizes opBuffer hands out (power of two, at least the smallest).
    if (size < SMALLEST_BUFFER || (size & (size - 1)) !== 0 || this.pooledBytes + size > POOL_BYTES) return;
    const sized = this.pool.get(size) ?? [];
    sized.push(buffer);
    this.pool.set(size, sized);
    this.pooledBytes += size;
  }

  private searched(reply: SearchReply): void {
    const search = this.searches.get(reply.id);
    if (!search) return;
    this.searches.delete(reply.id);
    if (reply.ok) search.resolve({ labels: reply.labels, scores: reply.scores });
    else search.reject(graphError(reply.message));
    this.release();
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = new RagdeskError('internal', `the hnsw graph thread stopped: ${error.message}`, { cause: error });
    for (const op of this.ops.values()) op.reject(this.failure);
    for (const search of this.searches.values()) search.reject(this.failure);
    this.ops.clear();
    this.searches.clear();
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
    this.searchPort?.ref();
  }

  private release(): void {
    if (this.ops.size > 0 || this.searches.size > 0) return;
    for (const wake of this.idleWaiters.splice(0)) wake();
    if (!this.held) return;
    this.held = false;
    this.worker?.unref();
    this.searchPort?.unref();
  }
}

function graphError(message: string): RagdeskError {
  return new RagdeskError('internal', `hnsw graph: ${message}`);
}
