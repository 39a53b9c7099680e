/**
 * The embedded preset: one SQLite file and one HNSW index per datastore under `dataDir`, with the
 * offline embedder, the file loaders and the web loader (private addresses refused). This is the one module that wires adapters together.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRagdesk, type Ragdesk, type RagdeskOptions } from '../src/index.js';
import type { ChatModel } from '../src/ports/chat-model.js';
import type { Embeddings } from '../src/ports/embeddings.js';
import { hnswIndex } from './hnsw/index.js';
import { fileLoading } from './loaders/index.js';
import { localAnswerer, localEmbeddings } from './local/index.js';
import { webLoader } from './web/index.js';
import { sqliteStore } from './sqlite/index.js';

export interface OpenRagdeskOptions extends Omit<Partial<RagdeskOptions>, 'store' | 'index'> {
  /** Folder for `ragdesk.db` and `indexes/`; created when missing. */
  dataDir: string;
  /** Environment to read `OPENAI_API_KEY` from (defaults to `process.env`). */
  env?: Record<string, string | undefined>;
}

export interface OpenedRagdesk extends Ragdesk {
  /** Why this embedder was picked, for logs and the CLI banner. */
  readonly notes: readonly string[];
}

export function openRagdesk(options: OpenRagdeskOptions): OpenedRagdesk {
  const { dataDir, env = process.env, ...rest } = options;
  mkdirSync(dataDir, { recursive: true });
  const notes: string[] = [];
  const embeddings: Embeddings = rest.embeddings ?? pickEmbeddings(env, notes);
  const store = sqliteStore({ path: join(dataDir, 'ragdesk.db') });
  const index = hnswIndex({ dir: join(dataDir, 'indexes') });
  const ragdesk = createRagdesk({
    ...rest,
    store,
    index,
    embeddings,
    chat: rest.chat ?? pickChat(env, notes),
    files: rest.files ?? fileLoading(),
    web: rest.web ?? webLoader(),
  });
  return Object.assign(ragdesk, { notes });
}

function pickEmbeddings(env: Record<string, string | undefined>, notes: string[]): Embeddings {
  if (env.OPENAI_API_KEY) {
    // The OpenAI adapter lands with the agents work; say so instead of pretending to use the key.
    notes.push('OPENAI_API_KEY is set, but this version has no OpenAI adapter yet: using the offline local embedder.');
  }
  const embeddings = localEmbeddings();
  notes.push(`Embeddings: ${embeddings.model} (offline, no network).`);
  return embeddings;
}

function pickChat(env: Record<string, string | undefined>, notes: string[]): ChatModel {
  const chat = localAnswerer();
  notes.push(`Answers: ${chat.name} (offline extractive answerer: quotes the best-matching sentences, no model).`);
  return chat;
}
