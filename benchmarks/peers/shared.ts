/** Helpers several peer files use: the shared chunker, embedders, folder size. */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { localEmbeddings } from '../../adapters/local/index.js';
import { cleanText, chunkSections } from '../../src/ingest/index.js';
import type { SourceDocument, TextEmbedder } from './peer.js';

export const CHUNK_SIZE = 512;
export const CHUNK_OVERLAP = 64;

export interface SharedChunk {
  docId: string;
  text: string;
  charOffset: number;
}

/**
 * ragdesk's chunker at 512/64 cl100k tokens, used by the peers that have no splitter of their own
 * (Orama, raw hnswlib, raw FTS5) and to cut the chunks of the shared-vectors run.
 */
export function sharedChunks(documents: readonly SourceDocument[]): SharedChunk[] {
  const chunks: SharedChunk[] = [];
  for (const document of documents) {
    const pieces = chunkSections([{ text: cleanText(document.text) }], { chunkSize: CHUNK_SIZE, overlap: CHUNK_OVERLAP });
    for (const piece of pieces) chunks.push({ docId: document.id, text: piece.text, charOffset: piece.charOffset });
  }
  return chunks;
}

/** The offline local embedder (ragdesk/local) behind the peers' embedder interface. */
export function localTextEmbedder(): TextEmbedder {
  const port = localEmbeddings();
  return {
    model: port.model,
    dimensions: port.dimensions,
    fusionWeight: port.fusionWeight,
    async embed(texts) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += port.maxBatchSize) {
        const result = await port.embed(texts.slice(start, start + port.maxBatchSize), { purpose: 'document' });
        vectors.push(...result.vectors);
      }
      return vectors;
    },
  };
}

/**
 * Answers with vectors computed in advance (shared-vectors run): embedding costs a map lookup, so
 * only the stores are measured. A text without a vector is a bug in the benchmark, so it throws.
 */
export function lookupEmbedder(
  model: string,
  dimensions: number,
  table: ReadonlyMap<string, Float32Array>,
  fusionWeight?: number,
): TextEmbedder {
  return {
    model,
    dimensions,
    ...(fusionWeight === undefined ? {} : { fusionWeight }),
    async embed(texts) {
      return texts.map((text) => {
        const vector = table.get(text);
        if (!vector) throw new Error(`no precomputed vector for ${JSON.stringify(text.slice(0, 60))}`);
        return vector;
      });
    },
  };
}

/** Total size of the files under `dir` (recursive). */
export function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** Document ids of a chunk ranking, first occurrence kept (BEIR scores documents, not chunks). */
export function foldToDocuments(hits: readonly { docId: string }[]): string[] {
  const seen = new Set<string>();
  for (const hit of hits) seen.add(hit.docId);
  return [...seen];
}
