import { RagdeskError, type HistoryMessage } from '../../src/index.js';

/** One message of a chat client's exchange, its text already joined from its parts. */
export interface ClientTurn {
  role: string;
  text: string;
  /** Where it came from in the request, for error messages (`messages[3]`). */
  path: string;
}

export interface SplitTurns {
  /** The last message, the user's question. */
  query: string;
  /** Everything before it, as the agent takes it. */
  history: HistoryMessage[];
  warnings: string[];
}

/** Longest question, as on the agent query route. */
const MAX_QUERY_CHARS = 20_000;
/**
 * Longest earlier message the agent takes. One this long never fits a memory budget (and the
 * budget drops the oldest turns first), so it is left out with every turn before it.
 */
const MAX_HISTORY_MESSAGE_CHARS = 100_000;

/**
 * Splits a stateless chat client's messages into the question (the last message, which must be the
 * user's) and the history before it. Only the agent writes system text: a client's `system` or
 * `developer` message becomes a user turn at its place (so what it asks still reaches the model,
 * with no more authority than anything else the user types), and a warning says so. Tool results
 * have no meaning for an agent without tools and are left out, also with a warning.
 */
export function splitTurns(turns: readonly ClientTurn[], field = 'messages'): SplitTurns {
  const last = turns.at(-1);
  if (!last || last.role !== 'user') {
    throw invalid(last?.path ?? field, "the last message must be the user's question");
  }
  const query = last.text.trim();
  if (query === '') throw invalid(last.path, 'the question is empty');
  if (query.length > MAX_QUERY_CHARS) throw invalid(last.path, `the question is longer than ${MAX_QUERY_CHARS} characters`);
  const history: HistoryMessage[] = [];
  let clientSystemText = false;
  let toolTurns = false;
  for (const turn of turns.slice(0, -1)) {
    if (turn.text.trim() === '') continue;
    if (turn.role === 'user' || turn.role === 'assistant') history.push({ role: turn.role, content: turn.text });
    else if (turn.role === 'system' || turn.role === 'developer') {
      clientSystemText = true;
      history.push({ role: 'user', content: turn.text });
    } else toolTurns = true;
  }
  const warnings: string[] = [];
  const lastTooLong = history.findLastIndex((message) => message.content.length > MAX_HISTORY_MESSAGE_CHARS);
  if (lastTooLong >= 0) {
    history.splice(0, lastTooLong + 1);
    warnings.push(`earlier messages were left out from one of more than ${MAX_HISTORY_MESSAGE_CHARS} characters back`);
  }
  if (clientSystemText)
    warnings.push("system messages from the client were passed as user turns; the agent's own prompt is the only system text");
  if (toolTurns) warnings.push('tool messages were left out: this agent has no tools');
  return { query, history, warnings };
}

export function invalid(path: string, message: string): RagdeskError {
  return new RagdeskError('invalid_request', `${path}: ${message}`, { details: { issues: [{ path, message }] } });
}
