/**
 * The graph thread: owns the hnswlib graphs of one `hnswIndex` (see graph-thread.ts for why),
 * through ragdesk's own binding (native-graph.ts). Ops arrive in order on the parent port and are
 * applied one after another. It does not search: each graph it creates or reads is shared with
 * the index's thread, which searches it there while inserts go on here.
 */
import { rm } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { writeLinksFile } from '../files/graph-file.js';
import type { GraphKey, GraphReply, GraphRequest } from './graph-protocol.js';
import { type NativeGraph, nativeGraph } from '../binding/native-graph.js';

interface Held {
  graph: NativeGraph;
  /** Live points: the graph's slots beyond these are deleted ones, reused by the next new label. */
  live: number;
  /** Points inserted or moved since the graph was last checked for unreachable points. */
  unchecked: number;
}

/**
 * After inserts, the graph is checked for points no link leads to (native/reachability.h) once the
 * points inserted or moved since the last check reach this share of the graph: the check walks
 * every point's links (one cache miss per point, docs/reliability.md has the figures), so it costs
 * a bounded share of the inserts' own time. Every load checks too, and every write after inserts,
 * so no file is written or trusted with such a point.
 */
const CHECK_SHARE = 1 / 16;

/**
 * Up to this many points, the last add of a burst (no op queued behind it) is checked before its
 * answer goes back, so a caller that awaited its writes never searches a graph with an unreachable
 * point: the walk costs at most ~15 ms of this thread at this size. Bigger graphs keep to the share
 * above between writes (docs/reliability.md).
 */
const CHECK_EVERY_BURST_UP_TO = 131_072;

if (!parentPort) throw new Error('graph-worker.js runs as a worker thread');
const port = parentPort;
const { insertThreads } = workerData as { insertThreads: number };
const Graph = nativeGraph();

const graphs = new Map<GraphKey, Held>();
/** Graphs read from a links file whose live vectors are still arriving, by key. */
const restoring = new Map<GraphKey, NativeGraph>();
const ops: GraphRequest[] = [];
let draining = false;

port.on('message', (request: GraphRequest) => {
  ops.push(request);
  if (!draining) void drain();
});

async function drain(): Promise<void> {
  draining = true;
  while (ops.length > 0) {
    const request = ops.shift() as GraphRequest;
    let reply: GraphReply;
    try {
      reply = { id: request.id, ok: true, ...(await apply(request)) };
    } catch (error) {
      reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(reply);
  }
  draining = false;
}

/**
 * The answer to a load or a restore: the graph's labels, which the index checks against its header
 * before it sends anything else for this key, and the number that shares it.
 */
function loadedReply(graph: NativeGraph): { labels: Uint32Array; count: number; handle: number } {
  return { labels: graph.labels(), count: graph.count(), handle: graph.share() };
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
      graphs.set(request.key, { graph, live: 0, unchecked: 0 });
      return { handle: graph.share() };
    }
    case 'restore': {
      restoring.get(request.key)?.release();
      const graph = await Graph.restore(request.linksPath, request.dimensions);
      restoring.set(request.key, graph);
      // Shared at once: the index searches it while its vectors arrive.
      return loadedReply(graph);
    }
    case 'restore-vectors': {
      const graph = restoring.get(request.key);
      if (!graph) throw new Error(`no restore of graph ${request.key} in the graph thread`);
      try {
        graph.layOut();
        graph.place(request.labels, request.vectors);
      } catch (error) {
        graph.release();
        restoring.delete(request.key);
        throw error;
      }
      return {};
    }
    case 'restore-done': {
      const graph = restoring.get(request.key);
      if (!graph) throw new Error(`no restore of graph ${request.key} in the graph thread`);
      restoring.delete(request.key);
      try {
        graph.settle();
      } catch (error) {
        graph.release();
        throw error;
      }
      graphs.set(request.key, { graph, live: request.live, unchecked: 0 });
      return { relinked: graph.reconnect() };
    }
    case 'load': {
      const graph = await Graph.read(request.path, request.dimensions);
      graphs.set(request.key, { graph, live: request.live, unchecked: 0 });
      return { ...loadedReply(graph), relinked: graph.reconnect() };
    }
    case 'add': {
      add(held(request.key), request.labels, request.update, request.vectors);
      return {};
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
      const target = held(request.key);
      const { graph } = target;
      // Removals change no links: a graph checked since its last insert is still sound.
      if (target.unchecked > 0) graph.reconnect();
      target.unchecked = 0;
      try {
        await graph.write(request.fullPath);
        await writeLinksFile(request.fullPath, request.linksPath, request.dimensions);
      } finally {
        await rm(request.fullPath, { force: true });
      }
      return {};
    }
    case 'release':
      graphs.get(request.key)?.graph.release();
      graphs.delete(request.key);
      restoring.get(request.key)?.release();
      restoring.delete(request.key);
      return {};
  }
}

/** Applies an add op: new labels take the deleted slots first, then new ones, so the graph grows once. */
function add(target: Held, labels: Uint32Array, update: Uint8Array, vectors: Float32Array): void {
  const { graph } = target;
  let added = 0;
  for (let i = 0; i < labels.length; i++) if (update[i] !== 1) added++;
  const free = graph.count() - target.live;
  const needed = graph.count() + Math.max(0, added - free);
  if (needed > graph.capacity()) graph.resize(Math.max(needed, Math.max(1, graph.capacity()) * 2));
  // Two inserts of one label at once would race for its point: such an op runs on one thread.
  const threads = new Set(labels).size === labels.length ? insertThreads : 1;
  graph.add(labels, update, vectors, 0, labels.length, threads);
  target.live += added;
  target.unchecked += labels.length;
  const lastOfBurst = ops.length === 0 && graph.count() <= CHECK_EVERY_BURST_UP_TO;
  if (lastOfBurst || target.unchecked >= graph.count() * CHECK_SHARE) {
    graph.reconnect();
    target.unchecked = 0;
  }
}
