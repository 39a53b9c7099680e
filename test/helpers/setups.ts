import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localEmbeddings } from '../../adapters/local/index.js';
import { exactIndex, memoryStores } from '../../adapters/memory/index.js';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, type Ragdesk } from '../../src/index.js';
import type { Embeddings } from '../../src/ports/embeddings.js';

export interface Setup {
  name: string;
  /** Opens an instance; the embedded setup keeps its files in `dir` across calls. */
  open(dir: string, embeddings?: Embeddings): Ragdesk;
  persistent: boolean;
}

export const SETUPS: Setup[] = [
  {
    name: 'sqlite + hnsw',
    persistent: true,
    open: (dir, embeddings = localEmbeddings()) =>
      createRagdesk({
        ...sqliteStores({ path: join(dir, 'ragdesk.db') }),
        index: hnswIndex({ dir: join(dir, 'indexes') }),
        embeddings,
      }),
  },
  {
    name: 'memory + exact',
    persistent: false,
    open: (_dir, embeddings = localEmbeddings()) => createRagdesk({ ...memoryStores(), index: exactIndex(), embeddings }),
  },
];

export function tempDir(prefix = 'ragdesk-test-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Wraps a real embedder to count what reaches it (how many texts were embedded). */
export function countingEmbeddings(inner: Embeddings): Embeddings & { texts: string[] } {
  const texts: string[] = [];
  return {
    model: inner.model,
    specificationVersion: 'v1',
    dimensions: inner.dimensions,
    maxBatchSize: inner.maxBatchSize,
    texts,
    async embed(batch, options) {
      if (options.purpose === 'document') texts.push(...batch);
      return inner.embed(batch, options);
    },
  };
}
