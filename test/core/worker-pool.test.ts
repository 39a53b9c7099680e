import { describe, expect, it } from 'vitest';
import { isRagdeskError } from '../../src/errors.js';
import { workerExecArgv, workerPool } from '../../src/util/worker-pool.js';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isRagdeskError(error) ? `${error.code}: ${error.message}` : `plain: ${String(error)}`;
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

  it('drops the eval options a thread started from a file refuses, with their values', () => {
    expect(workerExecArgv(['--expose-gc', '--input-type=module', '-e', 'code()', '--conditions=x'])).toEqual(['--expose-gc', '--conditions=x']);
    expect(workerExecArgv(['--input-type', 'module', '--eval', 'x', '-p', 'y', '--print=z'])).toEqual([]);
  });
});
