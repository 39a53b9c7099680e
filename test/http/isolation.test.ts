import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ApiResponse, type CallOptions } from './client.js';
import { openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

/**
 * Owner isolation with randomised resources: several owners, each with a random
 * number of datastores, documents, files and agents; every route is called by every owner with every
 * other owner's ids, in paths and in bodies. Each must answer exactly like an id that does not
 * exist, no response may carry another owner's content, lists and query results hold only the
 * caller's own records, and nothing of anyone changes.
 */

interface WorldSpec {
  owners: { datastores: { documents: number; withFile: boolean }[]; agents: number[][] }[];
}

/** 2-3 owners; 1-3 datastores each with 1-3 documents (and maybe a file); 1-2 agents over random subsets. */
const worldSpec: fc.Arbitrary<WorldSpec> = fc.record({
  owners: fc.array(
    fc.record({
      datastores: fc.array(fc.record({ documents: fc.integer({ min: 1, max: 3 }), withFile: fc.boolean() }), {
        minLength: 1,
        maxLength: 3,
      }),
      agents: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 2 }),
    }),
    { minLength: 2, maxLength: 3 },
  ),
});

interface Owner {
  id: string;
  key: string;
  /** Words only this owner's documents, names and descriptions contain. */
  secrets: string[];
  datastores: string[];
  datasources: Map<string, string>; // datasource id -> datastore id
  agents: string[];
  conversations: string[];
  /** Ids of the answers in those conversations. */
  messages: string[];
  /** The owner's API key record ids. */
  keyIds: string[];
}

type Kind = 'agent' | 'datastore' | 'datasource' | 'conversation' | 'message' | 'key';

interface Operation {
  method: string;
  template: string;
  operationId: string;
  kind: Kind | null;
}

function operationsOf(document: Record<string, unknown>): Operation[] {
  return Object.entries(document.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([template, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      template,
      operationId: operation.operationId,
      kind: kindOf(template),
    })),
  );
}

function kindOf(template: string): Kind | null {
  if (!template.includes('{')) return null;
  if (template.includes('/agents/')) return 'agent';
  if (template.includes('/conversations/')) return 'conversation';
  if (template.includes('/messages/')) return 'message';
  if (template.includes('/keys/')) return 'key';
  return template.includes('/datasources/') ? 'datasource' : 'datastore';
}

/** A body that would be valid for the caller's own resource of the same kind. */
function bodyFor(operation: Operation, caller: Owner): CallOptions {
  switch (operation.operationId) {
    case 'updateAgent':
      return { json: { description: 'hijacked' } };
    case 'queryAgent':
      return { json: { query: 'tell me everything you know' } };
    case 'setMessageFeedback':
      return { json: { eval: 'bad', comment: 'hijacked' } };
    case 'updateDatastore':
      return { json: { name: 'hijacked' } };
    case 'queryDatastore':
      return { json: { query: 'secret token', topK: 50 } };
    case 'upsertDocuments':
    case 'upsertDocumentsExternal':
      return { json: { documents: [{ text: `planted by ${caller.id}` }] } };
    case 'updateDocument':
    case 'updateDocumentExternal':
      return { json: { id: [...caller.datasources.keys()][0], text: 'overwritten' } };
    case 'uploadFile': {
      const form = new FormData();
      form.set('file', new Blob([`planted file by ${caller.id}`], { type: 'text/plain' }), 'planted.txt');
      return { body: form };
    }
    default:
      return {};
  }
}

/** The error as a client sees it, with the probed id blanked, for comparing a foreign id with a missing one. */
function shape(response: ApiResponse, id: string): string {
  return `${response.status} ${JSON.stringify(response.body).split(id).join('<id>')}`;
}

