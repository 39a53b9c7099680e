/**
 * What both LangChain peers share: the benchmark's embedder as a LangChain `Embeddings` (what a
 * user writes to plug in their own model), LangChain's splitter at ragdesk's chunk size, and the
 * conversion of chunks and hits to and from LangChain `Document`s.
 */
import { Document } from '@langchain/core/documents';
import { Embeddings } from '@langchain/core/embeddings';
import { RecursiveCharacterTextSplitter } from '@langchain/textsplitters';
import { cl100kTokenizer } from '../../src/ingest/index.js';
import type { Hit, PreparedChunk, SourceDocument, TextEmbedder } from './peer.js';
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
export function langchainSplitter(): { split(documents: readonly SourceDocument[]): Promise<Document[]> } {
  const tokenizer = cl100kTokenizer();
  const splitter = new RecursiveCharacterTextSplitter({
    chunkSize: CHUNK_SIZE,
    chunkOverlap: CHUNK_OVERLAP,
    lengthFunction: (text) => tokenizer.count(text),
  });
  return {
    split: (documents) =>
      splitter.createDocuments(
        documents.map((document) => document.text),
        documents.map((document) => ({ docId: document.id })),
      ),
  };
}

export function chunkDocuments(chunks: readonly PreparedChunk[]): { vectors: number[][]; documents: Document[] } {
  return {
    vectors: chunks.map((chunk) => Array.from(chunk.vector)),
    documents: chunks.map((chunk) => new Document({ pageContent: chunk.text, metadata: { docId: chunk.docId } })),
  };
}

export function toHits(results: readonly [Document, number][]): Hit[] {
  return results.map(([document, score]) => ({ docId: String(document.metadata.docId), score }));
}
