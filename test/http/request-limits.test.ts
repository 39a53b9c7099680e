/**
 * Requests that cost the server without end: a chunked multipart body that never reaches a file
 * part, clients that leave mid-body, and slow or idle connections held open (slowloris), against
 * the handler on node:http and against the server `ragdesk serve` runs.
 */
import { connect, type Socket } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs, startService, type RunningService } from '../../adapters/cli/serve-command.js';
import { DEFAULT_SERVER_TIMEOUTS, parseServerTimeouts } from '../../adapters/cli/server-timeouts.js';
import { recordingIo } from '../cli/io.js';
import { tempDir } from '../helpers/setups.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { sendLarge } from './raw-http.js';
import { startServer, type RunningServer } from './servers.js';

const MB = 1024 * 1024;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Opens a raw connection to `origin`; `closedAt` is set (ms since open) when the server closes it. */
function rawSocket(origin: string): Promise<{ socket: Socket; openedAt: number; closed: Promise<number>; received: () => string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((ready, fail) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      const openedAt = performance.now();
      const closed = new Promise<number>((done) => socket.once('close', () => done(performance.now() - openedAt)));
      ready({ socket, openedAt, closed, received: () => Buffer.concat(chunks).toString('latin1') });
    });
    socket.once('error', fail);
  });
}

describe('request bodies', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let datastoreId: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    fixture = await openFixture({ http: { maxFileBytes: 1 * MB } });
    server = await startServer('node:http', fixture.handler);
    const datastore = await fixture.ragdesk.datastores.create({ name: 'limits' }, { ownerId: 'alice' });
    await datastore.upsert(DOCUMENTS);
    datastoreId = datastore.id;
    auth = { authorization: `Bearer ${fixture.alice}` };
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('refuses a chunked multipart body at the form limit, not at its end', async () => {
    // 48 MB of preamble that never reaches a boundary: busboy alone counts only file parts.
    const upload = await sendLarge(server.origin, `/api/external/datastores/file-upload/${datastoreId}`, {
      total: 48 * MB,
      declareLength: false,
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${'x'.repeat(20)}` },
      fill: 'a',
    });
    expect(upload.status).toBe(413);
    expect((JSON.parse(upload.body) as { error: { code: string } }).error.code).toBe('payload_too_large');
    // The limit is the file limit (1 MiB) plus 1 MiB for the form; socket buffers add a few MB.
    expect(upload.sentBeforeResponse).toBeLessThan(16 * MB);
  });

  it('a client that leaves mid-body is a quiet abort: nothing logged, the server serves on', async () => {
    const before = fixture.logged.length;
    const targets = [
      { path: `/api/datastores/upsert/${datastoreId}`, type: 'application/json', start: '{"documents":[{"text":"' },
      {
        path: `/api/external/datastores/file-upload/${datastoreId}`,
        type: 'multipart/form-data; boundary=bbbb',
        start: '--bbbb\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n',
      },
    ];
    for (const target of targets) {
      for (const chunked of [false, true]) {
        const { socket, closed } = await rawSocket(server.origin);
        const { host } = new URL(server.origin);
        socket.write(
          [
            `POST ${target.path} HTTP/1.1`,
            `Host: ${host}`,
            `Authorization: ${auth.authorization}`,
            `Content-Type: ${target.type}`,
            chunked ? 'Transfer-Encoding: chunked' : 'Content-Length: 1000000',
            '',
            '',
          ].join('\r\n'),
        );
        const part = target.start + 'a'.repeat(5_000);
        socket.write(chunked ? `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n` : part);
        await sleep(150);
        socket.destroy();
        await closed;
      }
    }
    await sleep(300);
    expect(fixture.logged.slice(before)).toEqual([]);
    const alive = await fetch(`${server.origin}/api/datastores/${datastoreId}/query`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'tides', topK: 1 }),
    });
    expect(alive.status).toBe(200);
  });
});

describe('ragdesk serve connection timeouts', () => {
  let temp: ReturnType<typeof tempDir>;
  let service: RunningService;

  beforeAll(async () => {
    temp = tempDir('ragdesk-timeouts-');
    const args = [
      '--port',
      '0',
      '--data-dir',
      temp.dir,
      '--headers-timeout-ms',
      '300',
      '--request-timeout-ms',
      '600',
      '--keep-alive-timeout-ms',
      '300',
    ];
    service = await startService(parseServeArgs(args, ROOT), recordingIo());
  });
  afterAll(async () => {
    await service?.close();
    temp?.remove();
  });

  it('has documented defaults and checks its flags', () => {
    expect(parseServeArgs([], ROOT).timeouts).toEqual(DEFAULT_SERVER_TIMEOUTS);
    expect(DEFAULT_SERVER_TIMEOUTS).toEqual({ headersTimeoutMs: 10_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000 });
    expect(() => parseServerTimeouts({ 'headers-timeout-ms': '0' })).toThrow(/headers-timeout-ms/);
    expect(() => parseServerTimeouts({ 'headers-timeout-ms': '5000', 'request-timeout-ms': '1000' })).toThrow(/larger/);
  });

  it('cuts slowloris connections (headers dribbled, or nothing sent at all) and slow bodies', async () => {
    const dribblers = await Promise.all(Array.from({ length: 10 }, () => rawSocket(service.origin)));
    const silent = await rawSocket(service.origin);
    const slowBody = await rawSocket(service.origin);
    slowBody.socket.write(`POST /api/agents/x/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`);
    for (const { socket } of dribblers) socket.write('GET /api/datastores HTTP/1.1\r\nHost: x\r\n');
    let stop = false;
    const drip = (async () => {
      while (!stop) {
        for (const { socket } of [...dribblers, slowBody]) if (!socket.destroyed) socket.write('X');
        await sleep(100);
      }
    })();
    // Configured: 300 ms for headers (checked every 300 ms), 600 ms for a whole request: cut within
    // about a second. The defaults (10 s, 120 s) would outlast the 8 s deadline, so a cut before it
    // is the configured timeout at work, with 8x room for a loaded machine.
    const deadline = sleep(8_000).then(() => -1);
    try {
      const headerCuts = await Promise.all([...dribblers, silent].map(({ closed }) => Promise.race([closed, deadline])));
      for (const elapsed of headerCuts) expect(elapsed).toBeGreaterThan(0);
      const bodyCut = await Promise.race([slowBody.closed, deadline]);
      expect(bodyCut).toBeGreaterThan(0);
    } finally {
      stop = true;
      await drip;
      for (const { socket } of [...dribblers, silent, slowBody]) socket.destroy();
    }
  });

  it('closes an idle keep-alive connection', async () => {
    const { socket, closed, received } = await rawSocket(service.origin);
    socket.write('GET /api/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n');
    // 300 ms configured; the default (5 s) would outlast the 4.5 s wait.
    const elapsed = await Promise.race([closed, sleep(4_500).then(() => -1)]);
    socket.destroy();
    expect(received()).toMatch(/^HTTP\/1\.1 200/);
    expect(elapsed).toBeGreaterThan(0);
  });
});
