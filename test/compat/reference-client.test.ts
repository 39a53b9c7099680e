import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs, startService, type RunningService } from '../../adapters/cli/serve-command.js';
import { localAnswerer } from '../../adapters/local/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { recordingChat } from '../agents/helpers.js';
import { recordingIo } from '../cli/io.js';
import { tempDir } from '../helpers/setups.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { buildFixtures, PLANTED } from '../../fixtures/make-fixtures.js';
import { cuidLike, sendChatMessage } from './reference-client.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PAGE = 'http://widget.example.test:5173';
const NOTES = 'Release checklist: the canary deploy runs for 45 minutes before the fleet is updated.';
const FIXTURES = buildFixtures();

/**
 * The reference service's chat client against `ragdesk serve --demo --cors <page origin>`: the
 * request sequence its hook sends (first message with empty ids and `channel: "website"`, then the
 * returned conversation and visitor ids, then a message with an attached text file), read with a
 * real SSE client, from a page on another origin.
 */
describe('the reference chat client against ragdesk serve --demo --cors', () => {
  const temp = tempDir('ragdesk-compat-');
  const chat = recordingChat(localAnswerer());
  let files: Server;
  let filesOrigin: string;
  let service: RunningService;
  let endpoint: string;
  let validator: OpenApiValidator;

  beforeAll(async () => {
    // Where the client uploaded the attachment (the reference puts it on object storage).
    files = createServer((request, response) => {
      if (request.url === '/uploads/notes.txt') {
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(NOTES);
      } else if (request.url === '/uploads/report.pdf' || request.url === '/uploads/letter.docx') {
        // Storage serves what the browser declared; the bytes decide how they are read.
        const pdf = request.url.endsWith('.pdf');
        response.writeHead(200, { 'content-type': pdf ? 'application/pdf' : 'application/octet-stream' });
        response.end(FIXTURES[pdf ? 'sample.pdf' : 'sample.docx']);
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((done) => files.listen(0, '127.0.0.1', done));
    filesOrigin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    const options = parseServeArgs(['--port', '0', '--data-dir', temp.dir, '--demo', '--cors', PAGE], ROOT);
    // The attachment host is on loopback here, which the default web loader refuses (as it should).
    service = await startService(options, recordingIo(), { chat, web: webLoader({ allowPrivateNetwork: true }) });
    endpoint = `${service.origin}/api/agents/${service.demo!.agentId}/query`;
    validator = new OpenApiValidator((await (await fetch(`${service.origin}/api/openapi.json`)).json()) as Record<string, never>);
  });
  afterAll(async () => {
    await service?.close();
    await new Promise((done) => files?.close(done));
    temp.remove();
  });

  function checkTurn(turn: Awaited<ReturnType<typeof sendChatMessage>>) {
    expect(turn.status).toBe(200);
    // The hook opens the stream only on exactly this content type.
    expect(turn.headers.get('content-type')).toBe('text/event-stream');
    expect(turn.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(turn.errorCode).toBeUndefined();
    expect(turn.done).toBe(true);
    expect(turn.answer.length).toBeGreaterThan(0);
    validator.validate('POST', new URL(endpoint).pathname, 200, 'application/json', turn.response);
    expect(turn.response).toMatchObject({ answer: turn.answer });
    return turn.response as { conversationId: string; visitorId: string; messageId: string; sources: unknown[]; warnings: string[] };
  }

  it('the browser preflight is answered with the methods and headers the client needs', async () => {
    const preflight = await fetch(endpoint, {
      method: 'OPTIONS',
      headers: { Origin: PAGE, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('content-type');
    const stranger = await fetch(endpoint, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(stranger.status).toBe(403);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('first message, follow-up in the same conversation, then a message with an attached text file', async () => {
    // 1. A new visitor: the hook's state has empty ids, so it sends '' for the visitor and a fresh cuid.
    const conversationId = cuidLike();
    const first = checkTurn(
      await sendChatMessage(
        endpoint,
        {
          streaming: true,
          query: 'How do I run the tests?',
          visitorId: '',
          conversationId,
          channel: 'website',
          attachments: [],
          isDraft: undefined,
          contact: undefined,
          context: undefined,
          attachmentsForAI: [],
        },
        PAGE,
      ),
    );
    // A visitor never names a new conversation (nobody can claim an id meant for someone else): the
    // answer carries a fresh id, which the hook stores and sends from then on.
    expect(first.conversationId).not.toBe(conversationId);
    expect(first.conversationId).toMatch(/\S/);
    expect(first.visitorId).toMatch(/\S/);
    expect(first.sources.length).toBeGreaterThan(0);
    expect(first.warnings.filter((warning) => warning.startsWith('ignored'))).toEqual([]);

    // The widget's first message when the visitor id was cleared: null, as the curl sends it.
    const nulls = checkTurn(
      await sendChatMessage(
        endpoint,
        { streaming: true, query: 'hi', visitorId: null, conversationId: cuidLike(), channel: 'website', attachments: [] },
        PAGE,
      ),
    );
    expect(nulls.conversationId).not.toBe(conversationId);

    // 2. The hook stores the returned ids and sends them with the next message.
    const second = checkTurn(
      await sendChatMessage(
        endpoint,
        {
          streaming: true,
          query: 'And how do I build it?',
          visitorId: first.visitorId,
          conversationId: first.conversationId,
          channel: 'website',
          attachments: [],
          attachmentsForAI: [],
        },
        PAGE,
      ),
    );
    expect(second.conversationId).toBe(first.conversationId);
    expect(second.visitorId).toBe(first.visitorId);
    // Memory: the model got the first exchange as history.
    const secondRequest = chat.requests.at(-1)!;
    expect(secondRequest.messages.some((message) => message.content === 'How do I run the tests?')).toBe(true);

    // 3. A file attached to the message: uploaded first, then sent as {name, url, size, mimeType}.
    const third = checkTurn(
      await sendChatMessage(
        endpoint,
        {
          streaming: true,
          query: 'What does my checklist say?',
          visitorId: first.visitorId,
          conversationId: first.conversationId,
          channel: 'website',
          attachments: [{ name: 'notes.txt', url: `${filesOrigin}/uploads/notes.txt`, size: NOTES.length, mimeType: 'text/plain' }],
          attachmentsForAI: [],
        },
        PAGE,
      ),
    );
    expect(third.conversationId).toBe(first.conversationId);
    const sent = chat.requests.at(-1)!.messages.at(-1)!.content;
    expect(sent).toContain(`What does my checklist say?\nFILENAME: notes.txt CONTENT: ${NOTES}`);

    // PDF and Office files are parsed by the file loaders, each in its own part.
    const documents = checkTurn(
      await sendChatMessage(
        endpoint,
        {
          streaming: true,
          query: 'Summarise these',
          visitorId: first.visitorId,
          conversationId: first.conversationId,
          channel: 'website',
          attachments: [
            {
              name: 'report.pdf',
              url: `${filesOrigin}/uploads/report.pdf`,
              size: FIXTURES['sample.pdf']!.byteLength,
              mimeType: 'application/pdf',
            },
            {
              name: 'letter.docx',
              url: `${filesOrigin}/uploads/letter.docx`,
              size: FIXTURES['sample.docx']!.byteLength,
              mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
            },
          ],
        },
        PAGE,
      ),
    );
    expect(documents.warnings.filter((warning) => warning.includes('attachment'))).toEqual([]);
    const withDocuments = chat.requests.at(-1)!.messages.at(-1)!.content;
    expect(withDocuments).toContain('Summarise these\nFILENAME: report.pdf CONTENT: ');
    expect(withDocuments).toContain(PLANTED.pdfPages[0]);
    expect(withDocuments).toContain(`\n###\nFILENAME: letter.docx CONTENT: `);
    expect(withDocuments).toContain(PLANTED.docx);

    // A missing upload is a warning in the response, not a failed message.
    const missing = checkTurn(
      await sendChatMessage(
        endpoint,
        {
          streaming: true,
          query: 'And this one?',
          visitorId: first.visitorId,
          conversationId: first.conversationId,
          channel: 'website',
          attachments: [{ name: 'gone.txt', url: `${filesOrigin}/uploads/gone.txt`, size: 1, mimeType: 'text/plain' }],
        },
        PAGE,
      ),
    );
    expect(missing.warnings.join(' ')).toContain('"gone.txt" could not be read');
  });

  it('private routes still need the key from a browser, and say why in a body the page can read', async () => {
    const response = await fetch(`${service.origin}/api/datastores`, { headers: { Origin: PAGE } });
    expect(response.status).toBe(401);
    expect(response.headers.get('access-control-allow-origin')).toBe(PAGE);
    const body = (await response.json()) as { error: { code: string; details: unknown } };
    expect(body.error).toMatchObject({ code: 'unauthorized', details: {} });
    const keyed = await fetch(`${service.origin}/api/datastores`, {
      headers: { Origin: PAGE, authorization: `Bearer ${service.createdKey}` },
    });
    expect(keyed.status).toBe(200);
  });
});

describe('ragdesk serve CORS settings', () => {
  it('RAGDESK_CORS=* lets any origin call; no setting sends no CORS header and OPTIONS is 405; a bad origin stops the start', async () => {
    const temp = tempDir('ragdesk-compat-');
    try {
      const any = await startService(parseServeArgs(['--port', '0', '--data-dir', temp.dir], ROOT), recordingIo({ RAGDESK_CORS: '*' }));
      try {
        const response = await fetch(`${any.origin}/api/openapi.json`, { headers: { Origin: 'https://anything.example' } });
        expect(response.headers.get('access-control-allow-origin')).toBe('*');
      } finally {
        await any.close();
      }
      const none = await startService(parseServeArgs(['--port', '0', '--data-dir', temp.dir], ROOT), recordingIo());
      try {
        const response = await fetch(`${none.origin}/api/openapi.json`, { headers: { Origin: 'https://anything.example' } });
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
        const options = await fetch(`${none.origin}/api/openapi.json`, {
          method: 'OPTIONS',
          headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'GET' },
        });
        expect(options.status).toBe(405);
      } finally {
        await none.close();
      }
      await expect(
        startService(parseServeArgs(['--port', '0', '--data-dir', temp.dir, '--cors', 'example.com/path'], ROOT), recordingIo()),
      ).rejects.toThrow(/--cors/);
    } finally {
      temp.remove();
    }
  });
});
