import type { ConversationWithMessages } from '../../src/index.js';

/**
 * A conversation as `GET /api/conversations/{id}` answers it: the library's shape plus the two
 * fields the reference's chat client reads on every poll. Without `isAiEnabled: true` that client
 * believes a person took over and sends its messages elsewhere; nothing here hands a conversation
 * to a person, so the AI is always on and the status always open.
 */
export interface ConversationWire extends ConversationWithMessages {
  status: 'UNRESOLVED';
  isAiEnabled: true;
}

export function conversationToWire(conversation: ConversationWithMessages): ConversationWire {
  return { ...conversation, status: 'UNRESOLVED', isAiEnabled: true };
}
