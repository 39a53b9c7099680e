import { describe, expect, it } from 'vitest';
import type { GraphRequest } from '../../../adapters/hnsw/graph/graph-protocol.js';
import { pendingVectors, scanPending } from '../../../adapters/hnsw/graph/pending-vectors.js';

const KEY = 1;
let nextId = 1;

function add(labels: number[], vectors: number[][], update: number[] = labels.map(() => 0)): GraphRequest {
  return {
    id: nextId++,
    op: 'add',
    key: KEY,
    labels: Uint32Array.from(labels),
    update: Uint8Array.from(update),
    vectors: Float32Array.from(vectors.flat()),
  };
}

const queued = (...requests: GraphRequest[]): GraphRequest[] => requests;

describe('pendingVectors', () => {
  it('keeps the newest queued vector of a label, drops removed ones and hides every queued label from the graph', () => {
    const pending = pendingVectors(
      queued(
        add(
          [1, 2],
          [
            [1, 0],
            [0, 1],
          ],
        ),
        { id: nextId++, op: 'remove', key: KEY, labels: Uint32Array.of(2, 9) },
        add(
          [1, 5],
          [
            [3, 4],
            [1, 1],
          ],
          [0, 1],
        ),
      ),
    );
    expect(pending).toBeDefined();
    const { vectors, hidden, unborn } = pending as NonNullable<typeof pending>;
    expect([...vectors.keys()].sort()).toEqual([1, 5]);
    const one = vectors.get(1) as { data: Float32Array; at: number };
    expect([...one.data.subarray(one.at, one.at + 2)]).toEqual([3, 4]);
    // 2 and 9 were removed; 1 and 5 are scanned from the queue, whatever the graph holds of them.
    expect([...hidden].sort()).toEqual([1, 2, 5, 9]);
    expect(unborn).toBe(false);
  });

  it('marks a graph whose create is queued as unborn, and waits for a load, a restore or a release', () => {
    const create: GraphRequest = { id: nextId++, op: 'create', key: KEY, dimensions: 2, capacity: 4, m: 16, efConstruction: 200 };
    expect(pendingVectors(queued(create, add([0], [[1, 0]])))?.unborn).toBe(true);
    const blockers: GraphRequest[] = [
      { id: nextId++, op: 'load', key: KEY, dimensions: 2, path: 'x', live: 0 },
      { id: nextId++, op: 'restore', key: KEY, linksPath: 'x', dimensions: 2 },
      { id: nextId++, op: 'release', key: KEY },
    ];
    for (const blocker of blockers) expect(pendingVectors(queued(add([0], [[1, 0]]), blocker)), blocker.op).toBeUndefined();
  });
});

describe('scanPending', () => {
  it('scores queued vectors by cosine with the query, whatever their norms, and keeps to the filter', () => {
    const pending = pendingVectors(
      queued(
        add(
          [1, 2, 3],
          [
            [2, 0],
            [0, 5],
            [3, 3],
          ],
        ),
      ),
    );
    const all = scanPending(pending as NonNullable<typeof pending>, Float32Array.of(10, 0), undefined);
    const byLabel = new Map(all.labels.map((label, i) => [label, all.scores[i]]));
    expect(byLabel.get(1)).toBeCloseTo(1, 9);
    expect(byLabel.get(2)).toBeCloseTo(0, 9);
    expect(byLabel.get(3)).toBeCloseTo(Math.SQRT1_2, 9);
    const odd = scanPending(pending as NonNullable<typeof pending>, Float32Array.of(1, 0), (label) => label % 2 === 1);
    expect(odd.labels.sort()).toEqual([1, 3]);
  });
});
