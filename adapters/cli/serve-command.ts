import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { RagdeskError } from '../../src/errors.js';
import { privateAllowList, splitAllowList } from '../web/private-allow-list.js';
import { webLoader } from '../web/web-loader.js';
import { createHttpHandler, type ConfiguredApiKey, type CorsOptions } from '../http/index.js';
import type { OpenRagdeskOptions, OpenedRagdesk } from '../node.js';
import { seedDemo, type DemoSeed } from './demo-seed.js';
import { UsageError, type CliIo } from './io.js';
import { openData } from './open-data.js';
import { preloadDatastores, type PreloadReport } from './preload.js';
import { cl100kTokenizer } from '../../src/ingest/tokenizer.js';
import { DEFAULT_OWNER } from './resolve.js';
import { parseServeLimits, SERVE_LIMIT_FLAGS, SERVE_LIMIT_USAGE, serveLimitHandlerOptions, type ServeLimits } from './serve-limits.js';
import {
  DEFAULT_SERVER_TIMEOUTS,
  SERVER_TIMEOUT_FLAGS,
  SERVER_TIMEOUT_USAGE,
  parseServerTimeouts,
  serverTimeoutOptions,
  type ServerTimeouts,
} from './server-timeouts.js';

export const SERVE_USAGE = `ragdesk serve [--port 3000] [--host 127.0.0.1] [--data-dir ./data] [--owner local] [--demo] [--cors <origins>] [--no-ui] [--no-preload] [--openai-compat] [--allow-private-urls <cidr,host,...>]
  --port 0 picks a free port. With env RAGDESK_API_KEY set, that key is the owner's admin key;
  otherwise an admin key is created on first start and printed once. --demo seeds a datastore and a
  public agent from this package's docs on first run. --cors (or env RAGDESK_CORS) lets browser pages
  on other origins call the API: a comma-separated list (https://app.example.com,http://localhost:5173)
  or * for any origin (then any web page can query your public agents; private routes still need a key).
  An agent's chat widget works on the sites its widget settings list (allowed origins) without --cors.
  The web console is served at / (--no-ui: API only). Once listening, every datastore's search
  indexes are loaded one after another, so that no visitor waits for them (--no-preload: each loads
  on its first query). --openai-compat also serves the OpenAI-compatible chat routes at /v1
  (POST /v1/chat/completions, GET /v1/models; model = an agent id or @handle).
  Web pages and sites on loopback, private or link-local addresses are refused; --allow-private-urls
  lets the listed ones through: CIDR blocks or addresses (10.0.0.0/8,127.0.0.1) and host names
  (wiki.internal,*.corp.example). Anyone who can create a datasource can then read those hosts.
${SERVER_TIMEOUT_USAGE}
${SERVE_LIMIT_USAGE}`;

export interface ServeOptions {
  dataDir: string;
  port: number;
  host: string;
  ownerId: string;
  demo: boolean;
  /** Serve the web console, chat pages and widget.js (default true). */
  ui: boolean;
  /** Load every datastore's search indexes once listening (default true; see preload.ts). */
  preload: boolean;
  packageRoot: string;
  timeouts?: ServerTimeouts;
  /** Query and rate limits (default `DEFAULT_SERVE_LIMITS`). */
  limits?: ServeLimits;
  /** `--cors` as given (`*` or comma-separated origins); null: the RAGDESK_CORS env, else no CORS. */
  cors: string | null;
  /** Serve `POST /v1/chat/completions` and `GET /v1/models` too (default false). */
  openaiCompat?: boolean;
  /** `--allow-private-urls`, split: non-public hosts and address blocks web loading may reach. */
  allowPrivateUrls?: string[];
}

export interface RunningService {
  /** `http://host:port` */
  origin: string;
  ragdesk: OpenedRagdesk;
  /** The admin key printed at this start (created now), if any. */
  createdKey: string | null;
  demo: DemoSeed | null;
  /** Settles when the datastores' indexes are loaded (at once with `preload: false`). */
  preloaded: Promise<PreloadReport>;
  close(): Promise<void>;
}

