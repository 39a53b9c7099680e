import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseServeArgs, startService } from '../../adapters/cli/serve-command.js';
import { tempDir } from '../helpers/setups.js';
import { recordingIo } from './io.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('ragdesk serve', () => {
  it('creates and prints an admin key once, seeds the demo on first run, and answers curl-style requests', async () => {
    const temp = tempDir('ragdesk-serve-');
    try {
      const io = recordingIo();
      const options = parseServeArgs(['--port', '0', '--data-dir', temp.dir, '--demo'], ROOT);
      const service = await startService(options, io);
      let key: string;
      let agentId: string;
      let datastoreId: string;
      try {
        const banner = io.text();
        expect(banner).toContain(`ragdesk listening on ${service.origin}/api`);
        key = /keep it: (rdk_\S+)/.exec(banner)?.[1] ?? '';
        expect(key).toBe(service.createdKey);
        expect(service.demo?.created).toBe(true);
        expect(service.demo?.documents).toBeGreaterThan(3);
        agentId = service.demo!.agentId;
        datastoreId = service.demo!.datastoreId;
        expect(banner).toContain(`curl -s ${service.origin}/api/agents/${agentId}/query`);

        // The banner's two curl commands, as fetch calls.
        const answer = await fetch(`${service.origin}/api/agents/${agentId}/query`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'How do I run the tests?' }),
        });
        expect(answer.status).toBe(200);
        const body = (await answer.json()) as { answer: string; sources: { datasource_name: string }[] };
        expect(body.answer.length).toBeGreaterThan(20);
        expect(body.sources.length).toBeGreaterThan(0);
        const fragments = await fetch(`${service.origin}/api/datastores/${datastoreId}/query`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'hybrid retrieval', topK: 3 }),
        });
        expect(fragments.status).toBe(200);
        expect(((await fragments.json()) as unknown[]).length).toBe(3);
        expect((await fetch(`${service.origin}/api/datastores`)).status).toBe(401);
      } finally {
        await service.close();
      }

      const again = recordingIo();
      const second = await startService(options, again);
      try {
        expect(second.createdKey).toBeNull();
        expect(again.text()).not.toContain('rdk_');
        expect(second.demo).toMatchObject({ created: false, agentId, datastoreId });
        // Once listening, the demo datastore's indexes are loaded before any query asks.
        expect(await second.preloaded).toMatchObject({ loaded: 1, failed: 0 });
        expect(again.err.join('')).toMatch(/Loaded 1 datastore for search in [0-9.]+ s/);
        const listed = await fetch(`${second.origin}/api/datastores`, { headers: { authorization: `Bearer ${key}` } });
        expect(((await listed.json()) as { id: string }[]).map((d) => d.id)).toEqual([datastoreId]);
      } finally {
        await second.close();
      }
    } finally {
      temp.remove();
    }
  });

  it('loads no index before the first query with --no-preload', async () => {
    const temp = tempDir('ragdesk-serve-');
    try {
      const options = parseServeArgs(['--port', '0', '--data-dir', temp.dir, '--demo', '--no-preload'], ROOT);
      expect(options.preload).toBe(false);
      expect(parseServeArgs([], ROOT).preload).toBe(true);
      const io = recordingIo();
      const service = await startService(options, io);
      try {
        expect(await service.preloaded).toEqual({ loaded: 0, failed: 0, seconds: 0 });
        expect(io.err.join('')).not.toContain('Loaded');
      } finally {
        await service.close();
      }
    } finally {
      temp.remove();
    }
  });

  it('accepts RAGDESK_API_KEY as the admin key and creates none', async () => {
    const temp = tempDir('ragdesk-serve-');
    try {
      const io = recordingIo({ RAGDESK_API_KEY: 'env-key-abcdefghijklmnop' });
      const service = await startService(parseServeArgs(['--port', '0', '--data-dir', temp.dir], ROOT), io);
      try {
        expect(service.createdKey).toBeNull();
        expect(io.text()).toContain('RAGDESK_API_KEY');
        const created = await fetch(`${service.origin}/api/datastores`, {
          method: 'POST',
          headers: { authorization: 'Bearer env-key-abcdefghijklmnop', 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'mine' }),
        });
        expect(created.status).toBe(200);
        expect(((await created.json()) as { ownerId: string }).ownerId).toBe('local');
        expect(await service.ragdesk.keys.list()).toEqual([]);
      } finally {
        await service.close();
      }
    } finally {
      temp.remove();
    }
  });

  const built = resolve(ROOT, 'dist/adapters/cli/main.js');
  // The process test runs the compiled CLI: skipped (with this reason) when there is no build or it is
  // older than the sources, as in a checkout where `npm run build` has not run since the last edit.
  const compiled = resolve(ROOT, 'dist/adapters/cli/serve-command.js');
  const fresh =
    existsSync(built) &&
    existsSync(compiled) &&
    statSync(compiled).mtimeMs >= statSync(resolve(ROOT, 'adapters/cli/serve-command.ts')).mtimeMs;
  if (!fresh) console.log('skipping the ragdesk serve process test: dist/ is missing or older than adapters/cli (run npm run build)');
  it.skipIf(!fresh)('runs as a process: prints the URL, serves, and stops cleanly on SIGTERM (needs npm run build)', async () => {
    const temp = tempDir('ragdesk-serve-');
    const child = spawn(process.execPath, [built, 'serve', '--port', '0', '--data-dir', temp.dir], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      const origin = await new Promise<string>((resolvePromise, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${output}`)), 30_000);
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /listening on (http:\/\/[\d.:]+)\/api/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolvePromise(match[1]!);
          }
        });
      });
      const key = /keep it: (rdk_\S+)/.exec(output)?.[1];
      const response = await fetch(`${origin}/api/datastores`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      const exit = new Promise<number | null>((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
      temp.remove();
    }
  });
});
