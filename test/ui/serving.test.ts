import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs, startService } from '../../adapters/cli/serve-command.js';
import { createHttpHandler, type RagdeskHttpHandler } from '../../adapters/http/index.js';
import { CONSOLE_CSP } from '../../adapters/http/ui/serve-ui.js';
import { recordingIo } from '../cli/io.js';
import { openFixture, type Fixture } from '../http/fixture.js';
import { startServer, type RunningServer } from '../http/servers.js';
import { tempDir } from '../helpers/setups.js';
import { ROOT } from './browser.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'dist/ui/manifest.json'), 'utf8')) as {
  script: string;
  styles: string[];
  files: string[];
};

describe('serving the web console (createHttpHandler ui option)', () => {
  let fixture: Fixture;
  const servers: RunningServer[] = [];
  let plain: string;
  let console_: string;
  let nested: string;

  async function start(kind: 'node:http' | 'express', handler: RagdeskHttpHandler): Promise<string> {
    const server = await startServer(kind, fixture.watch(handler));
    servers.push(server);
    return server.origin;
  }

  beforeAll(async () => {
    fixture = await openFixture();
    plain = await start('node:http', fixture.handler);
    console_ = await start('node:http', createHttpHandler(fixture.ragdesk, { ui: true }));
    nested = await start('express', createHttpHandler(fixture.ragdesk, { ui: { basePath: '/console/' } }));
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await fixture.close();
  });

  it('is off by default: / and widget.js are the API 404', async () => {
    for (const path of ['/', '/widget.js', `/${manifest.script}`, '/chat/x']) {
      const response = await fetch(plain + path);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/json');
    }
  });

  it('serves the page with a strict CSP, no inline code, and hashed immutable assets', async () => {
    const response = await fetch(`${console_}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
    expect(html).toContain(`<script type="module" src="/${manifest.script}"></script>`);
    expect(html).toContain('<meta name="ragdesk-api-base" content="/api">');

    const asset = await fetch(`${console_}/${manifest.script}`, { headers: { 'accept-encoding': 'identity' } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(Buffer.from(await asset.arrayBuffer()).equals(readFileSync(join(ROOT, 'dist/ui', manifest.script)))).toBe(true);
    expect(manifest.script).toMatch(/^assets\/console-[\w-]{8}\.js$/);

    // Client-side routes get the page too (a reload on /chat/{id} works).
    for (const path of ['/datastores', '/datastores/abc', '/agents', '/chat/0b8f7f6e-2f0e-4c55-a0a5-5e1a2c3d4e5f']) {
      expect((await fetch(console_ + path)).headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    }
  });

  it('answers gzip, ETag revalidation and HEAD', async () => {
    const raw = await fetch(`${console_}/widget.js`);
    const etag = raw.headers.get('etag') as string;
    expect(raw.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
    expect(raw.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await fetch(`${console_}/widget.js`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    // node's fetch decompresses; read the wire form through node:http instead.
    const { request } = await import('node:http');
    const gz = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      request(`${console_}/widget.js`, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    expect(gz.encoding).toBe('gzip');
    expect(gunzipSync(gz.body).equals(readFileSync(join(ROOT, 'dist/ui/widget.js')))).toBe(true);
    const head = await fetch(`${console_}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answers only files of the build manifest, and leaves the API alone', async () => {
    for (const path of [
      '/assets/../manifest.json',
      '/manifest.json',
      '/assets/nope.js',
      '/assets/%2e%2e/manifest.json',
      '/package.json',
      '/favicon.ico',
    ]) {
      const response = await fetch(console_ + path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toContain('application/json');
    }
    expect((await fetch(`${console_}/api/datastores`)).status).toBe(401);
    expect((await fetch(`${console_}/api/openapi.json`)).status).toBe(200);
    expect((await fetch(`${console_}/`, { method: 'POST' })).status).toBe(404);
  });

  it('lives under another base path, on Express and through handler.fetch', async () => {
    const page = await fetch(`${nested}/console/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<meta name="ragdesk-ui-base" content="/console/">');
    expect(html).toContain(`src="/console/${manifest.script}"`);
    expect((await fetch(`${nested}/console/${manifest.styles[0]}`)).status).toBe(200);
    expect((await fetch(`${nested}/console/chat/abc`)).status).toBe(200);
    expect((await fetch(`${nested}/`)).status).toBe(404);

    const handler = createHttpHandler(fixture.ragdesk, { ui: true });
    const fetched = await handler.fetch(new Request('http://localhost/widget.js'));
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await handler.fetch(new Request('http://localhost/api/datastores'))).status).toBe(401);
  });

  it('refuses a bad basePath and a missing build', () => {
    expect(() => createHttpHandler(fixture.ragdesk, { ui: { basePath: 'console' } })).toThrow(/ui option basePath must start with/);
    expect(() => createHttpHandler(fixture.ragdesk, { ui: { assetDir: join(ROOT, 'test') } })).toThrow(/npm run build/);
  });
});

describe('ragdesk serve and the console', () => {
  it('serves it by default and prints its URL first; --no-ui turns it off', async () => {
    expect(parseServeArgs([], ROOT).ui).toBe(true);
    expect(parseServeArgs(['--no-ui'], ROOT).ui).toBe(false);
    const temp = tempDir('ragdesk-serve-ui-');
    try {
      const io = recordingIo();
      const on = await startService(parseServeArgs(['--port', '0', '--data-dir', temp.dir], ROOT), io);
      try {
        expect(io.text().split('\n')[0]).toBe(`Open the console: ${on.origin}/`);
        expect((await fetch(`${on.origin}/`)).headers.get('content-type')).toContain('text/html');
      } finally {
        await on.close();
      }
      const quiet = recordingIo();
      const off = await startService(parseServeArgs(['--port', '0', '--data-dir', temp.dir, '--no-ui'], ROOT), quiet);
      try {
        expect(quiet.text()).not.toContain('console');
        expect((await fetch(`${off.origin}/`)).status).toBe(404);
      } finally {
        await off.close();
      }
    } finally {
      temp.remove();
    }
  });
});
