/**
 * Orama 3.1.18: one in-memory database with a full-text (BM25) index on the chunk text and an exact
 * vector index, searched in `fulltext`, `vector` and `hybrid` mode. Configured as an English user
 * would: Orama's built-in English stemmer (ragdesk's FTS5 stems too) and an English stop-word list
 * (ragdesk's, plus "a"). Orama matches every query token as a prefix of indexed words (its
 * search-as-you-type design), so without stop words "a" or "in" match most of the vocabulary:
 * SciFact nDCG@10 0.165 at 200+ ms per query with the defaults. The vector similarity
 * threshold is set to 0: Orama's default (0.8) drops every hit of an embedder whose cosines sit
 * lower than that, which would turn hybrid into plain full-text. Orama has no splitter: chunks come
 * from the shared chunker. Persistence is manual (`save()` and JSON to a file, done on close).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create, insertMultiple, save, search, type AnyOrama } from '@orama/orama';
import { ENGLISH_STOPWORDS } from '../../src/text/stopwords.js';
import type { PeerFactory, PeerMode, PreparedChunk } from './peer.js';
import { sharedChunks } from './shared.js';

const ORAMA_MODE: Record<PeerMode, 'fulltext' | 'vector' | 'hybrid'> = { lexical: 'fulltext', vector: 'vector', hybrid: 'hybrid' };

interface OramaHit {
  score: number;
  document: { docId: string };
}

export const oramaPeer: PeerFactory = {
  available: true,
  info: {
    id: 'orama',
    label: 'Orama',
    library: '@orama/orama 3.1.18',
    modes: ['hybrid', 'vector', 'lexical'],
    storage: 'manual',
    chunker: 'shared (ragdesk, 512/64)',
    notes: [
      'English stemming and stop words switched on (defaults: neither)',
      'full-text matches each query token as a word prefix',
      'exact vector search (every vector scored per query)',
      'hybrid: min-max normalised BM25 and cosine, weights 0.5/0.5 (defaults)',
      'persisted by the caller: save() + JSON.stringify to one file on close',
    ],
  },
  async open({ dir, embedder }) {
    const db: AnyOrama = create({
      schema: { docId: 'string', text: 'string', embedding: `vector[${embedder.dimensions}]` },
      components: { tokenizer: { language: 'english', stemming: true, stopWords: [...ENGLISH_STOPWORDS, 'a'] } },
    });
    let inserted = 0;
    const insert = async (chunks: readonly Omit<PreparedChunk, 'charOffset'>[]) => {
      await insertMultiple(
        db,
        chunks.map((chunk) => ({ id: String(inserted++), docId: chunk.docId, text: chunk.text, embedding: Array.from(chunk.vector) })),
        1000,
      );
    };
    return {
      async ingestDocuments(documents) {
        const chunks = sharedChunks(documents);
        const vectors = await embedder.embed(chunks.map((chunk) => chunk.text));
        await insert(chunks.map((chunk, i) => ({ ...chunk, vector: vectors[i] as Float32Array })));
        return { chunks: chunks.length };
      },
      async ingestChunks(chunks) {
        await insert(chunks);
        return { chunks: chunks.length };
      },
      async search(query, mode, k) {
        const vector =
          mode === 'lexical' ? undefined : { value: Array.from((await embedder.embed([query]))[0] as Float32Array), property: 'embedding' };
        const params = {
          mode: ORAMA_MODE[mode],
          term: query,
          properties: ['text'],
          limit: k,
          similarity: 0,
          ...(vector ? { vector } : {}),
        } as Parameters<typeof search>[1];
        const result = (await search(db, params)) as unknown as { hits: OramaHit[] };
        return result.hits.map((hit) => ({ docId: hit.document.docId, score: hit.score }));
      },
      async close(persist) {
        if (!persist) return { diskBytes: null, persistMs: 0 };
        const started = performance.now();
        const path = join(dir, 'orama.json');
        const json = JSON.stringify(save(db));
        writeFileSync(path, json);
        return { diskBytes: Buffer.byteLength(json), persistMs: performance.now() - started };
      },
    };
  },
};
