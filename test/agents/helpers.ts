import { join } from 'node:path';
import { hnswIndex } from '../../adapters/hnsw/index.js';
import { localAnswerer, localEmbeddings, type LocalAnswererOptions } from '../../adapters/local/index.js';
import { sqliteStores } from '../../adapters/sqlite/index.js';
import { createRagdesk, type Ragdesk, type RagdeskOptions } from '../../src/index.js';
import type { ChatModel, ChatRequest } from '../../src/ports/chat-model.js';
import type { AccountStore } from '../../src/ports/store.js';

/** Wraps a chat model to keep every request it receives (the prompt as sent). */
export function recordingChat(inner: ChatModel): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    name: inner.name,
    specificationVersion: 'v1',
    requests,
    ...(inner.resolveModel ? { resolveModel: inner.resolveModel.bind(inner) } : {}),
    generate(request) {
      requests.push(request);
      return inner.generate(request);
    },
    stream(request) {
      requests.push(request);
      return inner.stream(request);
    },
  };
}

export interface AgentSetup {
  ragdesk: Ragdesk;
  /** The account store the instance writes agents, conversations and keys to. */
  store: AccountStore;
  chat: ChatModel & { requests: ChatRequest[] };
}

/** The embedded default (SQLite + HNSW + local embedder) with a recorded chat model. */
export function openAgentSetup(
  dir: string,
  options: { chat?: ChatModel; answerer?: LocalAnswererOptions; extra?: Partial<RagdeskOptions> } = {},
): AgentSetup {
  const stores = sqliteStores({ path: join(dir, 'ragdesk.db') });
  const chat = recordingChat(options.chat ?? localAnswerer(options.answerer));
  const ragdesk = createRagdesk({
    ...stores,
    index: hnswIndex({ dir: join(dir, 'indexes') }),
    embeddings: localEmbeddings(),
    chat,
    ...options.extra,
  });
  return { ragdesk, store: stores.accounts, chat };
}

export const HANDBOOK = [
  {
    name: 'returns.md',
    text:
      'Returns policy. Customers may return any unopened product within 30 days of delivery for a full refund. ' +
      'Opened products can be exchanged within 14 days. Refunds are paid to the original card within five business days.',
  },
  {
    name: 'shipping.md',
    text:
      'Shipping. Orders above 50 euros ship free within the European Union. Express delivery costs 12 euros and arrives ' +
      'the next business day. We do not ship to post office boxes.',
  },
  {
    name: 'warranty.md',
    text:
      'Warranty. Every kettle carries a two-year warranty covering the heating element and the thermostat. ' +
      'The warranty does not cover limescale damage. Claims need the serial number printed under the base.',
  },
];
