import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTS, openFixture, type Fixture } from './fixture.js';
import { OpenApiValidator } from './openapi-validator.js';
import { startServer, type RunningServer } from './servers.js';

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'HEAD'];

/** Ids that are odd in every way a path segment can be. */
const oddId = fc.oneof(
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.constantFrom(
    '%',
    '%zz',
    '%E0%A4%A',
    '..',
    '.',
    '%2F',
    '%00',
    'a%2Fb',
    '%F0%9F%92%A9',
    '-1',
    '0',
    'null',
    'undefined',
    '__proto__',
    'constructor',
  ),
  fc.integer({ min: 201, max: 3000 }).map((length) => 'x'.repeat(length)),
  fc.uuid(),
);

const hugeNumber = fc.constantFrom('1e309', '-1e309', '18446744073709551616', '-0', '1e-400', '9007199254740993', '0.1e1000000');
const deep = fc.integer({ min: 100, max: 20_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth));
const deepObject = fc.integer({ min: 100, max: 5_000 }).map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth));

/** Bodies: malformed JSON, wrong types, huge numbers, deep nesting, plausible objects with wrong fields. */
const body = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.string({ maxLength: 200 }),
  fc.constantFrom(
    '{',
    '{"query":',
    '[1,2',
    '{"a":1}}',
    'nul',
    '\u0000',
    '{"query":"x"}garbage',
    '\uFEFF{"query":"x"}',
    '{"__proto__":{"admin":true}}',
  ),
  hugeNumber.map((n) => `{"query":"tides","topK":${n},"temperature":${n}}`),
  deep,
  deepObject.map((nested) => `{"documents":[{"text":"x","metadata":${nested}}]}`),
  fc
    .record(
      {
        query: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string())),
        topK: fc.oneof(fc.integer(), fc.double(), fc.string()),
        name: fc.oneof(fc.string({ maxLength: 300 }), fc.integer()),
        description: fc.oneof(fc.string(), fc.boolean()),
        documents: fc.oneof(
          fc.array(
            fc.record({
              text: fc.oneof(fc.string(), fc.integer()),
              metadata: fc.json({ maxDepth: 3 }).map((j) => JSON.parse(j) as unknown),
            }),
            { maxLength: 3 },
          ),
          fc.string(),
        ),
        filters: fc.oneof(fc.record({ custom_ids: fc.array(fc.string()) }), fc.string()),
        tools: fc.oneof(fc.array(fc.record({ type: fc.string(), datastoreId: fc.string() })), fc.integer()),
        streaming: fc.oneof(fc.boolean(), fc.string()),
        type: fc.constantFrom('file', 'web_page', 'web_site', 'other'),
        config: fc.record({ source_url: fc.oneof(fc.webUrl(), fc.string()) }),
        temperature: fc.oneof(fc.double(), fc.constant(1e308)),
        visibility: fc.string(),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  undefined,
  'application/vnd.api+json',
  '',
);

interface Case {
  method: string;
  path: string;
  contentType: string | undefined;
  body: string | undefined;
  auth: 'alice' | 'none' | 'garbage';
}

function fuzzCase(ids: { agent: string; datastore: string }): fc.Arbitrary<Case> {
  const id = fc.oneof(oddId, fc.constantFrom(ids.agent, ids.datastore));
  const path = fc.oneof(
    fc
      .tuple(
        fc.constantFrom(
          '/api/agents/',
          '/api/datastores/',
          '/api/datasources/',
          '/api/datastores/upsert/',
          '/api/datastores/update/',
          '/api/external/datastores/upsert/',
          '/api/external/datastores/update/',
          '/api/external/datastores/file-upload/',
        ),
        id,
      )
      .map(([prefix, value]) => prefix + value),
    fc.tuple(fc.constantFrom('/api/agents/', '/api/datastores/'), id).map(([prefix, value]) => `${prefix}${value}/query`),
    fc.constantFrom(
      '/api/agents',
      '/api/datastores',
      '/api/datasources',
      '/api/datasources?datastoreId=%zz',
      '/api/openapi.json',
      '/api',
      '/api/',
      '/api//agents',
      '/api/agents/x/y/z',
    ),
    fc.string({ maxLength: 40 }).map((rest) => `/api/${encodeURI(rest)}`),
  );
  return fc.record({
    method: fc.constantFrom(...METHODS),
    path,
    contentType,
    body: fc.option(body, { nil: undefined }),
    auth: fc.constantFrom('alice', 'alice', 'none', 'garbage'),
  });
}

let validator: OpenApiValidator;

/** No 5xx; every error has a code and a message; every body matches the OpenAPI document. */
function check(input: Case, response: Response, text: string): void {
  const label = `${input.method} ${input.path.slice(0, 80)}`;
  expect(response.status, label).toBeLessThan(500);
  if (input.method === 'HEAD') return;
  const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
  if (response.status >= 400) {
    expect(typeof parsed.error?.code, label).toBe('string');
    expect(typeof parsed.error?.message, label).toBe('string');
  }
  const path = input.path.split('?')[0]!;
  if (response.headers.get('content-type')?.startsWith('application/json'))
    validator.validate(input.method, path, response.status, response.headers.get('content-type'), parsed);
}

describe('fuzzing every route with malformed input', () => {
  let fixture: Fixture;
  let server: RunningServer;
  let ids: { agent: string; datastore: string };

  beforeAll(async () => {
    fixture = await openFixture({ openai: { reply: () => 'ok' } });
    server = await startServer('node:http', fixture.handler);
    validator = new OpenApiValidator(fixture.handler.openapi());
    const datastore = await fixture.ragdesk.datastores.create({ name: 'fuzz' }, { ownerId: 'alice' });
    await datastore.upsert(DOCUMENTS);
    const agent = await fixture.ragdesk.agents.create(
      { name: 'fuzz', description: 'd', datastoreIds: [datastore.id] },
      { ownerId: 'alice' },
    );
    ids = { agent: agent.id, datastore: datastore.id };
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });

  function request(origin: string, input: Case): Request {
    const headers = new Headers();
    if (input.contentType !== undefined) headers.set('content-type', input.contentType);
    if (input.auth === 'alice') headers.set('authorization', `Bearer ${fixture.alice}`);
    if (input.auth === 'garbage') headers.set('authorization', 'Bearer \u00ff\u00fe');
    const hasBody = input.body !== undefined && input.method !== 'GET' && input.method !== 'HEAD';
    return new Request(`${origin}${input.path}`, { method: input.method, headers, ...(hasBody ? { body: input.body } : {}) });
  }

  it('answers 3000 generated requests in-process (the fetch handler) without a 5xx, each error with a code', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzCase(ids), async (input) => {
        const response = await fixture.handler.fetch(request('http://fuzz.local', input));
        check(input, response, await response.text());
      }),
      { numRuns: 3000, seed: 42 },
    );
    expect(fixture.logged).toEqual([]);
  });

  it('answers 400 generated requests over a real node:http server the same way', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzCase(ids), async (input) => {
        const response = await fetch(request(server.origin, input));
        check(input, response, await response.text());
      }),
      { numRuns: 400, seed: 7 },
    );
    expect(fixture.logged).toEqual([]);
  });
});
