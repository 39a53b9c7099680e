import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fileLoading } from '../../../adapters/loaders/index.js';
import { webLoader } from '../../../adapters/web/index.js';
import { hnswIndex } from '../../../adapters/hnsw/index.js';
import { localEmbeddings } from '../../../adapters/local/index.js';
import { sqliteStores } from '../../../adapters/sqlite/index.js';
import { createRagdesk } from '../../../src/index.js';
import { RagdeskError } from '../../../src/errors.js';
import { buildFixtures } from '../../../fixtures/make-fixtures.js';
import { ROOT } from '../../reliability/compiled.js';
import { startHttpServer } from '../../helpers/http-server.js';

const files = buildFixtures();
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** HTML big enough that extraction needs well over 100 ms on any machine (4.3 MB, 300k nodes: 0.3-0.5 s here). */
function bigHtml(paragraphs = 100_000): Uint8Array {
  const body = Array.from({ length: paragraphs }, (_, i) => `<p>Paragraph ${i} about <b>topic ${i % 97}</b>.</p>`).join('\n');
  return new TextEncoder().encode(`<html><head><title>Big</title></head><body>${body}</body></html>`);
}

async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; details: Record<string, unknown> | undefined; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (RagdeskError.isInstance(error)) return { code: error.code, details: error.details, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('parser threads (fileLoading / webLoader parser: worker)', () => {
  it('parse every fixture type exactly as the main thread does', async () => {
    const threads = fileLoading();
    const main = fileLoading({ parser: 'main' });
    try {
      const names = Object.keys(files);
      expect(names.length).toBeGreaterThanOrEqual(9);
      for (const name of names) {
        const input = { bytes: files[name] as Uint8Array, fileName: name };
        const [onThread, onMain] = await Promise.allSettled([threads.load(input), main.load(input)]);
        if (onMain.status === 'rejected') {
          expect(onThread.status, name).toBe('rejected');
          const reason = (onThread as PromiseRejectedResult).reason as Error & { code?: string };
          expect(reason.code, name).toBe((onMain.reason as { code?: string }).code);
          expect(reason.message, name).toBe((onMain.reason as Error).message);
        } else {
          expect(onThread.status, name).toBe('fulfilled');
          expect((onThread as PromiseFulfilledResult<unknown>).value, name).toEqual(onMain.value);
        }
      }
    } finally {
      await threads.close?.();
    }
  });

  it('refuse oversized and unsupported files before anything reaches a thread, with the same errors', async () => {
    const threads = fileLoading({ maxBytes: 1024 });
    try {
      const big = await failure(threads.load({ bytes: new Uint8Array(2048), fileName: 'a.txt' }));
      expect(big.code).toBe('payload_too_large');
      const odd = await failure(threads.load({ bytes: Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), fileName: 'a.bin' }));
      expect(odd.code).toBe('unsupported_media_type');
    } finally {
      await threads.close?.();
    }
  });

  it('keep the event loop running while a large document is parsed', async () => {
    const threads = fileLoading();
    try {
      // Warm the thread so its start-up is not what is measured.
      await threads.load({ bytes: new TextEncoder().encode('warm'), fileName: 'warm.txt' });
      // Counts event-loop turns while the parse runs: one immediate per turn. A parse on the main
      // thread is one synchronous block (a turn or two around it); on its own thread the loop spins
      // freely for as long as the parse takes, thousands of turns on any machine.
      let turns = 0;
      let parsing = true;
      const tick = (): void => {
        turns++;
        if (parsing) setImmediate(tick);
      };
      setImmediate(tick);
      const document = await threads.load({ bytes: bigHtml(), fileName: 'big.html' }).finally(() => (parsing = false));
      expect(document.sections[0]?.text).toContain('Paragraph 39999 about topic');
      expect(turns).toBeGreaterThan(50);
    } finally {
      await threads.close?.();
    }
  });

  it('stop a parse when its signal aborts, and parse the next file on a new thread', async () => {
    const threads = fileLoading();
    try {
      const controller = new AbortController();
      const reason = new Error('the user went away');
      setTimeout(() => controller.abort(reason), 30);
      await expect(threads.load({ bytes: bigHtml(), fileName: 'big.html', signal: controller.signal })).rejects.toBe(reason);
      const next = await threads.load({ bytes: new TextEncoder().encode('still working'), fileName: 'next.txt' });
      expect(next.sections[0]?.text).toBe('still working');
      // An aborted signal is refused before the file is queued.
      await expect(threads.load({ bytes: bigHtml(10), fileName: 'b.html', signal: controller.signal })).rejects.toBe(reason);
    } finally {
      await threads.close?.();
    }
  });

  it('fail a parse that runs over its time limit with invalid_request, reason parse_timeout', async () => {
    // 1 ms: no machine parses 40,000 paragraphs that fast.
    const threads = fileLoading({ parseTimeoutMs: 1 });
    try {
      const timedOut = await failure(threads.load({ bytes: bigHtml(), fileName: 'big.html' }));
      expect(timedOut.code).toBe('invalid_request');
      expect(timedOut.details).toMatchObject({ reason: 'parse_timeout', timeoutMs: 1, mimeType: 'text/html' });
      expect(timedOut.message).toContain('"big.html"');
    } finally {
      await threads.close?.();
    }
  });

  it('fail a parse that needs more heap than allowed with invalid_request, reason parser_out_of_memory', async () => {
    const threads = fileLoading({ parserMaxHeapMb: 24 });
    try {
      const starved = await failure(threads.load({ bytes: bigHtml(), fileName: 'big.html' }));
      expect(starved.code).toBe('invalid_request');
      expect(starved.details).toMatchObject({ reason: 'parser_out_of_memory', maxHeapMb: 24 });
    } finally {
      await threads.close?.();
    }
  });

  it('refuse unknown placements and bad limits with invalid_request', () => {
    const refused = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return RagdeskError.isInstance(error) ? error.code : String(error);
      }
      return 'accepted';
    };
    expect(refused(() => fileLoading({ parser: 'gpu' as 'main' }))).toBe('invalid_request');
    // The message names the option as the caller wrote it, not the pool's internal name.
    expect(() => fileLoading({ parserThreads: 0 })).toThrow(/fileLoading option parserThreads/);
    expect(refused(() => fileLoading({ parserThreads: 0 }))).toBe('invalid_request');
    expect(refused(() => fileLoading({ parseTimeoutMs: 1.5 }))).toBe('invalid_request');
    expect(refused(() => webLoader({ parser: 'gpu' as 'main' }))).toBe('invalid_request');
    expect(refused(() => webLoader({ parseTimeoutMs: -1 }))).toBe('invalid_request');
  });

  it('extract web pages on a thread exactly as on the main thread', async () => {
    const page = `<html><head><title>Threads</title></head><body><nav>menu</nav><main><h1>Threads</h1><p>Parsed elsewhere.</p><a href="/next">next</a></main></body></html>`;
    const server = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(page);
    });
    const base = server.origin;
    const threads = webLoader({ allowPrivateNetwork: true });
    const main = webLoader({ allowPrivateNetwork: true, parser: 'main' });
    try {
      const [onThread, onMain] = await Promise.all([threads.loadPage(`${base}/a`), main.loadPage(`${base}/a`)]);
      expect(onThread).toEqual(onMain);
      expect(onThread.title).toBe('Threads');
      expect(onThread.links).toEqual([`${base}/next`]);
    } finally {
      await threads.close?.();
      await server.close();
    }
  });

  it('close with the ragdesk instance: a later load fails with closed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ragdesk-parser-threads-'));
    dirs.push(dir);
    const files = fileLoading();
    const ragdesk = createRagdesk({
      ...sqliteStores({ path: join(dir, 'r.db') }),
      index: hnswIndex({ dir: join(dir, 'indexes') }),
      embeddings: localEmbeddings(),
      files,
    });
    const datastore = await ragdesk.datastores.create({ name: 'threads' });
    const created = await ragdesk.datasources.create({
      datastoreId: datastore.id,
      type: 'file',
      file: { bytes: bigHtml(200), fileName: 'page.html' },
    });
    const synched = await ragdesk.datasources.waitUntilSettled(created.id);
    expect(synched.status).toBe('synched');
    expect((await datastore.query({ query: 'topic 42', topK: 1 }))[0]?.text).toContain('topic 42');
    await ragdesk.close();
    expect((await failure(files.load({ bytes: new TextEncoder().encode('late'), fileName: 'late.txt' }))).code).toBe('closed');
  });

  it('never keep a process alive once its parses are done (idle threads are unref-ed)', () => {
    const loaders = pathToFileURL(join(ROOT, 'dist/adapters/loaders/index.js')).href;
    const script = `
      const { fileLoading } = await import(${JSON.stringify(loaders)});
      const files = fileLoading();
      const document = await files.load({ bytes: new TextEncoder().encode('exit cleanly'), fileName: 'a.txt' });
      console.log(document.sections[0].text);
    `;
    const started = Date.now();
    // `--input-type` breaks a thread that inherits it; `--expose-gc` is refused by one given execArgv.
    const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('exit cleanly');
    expect(child.status).toBe(0);
    // The idle timer (30 s) must not hold the process: it exits as soon as the script is done.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
