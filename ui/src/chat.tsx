import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';
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
}

export interface ChatProps {
  /** The API's base URL (`/api`, or `https://host/api` from the widget). */
  apiBase: string;
  agentId: string;
  /** Sent when present; public agents answer without one. */
  apiKey: string | null;
  /** Where the conversation id is kept between page loads (none: kept in memory only). */
  storage?: Storage | null;
  /** First message shown before anything is asked. */
  greeting?: string;
}

interface Conversation {
  conversationId?: string;
  visitorId?: string;
}

let nextTurnId = 1;

/** The chat itself, shared by the console's chat page and the embeddable widget. */
export function Chat({ apiBase, agentId, apiKey, storage = null, greeting }: ChatProps) {
  const storageKey = `ragdesk.conversation.${agentId}`;
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [busy, setBusy] = useState(false);
  const conversation = useRef<Conversation>(readConversation(storage, storageKey));
  const aborter = useRef<AbortController | null>(null);
  const log = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    const element = log.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [turns]);
  useEffect(() => () => aborter.current?.abort(), []);

  const update = (id: number, change: (turn: Turn) => Partial<Turn>) =>
    setTurns((all) => all.map((turn) => (turn.id === id ? { ...turn, ...change(turn) } : turn)));

  async function send(event?: Event) {
    event?.preventDefault();
    const query = draft.trim();
    if (!query || busy) return;
    const asked: Turn = { id: nextTurnId++, role: 'user', text: query, sources: [], error: null, stopped: false };
    const answer: Turn = { id: nextTurnId++, role: 'assistant', text: '', sources: [], error: null, stopped: false };
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
        storage?.setItem(storageKey, JSON.stringify(conversation.current));
        update(answer.id, () => ({ text: result.answer, sources: result.sources ?? [] }));
      }
    } catch (error) {
      if (controller.signal.aborted) update(answer.id, () => ({ stopped: true }));
      else update(answer.id, () => ({ error: describe(error) }));
    } finally {
      aborter.current = null;
      setBusy(false);
      input.current?.focus();
    }
  }

  function restart() {
    aborter.current?.abort();
    conversation.current = {};
    storage?.removeItem(storageKey);
    setTurns([]);
    input.current?.focus();
  }

  return (
    <div class="chat">
      <div class="chat-log" ref={log} role="log" aria-live="polite" aria-busy={busy} aria-label="Conversation">
        {turns.length === 0 && greeting ? <p class="chat-greeting">{greeting}</p> : null}
        {turns.map((turn) => (
          <div key={turn.id} class={`turn turn-${turn.role}`} data-role={turn.role}>
            <span class="sr-only">{turn.role === 'user' ? 'You said:' : 'Answer:'}</span>
            {turn.role === 'user' ? <p class="turn-text">{turn.text}</p> : <CitedAnswer text={turn.text} sources={turn.sources} />}
            {turn.role === 'assistant' && busy && turn.text === '' && !turn.error ? <p class="typing">Thinking…</p> : null}
            {turn.stopped ? <p class="turn-note">Stopped.</p> : null}
            {turn.error ? <p class="turn-error" role="alert">{turn.error}</p> : null}
          </div>
        ))}
      </div>
      <form class="chat-form" onSubmit={send}>
        <label class="sr-only" for={`chat-input-${agentId}`}>Your question</label>
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
            <button type="button" class="button danger" onClick={() => aborter.current?.abort()}>Stop</button>
          ) : (
            <button type="submit" class="button primary" disabled={draft.trim() === ''}>Send</button>
          )}
          <button type="button" class="button" onClick={restart} disabled={turns.length === 0}>New conversation</button>
        </div>
      </form>
    </div>
  );
}

function describe(error: unknown): string {
  if (error instanceof ApiError) return error.explain();
  if (error instanceof StreamError) return error.message;
  if (error instanceof TypeError) return 'The server could not be reached.';
  return error instanceof Error ? error.message : String(error);
}

function readConversation(storage: Storage | null, key: string): Conversation {
  try {
    const saved = storage?.getItem(key);
    return saved ? (JSON.parse(saved) as Conversation) : {};
  } catch {
    return {};
  }
}
