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
import { buildFixtures } from '../../fixtures/make-fixtures.js';
import { checkConsistency, checkDatabaseFile, strayIndexDirectories, type ConsistencyReport } from './checks.js';
import { LOADED_LINE, OP_PREFIX, READY_LINE, type WorkerConfig } from './protocol.js';
import { startCrashSite, type CrashSite } from './site.js';

export interface CrashOptions {
  trials: number;
  seed: number;
  /** Index of the first trial (default 0): `firstTrial: 175, trials: 1` replays trial 175 of a run. */
  firstTrial?: number;
  /** Compiled worker: `dist/benchmarks/crash/worker.js`. */
  workerPath: string;
  /**
   * When the worker is killed: once it has started a seeded number of operations drawn from
   * [0, killAfterOps) (default 30), plus a seeded delay of up to `killJitterMs` (default 300).
   * Counting operations rather than time keeps the work done before the kill about the same on a
   * fast machine and on a loaded one.
   */
  killAfterOps?: number;
  killJitterMs?: number;
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
  /** The worker was killed once it had started this many operations ... */
  killAtOp: number;
  /** ... plus this delay. */
  killJitterMs: number;
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
  const workers = new Workers(options.workerPath);
  const results: TrialResult[] = [];
  try {
    const first = options.firstTrial ?? 0;
    for (let trial = first; trial < first + options.trials; trial++) {
      const result = await runTrial(options, trial, root, fixturesDir, site, workers);
      results.push(result);
      log(
        `trial ${trial + 1 - first}/${options.trials} (#${trial}) seed ${result.seed}: killed at op ${result.killAtOp} + ${result.killJitterMs} ms` +
          `${result.doubleKill ? ' (+ recovery killed)' : ''}, ${result.opsStarted} ops, ${result.datasources} datasources, ` +
          `${result.chunks} chunks, index ${result.afterCrash.join('/') || 'none'}, recovery ${result.recoveryMs} ms: ` +
          (result.failures.length ? `FAILED\n  ${result.failures.join('\n  ')}\n  last ops: ${result.lastOps.join(' | ')}` : 'ok'),
      );
    }
  } finally {
    await workers.close();
    await site.close();
    if (!results.some((result) => result.dataDir)) rmSync(root, { recursive: true, force: true });
  }
  return {
    trials: results,
    failedTrials: results.filter((result) => result.failures.length > 0).length,
    failures: results.reduce((sum, result) => sum + result.failures.length, 0),
  };
}

