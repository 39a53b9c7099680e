/**
 * ragdesk's embedded default, exactly as a user opens it: `openRagdesk({ dataDir })` (SQLite with an in-memory bm25 index,
 * HNSW, its 512/64-token chunker), documents in through `datastore.upsert`, queries through
 * `datastore.query`.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { HNSW_DEFAULTS } from '../../adapters/hnsw/options.js';
import { openRagdesk } from '../../adapters/node.js';
import type { Embeddings } from '../../src/ports/embeddings.js';
import type { Datastore } from '../../src/index.js';
import type { PeerFactory, SourceDocument, TextEmbedder } from './peer.js';
import { folderBytes } from './shared.js';

const BATCH = 500;

/** Chunks stored, read from the SQLite file on a second read-only connection (not timed). */
function countChunks(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function embeddingsPort(embedder: TextEmbedder): Embeddings {
  return {
    model: embedder.model,
    specificationVersion: 'v1',
    dimensions: embedder.dimensions,
    maxBatchSize: 256,
    ...(embedder.fusionWeight === undefined ? {} : { fusionWeight: embedder.fusionWeight }),
    async embed(texts) {
      return { vectors: await embedder.embed(texts), usage: { tokens: 0 } };
    },
  };
}

export const ragdeskPeer: PeerFactory = {
  available: true,
  info: {
    id: 'ragdesk',
    label: 'ragdesk (embedded default)',
    library: 'ragdesk 0.1.0: SQLite + in-memory bm25 + hnswlib-node',
    modes: ['hybrid', 'vector', 'lexical'],
    storage: 'disk',
    chunker: 'ragdesk (cl100k, 512/64)',
    notes: [
      `hybrid: min-max scaled score fusion of HNSW (M ${HNSW_DEFAULTS.m}, efConstruction ${HNSW_DEFAULTS.efConstruction}, ef ${HNSW_DEFAULTS.efSearch}) and bm25`,
      'vectors kept once, in SQLite; the HNSW file holds the graph links only',
      'searchable when the upsert returns: vectors not yet in the graph are scanned exactly',
    ],
  },
  async open({ dir, embedder }) {
    const ragdesk = openRagdesk({ dataDir: dir, env: {}, embeddings: embeddingsPort(embedder) });
    const datastore: Datastore = await ragdesk.datastores.create({ name: 'peers' });
    let chunks = 0;
    const upsert = async (items: readonly { text: string; docId: string }[]) => {
      for (let start = 0; start < items.length; start += BATCH) {
        await datastore.upsert(items.slice(start, start + BATCH).map((item) => ({ text: item.text, metadata: { beir_id: item.docId } })));
      }
    };
    return {
      async ingestDocuments(documents: readonly SourceDocument[]) {
        await upsert(documents.map((document) => ({ text: document.text, docId: document.id })));
        const before = chunks;
        chunks = countChunks(join(dir, 'ragdesk.db'));
        return { chunks: chunks - before };
      },
      async ingestChunks(prepared) {
        await upsert(prepared);
        chunks += prepared.length;
        return { chunks: prepared.length };
      },
      settle: () => ragdesk.indexed(),
      async search(query, mode, k) {
        const fragments = await datastore.query({ query, topK: k, mode });
        return fragments.map((fragment) => ({ docId: String(fragment.metadata.beir_id), score: fragment.score }));
      },
      async close(_persist) {
        const started = performance.now();
        await ragdesk.close();
        const persistMs = performance.now() - started;
        // ragdesk persists as it goes (SQLite) and flushes the HNSW file on close, so `persist` changes nothing.
        return { diskBytes: folderBytes(dir), persistMs };
      },
    };
  },
};
