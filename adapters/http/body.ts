import { RagdeskError } from '../../src/index.js';
import type { HttpRequest } from './types.js';

const JSON_TYPE = /^application\/(?:json|[\w.+-]+\+json)\s*(?:;|$)/i;
/**
 * Deepest nesting of arrays and objects a JSON body may have. Every request shape is a few levels
 * deep (metadata is flat); the limit is checked on the bytes as they arrive, so a body of a million
 * `[` is refused after 65 bytes instead of costing a JSON.parse that blocks the event loop for half
 * a second (and recursive code further on, such as JSON.stringify, a stack overflow).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Reads a JSON body within `limit` bytes. Empty body → `{}` (so DELETE without a body works and a
 * POST without one fails field validation with named fields). Wrong content type → 415, too large
 * → 413 (as soon as the limit is passed, without reading on), malformed → 400. Never a 500.
 */
async function readJsonBody(request: HttpRequest, limit: number): Promise<unknown> {
  if (request.parsedBody !== undefined) {
    // A framework parsed it already (express.json()): the same limit, checked on the values.
    if (depthOf(request.parsedBody, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw tooDeep();
    return request.parsedBody;
  }
  const contentType = request.header('content-type');
  const declared = declaredLength(request);
  if (declared === 0 || request.body === null) return {};
  if (contentType !== undefined && !JSON_TYPE.test(contentType)) {
    throw new RagdeskError(
      'unsupported_media_type',
      `Expected Content-Type application/json, got ${JSON.stringify(contentType.slice(0, 100))}`,
      {
        details: { expected: 'application/json' },
      },
    );
  }
  if (declared !== undefined && declared > limit) throw tooLarge(limit);
  const bytes = await readAll(request.body, limit, new JsonDepthGuard(MAX_JSON_DEPTH));
  if (bytes.length === 0) return {};
  if (contentType === undefined) {
    throw new RagdeskError('unsupported_media_type', 'A request body needs Content-Type application/json', {
      details: { expected: 'application/json' },
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new RagdeskError('invalid_request', 'The request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'syntax error';
    throw new RagdeskError('invalid_request', `Malformed JSON body: ${reason.slice(0, 200)}`, {
      details: { issues: [{ path: '', message: 'malformed JSON' }] },
    });
  }
}

/** The body as any JSON value (an empty body is `{}`). */
export function readJsonValue(request: HttpRequest, limit: number): Promise<unknown> {
  return readJsonBody(request, limit);
}

/** The body's bytes within `limit` (413 as soon as it is passed, declared or read). */
export async function readBytes(request: HttpRequest, limit: number): Promise<Uint8Array> {
  const declared = declaredLength(request);
  if (declared !== undefined && declared > limit) throw tooLarge(limit);
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of request.body) {
    total += chunk.length;
    if (total > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** The body as one object; fails with 400 when it is JSON but not an object. */
export async function readJsonObject(request: HttpRequest, limit: number): Promise<Record<string, unknown>> {
  const body = await readJsonBody(request, limit);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new RagdeskError('invalid_request', 'The request body must be a JSON object', {
      details: { issues: [{ path: '', message: 'expected a JSON object' }] },
    });
  }
  return body as Record<string, unknown>;
}

export function declaredLength(request: HttpRequest): number | undefined {
  const header = request.header('content-length');
  if (header === undefined || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

export function tooLarge(limit: number): RagdeskError {
  return new RagdeskError('payload_too_large', `The request body is larger than ${limit} bytes`, { details: { limit } });
}

async function readAll(body: AsyncIterable<Uint8Array>, limit: number, guard: JsonDepthGuard): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limit) throw tooLarge(limit);
    guard.feed(chunk);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function tooDeep(): RagdeskError {
  return new RagdeskError('invalid_request', `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`, {
    details: { issues: [{ path: '', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }], maxDepth: MAX_JSON_DEPTH },
  });
}

/**
 * Tracks the nesting depth of JSON text chunk by chunk (brackets inside strings do not count) and
 * throws as soon as it passes the limit. Malformed text is left for JSON.parse to report.
 */
class JsonDepthGuard {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly max: number) {}

  feed(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === 0x5c)
          this.escaped = true; // backslash
        else if (byte === 0x22) this.inString = false; // quote
      } else if (byte === 0x22) {
        this.inString = true;
      } else if (byte === 0x5b || byte === 0x7b) {
        if (++this.depth > this.max) throw tooDeep();
      } else if (byte === 0x5d || byte === 0x7d) {
        this.depth--;
      }
    }
  }
}

/** Depth of a parsed value, stopping once past `max`; iterative, so a deep value cannot overflow the stack. */
function depthOf(value: unknown, max: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > max) return deepest;
    for (const inner of Object.values(current)) stack.push([inner, depth + 1]);
  }
  return deepest;
}
