import { patchedAgent, patchedApiKey } from '../kit/record-patches.js';
import { invalidRequest, notFound } from '../../src/errors.js';
import type {
  AgentRecord,
  ApiKeyRecord,
  ConversationRecord,
  MessageFeedback,
  MessageRecord,
  UsageConsumption,
} from '../../src/ports/agent-key-usage-records.js';
import type { AgentPatch, ApiKeyPatch, ConversationFilter } from '../../src/ports/store.js';
import { conflict, oldestFirst } from './record-copies.js';

/**
 * Agents, their conversations and messages, API keys and usage counters of the memory store.
 * Every method checks before it writes, so a rejected call changes nothing; records are copied
 * in and out (`structuredClone`, since they hold arrays and nested objects).
 */
export function memoryAgents() {
  const agents = new Map<string, AgentRecord>();
  /** Keyed by {@link conversationKey}: conversation ids are unique within their agent only. */
  const conversations = new Map<string, ConversationRecord>();
  /** Messages per conversation (same keys), in insertion order. */
  const messages = new Map<string, MessageRecord[]>();
  /** Conversation key of every message stored and not deleted: ids are unique across conversations. */
  const messageIds = new Map<string, string>();
  const apiKeys = new Map<string, ApiKeyRecord>();
  const keyIdsByHash = new Map<string, string>();
  const usage = new Map<string, number>();

  const byOwner = <T extends { ownerId: string | null }>(list: T[], ownerId: string | undefined): T[] =>
    ownerId === undefined ? list : list.filter((record) => record.ownerId === ownerId);

  /** As the SQL stores' unique indexes: one handle per owner, and one public agent per handle. */
  function assertHandleFree(record: AgentRecord): void {
    if (record.handle === null) return;
    for (const other of agents.values()) {
      if (other.id === record.id || other.handle !== record.handle) continue;
      const sameOwner = (other.ownerId ?? null) === (record.ownerId ?? null);
      if (sameOwner || (other.visibility === 'public' && record.visibility === 'public')) throw conflict('agent handle', record.handle);
    }
  }

  function dropConversation(key: string): void {
    for (const message of messages.get(key) ?? []) messageIds.delete(message.id);
    messages.delete(key);
    conversations.delete(key);
  }

  function findMessage(id: string): MessageRecord | undefined {
    const key = messageIds.get(id);
    return key === undefined ? undefined : messages.get(key)?.find((message) => message.id === id);
  }

  return {
    createAgent(record: AgentRecord): void {
      if (agents.has(record.id)) throw conflict('agent', record.id);
      assertHandleFree(record);
      agents.set(record.id, { ...structuredClone(record), ownerId: record.ownerId ?? null });
    },

    getAgent(id: string): AgentRecord | null {
      const record = agents.get(id);
      return record === undefined ? null : structuredClone(record);
    },

    listAgents(filter: { ownerId?: string } = {}): AgentRecord[] {
      return oldestFirst(byOwner([...agents.values()], filter.ownerId).map((record) => structuredClone(record)));
    },

    updateAgent(id: string, patch: AgentPatch): AgentRecord | null {
      const current = agents.get(id);
      if (current === undefined) return null;
      const next = patchedAgent(structuredClone(current), patch, structuredClone);
      assertHandleFree(next);
      agents.set(id, next);
      return structuredClone(next);
    },

    deleteAgent(id: string): boolean {
      if (!agents.has(id)) return false;
      for (const conversation of [...conversations.values()]) {
        if (conversation.agentId === id) dropConversation(conversationKey(id, conversation.id));
      }
      agents.delete(id);
      return true;
    },

    createConversation(record: ConversationRecord): void {
      const key = conversationKey(record.agentId, record.id);
      if (conversations.has(key)) throw conflict('conversation', record.id);
      if (!agents.has(record.agentId)) throw notFound('agent', record.agentId);
      conversations.set(key, { ...record });
      messages.set(key, []);
    },

    getConversation(agentId: string, id: string): ConversationRecord | null {
      const record = conversations.get(conversationKey(agentId, id));
      return record === undefined ? null : { ...record };
    },

    listConversations(agentId: string): ConversationRecord[] {
      const owned = [...conversations.values()].filter((record) => record.agentId === agentId);
      return oldestFirst(owned.map((record) => ({ ...record })));
    },

    appendMessages(agentId: string, conversationId: string, batch: readonly MessageRecord[]): void {
      const key = conversationKey(agentId, conversationId);
      const conversation = conversations.get(key);
      if (conversation === undefined) throw notFound('conversation', conversationId);
      // Every check first: a rejected batch leaves nothing behind.
      const seen = new Set<string>();
      for (const message of batch) {
        if (messageIds.has(message.id) || seen.has(message.id)) throw conflict('message', message.id);
        if (message.conversationId !== conversationId) throw otherConversation(message, conversationId);
        seen.add(message.id);
      }
      const last = batch.at(-1);
      if (last === undefined) return;
      const list = messages.get(key) ?? [];
      for (const message of batch) {
        list.push({ ...structuredClone(message), feedback: message.feedback ?? null });
        messageIds.set(message.id, key);
      }
      messages.set(key, list);
      conversations.set(key, { ...conversation, updatedAt: last.createdAt });
    },

    listMessages(agentId: string, conversationId: string, options: { limit?: number } = {}): MessageRecord[] {
      const list = messages.get(conversationKey(agentId, conversationId)) ?? [];
      // Reverse insertion order, then a stable sort by time: newest first, ties later-inserted first.
      const newest = [...list].reverse().sort((a, b) => (a.createdAt > b.createdAt ? -1 : a.createdAt < b.createdAt ? 1 : 0));
      const limited = options.limit === undefined ? newest : newest.slice(0, Math.max(0, Math.floor(options.limit)));
      return limited.map((message) => structuredClone(message));
    },

    findConversations(filter: ConversationFilter): ConversationRecord[] {
      const found = [...conversations.values()].filter((record) =>
        matches(record, filter, messages.get(conversationKey(record.agentId, record.id)) ?? []),
      );
      // Newest activity first, then id descending (code unit order; ids are ASCII).
      found.sort((a, b) => compareDesc(a.updatedAt, b.updatedAt) || compareDesc(a.id, b.id));
      return found.slice(0, Math.max(1, Math.floor(filter.limit))).map((record) => ({ ...record }));
    },

    listConversationsWithId(id: string): ConversationRecord[] {
      const named = [...conversations.values()].filter((record) => record.id === id);
      return oldestFirst(named.map((record) => ({ ...record })));
    },

    deleteConversation(agentId: string, id: string): boolean {
      const key = conversationKey(agentId, id);
      if (!conversations.has(key)) return false;
      dropConversation(key);
      return true;
    },

    getMessage(id: string): MessageRecord | null {
      const found = findMessage(id);
      return found === undefined ? null : structuredClone(found);
    },

    getMessageConversation(messageId: string): ConversationRecord | null {
      const key = messageIds.get(messageId);
      const record = key === undefined ? undefined : conversations.get(key);
      return record === undefined ? null : { ...record };
    },

    setMessageFeedback(id: string, feedback: MessageFeedback | null): MessageRecord | null {
      const found = findMessage(id);
      if (found === undefined) return null;
      found.feedback = feedback === null ? null : { ...feedback };
      return structuredClone(found);
    },

    createApiKey(record: ApiKeyRecord): void {
      if (apiKeys.has(record.id)) throw conflict('api key', record.id);
      if (keyIdsByHash.has(record.hash)) throw conflict('api key hash', record.hash.slice(0, 8));
      apiKeys.set(record.id, structuredClone(record));
      keyIdsByHash.set(record.hash, record.id);
    },

    getApiKey(id: string): ApiKeyRecord | null {
      const record = apiKeys.get(id);
      return record === undefined ? null : structuredClone(record);
    },

    findApiKeyByHash(hash: string): ApiKeyRecord | null {
      const id = keyIdsByHash.get(hash);
      const record = id === undefined ? undefined : apiKeys.get(id);
      return record === undefined ? null : structuredClone(record);
    },

    listApiKeys(filter: { ownerId?: string } = {}): ApiKeyRecord[] {
      return oldestFirst(byOwner([...apiKeys.values()], filter.ownerId).map((record) => structuredClone(record)));
    },

    updateApiKey(id: string, patch: ApiKeyPatch): ApiKeyRecord | null {
      const current = apiKeys.get(id);
      if (current === undefined) return null;
      const next = patchedApiKey(structuredClone(current), patch);
      apiKeys.set(id, next);
      return structuredClone(next);
    },

    consumeUsage(request: UsageConsumption): { allowed: boolean; used: number } {
      assertUsageNumbers(request);
      const key = JSON.stringify([request.subject, request.metric, request.period]);
      const used = usage.get(key) ?? 0;
      if (request.limit !== undefined && used + request.amount > request.limit) return { allowed: false, used };
      usage.set(key, used + request.amount);
      return { allowed: true, used: used + request.amount };
    },
  };
}