async function runTrial(
  options: CrashOptions,
  trial: number,
  root: string,
  fixturesDir: string,
  site: CrashSite,
  workers: Workers,
): Promise<TrialResult> {
  const seed = options.seed * 1_000 + trial;
  const random = seededRandom(seed ^ 0x5bd1e995);
  const killAtOp = Math.floor(random() * (options.killAfterOps ?? 30));
  const killJitterMs = Math.round(random() * (options.killJitterMs ?? 300));
  const flushAfterMs = FLUSH_CHOICES[Math.floor(random() * FLUSH_CHOICES.length)] as number;
  const doubleKill = random() < (options.doubleKillShare ?? 0.25);
  const recoveryKillMs = Math.round(random() * 800);
  const dataDir = join(root, `trial-${trial}`);
  const result: TrialResult = {
    trial,
    seed,
    killAtOp,
    killJitterMs,
    flushAfterMs,
    doubleKill,
    opsStarted: 0,
    lastOps: [],
    afterCrash: [],
    recoveryMs: 0,
    closeMs: 0,
    datasources: 0,
    chunks: 0,
    statuses: {},
    failures: [],
  };
  const config: WorkerConfig = { dataDir, fixturesDir, origin: site.origin, seed, mode: 'work', flushAfterMs };
  try {
    const work = await runAndKill(workers.take(), config, { ops: killAtOp, delayMs: killJitterMs });
    result.opsStarted = work.ops.length;
    result.lastOps = work.ops.slice(-6);
    result.failures.push(...work.failures);
    if (doubleKill) {
      const recovery = await runAndKill(workers.take(), { ...config, mode: 'recover' }, { ops: 0, delayMs: recoveryKillMs });
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
      if (opened.rebuilt)
        result.failures.push(`index of ${datastoreId} rebuilt (${opened.reason}) after a clean close: close did not flush it`);
    }
    result.failures.push(...final.failures.map((failure) => `after recovery: ${failure}`));
    const strays = strayIndexDirectories(
      join(dataDir, 'indexes'),
      final.opens.map((open) => open.datastoreId),
    );
    if (strays.length > 0) result.failures.push(`after recovery: index directories of no datastore: ${strays.join(', ')}`);
    Object.assign(result, { datasources: final.datasources, chunks: final.chunks, statuses: final.statuses });
  } catch (error) {
    result.failures.push(`trial threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  if (result.failures.length > 0 && options.keepFailed) result.dataDir = dataDir;
  else rmSync(dataDir, { recursive: true, force: true });
  return result;
}

interface Worker {
  /** Resolves true once the worker printed `loaded`, false when it ended first. */
  loaded: Promise<boolean>;
  ready: Promise<boolean>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  ops: string[];
  alive(): boolean;
  stderr(): string;
  send(config: WorkerConfig): void;
  kill(): void;
}

function startWorker(workerPath: string): Worker {
  const child = spawn(process.execPath, [workerPath], { stdio: ['pipe', 'pipe', 'pipe'] });
  const ops: string[] = [];
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => {
    stderr = (stderr + data.toString('utf8')).slice(-4_000);
  });
  child.stdin.on('error', () => undefined); // a worker killed before reading its config
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let onLoaded: (value: boolean) => void = () => undefined;
  let onReady: (value: boolean) => void = () => undefined;
  const loaded = new Promise<boolean>((resolve) => (onLoaded = resolve));
  const ready = new Promise<boolean>((resolve) => (onReady = resolve));
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line === LOADED_LINE) onLoaded(true);
    else if (line === READY_LINE) onReady(true);
    else if (line.startsWith(OP_PREFIX)) ops.push(line.slice(OP_PREFIX.length));
  });
  let alive = true;
  void exited.then(() => {
    alive = false;
    onLoaded(false);
    onReady(false);
  });
  return {
    loaded,
    ready,
    exited,
    ops,
    alive: () => alive,
    stderr: () => stderr.trim().slice(-1_500),
    send: (config) => child.stdin.end(`${JSON.stringify(config)}\n`),
    kill: () => child.kill('SIGKILL'),
  };
}

/**
 * Workers take a second or two to load; one is always started ahead, so its start-up overlaps the
 * checks of the previous trial instead of adding to every trial.
 */
class Workers {
  private standby: Worker | undefined;

  constructor(private readonly workerPath: string) {}

  take(): Worker {
    const worker = this.standby ?? startWorker(this.workerPath);
    this.standby = startWorker(this.workerPath);
    return worker;
  }

  async close(): Promise<void> {
    this.standby?.kill();
    await this.standby?.exited;
  }
}

/** A worker that has not started this many operations after this long is killed anyway. */
const MAX_RUN_MS = 15_000;

/**
 * Hands `config` to a loaded worker, waits for its ready line, then for `at.ops` operations to
 * have started and `at.delayMs` more, and SIGKILLs it.
 */
async function runAndKill(
  worker: Worker,
  config: WorkerConfig,
  at: { ops: number; delayMs: number },
): Promise<{ ops: string[]; failures: string[] }> {
  const timeout = setTimeout(() => worker.kill(), 60_000);
  try {
    if (await worker.loaded) worker.send(config);
    if (!(await worker.ready)) {
      const { code, signal } = await worker.exited;
      return { ops: worker.ops, failures: [`worker ended before it was ready (code ${code}, signal ${signal}): ${worker.stderr()}`] };
    }
    const deadline = Date.now() + MAX_RUN_MS;
    while (worker.alive() && worker.ops.length < at.ops && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
    await new Promise((resolve) => setTimeout(resolve, at.delayMs));
    worker.kill();
    const { code, signal } = await worker.exited;
    if (signal !== 'SIGKILL')
      return { ops: worker.ops, failures: [`worker ended by itself (code ${code}, signal ${signal}): ${worker.stderr()}`] };
    return { ops: worker.ops, failures: [] };
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
      failures.push(
        ...unsettled.map(
          (source) => `datasource ${source.id} (${source.type}) still ${source.status} ${SETTLE_TIMEOUT_MS} ms after the reopen`,
        ),
      );
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
