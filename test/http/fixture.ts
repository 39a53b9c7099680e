import { join } from 'node:path';
import { createHttpHandler, type HttpHandlerOptions, type RagdeskHttpHandler } from '../../adapters/http/index.js';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { fileLoading } from '../../adapters/loaders/index.js';
import { localEmbeddings } from '../../adapters/local/index.js';
import { openaiChat } from '../../adapters/openai/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { webLoader } from '../../adapters/web/index.js';
import { createRagdesk, type Ragdesk, type RagdeskOptions } from '../../src/index.js';
import { startOpenAIServer, type OpenAIServer, type OpenAIServerOptions } from '../../fixtures/openai-server.js';
import { tempDir } from '../helpers/setups.js';
import { LeakWatch } from './leak-watch.js';

export interface Fixture {
  ragdesk: Ragdesk;
  /** The temporary directory holding the SQLite file and the index files. */
  dir: string;
  handler: RagdeskHttpHandler;
  /** The local OpenAI-compatible server the agents' chat model talks to. */
  openai: OpenAIServer;
  /** Admin keys of two owners, created through `ragdesk.keys`. */
  alice: string;
  bob: string;
  /** What the handler logged (500s and failures after a stream opened), instead of stderr. */
  logged: { message: string; fields: Record<string, unknown> }[];
  /**
   * Every response of `handler` (and of handlers passed through `watch`) and every log line is
   * scanned for API key secrets; `close()` fails when one was returned or logged.
   */
  leaks: LeakWatch;
  /** Another handler over the same instance (other options), watched for leaked secrets too. */
  watch(handler: RagdeskHttpHandler): RagdeskHttpHandler;
  close(): Promise<void>;
}

export interface FixtureOptions {
  http?: HttpHandlerOptions;
  agents?: RagdeskOptions['agents'];
  openai?: OpenAIServerOptions;
  usage?: RagdeskOptions['usage'];
  uploads?: RagdeskOptions['uploads'];
  reranker?: RagdeskOptions['reranker'];
  keys?: RagdeskOptions['keys'];
  /** The web loader (default: `webLoader()`, refusing the local test servers). */
  web?: RagdeskOptions['web'];
  /** The chat model (default: `openaiChat` on the local OpenAI-compatible server). */
  chat?: RagdeskOptions['chat'];
}

/**
 * The embedded default for real (SQLite file, HNSW files, offline embedder, file loaders) with the
 * chat model going through the real `openai` client to a local OpenAI-compatible server.
 */
export async function openFixture(options: FixtureOptions = {}): Promise<Fixture> {
  const temp = tempDir('ragdesk-http-');
  const openai = await startOpenAIServer(options.openai);
  const ragdesk = createRagdesk({
    ...sqliteStores({ path: join(temp.dir, 'ragdesk.db') }),
    index: hnswIndex({ dir: join(temp.dir, 'indexes') }),
    embeddings: localEmbeddings(),
    files: fileLoading(),
    web: options.web ?? webLoader(),
    chat: options.chat ?? openaiChat({ apiKey: 'test-key', baseURL: openai.baseURL, maxRetries: 0 }),
    ...(options.agents ? { agents: options.agents } : {}),
    ...(options.usage ? { usage: options.usage } : {}),
    ...(options.uploads ? { uploads: options.uploads } : {}),
    ...(options.reranker ? { reranker: options.reranker } : {}),
    ...(options.keys ? { keys: options.keys } : {}),
  });
  const leaks = new LeakWatch();
  // Every secret created in the test is watched for in responses and logs.
  const create = ragdesk.keys.create.bind(ragdesk.keys);
  ragdesk.keys.create = async (input, options) => {
    const created = await create(input, options);
    leaks.addSecret(created.key);
    return created;
  };
  for (const configured of options.http?.apiKeys ?? []) leaks.addSecret(configured.key);
  const alice = (await ragdesk.keys.create({ ownerId: 'alice', name: 'alice admin', scopes: ['admin'] })).key;
  const bob = (await ragdesk.keys.create({ ownerId: 'bob', name: 'bob admin', scopes: ['admin'] })).key;
  const logged: Fixture['logged'] = [];
  const logger = {
    error: (message: string, fields: Record<string, unknown>) => {
      leaks.scan(JSON.stringify({ message, fields }), 'log');
      logged.push({ message, fields });
    },
  };
  const handler = leaks.wrap(createHttpHandler(ragdesk, { logger, ...options.http }));
  return {
    ragdesk,
    dir: temp.dir,
    handler,
    openai,
    alice,
    bob,
    logged,
    leaks,
    watch: (other) => leaks.wrap(other),
    close: async () => {
      await ragdesk.close();
      await openai.close();
      temp.remove();
      if (leaks.leaks.length > 0) throw new Error(`API key secrets were returned or logged:\n${leaks.leaks.slice(0, 20).join('\n')}`);
    },
  };
}

/** Markdown documents with distinctive facts, so queries have one right answer. */
export const DOCUMENTS = [
  { name: 'tides.md', text: 'Tides are caused by the gravitational pull of the moon and the sun on the oceans of the earth.' },
  { name: 'volcano.md', text: 'A volcano erupts when magma from the mantle rises through the crust and escapes as lava and ash.' },
  { name: 'bread.md', text: 'Sourdough bread rises because wild yeast and lactic acid bacteria ferment the flour and release gas.' },
];
