/**
 * LangChain.js: `MemoryVectorStore` (@langchain/classic) with `RecursiveCharacterTextSplitter`
 * (@langchain/textsplitters) measuring length in cl100k tokens at ragdesk's 512/64, and the shared
 * embedder wrapped in LangChain's `Embeddings` base class. Brute-force cosine in JS, in memory only,
 * no keyword search.
 */
import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory';
import type { PeerFactory } from './peer.js';
import { langchainIngestion, SharedEmbeddings, toHits } from './langchain-shared.js';

export const langchainMemoryPeer: PeerFactory = {
  available: true,
  info: {
    id: 'langchain-memory',
    label: 'LangChain MemoryVectorStore',
    library: '@langchain/classic 1.0.50, @langchain/textsplitters 1.0.2, @langchain/core 1.4.0',
    modes: ['vector'],
    storage: 'memory',
    chunker: 'RecursiveCharacterTextSplitter, cl100k length, 512/64',
    notes: ['exact (brute-force) cosine over number[] vectors', 'no keyword or hybrid search'],
  },
  async open({ embedder }) {
    const store = new MemoryVectorStore(new SharedEmbeddings(embedder));
    return {
      ...langchainIngestion(store),
      async search(query, mode, k) {
        if (mode !== 'vector') throw new Error(`langchain-memory has no ${mode} search`);
        return toHits(await store.similaritySearchWithScore(query, k));
      },
      async close() {
        store.memoryVectors = [];
        return { diskBytes: null, persistMs: 0 };
      },
    };
  },
};
