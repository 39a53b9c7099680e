import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../http/client.js';
import { DOCUMENTS, openFixture, type Fixture } from '../http/fixture.js';
import { OpenApiValidator } from '../http/openapi-validator.js';
import { startServer, type RunningServer } from '../http/servers.js';

interface QueryAnswer {
  answer: string;
  conversationId: string;
  visitorId: string;
  warnings: string[];
  sources: { datasource_name: string }[];
}
interface ErrorBody {
  error: { code: string; details: { issues?: { path: string }[] } };
}

describe('agent query accepts the fields the reference clients send', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let agentId: string;
  let tides: string;
  let bread: string;

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
    api = new ApiClient(server.origin, new OpenApiValidator(fixture.handler.openapi()), fixture.alice);
    tides = (await api.post<{ id: string }>('/api/datastores', { name: 'Tides' })).body.id;
    bread = (await api.post<{ id: string }>('/api/datastores', { name: 'Bread' })).body.id;
    await api.post(`/api/datastores/upsert/${tides}`, { documents: [DOCUMENTS[0]] });
    await api.post(`/api/datastores/upsert/${bread}`, { documents: [DOCUMENTS[2]] });
    agentId = (
      await api.post<{ id: string }>('/api/agents', {
        name: 'Both',
        description: 'd',
        tools: [
          { type: 'datastore', datastoreId: tides },
          { type: 'datastore', datastoreId: bread },
        ],
      })
    ).body.id;
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('null and "" ids mean absent; channel and empty attachments are accepted without a warning', async () => {
    const first = await api.post<QueryAnswer>(`/api/agents/${agentId}/query`, {
      query: 'hi',
      visitorId: null,
      conversationId: 'ckz9w8x7y0000abcdxyz12345',
      channel: 'website',
      attachments: [],
    });
    expect(first.status).toBe(200);
    expect(first.body.conversationId).toBe('ckz9w8x7y0000abcdxyz12345');
    expect(first.body.warnings.filter((warning) => warning.startsWith('ignored'))).toEqual([]);
    const empty = await api.post<QueryAnswer>(`/api/agents/${agentId}/query`, {
      query: 'x',
      visitorId: '',
      conversationId: '',
      contactId: null,
      formId: '',
    });
    expect(empty.status).toBe(200);
    expect(empty.body.conversationId).not.toBe(first.body.conversationId);
  });

  it('fields with no meaning here are reported once in warnings', async () => {
    const response = await api.post<QueryAnswer>(`/api/agents/${agentId}/query`, {
      query: 'hi',
      isDraft: true,
      truncateQuery: true,
      attachmentsForAI: ['ckz9w8x7y0000abcdxyz12345'],
      images: ['https://example.com/a.png'],
      toolsConfig: { ckz9w8x7y0000abcdxyz12345: { x: 1 } },
      formId: 'ckz9w8x7y0000abcdxyz12345',
      contactId: 'ckz9w8x7y0000abcdxyz12345',
      contact: { email: 'ada@example.com' },
    });
    expect(response.status).toBe(200);
    const ignored = response.body.warnings.filter((warning) => warning.startsWith('ignored'));
    expect(ignored).toHaveLength(1);
    for (const field of ['attachmentsForAI', 'images', 'isDraft', 'truncateQuery', 'toolsConfig', 'formId', 'contactId'])
      expect(ignored[0]).toContain(field);
    expect(ignored[0]).not.toContain('contact,');
  });

  it('contact is stored with the new conversation', async () => {
    const response = await api.post<QueryAnswer>(`/api/agents/${agentId}/query`, {
      query: 'hi',
      conversationId: 'ckz9w8x7y0000contact000001',
      contact: { email: 'ada@example.com', firstName: 'Ada', conversationId: 'x' },
    });
    expect(response.status).toBe(200);
    const db = new Database(join(fixture.dir, 'ragdesk.db'), { readonly: true });
    try {
      const row = db.prepare('SELECT contact FROM conversations WHERE id = ?').get('ckz9w8x7y0000contact000001') as { contact: string };
      expect(JSON.parse(row.contact)).toEqual({ email: 'ada@example.com', firstName: 'Ada' });
    } finally {
      db.close();
    }
  });

  it('context reaches the model in the user message, fenced, not in the system prompt', async () => {
    await api.post(`/api/agents/${agentId}/query`, { query: 'hi', context: 'The user is called Ada.' });
    const sent = fixture.openai.chatRequests().at(-1)!.messages;
    expect(sent[0]!.role).toBe('system');
    expect(sent[0]!.content).not.toContain('Ada');
    expect(sent.at(-1)!.role).toBe('user');
    expect(sent.at(-1)!.content).toMatch(/^<caller_context>\n[^]*\nThe user is called Ada\.\n<\/caller_context>\n/);
  });

  it('an unknown key that no reference client sends is still a 400 naming it', async () => {
    const response = await api.post<ErrorBody>(`/api/agents/${agentId}/query`, { query: 'hi', chanel: 'website' });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body.error)).toContain('chanel');
  });

  it('filters.datastore_ids narrows the agent to those datastores; one it does not read is 403', async () => {
    const narrowed = await api.post<QueryAnswer>(`/api/agents/${agentId}/query`, {
      query: 'What makes sourdough bread rise?',
      filters: { datastore_ids: [tides] },
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.sources.map((source) => source.datasource_name)).toEqual(['tides.md']);
    const other = (await api.post<{ id: string }>('/api/datastores', { name: 'Other' })).body.id;
    const refused = await api.post<ErrorBody>(`/api/agents/${agentId}/query`, { query: 'x', filters: { datastore_ids: [other] } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.issues?.[0]?.path).toBe('filters.datastore_ids');
  });

  it('datastore_ids on a datastore query is a 400 naming the field', async () => {
    const response = await api.post<ErrorBody>(`/api/datastores/${tides}/query`, { query: 'tides', filters: { datastore_ids: [tides] } });
    expect(response.status).toBe(400);
    expect(response.body.error.details.issues?.map((issue) => issue.path)).toEqual(['filters.datastore_ids']);
  });
});
