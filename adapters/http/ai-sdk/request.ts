import { z } from 'zod';
import { parseInput, type HistoryMessage } from '../../../src/index.js';
import { splitTurns, type ClientTurn } from '../chat-turns.js';

const part = z.looseObject({ type: z.string().max(200), text: z.unknown().optional() });
const uiMessage = z.looseObject({
  id: z.string().max(200).optional(),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(part).max(1_000),
});

/**
 * What the AI SDK's `DefaultChatTransport` posts: the chat id, every UI message so far, the trigger
 * and, for a regeneration, the message id. Loose: the transport merges the app's own `body` fields
 * in, which mean nothing here.
 */
export const uiChatRequestSchema = z.looseObject({
  id: z.string().max(200).optional(),
  messages: z.array(uiMessage).min(1).max(1_000),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().max(200).nullable().optional(),
});

export interface UiChatCall {
  query: string;
  history: HistoryMessage[];
  warnings: string[];
}

/**
 * The question (the last UI message, the user's) and the history before it, from the messages'
 * text parts; sources, reasoning, tool and step parts the client kept are not text and are skipped.
 * A regeneration needs nothing apart: the transport has already dropped the answer it replaces.
 */
export function toUiChatCall(body: Record<string, unknown>): UiChatCall {
  const request = parseInput(uiChatRequestSchema, body, 'UI message chat request');
  const turns: ClientTurn[] = request.messages.map((message, index) => ({
    role: message.role,
    text: message.parts
      .filter((entry) => entry.type === 'text' && typeof entry.text === 'string')
      .map((entry) => entry.text as string)
      .join('\n'),
    path: `messages[${index}]`,
  }));
  const split = splitTurns(turns);
  if (request.messages.at(-1)?.parts.some((entry) => entry.type === 'file')) {
    split.warnings.push('file parts of the question were not read (only its text is)');
  }
  return split;
}
