/**
 * LangChain.js: the `HNSWLib` vector store (@langchain/community, over hnswlib-node) with the same
 * splitter and embedder wrapper as the MemoryVectorStore peer. Cosine space; LangChain's own HNSW
 * parameters (it exposes none for M, efConstruction or ef); documents kept in an in-memory
 * docstore; persisted by the caller with `save(dir)`, which writes the index and a JSON docstore.
 */
import { HNSWLib } from '@langchain/community/vectorstores/hnswlib';
import type { PeerFactory } from './peer.js';
import { langchainIngestion, SharedEmbeddings, toHits } from './langchain-shared.js';
import { folderBytes } from './shared.js';

export const langchainHnswlibPeer: PeerFactory = {
  available: true,
  info: {
    id: 'langchain-hnswlib',
    label: 'LangChain HNSWLib',
    library: '@langchain/community 1.1.29 (hnswlib-node 3.0.0), @langchain/textsplitters 1.0.2, @langchain/core 1.4.0',
    modes: ['vector'],
    storage: 'manual',
    chunker: 'RecursiveCharacterTextSplitter, cl100k length, 512/64',
    notes: [
      'HNSW with LangChain defaults (M 16, efConstruction 200, ef max(10, k); none exposed)',
      'index resized to the exact count on every add',
      'no keyword or hybrid search',
      'persisted with save(dir) on close',
    ],
  },
  async open({ dir, embedder }) {
    const store = new HNSWLib(new SharedEmbeddings(embedder), { space: 'cosine', numDimensions: embedder.dimensions });
    return {
      ...langchainIngestion(store),
      async search(query, mode, k) {
        if (mode !== 'vector') throw new Error(`langchain-hnswlib has no ${mode} search`);
        // LangChain hands back hnswlib's cosine distance as the "score"; hits come best first.
        return toHits(await store.similaritySearchWithScore(query, k)).map((hit) => ({ ...hit, score: 1 - hit.score }));
      },
      async close(persist) {
        if (!persist) return { diskBytes: null, persistMs: 0 };
        const started = performance.now();
        await store.save(dir);
        return { diskBytes: folderBytes(dir), persistMs: performance.now() - started };
      },
    };
  },
};
