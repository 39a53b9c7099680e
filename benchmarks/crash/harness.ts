/**
 * Crash-consistency trials. Each trial starts a fresh data directory, runs the worker (worker.ts,
 * compiled) on it, kills it with SIGKILL after a seeded random delay (sometimes kills the recovery
 * that follows as well), then checks in this process:
 *
 * 1. the SQLite file: `integrity_check` ok, no dangling foreign keys;
 * 2. right after the crash, with the adapters opened directly: store and vector index agree (the
 *    index loaded from its files or rebuilt, as `open` decides), no duplicate chunk or page;
 * 3. recovery on `openRagdesk`: unfinished jobs resume and every datasource settles, queries work,
 *    `close()` returns;
 * 4. after that close: the same agreement, nothing pending or running, and each index loads from
 *    its files without a rebuild (close flushed it).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { openRagdesk } from '../../adapters/node.js';
import { sqliteStore } from '../../adapters/sqlite/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { isSettled } from '../../src/datasources/status-machine.js';
import type { Ragdesk } from '../../src/index.js';
import { seededRandom } from '../../src/testing/random.js';
import { buildFixtures } from '../../test/fixtures/make-fixtures.js';
import { checkConsistency, checkDatabaseFile, strayIndexDirectories, type ConsistencyReport } from './checks.js';
import { OP_PREFIX, READY_LINE, type WorkerConfig } from './protocol.js';
import { startCrashSite, type CrashSite } from './site.js';

export interface CrashOptions {
  trials: number;
  seed: number;
  /** Compiled worker: `dist/benchmarks/crash/worker.js`. */
  workerPath: string;
  /** Kill delay after the worker reports ready, drawn uniformly from this range (ms). Default [30, 1500]. */
  killWindowMs?: [number, number];
  /** Share of trials whose recovery is killed too before the checks (default 0.25). */
  doubleKillShare?: number;
  /** Keep the data directory of a failed trial (its path is in the result). */
  keepFailed?: boolean;
  /** Progress lines (one per trial). */
  log?: (line: string) => void;
}

export interface TrialResult {
  trial: number;
  seed: number;
  killAfterMs: number;
  flushAfterMs: number;
  doubleKill: boolean;
  opsStarted: number;
  /** The last operations the worker started before the kill (for a failure report). */
  lastOps: string[];
  /** How each collection was opened right after the crash: `loaded` or `rebuilt:<reason>`. */
  afterCrash: string[];
  recoveryMs: number;
  closeMs: number;
  datasources: number;
  chunks: number;
  statuses: Record<string, number>;
  failures: string[];
  dataDir?: string;
}

export interface CrashReport {
  trials: TrialResult[];
  failedTrials: number;
  failures: number;
}

/** Datasources must settle within this after the reopen, else they count as stuck. */
const SETTLE_TIMEOUT_MS = 20_000;
const FLUSH_CHOICES = [20, 250, 5_000];

export async function runCrashTrials(options: CrashOptions): Promise<CrashReport> {
  const log = options.log ?? (() => undefined);
  const root = mkdtempSync(join(tmpdir(), 'ragdesk-crash-'));
  const fixturesDir = join(root, 'fixtures');
  mkdirSync(fixturesDir);
  for (const [name, bytes] of Object.entries(buildFixtures())) writeFileSync(join(fixturesDir, name), bytes);
  const site = await startCrashSite();
  const results: TrialResult[] = [];
  try {
    for (let trial = 0; trial < options.trials; trial++) {
      const result = await runTrial(options, trial, root, fixturesDir, site);
      results.push(result);
      log(
        `trial ${trial + 1}/${options.trials} seed ${result.seed}: killed after ${result.killAfterMs} ms` +
          `${result.doubleKill ? ' (+ recovery killed)' : ''}, ${result.opsStarted} ops, ${result.datasources} datasources, ` +
          `${result.chunks} chunks, index ${result.afterCrash.join('/') || 'none'}, recovery ${result.recoveryMs} ms: ` +
          (result.failures.length ? `FAILED\n  ${result.failures.join('\n  ')}\n  last ops: ${result.lastOps.join(' | ')}` : 'ok'),
      );
    }
  } finally {
    await site.close();
    if (!results.some((result) => result.dataDir)) rmSync(root, { recursive: true, force: true });
  }
  return {
    trials: results,
    failedTrials: results.filter((result) => result.failures.length > 0).length,
    failures: results.reduce((sum, result) => sum + result.failures.length, 0),
  };
}