export function parseServeArgs(args: string[], packageRoot: string): ServeOptions {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '3000' },
      host: { type: 'string', default: '127.0.0.1' },
      'data-dir': { type: 'string', default: './data' },
      owner: { type: 'string', default: DEFAULT_OWNER },
      demo: { type: 'boolean', default: false },
      ui: { type: 'boolean', default: true },
      preload: { type: 'boolean', default: true },
      ...SERVER_TIMEOUT_FLAGS,
      ...SERVE_LIMIT_FLAGS,
      cors: { type: 'string' },
      'openai-compat': { type: 'boolean', default: false },
      'allow-private-urls': { type: 'string' },
    },
    allowNegative: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`--port must be 0..65535, got ${JSON.stringify(values.port)}`);
  const allowPrivateUrls = splitAllowList(values['allow-private-urls'] ?? '');
  try {
    privateAllowList(allowPrivateUrls, '--allow-private-urls');
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return {
    port,
    host: values.host ?? '127.0.0.1',
    dataDir: values['data-dir'] ?? './data',
    ownerId: values.owner ?? DEFAULT_OWNER,
    demo: values.demo ?? false,
    ui: values.ui ?? true,
    preload: values.preload ?? true,
    packageRoot,
    timeouts: parseServerTimeouts(values),
    limits: parseServeLimits(values),
    cors: values.cors ?? null,
    openaiCompat: values['openai-compat'] ?? false,
    allowPrivateUrls,
  };
}

/** `*` or a comma-separated list of origins (the handler checks each is an origin). */
function parseCors(value: string | null | undefined): CorsOptions | undefined {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  return {
    origins:
      trimmed === '*'
        ? '*'
        : trimmed
            .split(',')
            .map((origin) => origin.trim())
            .filter(Boolean),
  };
}

/** Opens the data folder, makes sure the owner has a key, seeds the demo, and listens. */
export async function startService(
  options: ServeOptions,
  io: CliIo,
  /** Adapters replacing the defaults (tests reach a local web server through a loader allowing it). */
  adapters: Omit<OpenRagdeskOptions, 'dataDir' | 'env'> = {},
): Promise<RunningService> {
  const limits = options.limits ?? parseServeLimits({});
  const queryLimit = limits.queryLimit ? { queryLimit: limits.queryLimit } : {};
  const allowPrivateUrls = options.allowPrivateUrls ?? [];
  const web = adapters.web ?? (allowPrivateUrls.length > 0 ? webLoader({ allowPrivateUrls }) : undefined);
  const ragdesk = openData(options.dataDir, io, { ...adapters, ...(web ? { web } : {}), agents: { ...queryLimit, ...adapters.agents } });
  try {
    const configured = io.env.RAGDESK_API_KEY?.trim();
    const apiKeys: ConfiguredApiKey[] = configured ? [{ key: configured, ownerId: options.ownerId, scopes: ['admin'] }] : [];
    let createdKey: string | null = null;
    if (!configured) {
      const active = (await ragdesk.keys.list({ ownerId: options.ownerId })).filter((key) => key.revokedAt === null);
      if (active.length === 0) {
        createdKey = (await ragdesk.keys.create({ ownerId: options.ownerId, name: 'created by ragdesk serve', scopes: ['admin'] })).key;
      }
    }
    const corsSource = options.cors !== null ? '--cors' : 'RAGDESK_CORS';
    const cors = parseCors(options.cors ?? io.env.RAGDESK_CORS);
    let handler: ReturnType<typeof createHttpHandler>;
    try {
      handler = createHttpHandler(ragdesk, {
        apiKeys,
        ui: options.ui,
        ...serveLimitHandlerOptions(limits),
        ...(cors ? { cors } : {}),
        ...(options.openaiCompat ? { openaiCompat: true } : {}),
      });
    } catch (error) {
      // A malformed origin: said at start, not discovered later in a browser console.
      if (RagdeskError.isInstance(error) && error.code === 'invalid_request' && error.message.startsWith('cors'))
        throw new UsageError(`${corsSource}: ${error.message}`);
      throw error;
    }
    const demo = options.demo ? await seedDemo(ragdesk, options.ownerId, options.packageRoot) : null;
    // The tokenizer's rank table loads on first use in ~150 ms of synchronous work: before the
    // server listens, not inside the first upload while other requests wait.
    cl100kTokenizer().count('ragdesk');
    const server = createServer(serverTimeoutOptions(options.timeouts ?? DEFAULT_SERVER_TIMEOUTS), handler);
    await listen(server, options.port, options.host);
    const { port } = server.address() as AddressInfo;
    const host = options.host.includes(':') ? `[${options.host}]` : options.host;
    const origin = `http://${host}:${port}`;
    printBanner(io, { origin, options, ragdesk, createdKey, configured: Boolean(configured), demo, cors });
    const preloaded = options.preload ? preloadDatastores(ragdesk, io) : Promise.resolve({ loaded: 0, failed: 0, seconds: 0 });
    return {
      origin,
      ragdesk,
      createdKey,
      demo,
      preloaded,
      close: async () => {
        // Stop accepting, drop idle keep-alive sockets, let requests in progress finish (closing
        // ragdesk waits for them and cancels model calls, so open streams end with an event),
        // and only then cut whatever connection is still open.
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await ragdesk.close();
        server.closeAllConnections();
        await closed;
      },
    };
  } catch (error) {
    await ragdesk.close();
    throw error;
  }
}

