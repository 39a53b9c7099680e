/**
 * LangChain.js: `MemoryVectorStore` (@langchain/classic) with `RecursiveCharacterTextSplitter`
 * (@langchain/textsplitters) measuring length in cl100k tokens at ragdesk's 512/64, and the shared
 * embedder wrapped in LangChain's `Embeddings` base class. Brute-force cosine in JS, in memory only,
 * no keyword search.
 */
import { MemoryVectorStore } from '@langchain/classic/vectorstores/memory';
import { Embeddings } from '@langchain/core/embeddings';
import { Document } from '@langchain/core/documents';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { cl100kTokenizer } from '../../src/ingest/index.js';
import type { PeerFactory, TextEmbedder } from './peer.js';
import { CHUNK_OVERLAP, CHUNK_SIZE } from './shared.js';

/** The shared embedder as a LangChain `Embeddings`: what a user would write to plug in their own model. */
class SharedEmbeddings extends Embeddings {
  constructor(private readonly embedder: TextEmbedder) {
    super({});
  }

  async embedDocuments(documents: string[]): Promise<number[][]> {
    return (await this.embedder.embed(documents)).map((vector) => Array.from(vector));
  }

  async embedQuery(document: string): Promise<number[]> {
    const [vector] = await this.embedder.embed([document]);
    return Array.from(vector as Float32Array);
  }
}

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
    const embeddings = new SharedEmbeddings(embedder);
    const store = new MemoryVectorStore(embeddings);
    // The tokenizer is ragdesk's gpt-tokenizer cl100k (same ids as tiktoken): LangChain's own
    // tiktoken helper downloads its rank file, which this offline benchmark cannot do.
    const tokenizer = cl100kTokenizer();
    const splitter = new RecursiveCharacterTextSplitter({ chunkSize: CHUNK_SIZE, chunkOverlap: CHUNK_OVERLAP, lengthFunction: (text) => tokenizer.count(text) });
    return {
      async ingestDocuments(documents) {
        const chunks = await splitter.createDocuments(
          documents.map((document) => document.text),
          documents.map((document) => ({ docId: document.id })),
        );
        await store.addDocuments(chunks);
        return { chunks: chunks.length };
      },
      async ingestChunks(chunks) {
        await store.addVectors(
          chunks.map((chunk) => Array.from(chunk.vector)),
          chunks.map((chunk) => new Document({ pageContent: chunk.text, metadata: { docId: chunk.docId } })),
        );
        return { chunks: chunks.length };
      },
      async search(query, mode, k) {
        if (mode !== 'vector') throw new Error(`langchain-memory has no ${mode} search`);
        const results = await store.similaritySearchWithScore(query, k);
        return results.map(([document, score]) => ({ docId: String(document.metadata.docId), score }));
      },
      async close() {
        store.memoryVectors = [];
        return { diskBytes: null, persistMs: 0 };
      },
    };
  },
};

/** The LangChain HNSWLib store lives in @langchain/community, whose peer tree cannot be installed here. */
export const langchainHnswlibPeer: PeerFactory = {
  available: false,
  info: {
    id: 'langchain-hnswlib',
    label: 'LangChain HNSWLib',
    library: '@langchain/community (not installed)',
    modes: ['vector'],
    storage: 'disk',
    chunker: 'RecursiveCharacterTextSplitter',
    notes: [],
  },
  reason:
    'not installable on this dependency set: @langchain/community pins openai ^4 through its peer dependencies against ragdesk\'s openai 6 and installs only with --legacy-peer-deps',
};
