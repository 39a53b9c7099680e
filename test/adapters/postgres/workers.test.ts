/**
 * Several processes sharing one Postgres database: two worker processes claim sync jobs from the
 * same store (FOR UPDATE SKIP LOCKED, a lease renewed by a heartbeat). Every job runs to completion
 * exactly once; a worker killed mid-job loses the job only when its lease runs out, and the other
 * worker then finishes it.
 *
 * Needs a real PostgreSQL server (PGlite runs one query at a time, so it cannot show contention):
 * RAGDESK_TEST_PG_URL, which .ci/run sets after starting Debian's PostgreSQL. Without it the tests
 * skip with the reason printed. Only the job tables are used (Debian's server has no pgvector).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresStore } from '../../../adapters/postgres/index.js';
import type { Store } from '../../../src/ports/store.js';
import { makeDatasource, makeDatastore } from '../../../src/testing/fixtures.js';
import { freshSchema, serverPostgresUrl } from '../../helpers/pglite-server.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const url = serverPostgresUrl('postgres worker processes');

/**
 * The worker: claims jobs until none is open, "runs" each (records start and done in a log table,
 * waits `workMs`), renews its lease every third of it, and marks the job done.
 */
const WORKER = `
import pg from 'pg';
import { postgresStore } from './adapters/postgres/index.js';
const [url, schema, name, leaseMs, workMs] = process.argv.slice(2);
const lease = Number(leaseMs);
const store = await postgresStore({ connectionString: url, schema, poolSize: 3 });
const log = new pg.Pool({ connectionString: url, max: 1 });
const note = (job, event) => log.query('INSERT INTO ' + pg.escapeIdentifier(schema) + '.worker_log (job_id, worker, event) VALUES ($1, $2, $3)', [job, name, event]);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
for (;;) {
  const now = Date.now();
  const job = await store.claimJob({ owner: name, now: new Date(now).toISOString(), leaseUntil: new Date(now + lease).toISOString() });
  if (job === null) {
    if ((await store.listJobs({ statuses: ['pending', 'running'] })).length === 0) break;
    await sleep(50);
    continue;
  }
  await note(job.id, 'start');
  console.log('started ' + job.id);
  const heartbeat = setInterval(() => {
    void store.updateJob(job.id, { leaseUntil: new Date(Date.now() + lease).toISOString() });
  }, lease / 3);
  await sleep(Number(workMs));
  clearInterval(heartbeat);
  await note(job.id, 'done');
  await store.updateJob(job.id, { status: 'done', leaseOwner: null, leaseUntil: null, updatedAt: new Date().toISOString() });
}
await store.close();
await log.end();
`;

/** Node 20 cannot run TypeScript: the adapter and the core files it imports are transpiled for the workers. */
async function buildWorker(): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'ragdesk-pg-workers-'));
  await symlink(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  await writeFile(join(work, 'package.json'), '{"type":"module"}');
  const folders = ['adapters/postgres', 'adapters/kit', 'src/util', 'src/text'];
  const sources = ['src/errors.ts'];
  for (const folder of folders) {
    sources.push(...(await readdir(join(ROOT, folder))).filter((name) => name.endsWith('.ts')).map((name) => `${folder}/${name}`));
  }
  for (const file of sources) {
    const { outputText } = ts.transpileModule(await readFile(join(ROOT, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const target = join(work, file.replace(/\.ts$/, '.js'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, outputText);
  }
  await writeFile(join(work, 'worker.mjs'), WORKER);
  return work;
}

interface Worker {
  child: ChildProcess;
  started: string[];
  exited: Promise<number | null>;
  /** Resolves when the worker has printed `started <jobId>`. */
  startedJob(jobId: string): Promise<void>;
}

function startWorker(work: string, schema: string, name: string, leaseMs: number, workMs: number): Worker {
  const child = spawn(process.execPath, [join(work, 'worker.mjs'), url!, schema, name, String(leaseMs), String(workMs)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started: string[] = [];
  const waiting = new Map<string, () => void>();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) {
      const match = /^started (.+)$/.exec(line.trim());
      if (match) {
        started.push(match[1]!);
        waiting.get(match[1]!)?.();
      }
    }
  });
  const exited = new Promise<number | null>((resolvePromise) =>
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) console.error(`[worker ${name}] exited ${code}: ${stderr}`);
      resolvePromise(code);
    }),
  );
  return {
    child,
    started,
    exited,
    startedJob: (jobId) =>
      started.includes(jobId) ? Promise.resolve() : new Promise<void>((resolvePromise) => waiting.set(jobId, resolvePromise)),
  };
}

interface LogRow {
  job_id: string;
  worker: string;
  event: 'start' | 'done';
  at: Date;
}

