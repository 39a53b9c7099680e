import type { RerankReport } from '../datastores/rerank.js';
import type { AgentRecord, MessageUsage, SourceEntry } from '../ports/agent-key-usage-records.js';
import type { FinishReason } from '../ports/chat-model.js';

/** An agent as the library returns it: the The API's "Agent" fields plus its datastores and timestamps. */
export type Agent = AgentRecord;

/** Agent Query response, plus the message id, token usage and the model that answered. */
export interface AgentResponse {
  answer: string;
  conversationId: string;
  visitorId: string;
  sources: SourceEntry[];
  messageId: string;
  usage: MessageUsage;
  /** Chat adapter and model id, e.g. `openai:gpt-4o-mini` or `local:extractive`. */
  model: string;
  /** Why the model stopped: `stop`, `length` (cut at maxTokens), `content_filter`, `error` or `other`. */
  finishReason: FinishReason;
  /** Things the caller should know (a missing price, an ignored setting, a deleted datastore). */
  warnings: string[];
  /** What reranking did (model, candidates, milliseconds it added), when the query was reranked. */
  rerank?: RerankReport;
}

/** Streaming events: answer deltas in order, then exactly one `endpoint_response`. */
export type AgentStreamEvent = { type: 'answer'; delta: string } | { type: 'endpoint_response'; response: AgentResponse };

/** A copy, so callers cannot change what the service holds. */
export function toAgent(record: AgentRecord): Agent {
  return { ...record, datastoreIds: [...record.datastoreIds] };
}
