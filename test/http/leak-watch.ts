import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RagdeskHttpHandler } from '../../adapters/http/index.js';

/** Any API key of the current format, whoever created it. */
const KEY_PATTERN = /rdk_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}_[A-Za-z0-9_-]{43}/;

/**
 * Watches everything a handler sends (status line headers and bodies, on the node listener and on
 * `fetch`) and everything it logs, for API key secrets: the ones created in the test (and configured)
 * and anything shaped like a key. A key is shown once, by `keys.create`: over HTTP only in the
 * answer of the `POST /keys` that created it (one key in it, never seen before); any other
 * response or log line carrying one is a leak. Every fixture watches its handler, so this holds
 * over the whole HTTP suite: a leak fails the file when the fixture closes.
 */
export class LeakWatch {
  private readonly secrets = new Set<string>();
  /** Secrets already shown once by a key creation; a second showing is a leak. */
  private readonly shown = new Set<string>();
  readonly leaks: string[] = [];
  /** Responses scanned, so a watch that saw nothing can be told apart from a clean one. */
  scanned = 0;

  addSecret(secret: string): void {
    this.secrets.add(secret);
  }

  /** Scans one piece of output; `where` names it in the report. */
  scan(text: string, where: string): void {
    this.scanned++;
    const created = this.createdKey(text, where);
    if (created !== null) {
      this.shown.add(created);
      text = text.replace(created, '');
    }
    const shaped = KEY_PATTERN.exec(text);
    if (shaped) this.leaks.push(`${where}: ${shaped[0].slice(0, 12)}… (key-shaped)`);
    for (const secret of this.secrets) {
      if (text.includes(secret)) this.leaks.push(`${where}: ${secret.slice(0, 12)}…`);
    }
  }

  /** The one new secret a key creation's answer may carry, or null. */
  private createdKey(text: string, where: string): string | null {
    if (!/^POST \S*\/keys( |$|\?)/.test(where)) return null;
    const all = text.match(new RegExp(KEY_PATTERN.source, 'g')) ?? [];
    const [only] = all;
    if (all.length !== 1 || only === undefined || this.shown.has(only)) return null;
    return only;
  }

  /** The handler with every response passing through `scan`. Behaviour is unchanged. */
  wrap(handler: RagdeskHttpHandler): RagdeskHttpHandler {
    const listener = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => {
      this.tap(request, response);
      handler(request, response, next);
    };
    return Object.assign(listener, {
      fetch: async (request: Request, info?: Parameters<RagdeskHttpHandler['fetch']>[1]) => {
        const response = await handler.fetch(request, info);
        const where = `${request.method} ${new URL(request.url).pathname.slice(0, 80)}`;
        this.scan(JSON.stringify([...response.headers]), `${where} headers`);
        // Event streams are read through the node listener's tap (the same frames); teeing one here
        // would keep its source alive after the client cancels.
        if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
          void response
            .clone()
            .text()
            .then(
              (text) => this.scan(text, `${where} body`),
              () => undefined,
            );
        }
        return response;
      },
      openapi: () => handler.openapi(),
    });
  }

  private tap(request: IncomingMessage, response: ServerResponse): void {
    const where = `${request.method ?? ''} ${(request.url ?? '').slice(0, 80)}`;
    const parts: string[] = [];
    const keep = (chunk: unknown) => {
      if (typeof chunk === 'string') parts.push(chunk);
      else if (chunk instanceof Uint8Array) parts.push(Buffer.from(chunk).toString('utf8'));
    };
    // eslint-disable-next-line @typescript-eslint/unbound-method -- wrapped below and called with .call(this)
    const { write, end } = response;
    response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as ServerResponse['write'];
    response.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== 'function') keep(chunk);
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as ServerResponse['end'];
    response.once('close', () => {
      const head = (response as unknown as { _header?: string | null })._header ?? '';
      this.scan(`${head}\n${parts.join('')}`, where);
    });
  }
}
