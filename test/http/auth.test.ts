import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type CallOptions } from './client.js';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

interface Operation {
  method: string;
  template: string;
  operationId: string;
  scope: string | null;
}

/** Every route of the document with alice's ids filled in and a body that would be valid for her. */
function concreteRequest(
  operation: Operation,
  ids: { agent: string; datastore: string; datasource: string; conversation: string; message: string; key: string },
): { path: string; options: CallOptions } {
  const path = operation.template
    .replace('/conversations/{id}', `/conversations/${ids.conversation}`)
    .replace('/messages/{id}', `/messages/${ids.message}`)
    .replace('/agents/{id}', `/agents/${ids.agent}`)
    .replace('/agents/query/{id}', `/agents/query/${ids.agent}`)
    .replace('/datasources/{id}', `/datasources/${ids.datasource}`)
    .replace('/keys/{id}', `/keys/${ids.key}`)
    .replace(/\{(id|datastoreId)\}/, ids.datastore);
  const bodies: Record<string, unknown> = {
    createAgent: { name: 'a', description: 'd', tools: [{ type: 'datastore', datastoreId: ids.datastore }] },
    updateAgent: { description: 'changed' },
    deleteAgent: {},
    queryAgent: { query: 'What causes tides?' },
    createDatastore: { name: 'new' },
    updateDatastore: { name: 'renamed' },
    queryDatastore: { query: 'tides' },
    upsertDocuments: { documents: [{ text: 'hello' }] },
    upsertDocumentsExternal: { documents: [{ text: 'hello' }] },
    updateDocument: { id: ids.datasource, text: 'hello' },
    updateDocumentExternal: { id: ids.datasource, text: 'hello' },
    createDatasource: { type: 'web_page', datastoreId: ids.datastore, config: { source_url: 'https://example.invalid/' } },
    generateUploadLinks: [{ case: 'chatUpload', agentId: ids.agent, conversationId: 'c-1', fileName: 'a.md', mimeType: 'text/markdown' }],
    setMessageFeedback: { eval: 'good' },
    createApiKey: { name: 'made in the matrix', scopes: ['read'] },
    evalAnswer: { messageId: ids.message, eval: 'good' },
  };
  // The upload itself takes no key: its link's token is the credential (here an unknown link).
  if (operation.operationId === 'uploadFileToLink')
    return { path, options: { body: 'some text', headers: { 'content-type': 'text/markdown' } } };
  if (operation.operationId.replace(/Alias\d+$/, '') === 'uploadFile') {
    const form = new FormData();
    form.set('file', new Blob(['some text'], { type: 'text/plain' }), 'a.txt');
    return { path, options: { body: form } };
  }
  if (operation.operationId === 'listDatasources') return { path: `${path}?datastoreId=${ids.datastore}`, options: {} };
  // Deprecated aliases (`queryDatastoreAlias1`, ...) take their main route's body.
  const json = bodies[operation.operationId.replace(/Alias\d+$/, '')];
  return { path, options: json === undefined ? {} : { json } };
}

