import hnswlib from 'hnswlib-node';
import { describe, expect, it } from 'vitest';
import { cosineImage } from '../../../../adapters/hnsw/cosine-image.js';
import { clusteredVectors } from '../../../../src/testing/random.js';

const DIMENSIONS = 48;

/** Vectors whose float32 length is far from 1, exactly 1, zero, tiny or huge, and with -0 and subnormals. */
function samples(): Float32Array[] {
  const base = clusteredVectors({ count: 60, dimensions: DIMENSIONS, clusters: 4, seed: 17 });
  const scaled = base.map((vector, i) => vector.map((value) => value * (i % 3 === 0 ? 1 : 0.37 * (1 + i))));
  const unit = base.map((vector) => {
    const length = Math.hypot(...vector);
    return vector.map((value) => value / length);
  });
  const special = new Float32Array(DIMENSIONS).map((_, i) => [0, -0, 1e-45, -3e-39, 2.5e18, -1 / 3][i % 6] as number);
  const axis = new Float32Array(DIMENSIONS);
  axis[5] = -1;
  return [...scaled, ...unit, special, axis, new Float32Array(DIMENSIONS), new Float32Array(DIMENSIONS).fill(1e-30)];
}

/** What hnswlib-node's cosine space stores for each vector, as float32 bytes. */
function storedByHnswlib(vectors: Float32Array[]): Buffer {
  const graph = new hnswlib.HierarchicalNSW('cosine', DIMENSIONS);
  graph.initIndex(vectors.length, 8, 20, 100);
  vectors.forEach((vector, label) => graph.addPoint(Array.from(vector), label));
  const out = new Float32Array(vectors.length * DIMENSIONS);
  vectors.forEach((_, label) => out.set(graph.getPoint(label), label * DIMENSIONS));
  return Buffer.from(out.buffer);
}

describe('cosineImage', () => {
  const vectors = samples();
  const expected = storedByHnswlib(vectors);

  it.each(['wasm', 'js'] as const)('writes what hnswlib stores, bit for bit (%s)', (engine) => {
    // Vectors at a 4-byte offset in the image, out of order, the way a restore places them.
    const image = cosineImage(DIMENSIONS, 4 + expected.length, engine);
    const order = vectors.map((_, i) => i).sort((a, b) => ((a * 7919) % 131) - ((b * 7919) % 131));
    for (const i of order) image.put(vectors[i] as Float32Array, 4 + i * DIMENSIONS * 4);
    expect(image.bytes.length).toBe(4 + expected.length);
    expect(image.bytes.subarray(4).equals(expected)).toBe(true);
  });

  it('leaves the input vectors untouched', () => {
    const vector = (vectors[1] as Float32Array).slice();
    cosineImage(DIMENSIONS, DIMENSIONS * 4).put(vector, 0);
    expect(Buffer.from(vector.buffer).equals(Buffer.from((vectors[1] as Float32Array).buffer))).toBe(true);
  });
});
