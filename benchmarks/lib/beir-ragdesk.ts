import type { Datastore } from '../../src/index.js';
import type { RetrievalMode } from '../../src/index.js';
import { evaluate, type BeirDataset, type Ranking, type Scores } from '../beir.js';

/** Upserts a BEIR corpus (title + text per document, the BEIR convention) through the public API. */
export async function indexBeirCorpus(datastore: Datastore, dataset: BeirDataset, batchSize = 500): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < dataset.corpus.length; start += batchSize) {
    const batch = dataset.corpus.slice(start, start + batchSize);
    await datastore.upsert(
      batch.map((document) => ({
        text: document.title ? `${document.title}\n\n${document.text}` : document.text || document.title || document.id,
        name: document.id,
        metadata: { beir_id: document.id },
      })),
    );
  }
  return (performance.now() - started) / 1000;
}

/**
 * Queries every judged query (top 100 chunks), folds chunks into documents, and scores the rankings.
 * `beside`, when given, runs (timed apart, in `besideMs`) just before each query: a reference
 * measured under the same load as the query it precedes.
 */
export async function queryBeir(
  datastore: Datastore,
  dataset: BeirDataset,
  mode: RetrievalMode,
  beside?: (query: string) => unknown,
): Promise<{
  scores: Scores;
  querySeconds: number;
  latenciesMs: number[];
  besideMs: number[];
  cpuMsPerQuery: number;
  besideCpuMs: number;
}> {
  const rankings = new Map<string, Ranking>();
  const latenciesMs: number[] = [];
  const besideMs: number[] = [];
  let besideTotal = 0;
  // CPU time (every thread of the process) beside wall time: on a loaded machine the wall time of
  // an asynchronous query grows with every preemption, its CPU time much less.
  let besideCpu = 0;
  const cpuStarted = process.cpuUsage();
  const started = performance.now();
  for (const query of dataset.queries) {
    if (beside) {
      const cpu = process.cpuUsage();
      const t = performance.now();
      beside(query.text);
      besideMs.push(performance.now() - t);
      besideTotal += performance.now() - t;
      const used = process.cpuUsage(cpu);
      besideCpu += (used.user + used.system) / 1000;
    }
    const t = performance.now();
    const fragments = await datastore.query({ query: query.text, topK: 100, mode });
    latenciesMs.push(performance.now() - t);
    const seen = new Set<string>();
    for (const fragment of fragments) seen.add(String(fragment.metadata.beir_id ?? fragment.datasource_name));
    rankings.set(query.id, [...seen]);
  }
  const querySeconds = (performance.now() - started - besideTotal) / 1000;
  const cpuUsed = process.cpuUsage(cpuStarted);
  const cpuMsPerQuery = ((cpuUsed.user + cpuUsed.system) / 1000 - besideCpu) / dataset.queries.length;
  return {
    scores: evaluate(
      rankings,
      dataset.qrels,
      dataset.queries.map((query) => query.id),
    ),
    querySeconds,
    latenciesMs,
    besideMs,
    cpuMsPerQuery,
    besideCpuMs: besideCpu / dataset.queries.length,
  };
}
