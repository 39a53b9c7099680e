import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

/** Starts `server` on a free port of 127.0.0.1 and gives its origin (`http://127.0.0.1:<port>`). */
export async function listenLocal(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes servers a test started, kept-alive connections first (a browser holds them open). */
export async function closeServers(servers: readonly Server[]): Promise<void> {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
