import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemas } from '../../src/index.js';
import { openFixture, type Fixture } from './fixture.js';

type JsonObject = Record<string, unknown>;

/**
 * The shape OpenAPI 3.1 requires of the parts this document uses (document, paths, operations,
 * parameters, request bodies, responses, components), written for this test from the specification.
 */
const OPENAPI_31_SHAPE = {
  type: 'object',
  required: ['openapi', 'info', 'paths', 'components'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object', required: ['title', 'version'], properties: { title: { type: 'string' }, version: { type: 'string' } } },
    jsonSchemaDialect: { type: 'string', format: 'uri' },
    paths: {
      type: 'object',
      propertyNames: { pattern: '^/' },
      additionalProperties: {
        type: 'object',
        propertyNames: {
          enum: ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'parameters', 'summary', 'description'],
        },
        additionalProperties: { $ref: '#/$defs/operation' },
      },
    },
    components: {
      type: 'object',
      properties: {
        schemas: { type: 'object', additionalProperties: { type: 'object' } },
        securitySchemes: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            required: ['type'],
            properties: { type: { enum: ['apiKey', 'http', 'mutualTLS', 'oauth2', 'openIdConnect'] } },
          },
        },
      },
    },
  },
  $defs: {
    operation: {
      type: 'object',
      required: ['responses'],
      properties: {
        operationId: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' } },
        deprecated: { type: 'boolean' },
        security: { type: 'array', items: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
        parameters: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'in', 'schema'],
            properties: {
              name: { type: 'string' },
              in: { enum: ['query', 'header', 'path', 'cookie'] },
              required: { type: 'boolean' },
              schema: { type: 'object' },
            },
            if: { properties: { in: { const: 'path' } } },
            then: { required: ['required'], properties: { required: { const: true } } },
          },
        },
        requestBody: { type: 'object', required: ['content'], properties: { content: { $ref: '#/$defs/content' } } },
        responses: {
          type: 'object',
          minProperties: 1,
          propertyNames: { pattern: '^([1-5]\\d\\d|[1-5]XX|default)$' },
          additionalProperties: {
            type: 'object',
            required: ['description'],
            properties: { description: { type: 'string' }, content: { $ref: '#/$defs/content' } },
          },
        },
      },
      patternProperties: { '^x-': {} },
    },
    content: {
      type: 'object',
      propertyNames: { pattern: '^[\\w.+-]+/[\\w.+*-]+$' },
      additionalProperties: { type: 'object', required: ['schema'], properties: { schema: { type: 'object' } } },
    },
  },
};

/** Every endpoint of docs/api.md, as `METHOD path`. */
const EXPECTED_ROUTES = [
  'GET /api/me',
  'GET /api/models',
  'GET /api/usage',
  'GET /api/keys',
  'POST /api/keys',
  'DELETE /api/keys/{id}',
  'POST /api/generate-upload-links',
  'PUT /api/uploads/{id}',
  'POST /datastores/query/{id}',
  'POST /api/agents/{id}/query',
  'POST /api/agents/{id}/ai-sdk',
  'PATCH /api/agents/{id}',
  'DELETE /api/agents/{id}',
  'POST /api/agents',
  'GET /api/agents',
  'GET /api/agents/{id}',
  'GET /api/agents/{id}/conversations',
  'GET /api/conversations/{id}',
  'DELETE /api/conversations/{id}',
  'POST /api/messages/{id}/feedback',
  'POST /api/conversations/eval-answer',
  'POST /api/datastores/{id}/query',
  'POST /api/datastores/upsert/{datastoreId}',
  'POST /api/datastores/update/{datastoreId}',
  'POST /api/external/datastores/upsert/{datastoreId}',
  'POST /api/external/datastores/update/{datastoreId}',
  'POST /api/datastores',
  'GET /api/datastores',
  'GET /api/datastores/{id}',
  'GET /api/datastores/{id}/stats',
  'PATCH /api/datastores/{id}',
  'DELETE /api/datastores/{id}',
  'POST /api/datasources',
  'GET /api/datasources',
  'GET /api/datasources/{id}',
  'GET /api/datasources/{id}/chunks',
  'GET /api/datasources/{id}/pages',
  'PATCH /api/datasources/{id}',
  'DELETE /api/datasources/{id}',
  'POST /api/datasources/{id}/sync',
  'POST /api/external/datastores/file-upload/{datastoreId}',
  'GET /api/openapi.json',
  // Deprecated aliases the reference service serves (two families of paths, some without /api).
  'POST /api/datastores/query/{id}',
  'POST /agents/query/{id}',
  'POST /datastores/upsert/{datastoreId}',
  'POST /datastores/update/{datastoreId}',
  'POST /datastores/file-upload/{datastoreId}',
];

