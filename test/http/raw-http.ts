import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';

/**
 * Clients below fetch: what a browser or undici would refuse to send (CR/LF in headers, `..`
 * segments left as they are, bodies of any length streamed without being held in memory).
 */

/** Sends `text` as it is on a fresh connection and returns everything the server wrote until it closed. */
export function rawExchange(origin: string, text: string | Buffer, timeoutMs = 5000): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const parts: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (part: Buffer) => parts.push(part));
    socket.on('error', (error) => (parts.length ? undefined : reject(error)));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(parts).toString('latin1'));
    });
    socket.write(text);
  });
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Keeps connections open between `rawGet` calls (hundreds of requests per test). */
const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });

/** One request with `path` exactly as given (no normalisation of `..` or `%2e`). */
export function rawGet(origin: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, path, method, headers, agent: keepAlive }, (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(parts).toString('utf8') }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

export interface LargeUpload extends RawResponse {
  /** Body bytes the client had handed to the socket when the response headers arrived. */
  sentBeforeResponse: number;
}

/**
 * POSTs `total` bytes of `fill` on a raw socket (64 KiB at a time, the same buffer reused, so the
 * client holds nothing), with a declared Content-Length or chunked, and stops sending once the
 * answer arrives. A raw socket because node's own client drops an early answer when its next write
 * fails (EPIPE) after the server stopped reading.
 */
export function sendLarge(
  origin: string,
  path: string,
  options: { total: number; declareLength: boolean; headers?: Record<string, string>; fill?: string; connectionClose?: boolean },
): Promise<LargeUpload> {
  const { hostname, port } = new URL(origin);
  const block = Buffer.alloc(64 * 1024, options.fill ?? ' ');
  const chunk = options.declareLength
    ? block
    : Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from('\r\n')]);
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    ...Object.entries(options.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    options.declareLength ? `Content-Length: ${options.total}` : 'Transfer-Encoding: chunked',
    ...(options.connectionClose ? ['Connection: close'] : []),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let sent = 0;
    let sentBeforeResponse = -1;
    const received: Buffer[] = [];
    const finish = (): void => {
      const text = Buffer.concat(received).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (split < 0 || !match) return reject(new Error(`no answer after sending ${sent} bytes: ${JSON.stringify(text.slice(0, 300))}`));
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, split).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      let body = text.slice(split + 4);
      if (headers['content-length'] !== undefined) body = body.slice(0, Number(headers['content-length']));
      resolve({ status: Number(match[1]), headers, body, sentBeforeResponse });
    };
    socket.on('data', (part: Buffer) => {
      if (sentBeforeResponse < 0) sentBeforeResponse = sent;
      received.push(part);
      const text = Buffer.concat(received).toString('utf8');
      const length = /\r\ncontent-length: (\d+)/i.exec(text)?.[1];
      const split = text.indexOf('\r\n\r\n');
      if (length !== undefined && split >= 0 && Buffer.byteLength(text.slice(split + 4)) >= Number(length)) socket.destroy();
    });
    // After an early answer the server may cut the connection while we still write: expected.
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.write(head);
    const pump = (): void => {
      while (sentBeforeResponse < 0 && sent < options.total && !socket.destroyed) {
        sent += block.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (sent >= options.total && !socket.destroyed) socket.write(options.declareLength ? '' : '0\r\n\r\n');
    };
    pump();
  });
}
