import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RagdeskError } from '../../../src/errors.js';
import { workerEntry, workerExecArgv, workerPool } from '../../../adapters/kit/worker-pool.js';
import { DIST } from '../../reliability/compiled.js';

const scratch = mkdtempSync(join(tmpdir(), 'ragdesk-pool-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A worker module that does what each task asks: grow an array until the heap gives out, hold
 * buffers outside the heap, wait and answer, or echo.
 */
function hostileEntry(): string {
  const path = join(scratch, 'hostile-worker.mjs');
  const tasks = pathToFileURL(join(DIST, 'adapters/kit/worker-tasks.js')).href;
  writeFileSync(
    path,
    `import { serveWorkerTasks } from ${JSON.stringify(tasks)};
const held = [];
serveWorkerTasks(async (message) => {
  if (message.kind === 'heap') { let a = [1.5]; for (;;) a = a.concat(a); }
  if (message.kind === 'buffers') { for (;;) { held.push(Buffer.alloc(16 * 1024 * 1024, 1)); await new Promise((r) => setTimeout(r, 5)); } }
  if (message.kind === 'wait') await new Promise((r) => setTimeout(r, message.ms));
  return message.value;
});
`,
  );
  return path;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return RagdeskError.isInstance(error) ? `${error.code}: ${error.message}` : `plain: ${String(error)}`;
  }
  return 'resolved';
}

describe('worker pool', () => {
  it('fails a task whose thread cannot start, synchronously refused or failing to load, and every later one too', async () => {
    // A bare relative path is refused by the Worker constructor itself (ERR_WORKER_PATH).
    const refused = workerPool({ entry: 'not-a-path.js' });
    const task = { message: {}, subject: 'x', mimeType: 'text/plain' };
    expect(await codeOf(refused.run(task))).toMatch(/^internal: A worker thread could not start/);
    expect(await codeOf(refused.run(task))).toMatch(/^internal: A worker thread could not start/);
    await refused.close();
    // A missing module fails while the thread loads it (an 'error' event).
    const missing = workerPool({ entry: '/nonexistent/ragdesk-worker.js' });
    expect(await codeOf(missing.run(task))).toMatch(/^internal: A worker thread stopped/);
    expect(await codeOf(missing.run(task))).toMatch(/^internal: A worker thread stopped/);
    await missing.close();
    expect(await codeOf(missing.run(task))).toMatch(/^closed/);
  });

  it('survives a task whose allocation passes the heap limit when tasks run in a process', async () => {
    // In a thread this exact task aborts the whole process (FATAL ERROR: Reached heap limit).
    const pool = workerPool({ entry: hostileEntry(), isolation: 'process', maxHeapMb: 64 });
    try {
      const task = (message: Record<string, unknown>) => ({ message, subject: 'the task', mimeType: 'application/pdf' });
      expect(await codeOf(pool.run(task({ kind: 'heap' })))).toMatch(
        /^invalid_request: could not parse the task: the parser needed more than 64 MB of heap/,
      );
      // The next task gets a fresh process.
      expect(await pool.run(task({ value: 'after' }))).toBe('after');
    } finally {
      await pool.close();
    }
  });

  it.runIf(process.platform === 'linux')(
    'stops a process holding more memory than maxMemoryMb in buffers the heap limit does not count',
    async () => {
      const pool = workerPool({ entry: hostileEntry(), isolation: 'process', maxHeapMb: 2048, maxMemoryMb: 160 });
      try {
        const started = performance.now();
        const error = await pool
          .run({ message: { kind: 'buffers' }, subject: 'the bomb', mimeType: 'application/pdf' })
          .catch((caught: unknown) => caught);
        expect(RagdeskError.isInstance(error) && error.details).toMatchObject({ reason: 'parser_out_of_memory', maxMemoryMb: 160 });
        // 16 MB every 5 ms: caught within a few checks, not after gigabytes.
        expect(performance.now() - started).toBeLessThan(10_000);
      } finally {
        await pool.close();
      }
    },
  );

  it('takes queued tasks round-robin across owners', async () => {
    const pool = workerPool({ entry: hostileEntry(), isolation: 'process', threads: 1 });
    try {
      const order: string[] = [];
      const run = (owner: string, value: string) =>
        pool
          .run({ message: { kind: 'wait', ms: 30, value }, subject: value, mimeType: 'text/plain', owner })
          .then((done) => order.push(done as string));
      // One owner queues four slow files, then another owner one small file.
      await Promise.all([run('acme', 'a1'), run('acme', 'a2'), run('acme', 'a3'), run('acme', 'a4'), run('globex', 'g1')]);
      // globex's file waits for the parse already running, not for all of acme's.
      expect(order.indexOf('g1')).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it("an owner's own task goes before the queued ones that yield to it, and takes the thread of a running one", async () => {
    const pool = workerPool({ entry: hostileEntry(), isolation: 'process', threads: 1 });
    try {
      const order: string[] = [];
      const run = (owner: string, value: string, yieldsToOwner: boolean, ms = 30) =>
        pool
          .run({ message: { kind: 'wait', ms, value }, subject: value, mimeType: 'text/plain', owner, yieldsToOwner })
          .then((done) => void order.push(done as string));
      // A visitor's attachments of acme's agent: the first runs (for a minute), two wait.
      const running = run('acme', 'v1', true, 60_000);
      const queued = [run('acme', 'v2', true), run('acme', 'v3', true)];
      // acme's own upload, then globex's file.
      const own = run('acme', 'own', false);
      const other = run('globex', 'g1', false);
      await expect(running).rejects.toMatchObject({ code: 'aborted', details: { reason: 'yielded_to_owner' } });
      await Promise.all([own, other, ...queued]);
      // acme's own file took v1's thread; globex keeps its turn; the visitor's files come last.
      expect(order).toEqual(['own', 'g1', 'v2', 'v3']);
    } finally {
      await pool.close();
    }
  });

  it('finds a worker module beside the module naming it, and refuses a missing one as invalid_adapter', () => {
    const entry = hostileEntry();
    expect(workerEntry(new URL('./hostile-worker.mjs', pathToFileURL(join(scratch, 'starter.js'))))).toBe(entry);
    expect(() => workerEntry(new URL('./missing-worker.js', pathToFileURL(join(scratch, 'starter.js'))))).toThrow(
      expect.objectContaining({ code: 'invalid_adapter' }),
    );
  });

  it('drops the eval options a thread started from a file refuses, with their values', () => {
    expect(workerExecArgv(['--expose-gc', '--input-type=module', '-e', 'code()', '--conditions=x'])).toEqual([
      '--expose-gc',
      '--conditions=x',
    ]);
    expect(workerExecArgv(['--input-type', 'module', '--eval', 'x', '-p', 'y', '--print=z'])).toEqual([]);
  });
});
