import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { RetrievalMode } from '../../src/index.js';
import { loadBeir, scoreRankings } from './beir.js';
import { UsageError, type CliIo } from './io.js';
import { openData } from './open-data.js';
import { ProgressBar } from './progress.js';

export const EVAL_USAGE = `ragdesk eval --dataset <BEIR folder> [--split test] [--mode all|hybrid|vector|lexical] [--limit N]
  The retrieval benchmark: indexes the corpus in a temporary folder with this setup's embedder, runs the
  judged queries (top 100) and prints nDCG@10, Recall@100, MRR@10 and query latency.`;

const MODES: RetrievalMode[] = ['hybrid', 'vector', 'lexical'];

export async function runEval(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      dataset: { type: 'string' },
      split: { type: 'string', default: 'test' },
      mode: { type: 'string', default: 'all' },
      limit: { type: 'string' },
    },
  });
  if (!values.dataset) throw new UsageError('eval needs --dataset <BEIR folder>');
  const mode = values.mode ?? 'all';
  if (mode !== 'all' && !MODES.includes(mode as RetrievalMode)) throw new UsageError(`--mode must be all, ${MODES.join(', ')}`);
  const modes = mode === 'all' ? MODES : [mode as RetrievalMode];
  const dataset = loadBeir(values.dataset, values.split ?? 'test');
  const limit = values.limit === undefined ? dataset.queries.length : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive integer');
  const queries = dataset.queries.slice(0, limit);
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-eval-'));
  const ragdesk = openData(dir, io);
  try {
    const datastore = await ragdesk.datastores.create({ name: basename(values.dataset) });
    io.stderr(
      `eval ${basename(values.dataset)} (${values.split}): ${dataset.corpus.length} documents, ${queries.length} queries, embeddings ${ragdesk.adapters.embeddings}\n`,
    );
    const bar = new ProgressBar(io, 'index', dataset.corpus.length);
    const started = performance.now();
    for (let start = 0; start < dataset.corpus.length; start += 256) {
      const batch = dataset.corpus.slice(start, start + 256);
      await datastore.upsert(
        batch.map((doc) => ({
          text: doc.title ? `${doc.title}\n\n${doc.text}` : doc.text || doc.id,
          name: doc.id,
          metadata: { beir_id: doc.id },
        })),
      );
      bar.update(Math.min(dataset.corpus.length, start + batch.length));
    }
    bar.finish(`indexed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    io.stdout('mode     nDCG@10  Recall@100  MRR@10  p50 ms  p99 ms\n');
    for (const current of modes) {
      const rankings = new Map<string, string[]>();
      const latencies: number[] = [];
      for (const query of queries) {
        const t = performance.now();
        const fragments = await datastore.query({ query: query.text || '?', topK: 100, mode: current });
        latencies.push(performance.now() - t);
        rankings.set(query.id, [...new Set(fragments.map((fragment) => String(fragment.metadata.beir_id ?? fragment.datasource_name)))]);
      }
      const scores = scoreRankings(
        rankings,
        dataset.qrels,
        queries.map((query) => query.id),
      );
      latencies.sort((a, b) => a - b);
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
      io.stdout(
        `${current.padEnd(8)} ${scores.ndcg10.toFixed(3).padStart(7)}  ${scores.recall100.toFixed(3).padStart(10)}  ${scores.mrr10.toFixed(3).padStart(6)}  ${at(0.5).toFixed(1).padStart(6)}  ${at(0.99).toFixed(1).padStart(6)}\n`,
      );
    }
    return 0;
  } finally {
    await ragdesk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
