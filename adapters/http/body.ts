import { RagdeskError } from '../../src/index.js';
import type { HttpRequest } from './types.js';

const JSON_TYPE = /^application\/(?:json|[\w.+-]+\+json)\s*(?:;|$)/i;

/**
 * Reads a JSON body within `limit` bytes. Empty body → `{}` (so DELETE without a body works and a
 * POST without one fails field validation with named fields). Wrong content type → 415, too large
 * → 413 (as soon as the limit is passed, without reading on), malformed → 400. Never a 500.
 */
export async function readJsonBody(request: HttpRequest, limit: number): Promise<unknown> {
  if (request.parsedBody !== undefined) return request.parsedBody;
  const contentType = request.header('content-type');
  const declared = declaredLength(request);
  if (declared === 0 || request.body === null) return {};
  if (contentType !== undefined && !JSON_TYPE.test(contentType)) {
    throw new RagdeskError('unsupported_media_type', `Expected Content-Type application/json, got ${JSON.stringify(contentType.slice(0, 100))}`, {
      details: { expected: 'application/json' },
    });
  }
  if (declared !== undefined && declared > limit) throw tooLarge(limit);
  const bytes = await readAll(request.body, limit);
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
    throw new RagdeskError('invalid_request', `Malformed JSON body: ${reason.slice(0, 200)}`, { details: { issues: [{ path: '', message: 'malformed JSON' }] } });
  }
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

async function readAll(body: AsyncIterable<Uint8Array>, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}