export async function runServe(args: string[], io: CliIo, packageRoot: string): Promise<number> {
  const service = await startService(parseServeArgs(args, packageRoot), io);
  await (io.waitForStop?.() ?? new Promise<void>(() => undefined));
  io.stderr('Stopping...\n');
  await service.close();
  return 0;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function printBanner(
  io: CliIo,
  facts: {
    origin: string;
    options: ServeOptions;
    ragdesk: OpenedRagdesk;
    createdKey: string | null;
    configured: boolean;
    demo: DemoSeed | null;
    cors: CorsOptions | undefined;
  },
): void {
  const { origin, options, ragdesk, createdKey, configured, demo } = facts;
  // The console first: it is where a newcomer starts (the key to sign in with follows).
  const lines = options.ui ? [`Open the console: ${origin}/`] : [];
  lines.push(`ragdesk listening on ${origin}/api  (OpenAPI: ${origin}/api/openapi.json)`, `  data: ${options.dataDir}`);
  if (options.allowPrivateUrls?.length)
    lines.push(`  Web loading may reach these non-public hosts and blocks: ${options.allowPrivateUrls.join(', ')}`);
  if (options.openaiCompat) lines.push(`  OpenAI-compatible chat: ${origin}/v1 (model = an agent id or @handle)`);
  for (const note of ragdesk.notes) lines.push(`  ${note}`);
  if (facts.cors)
    lines.push(
      `  CORS: browser pages on ${facts.cors.origins === '*' ? 'any origin (*)' : (facts.cors.origins as string[]).join(', ')} may call the API`,
    );
  if (configured) lines.push(`  API key: RAGDESK_API_KEY (admin key of owner "${options.ownerId}")`);
  else if (createdKey) lines.push(`  API key (admin, owner "${options.ownerId}"), shown once, keep it: ${createdKey}`);
  else lines.push(`  API keys: those of owner "${options.ownerId}" (ragdesk keys list / keys create --data-dir ${options.dataDir})`);
  if (demo) {
    lines.push(
      `  Demo: datastore ${demo.datastoreId} (${demo.documents} documents), public agent ${demo.agentId}${demo.created ? ' (seeded now)' : ''}`,
    );
    if (options.ui) lines.push(`  Chat with the demo agent: ${origin}/chat/${demo.agentId}`);
    const key = createdKey ?? (configured ? '$RAGDESK_API_KEY' : '<your key>');
    lines.push(
      '  Try:',
      `    curl -s ${origin}/api/agents/${demo.agentId}/query -H 'Content-Type: application/json' -d '{"query":"How do I run the tests?"}'`,
      `    curl -s ${origin}/api/datastores/${demo.datastoreId}/query -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '{"query":"hybrid retrieval","topK":3}'`,
    );
  }
  io.stdout(`${lines.join('\n')}\n`);
}
