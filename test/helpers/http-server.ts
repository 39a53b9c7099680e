import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real node:http server on 127.0.0.1 that records the paths it was asked for. */
export interface TestHttpServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Paths (with query) of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

export type Handler = (request: IncomingMessage, response: ServerResponse, server: TestHttpServer) => void;

export async function startHttpServer(handler: Handler): Promise<TestHttpServer> {
  const requests: string[] = [];
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const result: TestHttpServer = {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    requests.push(request.url ?? '');
    handler(request, response, result);
  });
  return result;
}
