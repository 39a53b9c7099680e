import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';

type JsonObject = Record<string, unknown>;

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  literals: number;
  responses: Record<string, { content?: Record<string, { schema?: JsonObject }> }>;
}

/**
 * Validates live responses against the served OpenAPI document: finds the operation by method and
 * path template, the response by status (else `default`), and checks the JSON body with ajv
 * (JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
export class OpenApiValidator {
  readonly ajv = new Ajv2020({ strict: true, allErrors: true, strictRequired: false, allowUnionTypes: true });
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();
  /** How many responses were checked, per `METHOD template status`. */
  readonly checked = new Map<string, number>();

  constructor(readonly document: JsonObject) {
    this.ajv.addFormat('uri', { validate: (value: string) => URL.canParse(value) });
    const components = (document.components as { schemas: Record<string, JsonObject> }).schemas;
    this.ajv.addSchema({ $id: 'ragdesk', $defs: rewriteRefs(components) as JsonObject });
    for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, JsonObject>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const parts = template.split('/');
        this.operations.push({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${parts.map((part) => (/^\{\w+\}$/.test(part) ? '[^/]+' : escape(part))).join('/')}$`),
          literals: parts.filter((part) => !part.startsWith('{')).length,
          responses: operation.responses as Operation['responses'],
        });
      }
    }
    this.operations.sort((a, b) => b.literals - a.literals);
  }

  /** Throws with ajv's errors when the body does not match what the document promises. */
  validate(method: string, rawPath: string, status: number, contentType: string | null, body: unknown): void {
    // The server treats one trailing slash as absent; so does the lookup here.
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const operation = this.operations.find((candidate) => candidate.method === method && candidate.pattern.test(path));
    if (!operation) {
      // Unknown paths and methods answer the generic error shape.
      this.check(`${method} (unrouted) ${status}`, { $ref: '#/components/schemas/Error' }, body);
      return;
    }
    const response = operation.responses[String(status)] ?? operation.responses.default;
    if (!response) throw new Error(`${method} ${operation.template}: status ${status} is not documented`);
    const type = (contentType ?? '').split(';')[0]!.trim();
    const media = response.content?.[type];
    if (!media?.schema) throw new Error(`${method} ${operation.template} ${status}: content type ${type} is not documented`);
    if (type !== 'application/json') return;
    this.check(`${method} ${operation.template} ${status}`, media.schema, body);
  }

  private check(label: string, schema: JsonObject, body: unknown): void {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema) as JsonObject);
      this.compiled.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `${label}: response does not match the OpenAPI document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
      );
    }
    this.checked.set(label, (this.checked.get(label) ?? 0) + 1);
  }
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  const result: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) {
    result[key] =
      key === '$ref' && typeof inner === 'string' ? inner.replace('#/components/schemas/', 'ragdesk#/$defs/') : rewriteRefs(inner);
  }
  return result;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