describe.skipIf(url === undefined)('several worker processes on one Postgres database', () => {
  let work = '';
  let pool: pg.Pool;
  const schemas: string[] = [];

  beforeAll(async () => {
    work = await buildWorker();
    pool = new pg.Pool({ connectionString: url, max: 2 });
  });
  afterAll(async () => {
    for (const schema of schemas) await pool?.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    await pool?.end();
    if (work) await rm(work, { recursive: true, force: true });
  });

  /** A store with `count` pending jobs (one datasource each) and an empty log table. */
  async function prepare(count: number): Promise<{ schema: string; store: Store; jobIds: string[] }> {
    const schema = freshSchema('workers');
    schemas.push(schema);
    const store = await postgresStore({ pool, schema });
    await pool.query(
      `CREATE TABLE ${pg.escapeIdentifier(schema)}.worker_log (n bigserial, job_id text, worker text, event text, at timestamptz DEFAULT clock_timestamp())`,
    );
    const datastore = makeDatastore({ name: 'shared' });
    await store.createDatastore(datastore);
    const jobIds: string[] = [];
    const now = new Date().toISOString();
    for (let i = 0; i < count; i++) {
      const source = makeDatasource(datastore, { name: `file-${i}.txt`, status: 'pending' });
      await store.createDatasource(source);
      const id = `job-${i}`;
      await store.createJob({
        id,
        kind: 'sync',
        datastoreId: datastore.id,
        datasourceId: source.id,
        status: 'pending',
        attempts: 0,
        runAt: now,
        leaseOwner: null,
        leaseUntil: null,
        lastError: null,
        createdAt: new Date(Date.now() + i).toISOString(),
        updatedAt: now,
      });
      jobIds.push(id);
    }
    return { schema, store, jobIds };
  }

  async function logOf(schema: string): Promise<LogRow[]> {
    const { rows } = await pool.query<LogRow>(`SELECT job_id, worker, event, at FROM ${pg.escapeIdentifier(schema)}.worker_log ORDER BY n`);
    return rows;
  }

  it('shares the jobs between two processes and runs each exactly once', async () => {
    const { schema, store, jobIds } = await prepare(16);
    const workers = [startWorker(work, schema, 'worker-a', 3_000, 500), startWorker(work, schema, 'worker-b', 3_000, 500)];
    expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual([0, 0]);

    const log = await logOf(schema);
    for (const jobId of jobIds) {
      const events = log.filter((row) => row.job_id === jobId);
      expect(
        events.map((row) => row.event),
        jobId,
      ).toEqual(['start', 'done']);
      expect(events[0]?.worker).toBe(events[1]?.worker);
    }
    // Both processes took part: each job takes 500 ms, so one process alone would need 8 s, while a
    // second process starts in about a second even on a loaded machine.
    expect(new Set(log.map((row) => row.worker))).toEqual(new Set(['worker-a', 'worker-b']));
    for (const job of await store.listJobs({})) expect(job).toMatchObject({ status: 'done', attempts: 1, leaseOwner: null });
    await store.close();
  });

  it('takes over the job of a killed worker once its lease has run out, not before', async () => {
    // The heartbeat renews every second: two seconds of slack for a loaded machine.
    const leaseMs = 3_000;
    const { schema, store, jobIds } = await prepare(1);
    const [jobId] = jobIds as [string];
    // worker-a would work for a minute; it is killed mid-job.
    const doomed = startWorker(work, schema, 'worker-a', leaseMs, 60_000);
    await doomed.startedJob(jobId);
    const survivor = startWorker(work, schema, 'worker-b', leaseMs, 200);
    // While worker-a lives its heartbeat keeps the lease: worker-b must leave the job alone.
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 2 * leaseMs));
    expect(survivor.started).toEqual([]);
    expect(await store.getJob(jobId)).toMatchObject({ status: 'running', leaseOwner: 'worker-a', attempts: 1 });

    doomed.child.kill('SIGKILL');
    await doomed.exited;
    // The lease worker-a renewed last (it cannot renew it any more).
    const held = await store.getJob(jobId);
    expect(held).toMatchObject({ status: 'running', leaseOwner: 'worker-a' });
    const lastLease = Date.parse(held!.leaseUntil!);
    await survivor.startedJob(jobId);
    const takenAt = Date.now();
    expect(await survivor.exited).toBe(0);

    // Taken over once that lease ran out, not before, and well within another lease (the survivor
    // polls every 50 ms).
    expect(takenAt).toBeGreaterThanOrEqual(lastLease);
    expect(takenAt - lastLease).toBeLessThan(leaseMs);
    const log = await logOf(schema);
    expect(log.map((row) => `${row.worker}:${row.event}`)).toEqual(['worker-a:start', 'worker-b:start', 'worker-b:done']);
    expect(await store.getJob(jobId)).toMatchObject({ status: 'done', attempts: 2, leaseOwner: null });
    await store.close();
  });
});

describe.skipIf(url !== undefined)('several worker processes on one Postgres database', () => {
  it.skip('needs RAGDESK_TEST_PG_URL (a PostgreSQL server; CI starts one)', () => undefined);
});