describe('the OpenAPI 3.1 document', () => {
  let fixture: Fixture;
  let document: JsonObject;
  beforeAll(async () => {
    fixture = await openFixture();
    document = fixture.handler.openapi();
  });
  afterAll(() => fixture?.close());

  it('has the shape OpenAPI 3.1 requires and lists every route', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const validate = ajv.compile(OPENAPI_31_SHAPE);
    expect(validate(document), ajv.errorsText(validate.errors)).toBe(true);
    const routes = Object.entries(document.paths as Record<string, JsonObject>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual([...EXPECTED_ROUTES].sort());
  });

  it('declares every path parameter, uses unique operation ids, and every $ref resolves', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(
      document.paths as Record<string, Record<string, { operationId: string; parameters?: { name: string; in: string }[] }>>,
    )) {
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
      for (const operation of Object.values(item)) {
        expect(ids.has(operation.operationId), operation.operationId).toBe(false);
        ids.add(operation.operationId);
        expect(
          (operation.parameters ?? [])
            .filter((p) => p.in === 'path')
            .map((p) => p.name)
            .sort(),
        ).toEqual(templated);
      }
    }
    const components = (document.components as { schemas: JsonObject }).schemas;
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(30);
    for (const ref of refs) {
      const name = /#\/components\/schemas\/(\w+)"$/.exec(ref)?.[1];
      expect(name && components[name], ref).toBeTruthy();
    }
  });

  it('every schema compiles as strict JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, strictRequired: false });
    ajv.addFormat('uri', { validate: (value: string) => URL.canParse(value) });
    const components = (document.components as { schemas: Record<string, JsonObject> }).schemas;
    const rewritten = JSON.parse(JSON.stringify(components).replaceAll('#/components/schemas/', 'components#/$defs/')) as JsonObject;
    ajv.addSchema({ $id: 'components', $defs: rewritten });
    for (const name of Object.keys(components)) expect(() => ajv.getSchema(`components#/$defs/${name}`), name).not.toThrow();
  });

  it('never refuses a body the server accepts (generated from the same zod schemas)', () => {
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
    const components = JSON.parse(
      JSON.stringify((document.components as JsonObject).schemas).replaceAll('#/components/schemas/', 'components#/$defs/'),
    ) as JsonObject;
    ajv.addSchema({ $id: 'components', $defs: components });
    const documented = ajv.getSchema('components#/$defs/DatastoreQueryRequest')!;
    const query = fc.record(
      {
        query: fc.oneof(fc.string(), fc.constant('tides')),
        topK: fc.oneof(fc.integer({ min: -5, max: 2000 }), fc.double()),
        mode: fc.constantFrom('hybrid', 'vector', 'lexical', 'other'),
        filters: fc.record(
          { custom_ids: fc.array(fc.string(), { maxLength: 3 }), datasource_ids: fc.array(fc.string(), { maxLength: 3 }) },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    );
    let accepted = 0;
    fc.assert(
      fc.property(query, (body) => {
        if (schemas.datastoreQuerySchema.safeParse(body).success) {
          accepted++;
          expect(documented(body), JSON.stringify(body)).toBe(true);
        }
      }),
      { numRuns: 500, seed: 5 },
    );
    expect(accepted).toBeGreaterThan(20);
  });
});
