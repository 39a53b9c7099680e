/**
 * The embedded preset: one SQLite file and one HNSW index per datastore under `dataDir`, the file
 * loaders and the web loader (private addresses refused); OpenAI chat and embeddings when
 * `OPENAI_API_KEY` is set (`OPENAI_BASE_URL` for any compatible server), else the offline embedder
 * and the extractive answerer. This is the one module that wires adapters together.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRagdesk, type Ragdesk, type RagdeskOptions } from '../src/index.js';
import type { ChatModel } from '../src/ports/chat-model.js';
import type { Embeddings } from '../src/ports/embeddings.js';
import { hnswIndex } from './hnsw/index.js';
import { fileLoading } from './loaders/index.js';
import { localAnswerer, localEmbeddings } from './local/index.js';
import { openaiChat, openaiEmbeddings } from './openai/index.js';
import { webLoader } from './web/index.js';
import { sqliteStores } from './sqlite/index.js';

export {
  backupDataDir,
  restoreDataDir,
  verifyBackup,
  type BackedUpIndex,
  type BackupManifest,
  type BackupReport,
  type RestoreReport,
} from './backup.js';

export interface OpenRagdeskOptions extends Omit<Partial<RagdeskOptions>, 'retrieval' | 'accounts' | 'store' | 'index'> {
  /** Folder for `ragdesk.db` and `indexes/`; created when missing. */
  dataDir: string;
  /** Environment to read `OPENAI_API_KEY` from (defaults to `process.env`). */
  env?: Record<string, string | undefined>;
}

export interface OpenedRagdesk extends Ragdesk {
  /** Why this embedder was picked, for logs and the CLI banner. */
  readonly notes: readonly string[];
  /**
   * Resolves once every vector upserted so far is in its HNSW graph. Searches never wait for
   * this (vectors still queued for the graph are scanned exactly); it is for benchmarks, backups
   * and tests that want the index idle.
   */
  indexed(): Promise<void>;
}

export function openRagdesk(options: OpenRagdeskOptions): OpenedRagdesk {
  const { dataDir, env = process.env, ...rest } = options;
  mkdirSync(dataDir, { recursive: true });
  const notes: string[] = [];
  const embeddings: Embeddings = rest.embeddings ?? pickEmbeddings(env, notes);
  const stores = sqliteStores({ path: join(dataDir, 'ragdesk.db') });
  const index = hnswIndex({ dir: join(dataDir, 'indexes') });
  const ragdesk = createRagdesk({
    ...rest,
    ...stores,
    index,
    embeddings,
    chat: rest.chat ?? pickChat(env, notes),
    files: rest.files ?? fileLoading(),
    web: rest.web ?? webLoader(),
  });
  return Object.assign(ragdesk, { notes, indexed: () => index.indexed() });
}

function pickEmbeddings(env: Record<string, string | undefined>, notes: string[]): Embeddings {
  if (env.OPENAI_API_KEY) {
    const embeddings = openaiEmbeddings(openaiConnection(env));
    notes.push(`Embeddings: ${embeddings.model} via ${env.OPENAI_BASE_URL ?? 'OpenAI'} (OPENAI_API_KEY is set).`);
    return embeddings;
  }
  const embeddings = localEmbeddings();
  notes.push(`Embeddings: ${embeddings.model} (offline, no network).`);
  return embeddings;
}

function pickChat(env: Record<string, string | undefined>, notes: string[]): ChatModel {
  if (env.OPENAI_API_KEY) {
    const chat = openaiChat(openaiConnection(env));
    notes.push(`Answers: ${chat.name} via ${env.OPENAI_BASE_URL ?? 'OpenAI'} (OPENAI_API_KEY is set).`);
    return chat;
  }
  const chat = localAnswerer();
  notes.push(`Answers: ${chat.name} (offline extractive answerer: quotes the best-matching sentences, no model).`);
  return chat;
}

function openaiConnection(env: Record<string, string | undefined>): { apiKey: string; baseURL?: string } {
  return { apiKey: env.OPENAI_API_KEY as string, ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}) };
}
