/**
 * Crash consistency: ingestion in a child process killed with SIGKILL at seeded
 * random moments; after each kill the data directory must be intact and recover (see
 * benchmarks/crash/harness.ts for what is checked). `RAGDESK_CRASH_TRIALS` sets the trial count
 * (default 30), `RAGDESK_CRASH_SEED` the seed; `npm run bench:crash -- --trials 200` runs more.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCrashTrials } from '../../benchmarks/crash/harness.js';
import { DIST, staleBuildReason } from './compiled.js';

const TRIALS = Number(process.env.RAGDESK_CRASH_TRIALS ?? 30);
const SEED = Number(process.env.RAGDESK_CRASH_SEED ?? 7);
const WORKER = 'benchmarks/crash/worker.js';
const skipReason = staleBuildReason([WORKER, 'src/index.js', 'adapters/sqlite/index.js', 'adapters/hnsw/index.js']);
if (skipReason) console.warn(`crash consistency skipped: ${skipReason}`);

describe('crash consistency (SIGKILL during ingestion)', () => {
  it.skipIf(skipReason !== null)(
    `${TRIALS} seeded kills leave an intact, recoverable data directory`,
    async () => {
      const lines: string[] = [];
      const report = await runCrashTrials({
        trials: TRIALS,
        seed: SEED,
        workerPath: join(DIST, WORKER),
        keepFailed: true,
        log: (line) => lines.push(line),
      });
      const reasons = new Map<string, number>();
      for (const trial of report.trials) for (const open of trial.afterCrash) reasons.set(open, (reasons.get(open) ?? 0) + 1);
      console.log(
        `crash consistency: ${report.trials.length} trials (seed ${SEED}), ${report.failedTrials} failed, ${report.failures} failures; ` +
          `index after crash: ${[...reasons].map(([reason, count]) => `${reason} ${count}`).join(', ')}`,
      );
      const failed = report.trials.filter((trial) => trial.failures.length > 0);
      if (failed.length) console.log(lines.filter((line) => line.includes('FAILED')).join('\n'));
      expect(report.trials.length).toBe(TRIALS);
      // The trials must actually have done something before being killed.
      expect(report.trials.reduce((sum, trial) => sum + trial.opsStarted, 0)).toBeGreaterThan(TRIALS);
      expect(failed.map((trial) => ({ seed: trial.seed, failures: trial.failures, dataDir: trial.dataDir }))).toEqual([]);
    },
    TRIALS * 15_000 + 30_000,
  );
});
