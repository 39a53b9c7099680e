/**
 * Reopening a links-only binary (graph-file.ts) in two steps. The graph thread reads the links file
 * into a graph (the binding lays it out as hnswlib's loader would, with no full file on disk) and
 * shares it at once; then this thread reads the live vectors from the store and sends them over,
 * and the binding normalises each into its slot. A search that arrives in between does not wait
 * for that pass: it fetches the few vectors its walk reaches by id and lends them to the graph
 * (collection.ts), so the first query after a reopen costs the links file, not every vector.
 */
import type { IndexVector } from '../../../src/ports/index.js';
import { nextTurn } from '../../../src/util/next-turn.js';
import type { GraphKey } from '../graph/graph-protocol.js';
import type { GraphThread } from '../graph/graph-thread.js';
import type { IndexHeader } from './persistence.js';

export interface RestoreSource {
  /** Every live entry's vector exactly once, in any order. */
  vectors: AsyncIterable<readonly IndexVector[]>;
  /** The vectors of the given entries, for a search before the pass is over; absent: searches wait for it. */
  vectorsOf?: (ids: readonly string[]) => Promise<readonly IndexVector[]>;
}

/**
 * The store's pass: every live vector to the graph thread; throws when the source and the binary do
 * not match. Resolves with the number of unreachable points the graph linked again once whole.
 */
export async function fillOnThread(
  thread: GraphThread,
  key: GraphKey,
  header: IndexHeader,
  live: number,
  vectors: AsyncIterable<readonly IndexVector[]>,
): Promise<number> {
  const { dimensions } = header;
  const labelOf = headerLabels(header);
  // The collection answers first: the pass's first page is a synchronous read of the store.
  await nextTurn();
  for await (const batch of vectors) {
    thread.check(key);
    const packed = pack(batch, labelOf, dimensions, thread.opBuffer(batch.length * 4 * (1 + dimensions)));
    thread.post({ op: 'restore-vectors', key, ...packed });
    // The thread normalises while this thread reads on; the queue bound keeps the vectors in flight
    // small. A page is one synchronous read of the store: searches get their turns in between.
    await thread.room();
    await nextTurn();
  }
  const { relinked = 0 } = await thread.request({ op: 'restore-done', key, live });
  return relinked;
}

/**
 * Fetches the vectors of `labels` (a search's missing points) and lends them to the graph; returns
 * how many the source had. Labels with no live id are skipped.
 */
export async function lendVectors(
  thread: GraphThread,
  key: GraphKey,
  dimensions: number,
  labels: Uint32Array,
  idOf: (label: number) => string | undefined,
  vectorsOf: NonNullable<RestoreSource['vectorsOf']>,
): Promise<number> {
  const labelOfId = new Map<string, number>();
  for (const label of labels) {
    const id = idOf(label);
    if (id !== undefined) labelOfId.set(id, label);
  }
  if (labelOfId.size === 0) return 0;
  const fetched = (await vectorsOf([...labelOfId.keys()])).filter((entry) => labelOfId.has(entry.id));
  if (fetched.length === 0) return 0;
  const packed = pack(fetched, (id) => labelOfId.get(id), dimensions, new ArrayBuffer(fetched.length * 4 * (1 + dimensions)));
  thread.lend(key, packed.labels, packed.vectors);
  return fetched.length;
}

/**
 * Entries' labels, then their vectors back to back, in `buffer`; throws when an id has no label or
 * a vector another length: the source and the index file do not match.
 */
function pack(
  entries: readonly IndexVector[],
  labelOf: (id: string) => number | undefined,
  dimensions: number,
  buffer: ArrayBufferLike,
): { labels: Uint32Array; vectors: Float32Array } {
  const labels = new Uint32Array(buffer, 0, entries.length);
  const vectors = new Float32Array(buffer, entries.length * 4, entries.length * dimensions);
  entries.forEach((entry, i) => {
    const label = labelOf(entry.id);
    if (label === undefined || entry.vector.length !== dimensions) {
      throw new Error(`entry ${JSON.stringify(entry.id)} does not match the index file`);
    }
    labels[i] = label;
    vectors.set(entry.vector, i * dimensions);
  });
  return { labels, vectors };
}

/**
 * The header's label of an id. The store usually yields the ids in the header's own order (chunk
 * rows by key and labels both follow insertion), so each id is first compared with the header's
 * next one; the id → label map (at 1M entries 0.5 s to fill and 0.9 s of lookups) is built only
 * once the two orders part, and answers from then on.
 */
function headerLabels(header: IndexHeader): (id: string) => number | undefined {
  const { ids, datasources } = header.entries;
  const nextLive = (from: number) => {
    let label = from;
    while (label < datasources.length && (datasources[label] as number) < 0) label++;
    return label;
  };
  let next = nextLive(0);
  let byId: Map<string, number> | undefined;
  return (id) => {
    if (byId === undefined) {
      if (next < datasources.length && ids.at(next) === id) {
        const label = next;
        next = nextLive(next + 1);
        return label;
      }
      byId = new Map();
      for (let label = 0; label < datasources.length; label++) if ((datasources[label] as number) >= 0) byId.set(ids.at(label), label);
    }
    return byId.get(id);
  };
}
