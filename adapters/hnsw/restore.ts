/**
 * Reopening a links-only binary (graph-file.ts): the graph thread reads the links file into a graph
 * (the binding lays it out as hnswlib's loader would, with no full file on disk) while this thread
 * reads the live vectors from the store and sends them over, so the store's read and the graph's
 * layout overlap; the binding normalises each vector into its slot.
 */
import type { GraphKey } from './graph-protocol.js';
import type { Done, GraphThread } from './graph-thread.js';
import type { IndexHeader } from './persistence.js';

export interface RestoreSource {
  /** Every live entry's vector exactly once, in any order. */
  vectors: AsyncIterable<readonly { id: string; vector: Float32Array }[]>;
}

/** Resolves with the graph thread's answer to the restored graph (as for a load); throws when the source and the binary do not match. */
export async function restoreOnThread(
  thread: GraphThread,
  key: GraphKey,
  header: IndexHeader,
  linksPath: string,
  source: RestoreSource,
): Promise<Done> {
  const { dimensions } = header;
  thread.post({ op: 'restore', key, linksPath, dimensions });
  const labelOf = headerLabels(header);
  for await (const batch of source.vectors) {
    thread.check(key);
    const buffer = thread.opBuffer(batch.length * 4 * (1 + dimensions));
    const packedLabels = new Uint32Array(buffer, 0, batch.length);
    const packedVectors = new Float32Array(buffer, batch.length * 4, batch.length * dimensions);
    batch.forEach((entry, i) => {
      const label = labelOf(entry.id);
      if (label === undefined || entry.vector.length !== dimensions) {
        throw new Error(`entry ${JSON.stringify(entry.id)} does not match the index file`);
      }
      packedLabels[i] = label;
      packedVectors.set(entry.vector, i * dimensions);
    });
    thread.post({ op: 'restore-vectors', key, labels: packedLabels, vectors: packedVectors });
    // The thread normalises while this thread reads on; the queue bound keeps the vectors in flight small.
    await thread.room();
  }
  return thread.request({ op: 'restore-done', key, live: header.entries.ids.length });
}

/**
 * The header's label of an id. The store usually yields the ids in the header's own order (chunk
 * rows by key and labels both follow insertion), so each id is first compared with the header's
 * next one; the id → label map (at 1M entries 0.5 s to fill and 0.9 s of lookups) is built only
 * once the two orders part, and answers from then on.
 */
function headerLabels(header: IndexHeader): (id: string) => number | undefined {
  const { ids, labels } = header.entries;
  let next = 0;
  let byId: Map<string, number> | undefined;
  return (id) => {
    if (byId === undefined) {
      if (ids[next] === id) return labels[next++];
      byId = new Map();
      for (let i = 0; i < ids.length; i++) byId.set(ids[i] as string, labels[i] as number);
    }
    return byId.get(id);
  };
}
