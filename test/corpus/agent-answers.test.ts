import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRagdesk } from '../../adapters/node.js';
import { tempDir } from '../helpers/setups.js';
import { datasetPath } from '../../fixtures/datasets.js';

const DOCS = datasetPath('corpus', 'docs', 'markitdown');
const present = existsSync(join(DOCS, 'test.docx')) && existsSync(join(DOCS, 'test.pptx'));
if (!present)
  console.log(`[skip] offline answers on real documents: ${DOCS} is absent (RAGDESK_DATASETS_DIR names the folder holding corpus/)`);

/** Questions whose answer is a string planted in one real document. */
const QUESTIONS = [
  { file: 'test.docx', query: 'Which random UUID is in the middle of the paragraph?', planted: '314b0a30-5b04-470b-b9f7-eed2c2bec74a' },
  { file: 'test.pptx', query: 'What is on the first page of the AutoGen ArXiv paper?', planted: '44bf7d06-5e7a-4a40-a2e1-a2e42ef28c8a' },
];

describe.skipIf(!present)('the offline answerer on real documents', () => {
  it('answers with the planted string and cites the right file first', { timeout: 120_000 }, async () => {
    const temp = tempDir();
    const ragdesk = openRagdesk({ dataDir: temp.dir, env: {} });
    try {
      const datastore = await ragdesk.datastores.create({ name: 'corpus' });
      for (const file of new Set(QUESTIONS.map((question) => question.file))) {
        const source = await ragdesk.datasources.create({
          type: 'file',
          datastoreId: datastore.id,
          file: { bytes: readFileSync(join(DOCS, file)), fileName: file },
        });
        expect((await ragdesk.datasources.waitUntilSettled(source.id, 60_000)).status).toBe('synched');
      }
      const agent = await ragdesk.agents.create({ name: 'corpus', description: 'real documents', datastoreIds: [datastore.id] });
      for (const question of QUESTIONS) {
        const response = await ragdesk.agents.query(agent.id, { query: question.query });
        expect(response.answer, question.query).toContain(question.planted);
        expect(response.sources[0]?.datasource_name, question.query).toBe(question.file);
        expect(response.sources[0]?.mime_type).toMatch(/officedocument/);
      }
    } finally {
      await ragdesk.close();
      temp.remove();
    }
  });
});
