/**
 * Folds a partial run (some peers, some workloads) into a saved full run: used to re-measure one
 * peer whose child failed without repeating everything. Replaced rows are listed on the page with
 * the time they were measured, since the machine's load then differs from the rest of the run.
 */
import { PEER_IDS } from './registry.js';
import type { PeersReport } from './render.js';

export function mergeReports(target: PeersReport, update: PeersReport): PeersReport {
  const replacedSummary = (run: string, id: string) => update.summaries.some((summary) => summary.run === run && summary.info.id === id);
  const replacedScaling = (id: string) => update.scaling.some((result) => result.info.id === id);
  const runOrder = ['local', 'shared'];
  const peerOrder: readonly string[] = PEER_IDS;
  const summaries = [...target.summaries.filter((summary) => !replacedSummary(summary.run, summary.info.id)), ...update.summaries].sort(
    (a, b) => runOrder.indexOf(a.run) - runOrder.indexOf(b.run) || peerOrder.indexOf(a.info.id) - peerOrder.indexOf(b.info.id),
  );
  const measured = [
    ...update.summaries.map((summary) => `scifact-${summary.run} ${summary.info.id}`),
    ...update.scaling.map((result) => `scaling ${result.info.id}`),
  ];
  return {
    ...target,
    summaries,
    scaling: [...target.scaling.filter((result) => !replacedScaling(result.info.id)), ...update.scaling].sort(
      (a, b) => peerOrder.indexOf(a.info.id) - peerOrder.indexOf(b.info.id),
    ),
    scalingUnavailable: [...target.scalingUnavailable.filter((result) => !replacedScaling(result.info.id)), ...update.scalingUnavailable],
    failures: [...target.failures.filter((failure) => !measured.includes(`${failure.workload} ${failure.peer}`)), ...update.failures],
    merged: [
      ...(target.merged ?? []),
      ...measured.map((what) => ({ what, startedAt: update.startedAt, date: update.date, loadAverage: update.loadAverage })),
    ],
  };
}