async function runTrial(options: CrashOptions, trial: number, root: string, fixturesDir: string, site: CrashSite): Promise<TrialResult> {
  const seed = options.seed * 1_000 + trial;
  const random = seededRandom(seed ^ 0x5bd1e995);
  const [low, high] = options.killWindowMs ?? [30, 1_500];
  const killAfterMs = Math.round(low + random() * (high - low));
  const flushAfterMs = FLUSH_CHOICES[Math.floor(random() * FLUSH_CHOICES.length)] as number;
  const doubleKill = random() < (options.doubleKillShare ?? 0.25);
  const recoveryKillMs = Math.round(random() * 800);
  const dataDir = join(root, `trial-${trial}`);
  const result: TrialResult = {
    trial, seed, killAfterMs, flushAfterMs, doubleKill, opsStarted: 0, lastOps: [], afterCrash: [],
    recoveryMs: 0, closeMs: 0, datasources: 0, chunks: 0, statuses: {}, failures: [],
  };
  const config: WorkerConfig = { dataDir, fixturesDir, origin: site.origin, seed, mode: 'work', flushAfterMs };
  try {
    const work = await runAndKill(options.workerPath, config, killAfterMs);
    result.opsStarted = work.ops.length;
    result.lastOps = work.ops.slice(-6);
    result.failures.push(...work.failures);
    if (doubleKill) {
      const recovery = await runAndKill(options.workerPath, { ...config, mode: 'recover' }, recoveryKillMs);
      result.failures.push(...recovery.failures.map((failure) => `recovery worker: ${failure}`));
    }
    result.failures.push(...checkDatabaseFile(join(dataDir, 'ragdesk.db')));
    const afterCrash = await checkDirectory(dataDir, false);
    result.afterCrash = afterCrash.opens.map(({ result: opened }) => (opened.rebuilt ? `rebuilt:${opened.reason}` : 'loaded'));
    result.failures.push(...afterCrash.failures.map((failure) => `after crash: ${failure}`));

    const started = performance.now();
    const ragdesk = openRagdesk({
      dataDir,
      env: {},
      web: webLoader({ allowPrivateNetwork: true, timeoutMs: 5_000 }),
      jobs: { retry: { baseDelayMs: 20, maxAttempts: 3 } },
    });
    try {
      result.failures.push(...(await settleAll(ragdesk)));
      result.recoveryMs = Math.round(performance.now() - started);
    } finally {
      const closing = performance.now();
      await ragdesk.close();
      result.closeMs = Math.round(performance.now() - closing);
    }
    const final = await checkDirectory(dataDir, true);
    for (const { datastoreId, result: opened } of final.opens) {
      if (opened.rebuilt) result.failures.push(`index of ${datastoreId} rebuilt (${opened.reason}) after a clean close: close did not flush it`);
    }
    result.failures.push(...final.failures.map((failure) => `after recovery: ${failure}`));
    const strays = strayIndexDirectories(join(dataDir, 'indexes'), final.opens.map((open) => open.datastoreId));
    if (strays.length > 0) result.failures.push(`after recovery: index directories of no datastore: ${strays.join(', ')}`);
    Object.assign(result, { datasources: final.datasources, chunks: final.chunks, statuses: final.statuses });
  } catch (error) {
    result.failures.push(`trial threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  if (result.failures.length > 0 && options.keepFailed) result.dataDir = dataDir;
  else rmSync(dataDir, { recursive: true, force: true });
  return result;
}

/** Starts the worker, waits for its ready line, lets it run `killAfterMs`, then SIGKILLs it. */
async function runAndKill(workerPath: string, config: WorkerConfig, killAfterMs: number): Promise<{ ops: string[]; failures: string[] }> {
  const child = spawn(process.execPath, [workerPath, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const ops: string[] = [];
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => {
    stderr = (stderr + data.toString('utf8')).slice(-4_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<boolean>((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line === READY_LINE) resolve(true);
      else if (line.startsWith(OP_PREFIX)) ops.push(line.slice(OP_PREFIX.length));
    });
    void exited.then(() => resolve(false));
  });
  const timeout = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    if (!(await ready)) {
      const { code, signal } = await exited;
      return { ops, failures: [`worker ended before it was ready (code ${code}, signal ${signal}): ${stderr.trim().slice(-1_500)}`] };
    }
    await new Promise((resolve) => setTimeout(resolve, killAfterMs));
    child.kill('SIGKILL');
    const { code, signal } = await exited;
    if (signal !== 'SIGKILL') return { ops, failures: [`worker ended by itself (code ${code}, signal ${signal}): ${stderr.trim().slice(-1_500)}`] };
    return { ops, failures: [] };
  } finally {
    clearTimeout(timeout);
  }
}

/** The adapters opened directly on the directory, checked, and closed again. */
async function checkDirectory(dataDir: string, settled: boolean): Promise<ConsistencyReport> {
  const store = sqliteStore({ path: join(dataDir, 'ragdesk.db') });
  const index = hnswIndex({ dir: join(dataDir, 'indexes') });
  try {
    return await checkConsistency(store, index, { settled });
  } finally {
    await index.close();
    await store.close();
  }
}

/** Waits until every datasource of every datastore is settled; returns what stayed stuck. */
async function settleAll(ragdesk: Ragdesk): Promise<string[]> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  const failures: string[] = [];
  for (;;) {
    const unsettled = [];
    for (const datastore of await ragdesk.datastores.list()) {
      for (const source of await ragdesk.datasources.list(datastore.id)) if (!isSettled(source.status)) unsettled.push(source);
    }
    if (unsettled.length === 0) break;
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      failures.push(...unsettled.map((source) => `datasource ${source.id} (${source.type}) still ${source.status} ${SETTLE_TIMEOUT_MS} ms after the reopen`));
      break;
    }
    await Promise.all(unsettled.map((source) => ragdesk.datasources.waitUntilSettled(source.id, remaining).catch(() => undefined)));
  }
  for (const datastore of await ragdesk.datastores.list()) {
    try {
      await datastore.query({ query: 'page topic harbour', topK: 5 });
    } catch (error) {
      failures.push(`query on ${datastore.id} after recovery failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return failures;
}
