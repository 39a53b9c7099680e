/**
 * The graph thread: owns the hnswlib graphs of one `hnswIndex` (see graph-thread.ts for why),
 * through ragdesk's own binding (native-graph.ts).
 * Ops arrive in order on the parent port and are applied one after another; searches arrive on
 * their own port and are answered at once (between two inserts of a long upsert): the graph's hits
 * merged with an exact scan of the vectors queued for it before the search (pending-vectors.ts).
 * Only a search behind a queued restore, load or release waits for it.
 */
import { rm } from 'node:fs/promises';
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { FullFileImage, writeLinksFile } from './graph-file.js';
import type { GraphKey, GraphReply, GraphRequest, SearchReply, SearchRequest } from './graph-protocol.js';
import { searchGraph } from './graph-search.js';
import { type NativeGraph, nativeGraph } from './native-graph.js';
import { pendingVectors, type QueuedOp } from './pending-vectors.js';

type Graph = NativeGraph;

interface Held {
  graph: Graph;
  /** Live points: the graph's slots beyond these are deleted ones, reused by the next new label. */
  live: number;
}

if (!parentPort) throw new Error('graph-worker.js runs as a worker thread');
const port = parentPort;
const { searches: searchPort, insertThreads } = workerData as { searches: MessagePort; insertThreads: number };
const Graph = nativeGraph();
/**
 * Inserts per call with several threads: between two calls the thread answers new searches, so a
 * query waits for at most this many inserts shared among the threads (~4 ms at 100k, 384-d).
 */
const INSERTS_PER_THREAD = 4;

const graphs = new Map<GraphKey, Held>();
/** Full files being restored, by the key of the graph that will load them. */
const restoring = new Map<GraphKey, FullFileImage>();
const ops: GraphRequest[] = [];
let draining = false;
/** Id of the last op applied in full; ids are given in the order ops are sent. */
let appliedThrough = 0;
/** The op being applied, and for an add the first of its labels not inserted yet. */
let current: QueuedOp | undefined;
const waitingSearches: SearchRequest[] = [];

/** Id of the last op received; a search sent after ops not received yet waits for them. */
let receivedThrough = 0;

port.on('message', (request: GraphRequest) => {
  received(request);
  serveWaiting();
  if (!draining) void drain();
});
searchPort.on('message', (request: SearchRequest) => serveOrWait(request));

async function drain(): Promise<void> {
  draining = true;
  while (ops.length > 0) {
    const request = ops.shift() as GraphRequest;
    current = { request, from: 0 };
    let reply: GraphReply;
    try {
      reply = { id: request.id, ok: true, ...(await apply(request)) };
    } catch (error) {
      reply = { id: request.id, ok: false, message: messageOf(error) };
    }
    appliedThrough = request.id;
    current = undefined;
    port.postMessage(reply, reply.ok && reply.spare ? [reply.spare] : []);
    serveWaiting();
  }
  draining = false;
}

function held(key: GraphKey): Held {
  const found = graphs.get(key);
  if (!found) throw new Error(`no graph ${key} in the graph thread`);
  return found;
}

async function apply(request: GraphRequest): Promise<Omit<GraphReply & { ok: true }, 'id' | 'ok'>> {
  switch (request.op) {
    case 'create': {
      const graph = new Graph(request.dimensions, request.capacity, request.m, request.efConstruction);
      graphs.set(request.key, { graph, live: 0 });
      return {};
    }
    case 'restore': {
      restoring.get(request.key)?.release();
      restoring.set(request.key, await FullFileImage.read(request.linksPath, request.dimensions));
      return {};
    }
    case 'restore-vectors': {
      const image = restoring.get(request.key);
      if (!image) throw new Error(`no restore of graph ${request.key} in the graph thread`);
      const { labels, vectors } = request;
      const dimensions = labels.length === 0 ? 0 : vectors.length / labels.length;
      try {
        for (let i = 0; i < labels.length; i++) image.put(labels[i] as number, vectors.subarray(i * dimensions, (i + 1) * dimensions));
      } catch (error) {
        image.release();
        restoring.delete(request.key);
        throw error;
      }
      return { spare: vectors.buffer as ArrayBuffer };
    }
    case 'restore-write': {
      const image = restoring.get(request.key);
      if (!image) throw new Error(`no restore of graph ${request.key} in the graph thread`);
      restoring.delete(request.key);
      await image.write(request.path);
      return {};
    }
    case 'load': {
      const graph = await Graph.read(request.path, request.dimensions);
      // The index checks these labels against its header before anything else is sent for this key.
      graphs.set(request.key, { graph, live: request.live });
      return { labels: graph.labels(), count: graph.count() };
    }
    case 'add': {
      add(held(request.key), request.labels, request.update, request.vectors);
      return { spare: request.vectors.buffer as ArrayBuffer };
    }
    case 'remove': {
      const target = held(request.key);
      for (const label of request.labels) {
        target.graph.remove(label);
        target.live--;
      }
      return {};
    }
    case 'write': {
      const { graph } = held(request.key);
      try {
        await graph.write(request.fullPath);
        await writeLinksFile(request.fullPath, request.linksPath, request.dimensions);
      } finally {
        await rm(request.fullPath, { force: true });
      }
      return {};
    }
    case 'release':
      graphs.delete(request.key);
      restoring.get(request.key)?.release();
      restoring.delete(request.key);
      return {};
  }
}

