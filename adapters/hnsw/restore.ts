/**
 * Reopening a links-only binary (graph-file.ts): the graph thread lays the links out as hnswlib's
 * full file while this thread reads the live vectors from the store and sends them over, so the
 * store's read, the layout and the normalising overlap, and hnswlib then loads the file on the
 * thread that owns the graph. On the calling thread the layout and the normalising were ~0.25 s
 * of a 100k reopen, the layout one block of the event loop (longest block 1.0-1.2 s -> 0.44-0.48 s).
 */
import type { GraphKey } from './graph-protocol.js';
import type { GraphThread } from './graph-thread.js';
import type { IndexHeader } from './persistence.js';

export interface RestoreSource {
  /** Where the full file is written for hnswlib to read; the caller removes it. */
  fullPath: string;
  /** Every live entry's vector exactly once, in any order. */
  vectors: AsyncIterable<readonly { id: string; vector: Float32Array }[]>;
}

/** Resolves once the full file is written; throws when the source and the binary do not match. */
export async function restoreOnThread(
  thread: GraphThread,
  key: GraphKey,
  header: IndexHeader,
  linksPath: string,
  source: RestoreSource,
): Promise<void> {
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
  await thread.request({ op: 'restore-write', key, path: source.fullPath });
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
