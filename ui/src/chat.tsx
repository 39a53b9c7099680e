import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import {
  conversationKey,
  loadHistory,
  readSaved,
  writeSaved,
  type HistoryMessage,
  type SavedConversation,
  type Verdict,
} from './conversation-history.js';
import { Feedback } from './feedback.js';
import { CitedAnswer } from './citations.js';
import { StreamError, streamAgentQuery, type SourceEntry } from './stream.js';

interface Turn {
  id: number;
  role: 'user' | 'assistant';
  text: string;
  sources: SourceEntry[];
  error: string | null;
  /** The person pressed stop before the answer was complete. */
  stopped: boolean;
  /** The stored answer's id (feedback names it); null until the answer is complete. */
  messageId: string | null;
  eval: Verdict | null;
}

export interface ChatProps {
  /** The API's base URL (`/api`, or `https://host/api` from the widget). */
  apiBase: string;
  agentId: string;
  /** Sent when present; public agents answer without one. */
  apiKey: string | null;
  /**
   * Where the conversation and visitor ids are kept between page loads, per agent (none: in memory
   * only). The history shown on opening is read back from the server with them.
   */
  storage?: Storage | null;
  /** First message shown before anything is asked. */
  greeting?: string;
  /** The agent's own first messages (its `interfaceConfig.initialMessages`), shown above the conversation instead of the greeting. */
  initialMessages?: readonly string[];
  /** Questions offered as buttons until the first one is asked (`interfaceConfig.messageTemplates`); a click asks it. */
  suggestions?: readonly string[];
}

let nextTurnId = 1;

const newTurn = (role: Turn['role'], text: string, more: Partial<Turn> = {}): Turn => ({
  id: nextTurnId++,
  role,
  text,
  sources: [],
  error: null,
  stopped: false,
  messageId: null,
  eval: null,
  ...more,
});

const fromHistory = (message: HistoryMessage): Turn =>
  newTurn(message.role, message.text, { sources: message.sources, messageId: message.messageId, eval: message.eval });