/** Applies an add op in steps of a few inserts per thread; answers new searches between two steps. */
function add(target: Held, labels: Uint32Array, update: Uint8Array, vectors: Float32Array): void {
  const { graph } = target;
  const step = insertThreads > 1 ? insertThreads * INSERTS_PER_THREAD : 1;
  for (let from = 0; from < labels.length; from += step) {
    const to = Math.min(labels.length, from + step);
    let added = 0;
    for (let i = from; i < to; i++) if (update[i] !== 1) added++;
    // New labels take the deleted slots first, then new ones: grow once for the whole step.
    const free = graph.count() - target.live;
    const needed = graph.count() + Math.max(0, added - free);
    if (needed > graph.capacity()) graph.resize(Math.max(needed, Math.max(1, graph.capacity()) * 2));
    graph.add(labels, update, vectors, from, to, distinct(labels, from, to) ? insertThreads : 1);
    target.live += added;
    if (current) current.from = to;
    pollSearches();
  }
}

/** Two inserts of one label at once would race for its point: such a step runs on one thread. */
function distinct(labels: Uint32Array, from: number, to: number): boolean {
  if (to - from < 2) return true;
  return new Set(labels.subarray(from, to)).size === to - from;
}

function received(request: GraphRequest): void {
  ops.push(request);
  receivedThrough = request.id;
}

/**
 * Between two inserts: the ops and searches sent meanwhile. Ops come first, as the two ports are
 * not ordered with each other and a search must see every op sent before it.
 */
function pollSearches(): void {
  for (let message = receiveMessageOnPort(port); message; message = receiveMessageOnPort(port)) received(message.message as GraphRequest);
  serveWaiting();
  for (let message = receiveMessageOnPort(searchPort); message; message = receiveMessageOnPort(searchPort)) {
    serveOrWait(message.message as SearchRequest);
  }
}

function serveOrWait(request: SearchRequest): void {
  if (!serve(request)) waitingSearches.push(request);
}

function serveWaiting(): void {
  if (waitingSearches.length === 0) return;
  const waiting = waitingSearches.splice(0);
  for (const request of waiting) if (!serve(request)) waitingSearches.push(request);
}

/** The ops for the search's graph sent before it and not applied yet, in order. */
function queuedBefore(request: SearchRequest): QueuedOp[] {
  const queued: QueuedOp[] = [];
  if (request.after <= appliedThrough) return queued;
  const mine = (op: GraphRequest) => op.key === request.key && op.id <= request.after;
  if (current && mine(current.request)) queued.push(current);
  for (const op of ops) if (mine(op)) queued.push({ request: op, from: 0 });
  return queued;
}

/** Answers the search, or returns false when a queued op it depends on must be applied first. */
function serve(request: SearchRequest): boolean {
  if (request.after > receivedThrough) return false;
  const queued = queuedBefore(request);
  const pending = queued.length === 0 ? undefined : pendingVectors(queued);
  if (queued.length > 0 && !pending) return false;
  let reply: SearchReply;
  try {
    const graph = pending?.unborn ? undefined : held(request.key).graph;
    const { labels, scores } = searchGraph(graph, request.vector, request.k, request.ef, request.filter, pending);
    reply = { id: request.id, ok: true, labels, scores };
  } catch (error) {
    reply = { id: request.id, ok: false, message: messageOf(error) };
  }
  searchPort.postMessage(reply, reply.ok ? [reply.labels.buffer as ArrayBuffer, reply.scores.buffer as ArrayBuffer] : []);
  return true;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
