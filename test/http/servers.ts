import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import type { RagdeskHttpHandler } from '../../adapters/http/index.js';

export type ServerKind = 'node:http' | 'express' | 'fastify' | 'hono';
export const SERVER_KINDS: ServerKind[] = ['node:http', 'express', 'fastify', 'hono'];

export interface RunningServer {
  kind: ServerKind;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  close(): Promise<void>;
}

/** Mounts the handler the way the docs tell users to, on a real server listening on 127.0.0.1. */
export async function startServer(kind: ServerKind, handler: RagdeskHttpHandler): Promise<RunningServer> {
  switch (kind) {
    case 'node:http':
      return listen(kind, createServer(handler));
    case 'express': {
      const app = express();
      app.get('/health', (_req, res) => {
        res.json({ ok: true });
      });
      app.use(handler);
      return listen(kind, createServer(app));
    }
    case 'fastify': {
      const app = Fastify();
      // ragdesk reads (and size-limits) bodies itself, multipart included: let them through unparsed.
      app.removeAllContentTypeParsers();
      app.addContentTypeParser('*', (_request, _payload, done) => done(null));
      app.all('/api/*', (request, reply) => {
        reply.hijack();
        handler(request.raw, reply.raw);
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const port = (app.server.address() as AddressInfo).port;
      return {
        kind,
        origin: `http://127.0.0.1:${port}`,
        close: async () => {
          app.server.closeAllConnections();
          await app.close();
        },
      };
    }
    case 'hono': {
      const app = new Hono();
      app.all('/api/*', (c) => handler.fetch(c.req.raw));
      const server = await new Promise<Server>((resolve) => {
        const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started as Server));
      });
      const port = (server.address() as AddressInfo).port;
      return { kind, origin: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
    }
  }
}

async function listen(kind: ServerKind, server: Server): Promise<RunningServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { kind, origin: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
