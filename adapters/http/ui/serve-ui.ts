import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { UiAssets, defaultAssetDir, etagOf } from './assets.js';
import { badAddressPage, consolePage } from './page.js';
import { optionError } from '../../kit/option-checks.js';

/** `createHttpHandler(ragdesk, { ui: true | { basePath } })`. */
export interface UiOptions {
  /** Where the console lives (default `/`): `/admin` serves it at `/admin/`, its chat pages at `/admin/chat/{agentId}`. */
  basePath?: string;
  /** Folder of the built assets (default: the package's own `dist/ui`). */
  assetDir?: string;
}

/** A static answer: the console page, a hashed asset, or widget.js. */
export interface UiAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer | null;
}

/**
 * Strict by default: only this origin's scripts, styles and API; no inline code (the page has none),
 * no plugins, no framing, no base-tag or form tricks. Model output and document text reach the DOM
 * only as text nodes, so this is the second wall, not the first.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths the console's client-side router owns: a reload on any of them gets the page again. */
const CLIENT_ROUTE = /^(?:datastores|agents|chat|conversations|keys|usage|pages)(?:\/[\w.~%-]*)*$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** False when a path segment has a malformed percent-encoding (the client router would throw on it). */
function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

export class UiServer {
  private readonly base: string;
  private readonly assets: UiAssets;
  private readonly page: Buffer;
  private readonly pageGzip: Buffer;
  private readonly pageEtag: string;
  private readonly badAddress: Buffer;

  constructor(
    options: UiOptions,
    private readonly apiBase: string,
    maxFileBytes: number,
  ) {
    const base = (options.basePath ?? '/').replace(/\/+$/, '');
    if (base !== '' && !base.startsWith('/')) throw optionError('ui', 'basePath', 'must start with "/"', JSON.stringify(options.basePath));
    this.base = `${base}/`;
    this.assets = new UiAssets(options.assetDir ?? defaultAssetDir());
    const { script, styles } = this.assets.manifest;
    this.page = Buffer.from(consolePage({ uiBase: this.base, apiBase: apiBase || '/', maxFileBytes, script, styles }));
    this.pageGzip = gzipSync(this.page, { level: 9 });
    this.pageEtag = etagOf(this.page);
    this.badAddress = Buffer.from(badAddressPage(this.base));
  }

  /** The answer for a GET or HEAD under the console's path, or null when the request is not the console's. */
  answer(method: string, path: string, header: (name: string) => string | undefined): UiAnswer | null {
    if (method !== 'GET' && method !== 'HEAD') return null;
    if (this.apiBase !== '' && (path === this.apiBase || path.startsWith(`${this.apiBase}/`))) return null;
    let rest: string;
    if (path === this.base.slice(0, -1) && this.base !== '/') rest = '';
    else if (path.startsWith(this.base)) rest = path.slice(this.base.length);
    else return null;

    if (CLIENT_ROUTE.test(rest) && !decodable(rest)) {
      return {
        status: 400,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'content-security-policy': CONSOLE_CSP,
          'referrer-policy': 'no-referrer',
          'x-frame-options': 'DENY',
          'x-content-type-options': 'nosniff',
          'content-length': String(this.badAddress.length),
        },
        body: method === 'HEAD' ? null : this.badAddress,
      };
    }
    if (rest === '' || CLIENT_ROUTE.test(rest)) {
      return this.finish(method, header, {
        body: this.page,
        gzipped: this.pageGzip,
        etag: this.pageEtag,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-cache',
          'content-security-policy': CONSOLE_CSP,
          'referrer-policy': 'no-referrer',
          'x-frame-options': 'DENY',
        },
      });
    }
    const asset = rest.startsWith('assets/') || rest === 'widget.js' ? this.assets.get(rest) : null;
    if (!asset) return null;
    return this.finish(method, header, {
      body: asset.body,
      gzipped: asset.gzipped,
      etag: asset.etag,
      headers: {
        'content-type': asset.contentType,
        // Hashed names never change content; widget.js keeps its name (sites embed it), so it is revalidated.
        'cache-control': rest === 'widget.js' ? 'public, max-age=300, must-revalidate' : IMMUTABLE,
        // Other sites load widget.js (and the console's assets are harmless to share).
        'cross-origin-resource-policy': 'cross-origin',
      },
    });
  }

  private finish(
    method: string,
    header: (name: string) => string | undefined,
    file: { body: Buffer; gzipped: Buffer | null; etag: string; headers: Record<string, string> },
  ): UiAnswer {
    const headers: Record<string, string> = {
      ...file.headers,
      etag: file.etag,
      'x-content-type-options': 'nosniff',
      vary: 'Accept-Encoding',
    };
    // Split on commas and trimmed, not split(/\s*,\s*/): that restarted at every space of a run
    // with no comma after it, quadratic in a header anyone can send (16 KB of spaces: 0.5 s).
    const tags = header('if-none-match')?.split(',') ?? [];
    if (tags.some((tag) => tag.trim() === file.etag)) return { status: 304, headers, body: null };
    const gzip = file.gzipped !== null && /\bgzip\b/.test(header('accept-encoding') ?? '');
    const body = gzip ? (file.gzipped as Buffer) : file.body;
    if (gzip) headers['content-encoding'] = 'gzip';
    headers['content-length'] = String(body.length);
    return { status: 200, headers, body: method === 'HEAD' ? null : body };
  }

  /** node:http side: true when the request was answered. */
  serveNode(request: IncomingMessage, response: ServerResponse): boolean {
    const url = (request as { originalUrl?: string }).originalUrl ?? request.url ?? '/';
    const queryAt = url.indexOf('?');
    const answer = this.answer((request.method ?? 'GET').toUpperCase(), queryAt < 0 ? url : url.slice(0, queryAt), (name) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    });
    if (!answer) return false;
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body ?? undefined);
    return true;
  }

  /** fetch side: the Response, or null when the request is not the console's. */
  serveFetch(request: Request): Response | null {
    const answer = this.answer(
      request.method.toUpperCase(),
      new URL(request.url).pathname,
      (name) => request.headers.get(name) ?? undefined,
    );
    if (!answer) return null;
    return new Response(answer.body === null ? null : new Uint8Array(answer.body), { status: answer.status, headers: answer.headers });
  }
}