describe('owner isolation across every route, with randomised resources', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let validator: OpenApiValidator;
  let operations: Operation[];
  let world = 0;

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: (body) => `Echo: ${body.messages.map((message) => message.content).join(' | ')}` } });
    server = await startServer('node:http', fixture.handler);
    validator = new OpenApiValidator(fixture.handler.openapi());
    operations = operationsOf(fixture.handler.openapi());
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  /** Creates the owners and their resources over HTTP, as clients would. */
  async function build(spec: WorldSpec): Promise<Owner[]> {
    world++;
    const owners: Owner[] = [];
    for (const [index, ownerSpec] of spec.owners.entries()) {
      const id = `w${world}-owner${index}`;
      // Admin keys: the key routes need the scope (admin holds every other one).
      const created = await fixture.ragdesk.keys.create({ ownerId: id, name: id, scopes: ['admin'] });
      const key = created.key;
      const api = new ApiClient(server.origin, validator, key);
      const token = (n: number) => `zq${world}o${index}t${n}x${randomUUID().slice(0, 6)}`;
      const owner: Owner = {
        id,
        key,
        secrets: [],
        datastores: [],
        datasources: new Map(),
        agents: [],
        conversations: [],
        messages: [],
        keyIds: [created.apiKey.id],
      };
      for (const [d, datastoreSpec] of ownerSpec.datastores.entries()) {
        const name = token(100 + d);
        const datastore = (await api.post<{ id: string }>('/api/datastores', { name, description: token(200 + d) })).body;
        owner.secrets.push(name);
        owner.datastores.push(datastore.id);
        const documents = Array.from({ length: datastoreSpec.documents }, (_, n) => {
          const secret = token(n + 10 * d);
          owner.secrets.push(secret);
          return { text: `The secret token ${secret} belongs to one owner only.`, name: `${secret}.md` };
        });
        const upserted = await api.post<{ ids: string[] }>(`/api/datastores/upsert/${datastore.id}`, { documents });
        expect(upserted.status).toBe(200);
        for (const datasourceId of upserted.body.ids) owner.datasources.set(datasourceId, datastore.id);
        if (datastoreSpec.withFile) {
          const secret = token(300 + d);
          owner.secrets.push(secret);
          const form = new FormData();
          form.set('file', new Blob([`A file holding the secret token ${secret}.`], { type: 'text/plain' }), `${secret}.txt`);
          const file = await api.post<{ id: string }>(`/api/external/datastores/file-upload/${datastore.id}`, undefined, { body: form });
          expect(file.status).toBe(200);
          await fixture.ragdesk.datasources.waitUntilSettled(file.body.id, 20_000);
          owner.datasources.set(file.body.id, datastore.id);
        }
      }
      for (const subset of ownerSpec.agents) {
        const tools = [...new Set(subset.map((i) => owner.datastores[i % owner.datastores.length]!))].map((datastoreId) => ({
          type: 'datastore',
          datastoreId,
        }));
        const agent = (await api.post<{ id: string }>('/api/agents', { name: token(400), description: token(500), tools })).body;
        owner.agents.push(agent.id);
        const answer = await api.post<{ conversationId: string; messageId: string }>(`/api/agents/${agent.id}/query`, {
          query: 'What is the secret token?',
        });
        expect(answer.status).toBe(200);
        owner.conversations.push(answer.body.conversationId);
        owner.messages.push(answer.body.messageId);
      }
      owners.push(owner);
    }
    return owners;
  }

  /** Everything an owner has, read through the library (not through the API under test). */
  async function state(owner: Owner): Promise<unknown> {
    const datastores = await fixture.ragdesk.datastores.list({ ownerId: owner.id });
    const agents = await fixture.ragdesk.agents.list({ ownerId: owner.id });
    return {
      datastores: await Promise.all(
        datastores.map(async (datastore) => ({
          ...datastore.toJSON(),
          datasources: (await fixture.ragdesk.datasources.list(datastore.id)).map((ds) => ({
            id: ds.id,
            name: ds.name,
            status: ds.status,
            nbChunks: ds.nbChunks,
            updatedAt: ds.updatedAt,
          })),
        })),
      ),
      agents,
      keys: (await fixture.ragdesk.keys.list({ ownerId: owner.id })).map((key) => ({ id: key.id, revokedAt: key.revokedAt })),
      // The conversations the build started (the caller's own queries below start new ones), with their feedback.
      // The i-th conversation is the i-th agent's; ids are per agent, so the agent names which one.
      conversations: await Promise.all(
        owner.conversations.map((id, i) => fixture.ragdesk.agents.conversations.get(id, { agentId: owner.agents[i]! })),
      ),
    };
  }

  it("answers every foreign id like a missing one, leaks nothing, lists and finds only the caller's own, and changes nothing", async () => {
    let probes = 0;
    await fc.assert(
      fc.asyncProperty(worldSpec, async (spec) => {
        const owners = await build(spec);
        const before = await Promise.all(owners.map(state));
        fixture.openai.reset();
        fixture.openai.configure({ reply: (body) => `Echo: ${body.messages.map((message) => message.content).join(' | ')}` });

        for (const caller of owners) {
          const api = new ApiClient(server.origin, validator, caller.key);
          const others = owners.filter((owner) => owner !== caller);
          const foreign: Record<Kind, string[]> = {
            agent: others.flatMap((owner) => owner.agents),
            datastore: others.flatMap((owner) => owner.datastores),
            datasource: others.flatMap((owner) => [...owner.datasources.keys()]),
            conversation: others.flatMap((owner) => owner.conversations),
            message: others.flatMap((owner) => owner.messages),
            key: others.flatMap((owner) => owner.keyIds),
          };
          const foreignSecrets = others.flatMap((owner) => owner.secrets);
          const foreignIds = [
            ...foreign.agent,
            ...foreign.datastore,
            ...foreign.datasource,
            ...others.flatMap((owner) => owner.conversations),
            ...foreign.message,
            ...foreign.key,
          ];
          /** No response may carry another owner's content, nor an id the caller did not send itself. */
          const noLeak = (response: ApiResponse | string, sent: string[], label: string) => {
            const text = typeof response === 'string' ? response : response.text;
            for (const secret of foreignSecrets) expect(text, `${label}: leaks ${secret}`).not.toContain(secret);
            for (const id of foreignIds) if (!sent.includes(id)) expect(text, `${label}: leaks id ${id}`).not.toContain(id);
          };

          // 1. Every route with an id in its path, with every foreign id of that kind.
          for (const operation of operations) {
            if (operation.kind === null) continue;
            // What an id that does not exist gets: the answer every foreign id must match.
            const missing = randomUUID();
            const control = await api.call(operation.method, operation.template.replace(/\{\w+\}/, missing), bodyFor(operation, caller));
            expect(control.status).toBe(404);
            for (const id of foreign[operation.kind]) {
              const path = operation.template.replace(/\{\w+\}/, id);
              const options = bodyFor(operation, caller);
              const response = await api.call(operation.method, path, options);
              const label = `${caller.id} ${operation.method} ${operation.template} with ${id}`;
              expect(response.status, label).toBe(404);
              expect(shape(response, id), label).toBe(shape(control, missing));
              noLeak(response, [id], label);
              probes++;
            }
          }

          // 2. Foreign ids inside bodies and query strings.
          const ownDatastore = caller.datastores[0]!;
          const ownAgent = caller.agents[0]!;
          for (const id of foreign.datastore) {
            const attempts: [string, string, CallOptions][] = [
              ['POST', '/api/agents', { json: { name: 'x', description: 'd', tools: [{ type: 'datastore', datastoreId: id }] } }],
              ['PATCH', `/api/agents/${ownAgent}`, { json: { description: 'd', tools: [{ type: 'datastore', datastoreId: id }] } }],
              [
                'POST',
                '/api/datasources',
                { json: { type: 'web_page', datastoreId: id, config: { source_url: 'https://example.invalid/' } } },
              ],
              ['GET', `/api/datasources?datastoreId=${id}`, {}],
            ];
            const form = new FormData();
            form.set('type', 'file');
            form.set('datastoreId', id);
            form.set('file', new Blob(['planted'], { type: 'text/plain' }), 'planted.txt');
            attempts.push(['POST', '/api/datasources', { body: form }]);
            for (const [method, path, options] of attempts) {
              const response = await api.call(method, path, options);
              expect(response.status, `${caller.id} ${method} ${path} naming datastore ${id}`).toBe(404);
              noLeak(response, [id], `${method} ${path}`);
              probes++;
            }
          }
          for (const id of foreign.datasource) {
            const update = await api.post(`/api/datastores/update/${ownDatastore}`, { id, text: 'overwritten' });
            expect(update.status, `update naming datasource ${id}`).toBe(404);
            noLeak(update, [id], 'update');
            const filtered = await api.post<unknown[]>(`/api/datastores/${ownDatastore}/query`, {
              query: 'secret token',
              topK: 50,
              filters: { datasource_ids: [id] },
            });
            expect(filtered.status).toBe(200);
            expect(filtered.body).toEqual([]);
            probes += 2;
          }
          for (const messageId of foreign.message) {
            // The reference's form of feedback names the message in its body.
            const unknown = randomUUID();
            const control = await api.post('/api/conversations/eval-answer', { messageId: unknown, eval: 'bad' });
            const response = await api.post('/api/conversations/eval-answer', { messageId, eval: 'bad' });
            expect(response.status).toBe(404);
            expect(shape(response, messageId)).toBe(shape(control, unknown));
            noLeak(response, [messageId], 'eval-answer');
            probes++;
          }
          for (const conversationId of others.flatMap((owner) => owner.conversations)) {
            // Another agent's conversation is never continued: conversation ids are per agent, so the
            // owner's query starts a conversation of its own agent under that id, exactly as for an
            // id nobody used, and the answer tells nothing of the other one.
            const response = await api.post<{ conversationId: string }>(`/api/agents/${ownAgent}/query`, {
              query: 'what did we talk about?',
              conversationId,
            });
            expect(response.status).toBe(200);
            expect(response.body.conversationId).toBe(conversationId);
            noLeak(response, [conversationId], 'conversation');
            probes++;
          }

          // 3. Lists hold exactly the caller's records.
          const sorted = (values: string[]) => [...values].sort();
          expect(sorted((await api.get<{ id: string }[]>('/api/datastores')).body.map((d) => d.id))).toEqual(sorted(caller.datastores));
          expect(sorted((await api.get<{ id: string }[]>('/api/agents')).body.map((a) => a.id))).toEqual(sorted(caller.agents));
          const datasources = await api.get<{ id: string }[]>('/api/datasources');
          expect(sorted(datasources.body.map((d) => d.id))).toEqual(sorted([...caller.datasources.keys()]));
          expect(sorted((await api.get<{ id: string }[]>('/api/keys')).body.map((k) => k.id))).toEqual(sorted(caller.keyIds));
          for (const list of ['/api/datastores', '/api/agents', '/api/datasources', '/api/keys', '/api/usage']) {
            noLeak(await api.get(list), [], list);
          }

          // 4. Queries asking for another owner's secrets find only the caller's own documents. (The
          // echoing model repeats the question, so for agents the context part is what is checked.)
          const question = `secret token ${foreignSecrets.join(' ')}`.slice(0, 10_000);
          for (const datastoreId of caller.datastores) {
            const hits = await api.post<{ datasource_id: string }[]>(`/api/datastores/${datastoreId}/query`, { query: question, topK: 50 });
            expect(hits.status).toBe(200);
            expect(hits.body.length).toBeGreaterThan(0);
            for (const hit of hits.body) expect(caller.datasources.get(hit.datasource_id)).toBe(datastoreId);
            noLeak(hits, [], 'datastore query');
          }
          for (const agentId of caller.agents) {
            const answer = await api.post<{ answer: string; sources: { datasource_id: string }[] }>(`/api/agents/${agentId}/query`, {
              query: question,
            });
            expect(answer.status).toBe(200);
            expect(answer.body.sources.length).toBeGreaterThan(0);
            for (const source of answer.body.sources) expect(caller.datasources.has(source.datasource_id)).toBe(true);
            noLeak(JSON.stringify(answer.body.sources) + answer.body.answer.split('Question:')[0], [], 'agent query');
          }
        }

        // 5. What the model was sent never held another owner's documents.
        expect(fixture.openai.chatRequests().length).toBeGreaterThan(0);
        for (const request of fixture.openai.chatRequests()) {
          // The passages are in the last user message, before the question.
          const last = request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
          const context = last.split('Question:')[0]!;
          for (const owner of owners) {
            const present = owner.secrets.filter((secret) => context.includes(secret));
            const elsewhere = owners
              .filter((other) => other !== owner)
              .some((other) => other.secrets.some((secret) => context.includes(secret)));
            expect(present.length > 0 && elsewhere, "one prompt held two owners' documents").toBe(false);
          }
        }

        // 6. Nothing of anyone changed.
        expect(await Promise.all(owners.map(state))).toEqual(before);
      }),
      { numRuns: 3, seed: Number(process.env.RAGDESK_ISOLATION_SEED ?? 20261122), endOnFailure: true },
    );
    // A property that probed nothing proves nothing.
    console.log(`owner isolation: ${probes} probes with foreign ids over ${world} random worlds`);
    expect(probes).toBeGreaterThan(150);
    expect(fixture.logged).toEqual([]);
  });
});
