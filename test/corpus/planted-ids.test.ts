import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRagdesk } from '../../adapters/node.js';
import { isSupportedMimeType, detectMimeType } from '../../adapters/loaders/index.js';
import { tempDir } from '../helpers/setups.js';
import { datasetPath } from '../../fixtures/datasets.js';

const DOCS = datasetPath('corpus', 'docs');
const present = existsSync(join(DOCS, 'markitdown/expected_strings.json'));
if (!present) console.log(`[skip] planted-id retrieval: ${DOCS} is absent (RAGDESK_DATASETS_DIR names the folder holding corpus/)`);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

describe.skipIf(!present)('planted ids in real documents, through file datasources', () => {
  it('each planted id retrieves a chunk of its own file first', { timeout: 240_000 }, async () => {
    const expectations = JSON.parse(readFileSync(join(DOCS, 'markitdown/expected_strings.json'), 'utf8')) as {
      file: string;
      must_include: string[];
    }[];
    const temp = tempDir();
    const ragdesk = openRagdesk({ dataDir: temp.dir, env: {} });
    try {
      const datastore = await ragdesk.datastores.create({ name: 'corpus' });
      const planted: { id: string; file: string }[] = [];
      const created: string[] = [];
      for (const expectation of expectations) {
        const bytes = readFileSync(join(DOCS, expectation.file));
        if (!isSupportedMimeType(detectMimeType(bytes, { fileName: expectation.file }))) continue;
        const source = await ragdesk.datasources.create({
          type: 'file',
          datastoreId: datastore.id,
          file: { bytes, fileName: basename(expectation.file) },
        });
        created.push(source.id);
        for (const needle of expectation.must_include) {
          for (const id of needle.match(UUID) ?? []) planted.push({ id, file: basename(expectation.file) });
        }
      }
      for (const id of created) {
        const settled = await ragdesk.datasources.waitUntilSettled(id, 180_000);
        expect(settled.status, `${settled.name}: ${settled.error}`).toBe('synched');
      }
      expect(planted.length).toBeGreaterThan(5);
      const misses: string[] = [];
      for (const { id, file } of planted) {
        const [top] = await datastore.query({ query: id, topK: 1 });
        if (top?.datasource_name !== file) misses.push(`${id} (${file}) -> ${top?.datasource_name ?? 'nothing'}`);
      }
      expect(misses).toEqual([]);
    } finally {
      await ragdesk.close();
      temp.remove();
    }
  });
});
