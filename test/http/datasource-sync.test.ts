import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFixtures } from '../../fixtures/make-fixtures.js';
import { openFixture, type Fixture } from './fixture.js';
import { startServer, type RunningServer } from './servers.js';

interface Wire {
  id: string;
  status: string;
  lastSynch: string | null;
  error?: { code: string; details: Record<string, unknown> };
}

describe('POST /api/datasources/{id}/sync (re-sync)', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let datastoreId: string;
  let fileId: string;

  const call = async (method: string, path: string, key: string, body?: FormData) => {
    const response = await fetch(server.origin + path, { method, headers: { authorization: `Bearer ${key}` }, ...(body ? { body } : {}) });
    return { status: response.status, body: (await response.json()) as Wire & { error?: Wire['error'] } };
  };
  const settled = async (id: string): Promise<Wire> => {
    for (;;) {
      const { body } = await call('GET', `/api/datasources/${id}`, fixture.alice);
      if (body.status !== 'pending' && body.status !== 'running') return body;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    fixture = await openFixture();
    server = await startServer('node:http', fixture.handler);
    datastoreId = (await fixture.ragdesk.datastores.create({ name: 'sync' }, { ownerId: 'alice' })).id;
    const form = new FormData();
    form.set('type', 'file');
    form.set('datastoreId', datastoreId);
    form.set('file', new Blob([buildFixtures()['sample.docx'] as Uint8Array]), 'sample.docx');
    const created = await call('POST', '/api/datasources', fixture.alice, form);
    expect(created.status).toBe(200);
    fileId = created.body.id;
    expect((await settled(fileId)).status).toBe('synched');
  });
  afterAll(async () => {
    await server.close();
    await fixture.close();
  });

  it('loads a file datasource again, back through pending, and ends synched with a newer lastSynch', async () => {
    const before = await settled(fileId);
    const queued = await call('POST', `/api/datasources/${fileId}/sync`, fixture.alice);
    expect(queued.status).toBe(200);
    expect(['pending', 'running', 'synched']).toContain(queued.body.status);
    const after = await settled(fileId);
    expect(after.status).toBe('synched');
    expect(after.lastSynch! > before.lastSynch!).toBe(true);
  });

  it('is 409 for a text datasource, 404 for another owner, 403 without the write scope', async () => {
    const datastore = await fixture.ragdesk.datastores.get(datastoreId);
    const [textId] = (await datastore.upsert([{ text: 'Plain text document.' }])).ids;
    const text = await call('POST', `/api/datasources/${textId}/sync`, fixture.alice);
    expect(text.status).toBe(409);
    expect(text.body.error?.code).toBe('conflict');
    expect((await call('POST', `/api/datasources/${fileId}/sync`, fixture.bob)).status).toBe(404);
    const reader = (await fixture.ragdesk.keys.create({ ownerId: 'alice', name: 'reader', scopes: ['read'] })).key;
    const refused = await call('POST', `/api/datasources/${fileId}/sync`, reader);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.details).toMatchObject({ scope: 'write' });
  });
});
