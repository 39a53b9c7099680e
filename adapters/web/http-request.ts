/**
 * One HTTP exchange over node:http / node:https (not global fetch) so the socket goes to the exact
 * address the policy checked: the request's `lookup` answers with that address only.
 */
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RagdeskError } from '../../src/errors.js';
import { statusError } from './http-errors.js';
import { isAcceptedType, parseMediaType, type MediaType, type ResourceKind } from './media-types.js';
import type { ResolvedAddress } from './options.js';
import { readBody } from './read-body.js';

export interface HopRequest {
  url: URL;
  target: ResolvedAddress;
  kind: ResourceKind;
  userAgent: string;
  maxBytes: number;
  signal: AbortSignal;
  /** Sent as `If-None-Match` / `If-Modified-Since`: a 304 then answers `not_modified`. */
  conditional?: { etag?: string | null; lastModified?: string | null };
}

/** The validators a response carried, for a conditional request next time. */
export interface ResponseValidators {
  etag: string | null;
  lastModified: string | null;
}

export type HopResult =
  | { type: 'redirect'; status: number; location: string }
  | { type: 'not_modified'; status: 304; validators: ResponseValidators }
  | { type: 'body'; status: number; mediaType: MediaType; body: Buffer; validators: ResponseValidators };

function validatorsOf(response: IncomingMessage): ResponseValidators {
  const etag = response.headers.etag;
  const lastModified = response.headers['last-modified'];
  // Kept short: they are stored per page and sent back as headers.
  return {
    etag: typeof etag === 'string' && etag.length <= 512 ? etag : null,
    lastModified: typeof lastModified === 'string' && lastModified.length <= 100 ? lastModified : null,
  };
}

/** Header values we send back must be plain printable text (a stored value is the server's, not ours). */
function headerSafe(value: string | null | undefined): string | undefined {
  return value && /^[\x20-\x7e]+$/.test(value) ? value : undefined;
}

const ACCEPT: Record<ResourceKind, string> = {
  page: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8',
  sitemap: 'application/xml,text/xml;q=0.9,application/gzip;q=0.8,text/plain;q=0.5',
  robots: 'text/plain',
  // A file's type is decided by the file loaders from its bytes.
  file: '*/*',
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function pinnedLookup(target: ResolvedAddress): LookupFunction {
  const lookup = (_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void): void => {
    // Node 20 asks for all addresses when it races IPv4/IPv6 (autoSelectFamily).
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
  return lookup as unknown as LookupFunction;
}

function send(request: HopRequest): Promise<IncomingMessage> {
  const client = request.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = client.request(request.url, {
      method: 'GET',
      agent: false,
      lookup: pinnedLookup(request.target),
      signal: request.signal,
      headers: {
        'user-agent': request.userAgent,
        accept: ACCEPT[request.kind],
        'accept-encoding': 'gzip, deflate, br',
        ...conditionalHeaders(request.conditional),
      },
    });
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
    outgoing.end();
  });
}

function conditionalHeaders(conditional: HopRequest['conditional']): Record<string, string> {
  const etag = headerSafe(conditional?.etag);
  const lastModified = headerSafe(conditional?.lastModified);
  return { ...(etag ? { 'if-none-match': etag } : {}), ...(lastModified ? { 'if-modified-since': lastModified } : {}) };
}

/** Sends one GET; returns the redirect target or the checked, capped, decoded body. */
export async function requestOnce(request: HopRequest): Promise<HopResult> {
  const response = await send(request);
  const status = response.statusCode ?? 0;
  const href = request.url.href;
  const location = response.headers.location;
  if (REDIRECTS.has(status) && location) {
    response.destroy();
    return { type: 'redirect', status, location };
  }
  if (status === 304 && request.conditional) {
    response.destroy();
    return { type: 'not_modified', status: 304, validators: validatorsOf(response) };
  }
  if (status < 200 || status > 299) {
    response.destroy();
    throw statusError(href, status, response.headers);
  }
  const mediaType = parseMediaType(response.headers['content-type']);
  if (!isAcceptedType(request.kind, mediaType.mime)) {
    response.destroy();
    throw new RagdeskError('unsupported_media_type', `${href} is ${mediaType.mime}, not a ${request.kind}`, {
      details: { url: href, contentType: mediaType.mime },
    });
  }
  const body = await readBody(response, href, request.maxBytes);
  return { type: 'body', status, mediaType, body, validators: validatorsOf(response) };
}
