import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../adapters/http/index.js';
import { ApiClient } from '../http/client.js';
import { DOCUMENTS, openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';

interface Link {
  signedUrl: string;
  fileUrl: string;
  uploadId: string;
  mimeType: string;
  maxBytes: number;
  expiresAt: string;
}
interface Answer {
  answer: string;
  conversationId: string;
  visitorId: string;
  warnings: string[];
}
interface ErrorBody {
  error: { code: string; message: string; details: { reason?: string; issues?: { path: string }[] } };
}

const NOTES = '# Trip notes\nThe ferry to Skye leaves at 07:40 from Mallaig.';
const MARK = 'ferry to Skye leaves at 07:40';
const START = Date.UTC(2026, 0, 1, 12);

describe('upload links: the reference widget asks for them, PUTs the file, attaches fileUrl', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let publicAgent: string;
  let otherPublicAgent: string;
  let privateAgent: string;
  let clock = START;

  beforeAll(async () => {
    fixture = await openFixture({
      openai: { reply: () => 'Noted.' },
      uploads: { now: () => new Date(clock), maxBytes: 4_096, linkSeconds: 900, keepSeconds: 3_600 },
    });
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    const datastoreId = (await api.post<{ id: string }>('/api/datastores', { name: 'Trips' })).body.id;
    await api.post(`/api/datastores/upsert/${datastoreId}`, { documents: DOCUMENTS });
    const agent = async (visibility: string) =>
      (
        await api.post<{ id: string }>('/api/agents', {
          name: 'A',
          description: 'd',
          visibility,
          tools: [{ type: 'datastore', datastoreId }],
        })
      ).body.id;
    publicAgent = await agent('public');
    otherPublicAgent = await agent('public');
    privateAgent = await agent('private');
  });
  beforeEach(() => {
    clock = START;
    fixture.openai.reset();
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  async function links(items: Record<string, unknown>[], key: string | null = null) {
    return api.post<Link[] | ErrorBody>('/api/generate-upload-links', items, { key });
  }
  async function oneLink(agentId: string, conversationId: string, extra: Record<string, unknown> = {}): Promise<Link> {
    const response = await links([
      { case: 'chatUpload', agentId, conversationId, fileName: 'notes.md', mimeType: 'text/markdown', ...extra },
    ]);
    expect(response.status, response.text).toBe(200);
    return (response.body as Link[])[0]!;
  }
  /** The upload as the widget makes it; every answer is checked against the OpenAPI document too. */
  async function put(url: string, body: string | Uint8Array, type = 'text/markdown') {
    const response = await fetch(url, { method: 'PUT', headers: { 'content-type': type }, body });
    const parsed = JSON.parse(await response.clone().text()) as unknown;
    api.validator.validate('PUT', new URL(url).pathname, response.status, response.headers.get('content-type'), parsed);
    return response;
  }
  function ask(agentId: string, body: Record<string, unknown>) {
    return api.post<Answer>(`/api/agents/${agentId}/query`, { query: 'When does the ferry leave?', ...body }, { key: null });
  }
  const promptOfLastCall = () => JSON.stringify(fixture.openai.chatRequests().at(-1)?.messages ?? []);

  it('a first message: links without a key for a public agent, one PUT, then the file reaches the model from the Store', async () => {
    const conversationId = 'ckwidgetfirst0000000001';
    const link = await oneLink(publicAgent, conversationId);
    expect(link.signedUrl.startsWith(`${server.origin}/api/uploads/rdu_`)).toBe(true);
    expect(link.fileUrl).toBe(link.signedUrl.split('?')[0]);
    expect(link).toMatchObject({ mimeType: 'text/markdown', maxBytes: 4_096, expiresAt: new Date(START + 900_000).toISOString() });
    const uploaded = await put(link.signedUrl, NOTES);
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toMatchObject({ fileName: 'notes.md', size: Buffer.byteLength(NOTES) });

    // The widget's first message: its own conversation id, no visitor yet. The URL names this
    // server on 127.0.0.1, which the web loader's address guard never fetches: reading it proves
    // it came from the Store.
    const answer = await ask(publicAgent, {
      conversationId,
      visitorId: '',
      attachments: [{ name: 'notes.md', url: link.fileUrl, size: Buffer.byteLength(NOTES), mimeType: 'text/markdown' }],
    });
    expect(answer.status).toBe(200);
    expect(answer.body.warnings).toEqual([]);
    expect(promptOfLastCall()).toContain(MARK);

    // A follow-up in the conversation the answer named reads it only with a link made for that conversation.
    const followUp = { conversationId: answer.body.conversationId, visitorId: answer.body.visitorId };
    const stale = await ask(publicAgent, { ...followUp, attachments: [{ name: 'notes.md', url: link.fileUrl }] });
    expect(stale.body.warnings.join(' ')).toMatch(/notes\.md" was not read: its upload link is unknown, expired/);
    expect(promptOfLastCall()).not.toContain(MARK);
    const second = await oneLink(publicAgent, answer.body.conversationId, { visitorId: answer.body.visitorId });
    expect((await put(second.signedUrl, NOTES)).status).toBe(200);
    const read = await ask(publicAgent, { ...followUp, attachments: [{ name: 'notes.md', url: second.fileUrl }] });
    expect(read.body.warnings).toEqual([]);
    expect(promptOfLastCall()).toContain(MARK);
  });

  it('a link takes one upload: the second is a 409, and a wrong token is a 404 like an unknown link', async () => {
    const link = await oneLink(publicAgent, 'ckonce0000000000000001');
    expect((await put(link.signedUrl, NOTES)).status).toBe(200);
    const again = await put(link.signedUrl, 'something else');
    expect(again.status).toBe(409);
    expect(((await again.json()) as ErrorBody).error.details.reason).toBe('used');
    const other = await oneLink(publicAgent, 'ckonce0000000000000001');
    const forged = await put(`${other.fileUrl}?token=${'A'.repeat(43)}`, NOTES);
    const unknown = await put(`${server.origin}/api/uploads/rdu_${'B'.repeat(22)}?token=${'A'.repeat(43)}`, NOTES);
    expect(forged.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(((await forged.json()) as ErrorBody).error.message).toBe(((await unknown.json()) as ErrorBody).error.message);
    // The unused link still works after the forged attempt.
    expect((await put(other.signedUrl, NOTES)).status).toBe(200);
  });

  it('a link expires after linkSeconds, and an uploaded file after keepSeconds (by the injected clock)', async () => {
    const conversationId = 'ckexpiry00000000000001';
    const late = await oneLink(publicAgent, conversationId);
    const kept = await oneLink(publicAgent, conversationId);
    clock = START + 899_000;
    expect((await put(kept.signedUrl, NOTES)).status).toBe(200);
    clock = START + 900_000;
    const refused = await put(late.signedUrl, NOTES);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as ErrorBody).error.details.reason).toBe('expired');

    clock = START + 3_599_000;
    const inTime = await ask(publicAgent, { conversationId, attachments: [{ name: 'notes.md', url: kept.fileUrl }] });
    expect(inTime.body.warnings).toEqual([]);
    clock = START + 3_600_000;
    const tooLate = await ask(publicAgent, { conversationId, attachments: [{ name: 'notes.md', url: kept.fileUrl }] });
    expect(tooLate.body.warnings.join(' ')).toMatch(/was not read: its upload link is unknown, expired/);
    expect(promptOfLastCall()).not.toContain(MARK);
  });

  it('a file is read only by the agent and conversation its link was made for', async () => {
    const link = await oneLink(publicAgent, 'ckforeign0000000000001');
    expect((await put(link.signedUrl, NOTES)).status).toBe(200);
    const attachments = [{ name: 'notes.md', url: link.fileUrl }];
    const otherAgent = await ask(otherPublicAgent, { conversationId: 'ckforeign0000000000001', attachments });
    const otherConversation = await ask(publicAgent, { conversationId: 'ckforeign0000000000002', attachments });
    const noConversation = await ask(publicAgent, { attachments });
    // The same URL on another host is the same link (the path decides), and is never fetched.
    const rehosted = await ask(publicAgent, {
      conversationId: 'ckforeign0000000000002',
      attachments: [{ name: 'notes.md', url: link.fileUrl.replace(server.origin, 'https://files.example.com') }],
    });
    for (const response of [otherAgent, otherConversation, noConversation, rehosted]) {
      expect(response.status).toBe(200);
      expect(response.body.warnings.join(' ')).toMatch(
        /was not read: its upload link is unknown, expired, not uploaded, or for another conversation/,
      );
    }
    expect(JSON.stringify(fixture.openai.chatRequests())).not.toContain(MARK);
  });

  it('a link bound to a visitor is read only in that visitor conversation', async () => {
    const first = await ask(publicAgent, {});
    const link = await oneLink(publicAgent, first.body.conversationId, { visitorId: 'someone-else' });
    expect((await put(link.signedUrl, NOTES)).status).toBe(200);
    const answer = await ask(publicAgent, {
      conversationId: first.body.conversationId,
      visitorId: first.body.visitorId,
      attachments: [{ name: 'notes.md', url: link.fileUrl }],
    });
    expect(answer.body.warnings.join(' ')).toMatch(/was not read: its upload link/);
  });

  it('without a key a private or unknown agent is the same 401 as its query; with a key, the owner gets links for it', async () => {
    const item = (agentId: string) => [
      { case: 'chatUpload', agentId, conversationId: 'ckprivate000000000001', fileName: 'a.md', mimeType: 'text/markdown' },
    ];
    const privateAnswer = await links(item(privateAgent));
    const unknownAnswer = await links(item('no-such-agent'));
    const queryAnswer = await api.post('/api/agents/no-such-agent/query', { query: 'x' }, { key: null });
    expect(privateAnswer.status).toBe(401);
    expect(privateAnswer.body).toEqual(unknownAnswer.body);
    expect(privateAnswer.body).toEqual(queryAnswer.body);
    expect((await links(item(privateAgent), fixture.bob)).status).toBe(404);
    expect((await links(item(privateAgent), fixture.alice)).status).toBe(200);
  });

  it('types, sizes and cases are checked up front, and again on the PUT', async () => {
    const item = {
      case: 'chatUpload',
      agentId: publicAgent,
      conversationId: 'cktypes00000000000001',
      fileName: 'notes.md',
      mimeType: 'text/markdown',
    };
    const image = await links([item, { ...item, fileName: 'cat.png', mimeType: 'image/png' }]);
    expect(image.status).toBe(400);
    expect((image.body as ErrorBody).error.details.issues).toEqual([expect.objectContaining({ path: '1.mimeType' })]);
    const big = await links([{ ...item, size: 4_097 }]);
    expect((big.body as ErrorBody).error.details.issues).toEqual([expect.objectContaining({ path: '0.size' })]);
    const icon = await links([{ ...item, case: 'agentIcon' }]);
    expect((icon.body as ErrorBody).error.details.issues).toEqual([expect.objectContaining({ path: '0.case' })]);
    // An empty type (browsers leave it so for .md) is decided by the extension.
    const untyped = await links([{ ...item, mimeType: '' }]);
    expect((untyped.body as Link[])[0]!.mimeType).toBe('text/markdown');

    const link = await oneLink(publicAgent, 'cktypes00000000000001');
    expect((await put(link.signedUrl, NOTES, 'application/pdf')).status).toBe(415);
    expect((await put(link.signedUrl, 'x'.repeat(4_097))).status).toBe(413);
    // Refusals do not use the link up.
    expect((await put(link.signedUrl, NOTES, 'text/markdown; charset=utf-8')).status).toBe(200);
    // The loaders decide from the bytes: an image sent as Markdown is refused at once.
    const disguised = await oneLink(publicAgent, 'cktypes00000000000001');
    const png = new Uint8Array([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
    ]);
    expect((await put(disguised.signedUrl, png)).status).toBe(415);
  });
});

describe('the origin upload links name', () => {
  let fixture: Fixture;
  let agentId: string;
  const item = () => [
    { case: 'chatUpload', agentId, conversationId: 'ckorigin00000000000001', fileName: 'a.md', mimeType: 'text/markdown' },
  ];

  beforeAll(async () => {
    fixture = await openFixture();
    agentId = (await fixture.ragdesk.agents.create({ name: 'A', description: 'd', visibility: 'public' }, { ownerId: 'alice' })).id;
  });
  afterAll(async () => {
    await fixture?.close();
  });

  async function linkVia(handler: typeof fixture.handler, headers: Record<string, string> = {}): Promise<Link> {
    const server = await startServer('node:http', handler);
    try {
      const response = await fetch(`${server.origin}/api/generate-upload-links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(item()),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as Link[])[0]!;
    } finally {
      await server.close();
    }
  }

  it('is the publicUrl option when set, else the request host (https behind a proxy that says so)', async () => {
    const configured = await linkVia(fixture.watch(createHttpHandler(fixture.ragdesk, { publicUrl: 'https://api.example.com/' })));
    expect(configured.fileUrl).toMatch(/^https:\/\/api\.example\.com\/api\/uploads\/rdu_[\w-]{22}$/);
    const proxied = await linkVia(fixture.handler, { 'x-forwarded-proto': 'https' });
    expect(proxied.fileUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/uploads\//);
    const plain = await linkVia(fixture.handler);
    expect(plain.fileUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/uploads\//);
    for (const bad of ['ftp://files.example.com', 'https://api.example.com/base', 'not a url']) {
      expect(() => createHttpHandler(fixture.ragdesk, { publicUrl: bad })).toThrow(/publicUrl/);
    }
  });
});
