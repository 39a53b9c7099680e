/**
 * Floor for vector search: a bare hnswlib-node index (cosine, ragdesk's HNSW defaults: M,
 * efConstruction, and ef max(efSearch, k)) with chunk labels mapped to document ids in a JS array. It
 * stores no text and no metadata; what ragdesk adds on top of it is the difference.
 */
import { join } from 'node:path';
import hnswlib from 'hnswlib-node';
import { HNSW_DEFAULTS } from '../../adapters/hnsw/options.js';
import type { PeerFactory } from './peer.js';
import { folderBytes, sharedChunks } from './shared.js';

export const rawHnswlibPeer: PeerFactory = {
  available: true,
  info: {
    id: 'raw-hnswlib',
    label: 'raw hnswlib-node (floor)',
    library: 'hnswlib-node 3.0.0',
    modes: ['vector'],
    storage: 'manual',
    chunker: 'shared (ragdesk, 512/64)',
    notes: ['vectors only: no text, no metadata store', 'persisted with writeIndexSync on close'],
  },
  async open({ dir, embedder, expectedChunks }) {
    let capacity = Math.max(16, expectedChunks);
    const index = new hnswlib.HierarchicalNSW('cosine', embedder.dimensions);
    index.initIndex(capacity, HNSW_DEFAULTS.m, HNSW_DEFAULTS.efConstruction, 100);
    const docIds: string[] = [];
    const add = (vectors: readonly Float32Array[], ids: readonly string[]) => {
      if (docIds.length + vectors.length > capacity) {
        capacity = Math.max(capacity * 2, docIds.length + vectors.length);
        index.resizeIndex(capacity);
      }
      vectors.forEach((vector, i) => {
        index.addPoint(Array.from(vector), docIds.length);
        docIds.push(ids[i] as string);
      });
    };
    return {
      async ingestDocuments(documents) {
        const chunks = sharedChunks(documents);
        add(
          await embedder.embed(chunks.map((chunk) => chunk.text)),
          chunks.map((chunk) => chunk.docId),
        );
        return { chunks: chunks.length };
      },
      async ingestChunks(chunks) {
        add(
          chunks.map((chunk) => chunk.vector),
          chunks.map((chunk) => chunk.docId),
        );
        return { chunks: chunks.length };
      },
      async search(query, mode, k) {
        if (mode !== 'vector') throw new Error(`raw-hnswlib has no ${mode} search`);
        const [vector] = await embedder.embed([query]);
        index.setEf(Math.max(HNSW_DEFAULTS.efSearch, k));
        const result = index.searchKnn(Array.from(vector as Float32Array), Math.min(k, docIds.length));
        return result.neighbors.map((label, i) => ({ docId: docIds[label] as string, score: 1 - (result.distances[i] as number) }));
      },
      async close(persist) {
        if (!persist) return { diskBytes: null, persistMs: 0 };
        const started = performance.now();
        index.writeIndexSync(join(dir, 'index.bin'));
        return { diskBytes: folderBytes(dir), persistMs: performance.now() - started };
      },
    };
  },
};