function compareDesc(a: string, b: string): number {
  return a > b ? -1 : a < b ? 1 : 0;
}

/** `findConversations`' filter, as the SQL stores apply it. */
function matches(record: ConversationRecord, filter: ConversationFilter, messages: readonly MessageRecord[]): boolean {
  if (record.agentId !== filter.agentId) return false;
  if (filter.visitorId !== undefined && record.visitorId !== filter.visitorId) return false;
  if (filter.channel !== undefined && record.channel !== filter.channel) return false;
  if (filter.updatedFrom !== undefined && record.updatedAt < filter.updatedFrom) return false;
  if (filter.updatedTo !== undefined && record.updatedAt > filter.updatedTo) return false;
  if (filter.feedback !== undefined) {
    const marked = messages.filter((message) => message.feedback);
    if (filter.feedback === 'any' && marked.length === 0) return false;
    if (filter.feedback === 'none' && marked.length > 0) return false;
    if (
      (filter.feedback === 'good' || filter.feedback === 'bad') &&
      !marked.some((message) => message.feedback?.value === filter.feedback)
    ) {
      return false;
    }
  }
  const after = filter.after;
  if (after !== undefined && !(record.updatedAt < after.updatedAt || (record.updatedAt === after.updatedAt && record.id < after.id)))
    return false;
  return true;
}

function otherConversation(message: MessageRecord, conversationId: string) {
  return invalidRequest('a message names another conversation', [
    { path: 'conversationId', message: `message ${message.id} must belong to ${conversationId}` },
  ]);
}

/** A NaN or infinite amount would poison the counter for the rest of its period. */
function assertUsageNumbers(request: UsageConsumption): void {
  if (!Number.isFinite(request.amount) || (request.limit !== undefined && !Number.isFinite(request.limit))) {
    throw invalidRequest('usage amount and limit must be finite numbers', [
      { path: Number.isFinite(request.amount) ? 'limit' : 'amount', message: 'must be a finite number' },
    ]);
  }
}

/** One map key per (agent, conversation id); JSON keeps any two pairs of strings apart. */
function conversationKey(agentId: string, id: string): string {
  return JSON.stringify([agentId, id]);
}