/** The chat itself, shared by the console's chat page and the embeddable widget. */
export function Chat({ apiBase, agentId, apiKey, storage = null, greeting, initialMessages = [], suggestions = [] }: ChatProps) {
  const storageKey = conversationKey(agentId);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  /** The stored history is being read back; asking waits for it, so the question lands after it. */
  const [restoring, setRestoring] = useState(false);
  const conversation = useRef<SavedConversation>(readSaved(storage, storageKey));
  const aborter = useRef<AbortController | null>(null);
  const log = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    const element = log.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [turns]);
  useEffect(() => () => aborter.current?.abort(), []);
  // On opening, the conversation these ids continue is shown again as the server stored it.
  useEffect(() => {
    const saved = conversation.current;
    if (!saved.conversationId) return;
    const controller = new AbortController();
    setRestoring(true);
    loadHistory(apiBase, apiKey, { ...saved, conversationId: saved.conversationId }, controller.signal)
      .then((history) => {
        if (history === null) forget();
        else setTurns((shown) => (shown.length === 0 ? history.map(fromHistory) : shown));
      })
      .catch(() => undefined) // Offline or refused: the next question still continues the conversation.
      .finally(() => setRestoring(false));
    return () => controller.abort();
  }, [apiBase, apiKey, storageKey]);

  /** Drops the conversation id (the visitor keeps its id), so the next question starts a new conversation. */
  function forget() {
    conversation.current = conversation.current.visitorId ? { visitorId: conversation.current.visitorId } : {};
    writeSaved(storage, storageKey, conversation.current);
  }

  const update = (id: number, change: (turn: Turn) => Partial<Turn>) =>
    setTurns((all) => all.map((turn) => (turn.id === id ? { ...turn, ...change(turn) } : turn)));

  async function send(event?: Event, question = draft) {
    event?.preventDefault();
    const query = question.trim();
    if (!query || busy || restoring) return;
    const asked = newTurn('user', query);
    const answer = newTurn('assistant', '');
    setTurns((all) => [...all, asked, answer]);
    setDraft('');
    setBusy(true);
    const controller = new AbortController();
    aborter.current = controller;
    let first = true;
    try {
      const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
      const result = await streamAgentQuery(
        `${apiBase}/agents/${encodeURIComponent(agentId)}/query`,
        headers,
        { query, ...conversation.current },
        {
          onDelta(text) {
            if (first) {
              first = false;
              performance.mark('ragdesk:first-token');
            }
            update(answer.id, (turn) => ({ text: turn.text + text }));
          },
        },
        controller.signal,
      );
      if (result) {
        conversation.current = { conversationId: result.conversationId, visitorId: result.visitorId };
        writeSaved(storage, storageKey, conversation.current);
        update(answer.id, () => ({ text: result.answer, sources: result.sources ?? [], messageId: result.messageId }));
      }
    } catch (error) {
      if (controller.signal.aborted) update(answer.id, () => ({ stopped: true }));
      else update(answer.id, () => ({ error: describe(error, apiKey !== null) }));
    } finally {
      aborter.current = null;
      setBusy(false);
      input.current?.focus();
    }
  }

  function restart() {
    aborter.current?.abort();
    forget();
    setTurns([]);
    input.current?.focus();
  }

  return (
    <div class="chat">
      <div class="chat-log" ref={log} role="log" aria-live="polite" aria-busy={busy || restoring} aria-label="Conversation">
        {initialMessages.map((message, index) => (
          <div key={`initial-${index}`} class="turn turn-assistant initial-message" data-role="initial">
            <p class="turn-text">{message}</p>
          </div>
        ))}
        {turns.length === 0 && greeting && initialMessages.length === 0 ? <p class="chat-greeting">{greeting}</p> : null}
        {turns.length === 0 && suggestions.length > 0 ? (
          <ul class="suggestions" aria-label="Suggested questions">
            {suggestions.map((question, index) => (
              <li key={`suggestion-${index}`}>
                <button type="button" class="suggestion" disabled={restoring} onClick={() => void send(undefined, question)}>
                  {question}
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        {turns.map((turn) => (
          <div key={turn.id} class={`turn turn-${turn.role}`} data-role={turn.role}>
            <span class="sr-only">{turn.role === 'user' ? 'You said:' : 'Answer:'}</span>
            {turn.role === 'user' ? <p class="turn-text">{turn.text}</p> : <CitedAnswer text={turn.text} sources={turn.sources} />}
            {turn.role === 'assistant' && busy && turn.text === '' && !turn.error ? <p class="typing">Thinking…</p> : null}
            {turn.stopped ? <p class="turn-note">Stopped.</p> : null}
            {turn.error ? (
              <p class="turn-error" role="alert">
                {turn.error}
              </p>
            ) : null}
            {turn.role === 'assistant' && turn.messageId ? (
              <Feedback
                apiBase={apiBase}
                apiKey={apiKey}
                messageId={turn.messageId}
                visitorId={conversation.current.visitorId}
                value={turn.eval}
                onChange={(value) => update(turn.id, () => ({ eval: value }))}
              />
            ) : null}
          </div>
        ))}
      </div>
      <form class="chat-form" onSubmit={(event) => void send(event)}>
        <label class="sr-only" for={`chat-input-${agentId}`}>
          Your question
        </label>
        <textarea
          id={`chat-input-${agentId}`}
          ref={input}
          rows={2}
          placeholder="Ask a question…"
          value={draft}
          maxLength={20000}
          onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) void send(event);
          }}
        />
        <div class="chat-actions">
          {busy ? (
            <button type="button" class="button danger" onClick={() => aborter.current?.abort()}>
              Stop
            </button>
          ) : (
            <button type="submit" class="button primary" disabled={draft.trim() === '' || restoring}>
              Send
            </button>
          )}
          <button type="button" class="button" onClick={restart}>
            New conversation
          </button>
        </div>
      </form>
    </div>
  );
}

/** What the widget says on a site the agent does not list (its allowed origins). */
export const NOT_ALLOWED_HERE = 'This site is not allowed to use this assistant.';

function describe(error: unknown, keyGiven: boolean): string {
  if (error instanceof ApiError && error.code === 'origin_not_allowed') return NOT_ALLOWED_HERE;
  // A visitor without a key was never asked for one: the agent is private (or gone), not their key wrong.
  if (error instanceof ApiError && !keyGiven && [401, 403, 404].includes(error.status))
    return 'This assistant is private or not available.';
  if (error instanceof ApiError) return error.explain();
  if (error instanceof StreamError) return error.message;
  if (error instanceof TypeError) return 'The server could not be reached.';
  return error instanceof Error ? error.message : String(error);
}
