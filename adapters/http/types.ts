/**
 * The request and result shapes the routes work on. Both bridges (node:http and fetch) translate
 * into and out of them, so every route is written once for every server.
 */

export interface HttpRequest {
  /** Upper case, e.g. `POST`. */
  method: string;
  /** The path as received (still percent-encoded), without the query string. */
  path: string;
  query: URLSearchParams;
  /** A header value by lower-case name; repeated headers joined with `, `. */
  header(name: string): string | undefined;
  /** The body, read at most once; null when the request has none. */
  body: AsyncIterable<Uint8Array> | null;
  /**
   * A body a framework already parsed (Express `express.json()`, Fastify's JSON parser) and whose
   * stream is therefore consumed. Undefined when the stream is still ours to read.
   */
  parsedBody?: unknown;
  /** Aborted when the client goes away before the response is complete. */
  signal: AbortSignal;
  /** Client address for the rate limiter's key when there is no API key. */
  remoteAddress?: string | undefined;
}

export interface JsonResult {
  kind: 'json';
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A streamed text body (SSE). The bridge writes chunks as they come and stops when the client leaves. */
export interface StreamResult {
  kind: 'stream';
  status: number;
  headers: Record<string, string>;
  chunks: AsyncIterable<string>;
  /**
   * Awaited (when it returns a promise) before each next chunk is pulled: spreads the work of many
   * streams over event-loop turns instead of running every ready stream in one (see TurnGate).
   */
  pace?: () => Promise<void> | undefined;
}

/** A response without a body (a CORS preflight's 204). */
interface EmptyResult {
  kind: 'empty';
  status: number;
  headers?: Record<string, string>;
}

export type HttpResult = JsonResult | StreamResult | EmptyResult;
