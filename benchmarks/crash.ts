/**
 * Crash consistency, many trials: `npm run build && node dist/benchmarks/crash.js [--trials 200]
 * [--seed 7] [--from 0] [--keep]` (`--from 175 --trials 1` replays trial 175 of a run). The same harness as test/reliability/crash.test.ts (which runs 30); prints
 * one line per trial, a summary table, and writes benchmarks/results/crash.json. Exits 1 when a
 * trial failed. `--keep` keeps the data directory of a failed trial for inspection.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCrashTrials } from './crash/harness.js';
import { flags, latencySummary, printTable, writeResult } from './lib/report.js';

const args = flags(process.argv.slice(2));
const trials = Number(args.get('trials') ?? 200);
const seed = Number(args.get('seed') ?? 7);
const firstTrial = Number(args.get('from') ?? 0);
const workerPath = join(dirname(fileURLToPath(import.meta.url)), 'crash', 'worker.js');

const started = performance.now();
const report = await runCrashTrials({
  trials,
  seed,
  firstTrial,
  workerPath,
  keepFailed: args.has('keep'),
  log: (line) => console.log(line),
});
const seconds = (performance.now() - started) / 1000;

const afterCrash = new Map<string, number>();
for (const trial of report.trials) for (const open of trial.afterCrash) afterCrash.set(open, (afterCrash.get(open) ?? 0) + 1);
const recovery = latencySummary(report.trials.map((trial) => trial.recoveryMs));
const close = latencySummary(report.trials.map((trial) => trial.closeMs));
const sum = (pick: (trial: (typeof report.trials)[number]) => number) => report.trials.reduce((total, trial) => total + pick(trial), 0);

printTable('Crash consistency (SIGKILL during ingestion, embedded default)', [
  { measure: 'trials', value: report.trials.length },
  { measure: 'trials with the recovery killed too', value: report.trials.filter((trial) => trial.doubleKill).length },
  { measure: 'failed trials', value: report.failedTrials },
  { measure: 'failures', value: report.failures },
  { measure: 'operations started before the kills', value: sum((trial) => trial.opsStarted) },
  { measure: 'datasources checked (after recovery)', value: sum((trial) => trial.datasources) },
  { measure: 'chunks checked (after recovery)', value: sum((trial) => trial.chunks) },
  { measure: 'recovery to all settled, p50 ms', value: recovery.p50 },
  { measure: 'recovery to all settled, p99 ms', value: recovery.p99 },
  { measure: 'close() p50 ms', value: close.p50 },
  { measure: 'wall time s', value: seconds },
]);
printTable(
  'Index state found right after the crash (per datastore)',
  [...afterCrash].map(([state, count]) => ({ state, count })),
);

writeResult('crash', {
  trials: report.trials.length,
  seed,
  failedTrials: report.failedTrials,
  failures: report.failures,
  afterCrash: Object.fromEntries(afterCrash),
  recoveryMs: recovery,
  closeMs: close,
  wallSeconds: seconds,
  failed: report.trials.filter((trial) => trial.failures.length > 0),
});
process.exitCode = report.failedTrials > 0 ? 1 : 0;
