/**
 * The inputs of a run: SciFact documents as peers receive them, and the shared-vectors file (chunks
 * cut once, embedded once) that the parent writes and every child reads.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadBeir, type BeirDataset } from '../../adapters/cli/beir.js';
import type { PreparedChunk, SourceDocument, TextEmbedder } from './peer.js';
import { sharedChunks } from './shared.js';

export interface Corpus {
  dataset: BeirDataset;
  /** Title + blank line + abstract: what `bench:retrieval` indexes too. */
  documents: SourceDocument[];
}

/** Loads a BEIR folder; `limit` keeps the first N documents (quick runs; quality is then meaningless). */
export function loadCorpus(folder: string, split: string, limit?: number): Corpus {
  const dataset = loadBeir(folder, split);
  const corpus = limit === undefined ? dataset.corpus : dataset.corpus.slice(0, limit);
  const documents = corpus.map((document) => ({
    id: document.id,
    text: document.title ? `${document.title}\n\n${document.text}` : document.text || document.id,
  }));
  return { dataset: { ...dataset, corpus }, documents };
}

export interface SharedVectors {
  model: string;
  dimensions: number;
  fusionWeight?: number;
  chunks: PreparedChunk[];
  queries: { text: string; vector: Float32Array }[];
}

interface Header {
  model: string;
  dimensions: number;
  fusionWeight?: number;
  chunks: { docId: string; text: string; charOffset: number }[];
  queries: string[];
}

/** Cuts the chunks with the shared chunker and embeds chunks and queries once. */
export async function prepareSharedVectors(
  documents: readonly SourceDocument[],
  queries: readonly string[],
  embedder: TextEmbedder,
): Promise<SharedVectors> {
  const chunks = sharedChunks(documents);
  const vectors = await embedder.embed(chunks.map((chunk) => chunk.text));
  const queryVectors = await embedder.embed(queries);
  return {
    model: embedder.model,
    dimensions: embedder.dimensions,
    ...(embedder.fusionWeight === undefined ? {} : { fusionWeight: embedder.fusionWeight }),
    chunks: chunks.map((chunk, i) => ({ ...chunk, vector: vectors[i] as Float32Array })),
    queries: queries.map((text, i) => ({ text, vector: queryVectors[i] as Float32Array })),
  };
}

/** `shared.json` (texts) + `shared.f32` (chunk vectors, then query vectors, little-endian float32). */
export function writeSharedVectors(dir: string, shared: SharedVectors): void {
  const header: Header = {
    model: shared.model,
    dimensions: shared.dimensions,
    ...(shared.fusionWeight === undefined ? {} : { fusionWeight: shared.fusionWeight }),
    chunks: shared.chunks.map(({ docId, text, charOffset }) => ({ docId, text, charOffset })),
    queries: shared.queries.map((query) => query.text),
  };
  const all = new Float32Array((shared.chunks.length + shared.queries.length) * shared.dimensions);
  [...shared.chunks, ...shared.queries].forEach((item, i) => all.set(item.vector, i * shared.dimensions));
  writeFileSync(join(dir, 'shared.json'), JSON.stringify(header));
  writeFileSync(join(dir, 'shared.f32'), new Uint8Array(all.buffer));
}

export function readSharedVectors(dir: string): SharedVectors {
  const header = JSON.parse(readFileSync(join(dir, 'shared.json'), 'utf8')) as Header;
  const bytes = readFileSync(join(dir, 'shared.f32'));
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const vectorAt = (i: number) => all.slice(i * header.dimensions, (i + 1) * header.dimensions);
  return {
    model: header.model,
    dimensions: header.dimensions,
    ...(header.fusionWeight === undefined ? {} : { fusionWeight: header.fusionWeight }),
    chunks: header.chunks.map((chunk, i) => ({ ...chunk, vector: vectorAt(i) })),
    queries: header.queries.map((text, i) => ({ text, vector: vectorAt(header.chunks.length + i) })),
  };
}