describe("auth matrix: every route without a key, with a wrong key, with another owner's key, with a key lacking scope", () => {
  let fixture: Fixture;
  let server: RunningServer;
  let api: ApiClient;
  let operations: Operation[];
  let ids: { agent: string; datastore: string; datasource: string; conversation: string; message: string; key: string };

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
    const document = fixture.handler.openapi();
    api = new ApiClient(server.origin, new OpenApiValidator(document), fixture.alice);
    operations = Object.entries(
      document.paths as Record<string, Record<string, { operationId: string; 'x-ragdesk-scope'?: string }>>,
    ).flatMap(([template, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        method: method.toUpperCase(),
        template,
        operationId: operation.operationId,
        scope: operation['x-ragdesk-scope'] ?? null,
      })),
    );
    const datastore = (await api.post<{ id: string }>('/api/datastores', { name: "alice's" })).body;
    const upserted = (await api.post<{ ids: string[] }>(`/api/datastores/upsert/${datastore.id}`, { documents: DOCUMENTS })).body;
    const agent = (
      await api.post<{ id: string }>('/api/agents', {
        name: 'private',
        description: 'd',
        tools: [{ type: 'datastore', datastoreId: datastore.id }],
      })
    ).body;
    const answer = (
      await api.post<{ conversationId: string; messageId: string }>(`/api/agents/${agent.id}/query`, { query: 'What causes tides?' })
    ).body;
    ids = {
      agent: agent.id,
      datastore: datastore.id,
      datasource: upserted.ids[0]!,
      conversation: answer.conversationId,
      message: answer.messageId,
      key: (await fixture.ragdesk.keys.create({ ownerId: 'alice', name: 'to revoke', scopes: ['read'] })).apiKey.id,
    };
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  it('covers every route of the document', () => {
    // 39 routes and 7 deprecated aliases of the reference's paths.
    expect(operations.length).toBe(47);
    expect(
      operations
        .filter((operation) => operation.scope === null)
        .map((operation) => operation.operationId)
        .sort(),
    ).toEqual([
      'chatAgentUiMessages',
      'evalAnswer',
      'generateUploadLinks',
      'getAgent',
      'getConversation',
      'getKeyOwner',
      'getOpenApiDocument',
      'listServerModels',
      'queryAgent',
      'queryAgentAlias2',
      'setMessageFeedback',
      'uploadFileToLink',
    ]);
  });

  it('without a key, or with a malformed, unknown or revoked key: 401 everywhere but the document', async () => {
    const revoked = await fixture.ragdesk.keys.create({ ownerId: 'alice', scopes: ['admin'] });
    await fixture.ragdesk.keys.revoke(revoked.apiKey.id);
    const badKeys: (string | null)[] = [null, 'rdk_' + 'x'.repeat(43), 'not a key at all', revoked.key];
    for (const operation of operations) {
      const { path, options } = concreteRequest(operation, ids);
      for (const key of badKeys) {
        const response = await api.call<{ error: { code: string } }>(operation.method, path, { ...options, key });
        const expected = operation.operationId === 'getOpenApiDocument' ? 200 : operation.operationId === 'uploadFileToLink' ? 404 : 401;
        expect(response.status, `${operation.method} ${operation.template} with ${key ? 'a bad key' : 'no key'}`).toBe(expected);
        if (expected === 401) expect(response.body.error.code).toBe('unauthorized');
      }
      const basic = await api.call(operation.method, path, { ...options, key: null, headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' } });
      expect(basic.status, `${operation.method} ${operation.template} with Basic auth`).toBe(
        operation.operationId === 'getOpenApiDocument' ? 200 : operation.operationId === 'uploadFileToLink' ? 404 : 401,
      );
    }
  });

  it("with another owner's key: her ids answer 404, lists leave her out", async () => {
    for (const operation of operations) {
      // The document is anyone's; a new datastore and /me are the caller's own.
      if (['getOpenApiDocument', 'createDatastore', 'getKeyOwner', 'createApiKey'].includes(operation.operationId)) continue;
      const { path, options } = concreteRequest(operation, ids);
      const response = await api.call<unknown>(operation.method, path, { ...options, key: fixture.bob });
      if (operation.operationId === 'listAgents' || operation.operationId === 'listDatastores') {
        expect(response.status).toBe(200);
        expect(response.body).toEqual([]);
      } else if (operation.operationId === 'listApiKeys') {
        expect(response.status).toBe(200);
        expect((response.body as { ownerId: string }[]).map((key) => key.ownerId)).toEqual(['bob']);
      } else if (operation.operationId === 'listServerModels') {
        // The server's models are the same for every owner.
        expect(response.status).toBe(200);
      } else if (operation.operationId === 'getUsage') {
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ ownerId: 'bob', datasources: { used: 0 }, chunks: { used: 0 } });
      } else {
        expect(response.status, `${operation.method} ${operation.template} as bob`).toBe(404);
      }
    }
    expect((await api.get<unknown[]>('/api/datasources', { key: fixture.bob })).body).toEqual([]);
    // Nothing of alice's changed.
    expect((await api.get<{ description: string }>(`/api/agents/${ids.agent}`)).body.description).toBe('d');
  });

  it('with a key lacking the scope: 403', async () => {
    const keys: Record<string, string> = {};
    for (const scope of ['read', 'write', 'query'])
      keys[scope] = (await fixture.ragdesk.keys.create({ ownerId: 'alice', scopes: [scope as 'read'] })).key;
    let checked = 0;
    for (const operation of operations) {
      if (operation.scope === null) continue;
      const { path, options } = concreteRequest(operation, ids);
      for (const [scope, key] of Object.entries(keys)) {
        if (scope === operation.scope) continue;
        const response = await api.call<{ error: { code: string; details: { scope: string } } }>(operation.method, path, {
          ...options,
          key,
        });
        expect(response.status, `${operation.method} ${operation.template} with a ${scope} key`).toBe(403);
        expect(response.body.error).toMatchObject({ code: 'forbidden', details: { scope: operation.scope } });
        checked++;
      }
    }
    expect(checked).toBe(73);
    // Agent Get takes any key for a public agent; a private one still needs `read`.
    for (const scope of ['write', 'query']) {
      const refused = await api.get<{ error: { details: { scope: string } } }>(`/api/agents/${ids.agent}`, { key: keys[scope]! });
      expect(refused.status).toBe(403);
      expect(refused.body.error.details.scope).toBe('read');
    }
    // And each scope does open its own routes.
    expect((await api.get(`/api/datastores/${ids.datastore}`, { key: keys.read! })).status).toBe(200);
    expect((await api.post(`/api/datastores/${ids.datastore}/query`, { query: 'tides' }, { key: keys.query! })).status).toBe(200);
    expect((await api.patch(`/api/datastores/${ids.datastore}`, { description: 'by the write key' }, { key: keys.write! })).status).toBe(
      200,
    );
  });

  it('a key limited to some datastores reaches only those (and agents reading only those)', async () => {
    const other = (await api.post<{ id: string }>('/api/datastores', { name: 'other' })).body;
    const limited = (await fixture.ragdesk.keys.create({ ownerId: 'alice', scopes: ['admin'], datastoreIds: [other.id] })).key;
    expect((await api.get(`/api/datastores/${other.id}`, { key: limited })).status).toBe(200);
    expect((await api.get(`/api/datastores/${ids.datastore}`, { key: limited })).status).toBe(403);
    expect((await api.post(`/api/datastores/${ids.datastore}/query`, { query: 'x' }, { key: limited })).status).toBe(403);
    expect((await api.get(`/api/datasources/${ids.datasource}`, { key: limited })).status).toBe(403);
    expect((await api.get(`/api/agents/${ids.agent}`, { key: limited })).status).toBe(403);
    expect((await api.get<{ id: string }[]>('/api/datastores', { key: limited })).body.map((d) => d.id)).toEqual([other.id]);
    expect((await api.get<unknown[]>('/api/agents', { key: limited })).body).toEqual([]);
    expect((await api.post('/api/datastores', { name: 'more' }, { key: limited })).status).toBe(403);
    const agent = await api.post<{ id: string }>(
      '/api/agents',
      { name: 'scoped', description: 'd', tools: [{ type: 'datastore', datastoreId: other.id }] },
      { key: limited },
    );
    expect(agent.status).toBe(200);
    expect(
      (
        await api.post(
          '/api/agents',
          { name: 'x', description: 'd', tools: [{ type: 'datastore', datastoreId: ids.datastore }] },
          { key: limited },
        )
      ).status,
    ).toBe(403);
    expect(
      (
        await api.patch(
          `/api/agents/${agent.body.id}`,
          { description: 'd', tools: [{ type: 'datastore', datastoreId: ids.datastore }] },
          { key: limited },
        )
      ).status,
    ).toBe(403);
  });

  it('public agents answer without a key and to other owners; private ones do not', async () => {
    fixture.openai.configure({ reply: () => 'Because of the moon.' });
    expect((await api.post(`/api/agents/${ids.agent}/query`, { query: 'tides?' }, { key: null })).status).toBe(401);
    await api.patch(`/api/agents/${ids.agent}`, { description: 'd', visibility: 'public' });
    const anonymous = await api.post<{ answer: string }>(`/api/agents/${ids.agent}/query`, { query: 'tides?' }, { key: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.answer).toBe('Because of the moon.');
    expect((await api.post(`/api/agents/${ids.agent}/query`, { query: 'tides?' }, { key: fixture.bob })).status).toBe(200);
    // Public means queryable and readable in its public view, not manageable.
    const seen = await api.get<Record<string, unknown>>(`/api/agents/${ids.agent}`, { key: fixture.bob });
    expect(seen.status).toBe(200);
    expect(seen.body).not.toHaveProperty('systemPrompt');
    expect(seen.body).not.toHaveProperty('ownerId');
    expect((await api.patch(`/api/agents/${ids.agent}`, { description: 'mine now' }, { key: fixture.bob })).status).toBe(404);
    expect((await api.post(`/api/agents/${ids.agent}/query`, { query: 'tides?' }, { key: 'rdk_' + 'y'.repeat(43) })).status).toBe(401);
    await api.patch(`/api/agents/${ids.agent}`, { description: 'd', visibility: 'private' });
  });

  it("accepts keys from configuration (RAGDESK_API_KEY) as the owner's admin key", async () => {
    const configured = 'operator-secret-0123456789';
    const local = await openFixture({ http: { apiKeys: [{ key: configured, ownerId: 'alice' }] } });
    const localServer = await startServer('node:http', local.handler);
    try {
      const client = new ApiClient(localServer.origin, new OpenApiValidator(local.handler.openapi()), configured);
      const created = await client.post<{ ownerId: string }>('/api/datastores', { name: 'from env' });
      expect(created.body.ownerId).toBe('alice');
      expect((await client.get('/api/datastores', { key: 'operator-secret-0123456788' })).status).toBe(401);
    } finally {
      await localServer.close();
      await local.close();
    }
  });
});
