import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs, startService, type RunningService } from '../../adapters/cli/serve-command.js';
import { recordingIo } from '../cli/io.js';
import { tempDir } from '../helpers/setups.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { cuidLike, evalAnswer, pollConversation, sendChatMessage } from './reference-client.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const PAGE = 'http://widget.example.test:5173';

interface Polled {
  messages: { id: string; from: string; text: string; sources: unknown[]; eval: string | null; createdAt: string }[];
  status: string;
  isAiEnabled: boolean;
}

/**
 * The reference chat client's history poll (`GET /api/conversations/{id}?cursor=`, every 30 s while
 * the AI is on) and its thumbs (`POST /api/conversations/eval-answer`), from a page on another
 * origin, against `ragdesk serve --demo --cors <page>`.
 */
describe("the reference chat client's conversation poll and thumbs", () => {
  const temp = tempDir('ragdesk-compat-');
  let service: RunningService;
  let validator: OpenApiValidator;

  beforeAll(async () => {
    service = await startService(parseServeArgs(['--port', '0', '--data-dir', temp.dir, '--demo', '--cors', PAGE], ROOT), recordingIo());
    validator = new OpenApiValidator((await (await fetch(`${service.origin}/api/openapi.json`)).json()) as Record<string, never>);
  });
  afterAll(async () => {
    await service?.close();
    temp.remove();
  });

  it('reads the history the hook shows, pages to its end, and takes its thumbs', async () => {
    const endpoint = `${service.origin}/api/agents/${service.demo!.agentId}/query`;
    const ask = async (query: string, ids: { conversationId: string; visitorId: string }) => {
      const turn = await sendChatMessage(endpoint, { streaming: true, query, channel: 'website', attachments: [], ...ids }, PAGE);
      expect(turn.done).toBe(true);
      return turn.response as { conversationId: string; visitorId: string; messageId: string };
    };
    const first = await ask('How do I run the tests?', { conversationId: cuidLike(), visitorId: '' });
    const second = await ask('And how do I build it?', { conversationId: first.conversationId, visitorId: first.visitorId });

    // The hook's poll as it is sent (no key, no visitor id): the 401 any unreadable conversation
    // gets unless the agent allows reads by id (below). The hook only acts on a successful poll, so
    // it keeps its history and its ids and goes on.
    const bare = await pollConversation(service.origin, first.conversationId, '', PAGE);
    expect(bare.status).toBe(401);
    expect(bare.allowOrigin).toBe(PAGE);
    expect(bare.body).toMatchObject({ error: { code: 'unauthorized' } });
    const third = await ask('Where is the changelog?', { conversationId: first.conversationId, visitorId: first.visitorId });
    expect(third.conversationId).toBe(first.conversationId);

    // With the visitor id the hook stores, the poll reads the conversation.
    const withVisitor = `&visitorId=${encodeURIComponent(first.visitorId)}`;
    const page = await pollConversation(service.origin, first.conversationId, '', PAGE, withVisitor);
    expect(page.status).toBe(200);
    expect(page.allowOrigin).toBe(PAGE);
    validator.validate('GET', `/api/conversations/${first.conversationId}`, 200, 'application/json', page.body);
    const polled = page.body as Polled;
    // What the hook reads: the AI is on (else it would route messages to a human inbox) and the status.
    expect(polled.isAiEnabled).toBe(true);
    expect(polled.status).toBe('UNRESOLVED');
    // The hook reverses the newest-first page into its history, oldest first.
    const history = [...polled.messages].reverse().map((message) => ({ from: message.from, message: message.text, id: message.id }));
    expect(history.map((turn) => turn.from)).toEqual(['human', 'agent', 'human', 'agent', 'human', 'agent']);
    expect(history.filter((turn) => turn.from === 'human').map((turn) => turn.message)).toEqual([
      'How do I run the tests?',
      'And how do I build it?',
      'Where is the changelog?',
    ]);
    expect(history.filter((turn) => turn.from === 'agent').map((turn) => turn.id)).toEqual([
      first.messageId,
      second.messageId,
      third.messageId,
    ]);
    expect(polled.messages[0]!.sources.length).toBeGreaterThan(0);
    // The next page starts after the last message of this one: empty, so the hook stops asking for more.
    const rest = await pollConversation(service.origin, first.conversationId, polled.messages.at(-1)!.id, PAGE, withVisitor);
    expect(rest.status).toBe(200);
    expect((rest.body as Polled).messages).toEqual([]);

    // Thumbs: preflight for the JSON POST, then the hook's body with the visitor id from its storage.
    const preflight = await fetch(`${service.origin}/api/conversations/eval-answer`, {
      method: 'OPTIONS',
      headers: { Origin: PAGE, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const thumbs = await evalAnswer(service.origin, { eval: 'bad', messageId: second.messageId, visitorId: first.visitorId }, PAGE);
    expect(thumbs.status).toBe(200);
    expect(thumbs.allowOrigin).toBe(PAGE);
    const after = (await pollConversation(service.origin, first.conversationId, '', PAGE, withVisitor)).body as Polled;
    expect(after.messages.find((message) => message.id === second.messageId)?.eval).toBe('bad');
    // Another visitor's thumbs on that answer: refused as an unknown message, nothing changed.
    const foreign = await evalAnswer(service.origin, { eval: 'good', messageId: second.messageId, visitorId: 'someone-else' }, PAGE);
    expect(foreign.status).toBe(401);
    const again = (await pollConversation(service.origin, first.conversationId, '', PAGE, withVisitor)).body as Polled;
    expect(again.messages.find((message) => message.id === second.messageId)?.eval).toBe('bad');
  });

  it("reads the hook's poll as it is sent once the owner allows reads by conversation id", async () => {
    const agentId = service.demo!.agentId;
    const endpoint = `${service.origin}/api/agents/${agentId}/query`;
    const turn = await sendChatMessage(
      endpoint,
      { streaming: true, query: 'How do I run the tests?', conversationId: cuidLike(), visitorId: '' },
      PAGE,
    );
    const { conversationId, visitorId, messageId } = turn.response as { conversationId: string; visitorId: string; messageId: string };
    expect((await pollConversation(service.origin, conversationId, '', PAGE)).status).toBe(401);

    const owner = { authorization: `Bearer ${service.createdKey!}`, 'content-type': 'application/json' };
    const { description } = (await (await fetch(`${service.origin}/api/agents/${agentId}`, { headers: owner })).json()) as {
      description: string;
    };
    const patched = await fetch(`${service.origin}/api/agents/${agentId}`, {
      method: 'PATCH',
      headers: owner,
      body: JSON.stringify({ description, allowConversationReadById: true }),
    });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { settings: Record<string, unknown> }).settings.allowConversationReadById).toBe(true);
    try {
      // The poll exactly as the hook sends it: no key, no visitor id.
      const bare = await pollConversation(service.origin, conversationId, '', PAGE);
      expect(bare.status).toBe(200);
      expect(bare.allowOrigin).toBe(PAGE);
      validator.validate('GET', `/api/conversations/${conversationId}`, 200, 'application/json', bare.body);
      const polled = bare.body as Polled & { visitorId: string };
      expect(polled.visitorId).toBe(visitorId);
      expect(polled.messages.map((message) => message.from)).toEqual(['agent', 'human']);
      expect(polled.messages[0]!.id).toBe(messageId);
      // A visitor id that is given must still be the conversation's; an unknown id stays unknown.
      expect((await pollConversation(service.origin, conversationId, '', PAGE, '&visitorId=someone-else')).status).toBe(401);
      expect((await pollConversation(service.origin, cuidLike(), '', PAGE)).status).toBe(401);
    } finally {
      await fetch(`${service.origin}/api/agents/${agentId}`, {
        method: 'PATCH',
        headers: owner,
        body: JSON.stringify({ description, allowConversationReadById: false }),
      });
    }
    expect((await pollConversation(service.origin, conversationId, '', PAGE)).status).toBe(401);
  });
});
