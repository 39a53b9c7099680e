import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRagdesk } from '../../adapters/node.js';
import { loadBeir } from '../../adapters/cli/beir.js';
import { indexBeirCorpus, queryBeir } from '../../benchmarks/lib/beir-ragdesk.js';
import { tempDir } from '../helpers/setups.js';
import { datasetPath } from '../../fixtures/datasets.js';

const SCIFACT = datasetPath('datasets', 'scifact');
const available = existsSync(resolve(SCIFACT, 'qrels/train.tsv'));
if (!available) console.log(`[skip] SciFact quality check: ${SCIFACT} is absent (RAGDESK_DATASETS_DIR names the folder holding datasets/)`);

describe.skipIf(!available)('retrieval quality on BEIR SciFact (train split), offline default', () => {
  it('reaches nDCG@10 >= 0.60 with hybrid retrieval', { timeout: 600_000 }, async () => {
    const dataset = loadBeir(SCIFACT, 'train');
    expect(dataset.corpus.length).toBe(5183);
    const temp = tempDir();
    const ragdesk = openRagdesk({ dataDir: temp.dir, env: {} });
    try {
      const datastore = await ragdesk.datastores.create({ name: 'scifact' });
      await indexBeirCorpus(datastore, dataset);
      const { scores } = await queryBeir(datastore, dataset, 'hybrid');
      console.log(
        `SciFact train hybrid: nDCG@10 ${scores.ndcg10.toFixed(3)}, R@100 ${scores.recall100.toFixed(3)}, MRR@10 ${scores.mrr10.toFixed(3)}`,
      );
      expect(scores.ndcg10).toBeGreaterThanOrEqual(0.6);
      expect(scores.recall100).toBeGreaterThan(0.8);
    } finally {
      await ragdesk.close();
      temp.remove();
    }
  });
});
