/**
 * What both LangChain peers share: the benchmark's embedder as a LangChain `Embeddings` (what a
 * user writes to plug in their own model), LangChain's splitter at ragdesk's chunk size, and the
 * conversion of chunks and hits to and from LangChain `Document`s.
 */
import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { cl100kTokenizer } from '../../src/ingest/index.js';
import type { Hit, Peer, TextEmbedder } from './peer.js';
import { CHUNK_OVERLAP, CHUNK_SIZE } from './shared.js';

export class SharedEmbeddings extends Embeddings {
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

/**
 * `RecursiveCharacterTextSplitter` measuring length in cl100k tokens at 512/64. The tokenizer is
 * ragdesk's gpt-tokenizer cl100k (same ids as tiktoken): LangChain's own tiktoken helper downloads
 * its rank file, which this offline benchmark cannot do.
 */
function langchainSplitter(): RecursiveCharacterTextSplitter {
  const tokenizer = cl100kTokenizer();
  return new RecursiveCharacterTextSplitter({
    chunkSize: CHUNK_SIZE,
    chunkOverlap: CHUNK_OVERLAP,
    lengthFunction: (text) => tokenizer.count(text),
  });
}

/** What the ingestion paths need of a LangChain vector store (every `VectorStore` has both). */
interface LangchainStore {
  addDocuments(documents: Document[]): Promise<unknown>;
  addVectors(vectors: number[][], documents: Document[]): Promise<unknown>;
}

/** Both ingestion paths of a peer, done the way a LangChain user would for any vector store. */
export function langchainIngestion(store: LangchainStore): Pick<Peer, 'ingestDocuments' | 'ingestChunks'> {
  const splitter = langchainSplitter();
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
  };
}

export function toHits(results: readonly [Document, number][]): Hit[] {
  return results.map(([document, score]) => ({ docId: String(document.metadata.docId), score }));
}
