import { mkdtemp, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { collectionDirectory } from '../../adapters/hnsw/files/persistence.js';
import { writtenHeader } from '../helpers/hnsw-header.js';
import { exactIndex } from '../../adapters/memory/exact-index.js';
import { describeVectorIndexConformance } from '../../src/testing/vector-index-conformance.js';

let dir = '';
// A low exact-scan threshold so the filter tests exercise both the graph walk and the exact scan.
const hnswOptions = () => ({ dir, initialCapacity: 16, flushAfterMs: 60_000, exactSearchThreshold: 64 });

describeVectorIndexConformance('hnsw', {
  async create() {
    dir = await mkdtemp(join(tmpdir(), 'ragdesk-hnsw-conformance-'));
    return hnswIndex(hnswOptions());
  },
  async reopen() {
    return hnswIndex(hnswOptions());
  },
  async corrupt(datastoreId, how) {
    const directory = collectionDirectory(dir, datastoreId);
    const header = await writtenHeader(directory);
    const binary = join(directory, header.binary.file);
    if (how === 'delete') await rm(binary);
    else await truncate(binary, Math.floor(header.binary.bytes / 2));
  },
  async cleanup() {
    await rm(dir, { recursive: true, force: true });
  },
});

describeVectorIndexConformance('exact (memory)', {
  create: async () => exactIndex(),
});
