/**
 * The graph thread: owns the hnswlib graphs of one `hnswIndex` (see graph-thread.ts for why).
 * Ops arrive in order on the parent port and are applied one after another; searches arrive on
 * their own port and are answered as soon as the ops sent before them (for their graph) are
 * applied: between two inserts of a long upsert, not after it.
 */
import hnswlib from 'hnswlib-node';
import { rm } from 'node:fs/promises';
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { writeLinksFile } from './graph-file.js';
import type { GraphKey, GraphReply, GraphRequest, SearchReply, SearchRequest } from './graph-protocol.js';
import { searchGraph } from './graph-search.js';

type Graph = InstanceType<typeof hnswlib.HierarchicalNSW>;

interface Held {
  graph: Graph;
  /** Live points: the graph's slots beyond these are deleted ones, reused by the next new label. */
  live: number;
}

if (!parentPort) throw new Error('graph-worker.js runs as a worker thread');
const port = parentPort;
const searchPort = (workerData as { searches: MessagePort }).searches;

const graphs = new Map<GraphKey, Held>();
const ops: GraphRequest[] = [];
let draining = false;
/** Id of the last op applied in full; ids are given in the order ops are sent. */
let appliedThrough = 0;
const waitingSearches: SearchRequest[] = [];

port.on('message', (request: GraphRequest) => {
  ops.push(request);
  if (!draining) void drain();
});
searchPort.on('message', (request: SearchRequest) => serveOrWait(request));

async function drain(): Promise<void> {
  draining = true;
  while (ops.length > 0) {
    const request = ops.shift() as GraphRequest;
    let reply: GraphReply;
    try {
      reply = { id: request.id, ok: true, ...(await apply(request)) };
    } catch (error) {
      reply = { id: request.id, ok: false, message: messageOf(error) };
    }
    appliedThrough = request.id;
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
      const graph = new hnswlib.HierarchicalNSW('cosine', request.dimensions);
      graph.initIndex(request.capacity, request.m, request.efConstruction, 100, true);
      graphs.set(request.key, { graph, live: 0 });
      return {};
    }
    case 'load': {
      const graph = new hnswlib.HierarchicalNSW('cosine', request.dimensions);
      await graph.readIndex(request.path, true);
      const labels = Uint32Array.from(graph.getIdsList());
      // The index checks these labels against its header before anything else is sent for this key.
      graphs.set(request.key, { graph, live: request.live });
      return { labels, count: graph.getCurrentCount() };
    }
    case 'add': {
      const insertMs = add(held(request.key), request.labels, request.update, request.vectors);
      return { insertMs, spare: request.vectors.buffer as ArrayBuffer };
    }
    case 'remove': {
      const target = held(request.key);
      for (const label of request.labels) {
        target.graph.markDelete(label);
        target.live--;
      }
      return {};
    }
    case 'write': {
      const { graph } = held(request.key);
      try {
        await graph.writeIndex(request.fullPath);
        await writeLinksFile(request.fullPath, request.linksPath, request.dimensions);
      } finally {
        await rm(request.fullPath, { force: true });
      }
      return {};
    }
    case 'release':
      graphs.delete(request.key);
      return {};
  }
}

/** Applies an add op; answers waiting and new searches between two inserts. Returns the insert time in ms. */
function add(target: Held, labels: Uint32Array, update: Uint8Array, vectors: Float32Array): number {
  const dimensions = labels.length === 0 ? 0 : vectors.length / labels.length;
  const { graph } = target;
  const started = performance.now();
  // The binding only takes plain arrays, and only reads them: one array is refilled for every
  // vector. A new array per insert was 300 MB of garbage per 100k inserts at 384 dimensions, and
  // this thread's young generation grew to hold it.
  const point = new Array<number>(dimensions).fill(0);
  for (let i = 0; i < labels.length; i++) {
    for (let d = 0, at = i * dimensions; d < dimensions; d++) point[d] = vectors[at + d] as number;
    const label = labels[i] as number;
    if (update[i] === 1) {
      // Same label, new vector: hnswlib updates the point and repairs its neighbourhood.
      graph.addPoint(point, label, false);
    } else {
      const hasFreeSlot = graph.getCurrentCount() > target.live;
      if (!hasFreeSlot && graph.getCurrentCount() >= graph.getMaxElements()) {
        graph.resizeIndex(Math.max(1, graph.getMaxElements()) * 2);
      }
      graph.addPoint(point, label, true);
      target.live++;
    }
    pollSearches();
  }
  return performance.now() - started;
}

function pollSearches(): void {
  for (let received = receiveMessageOnPort(searchPort); received; received = receiveMessageOnPort(searchPort)) {
    serveOrWait(received.message as SearchRequest);
  }
}

function serveOrWait(request: SearchRequest): void {
  if (request.after > appliedThrough) waitingSearches.push(request);
  else serve(request);
}

function serveWaiting(): void {
  if (waitingSearches.length === 0) return;
  const ready = waitingSearches.filter((request) => request.after <= appliedThrough);
  if (ready.length === 0) return;
  waitingSearches.splice(0, waitingSearches.length, ...waitingSearches.filter((request) => request.after > appliedThrough));
  for (const request of ready) serve(request);
}

function serve(request: SearchRequest): void {
  let reply: SearchReply;
  try {
    const { labels, scores } = searchGraph(held(request.key).graph, request.vector, request.k, request.ef, request.filter);
    reply = { id: request.id, ok: true, labels, scores };
  } catch (error) {
    reply = { id: request.id, ok: false, message: messageOf(error) };
  }
  searchPort.postMessage(reply, reply.ok ? [reply.labels.buffer as ArrayBuffer, reply.scores.buffer as ArrayBuffer] : []);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
