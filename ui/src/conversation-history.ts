import { errorFrom } from './api.js';
import type { SourceEntry } from './stream.js';

/** The ids that continue an agent's conversation, kept in the browser per agent. */
export interface SavedConversation {
  conversationId?: string;
  visitorId?: string;
}

export type Verdict = 'good' | 'bad';

/** One message of a stored conversation, as the chat shows it (oldest first). */
export interface HistoryMessage {
  messageId: string;
  role: 'user' | 'assistant';
  text: string;
  sources: SourceEntry[];
  eval: Verdict | null;
}

/**
 * `localStorage`, or null where a page may not use it (sandboxed frames, blocked third-party
 * storage, private modes throw on access): the chat then keeps its ids in memory only.
 */
export function browserStorage(): Storage | null {
  try {
    const storage = globalThis.localStorage;
    const probe = 'ragdesk.probe';
    storage.setItem(probe, '1');
    storage.removeItem(probe);
    return storage;
  } catch {
    return null;
  }
}

export const conversationKey = (agentId: string) => `ragdesk.conversation.${agentId}`;

export function readSaved(storage: Storage | null, key: string): SavedConversation {
  try {
    const value: unknown = JSON.parse(storage?.getItem(key) ?? '{}');
    if (typeof value !== 'object' || value === null) return {};
    const { conversationId, visitorId } = value as Record<string, unknown>;
    return {
      ...(typeof conversationId === 'string' && conversationId ? { conversationId } : {}),
      ...(typeof visitorId === 'string' && visitorId ? { visitorId } : {}),
    };
  } catch {
    return {};
  }
}

export function writeSaved(storage: Storage | null, key: string, saved: SavedConversation): void {
  try {
    storage?.setItem(key, JSON.stringify(saved));
  } catch {
    // Full or refused storage: the ids stay in memory for this page.
  }
}

/**
 * The conversation's messages, oldest first, read from `GET /conversations/{id}` (the owner's key,
 * or the visitor id for a public agent). Null when the server no longer has it for this caller
 * (deleted, or never this visitor's): the chat then starts afresh.
 */
export async function loadHistory(
  apiBase: string,
  apiKey: string | null,
  saved: Required<Pick<SavedConversation, 'conversationId'>> & SavedConversation,
  signal: AbortSignal,
): Promise<HistoryMessage[] | null> {
  const query = new URLSearchParams({ limit: '200' });
  if (saved.visitorId) query.set('visitorId', saved.visitorId);
  const response = await fetch(`${apiBase}/conversations/${encodeURIComponent(saved.conversationId)}?${query.toString()}`, {
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    signal,
  });
  // Unreadable for this caller answers as unknown: 404 with a key, 401 without one.
  if (response.status === 404 || (response.status === 401 && !apiKey)) return null;
  if (!response.ok) throw await errorFrom(response);
  const body = (await response.json()) as {
    messages: { id: string; from: 'human' | 'agent'; text: string; sources: SourceEntry[]; eval: Verdict | null }[];
  };
  return body.messages.reverse().map((message) => ({
    messageId: message.id,
    role: message.from === 'human' ? 'user' : 'assistant',
    text: message.text,
    sources: message.sources,
    eval: message.eval,
  }));
}
