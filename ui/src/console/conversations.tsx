import { useEffect, useState } from 'preact/hooks';
import type { Agent, Api } from '../api.js';
import { ThumbIcon } from '../feedback.js';
import type { SourceEntry } from '../stream.js';
import { ConfirmDialog, ErrorNote, Link, formatDate } from './shared.js';

interface Summary {
  id: string;
  visitorId: string;
  channel: string | null;
  updatedAt: string;
  messageCount: number;
  feedback: { good: number; bad: number };
  preview: string;
}
interface Page {
  conversations: Summary[];
  nextCursor: string | null;
}
interface Message {
  id: string;
  from: 'human' | 'agent';
  text: string;
  sources: SourceEntry[];
  createdAt: string;
  eval: 'good' | 'bad' | null;
  evalComment: string | null;
}
interface Full extends Summary {
  messages: Message[];
  nextCursor: string | null;
}

const conversationsOf = (api: Api, agentId: string, query: Record<string, string>) =>
  api.request<Page>('GET', `/agents/${encodeURIComponent(agentId)}/conversations?${new URLSearchParams(query).toString()}`);
/** Conversation ids are unique within an agent only, so the agent goes along. */
const conversationPath = (agentId: string, id: string) => `/conversations/${encodeURIComponent(id)}?agentId=${encodeURIComponent(agentId)}`;
const readConversation = (api: Api, agentId: string, id: string) => api.request<Full>('GET', `${conversationPath(agentId, id)}&limit=200`);

/**
 * `/conversations/{agentId}`: the agent's conversations, those holding a marked answer first (an
 * inbox of what visitors judged), each readable with its feedback, deletable, and all exportable
 * as JSON Lines.
 */
export function ConversationsPage({ api, uiBase, agentId }: { api: Api; uiBase: string; agentId: string }) {
  const [agent, setAgent] = useState<Agent | null>(null);
  const [marked, setMarked] = useState<Summary[] | null>(null);
  const [others, setOthers] = useState<Summary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [open, setOpen] = useState<Full | null>(null);
  const [deleting, setDeleting] = useState<Summary | null>(null);
  const [exporting, setExporting] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function load() {
    setError(null);
    try {
      // Marked answers first: every conversation holding one, then a page of the rest.
      const [withFeedback, rest] = await Promise.all([
        conversationsOf(api, agentId, { feedback: 'any', limit: '100' }),
        conversationsOf(api, agentId, { feedback: 'none', limit: '20' }),
      ]);
      setMarked(withFeedback.conversations);
      setOthers(rest.conversations);
      setCursor(rest.nextCursor);
    } catch (caught) {
      setError(caught);
    }
  }

  useEffect(() => {
    api.getAgent(agentId).then(setAgent, setError);
    void load();
  }, [agentId]);

  async function more() {
    if (!cursor) return;
    try {
      const page = await conversationsOf(api, agentId, { feedback: 'none', limit: '20', cursor });
      setOthers((shown) => [...shown, ...page.conversations]);
      setCursor(page.nextCursor);
    } catch (caught) {
      setError(caught);
    }
  }

  async function exportAll() {
    setExporting(true);
    setError(null);
    try {
      const lines: string[] = [];
      let next: string | null = '';
      do {
        const page: Page = await conversationsOf(api, agentId, { limit: '100', ...(next ? { cursor: next } : {}) });
        for (const summary of page.conversations) {
          const full = await readConversation(api, agentId, summary.id);
          lines.push(JSON.stringify({ ...full, messages: [...full.messages].reverse(), nextCursor: undefined }));
        }
        next = page.nextCursor;
      } while (next);
      const url = URL.createObjectURL(new Blob([lines.map((line) => `${line}\n`).join('')], { type: 'application/x-ndjson' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `conversations-${agentId}.jsonl`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (caught) {
      setError(caught);
    } finally {
      setExporting(false);
    }
  }

  const item = (summary: Summary) => (
    <li key={summary.id} class="list-item column">
      <div class="row wrap">
        <div class="grow">
          <span class="title">{summary.preview || 'No question'}</span>
          <p class="muted small">
            {formatDate(summary.updatedAt)} · {summary.messageCount} messages · visitor {summary.visitorId.slice(0, 8)}
            {summary.channel ? ` · ${summary.channel}` : ''}
            {summary.feedback.bad > 0 ? (
              <span class="badge badge-bad" title="Answers marked bad">
                <ThumbIcon verdict="bad" /> {summary.feedback.bad}
                <span class="sr-only"> marked bad</span>
              </span>
            ) : null}
            {summary.feedback.good > 0 ? (
              <span class="badge badge-good" title="Answers marked good">
                <ThumbIcon verdict="good" /> {summary.feedback.good}
                <span class="sr-only"> marked good</span>
              </span>
            ) : null}
          </p>
        </div>
        <button
          type="button"
          class="button"
          onClick={() => void readConversation(api, agentId, summary.id).then((full) => setOpen({ ...summary, ...full }), setError)}
        >
          Read
        </button>
        <button
          type="button"
          class="button danger"
          onClick={() => setDeleting(summary)}
          aria-label={`Delete the conversation “${summary.preview}”`}
        >
          Delete
        </button>
      </div>
    </li>
  );

  return (
    <main id="main" class="page">
      <div class="row between">
        <h1>Conversations{agent ? ` of ${agent.name}` : ''}</h1>
        <div class="row">
          <Link href={`${uiBase}agents`} class="button">
            Agents
          </Link>
          <button type="button" class="button" onClick={() => void exportAll()} disabled={exporting}>
            {exporting ? 'Exporting…' : 'Export JSON Lines'}
          </button>
        </div>
      </div>
      <ErrorNote error={error} />
      {marked === null ? (
        <p class="muted">Loading…</p>
      ) : (
        <>
          <section aria-label="Marked answers">
            <h2>Marked answers</h2>
            {marked.length === 0 ? <p class="muted">No answer was marked yet.</p> : <ul class="list inbox-marked">{marked.map(item)}</ul>}
          </section>
          <section aria-label="Other conversations">
            <h2>Other conversations</h2>
            {others.length === 0 ? <p class="muted">None.</p> : <ul class="list inbox-others">{others.map(item)}</ul>}
            {cursor ? (
              <button type="button" class="button" onClick={() => void more()}>
                Load more
              </button>
            ) : null}
          </section>
        </>
      )}
      {open ? <Transcript conversation={open} onClose={() => setOpen(null)} /> : null}
      {deleting ? (
        <ConfirmDialog
          title="Delete this conversation?"
          message="Its questions, answers and feedback are deleted."
          confirm="Delete conversation"
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const target = deleting;
            setDeleting(null);
            if (open?.id === target.id) setOpen(null);
            api.request('DELETE', conversationPath(agentId, target.id)).then(load, setError);
          }}
        />
      ) : null}
    </main>
  );
}

/** One conversation, oldest first, each answer with the feedback it got. */
function Transcript({ conversation, onClose }: { conversation: Full; onClose: () => void }) {
  const messages = [...conversation.messages].reverse();
  return (
    <section class="card transcript" aria-label="Conversation">
      <div class="row between">
        <h2>Conversation with visitor {conversation.visitorId.slice(0, 8)}</h2>
        <button type="button" class="button small" onClick={onClose}>
          Close
        </button>
      </div>
      <ol class="transcript-messages">
        {messages.map((message) => (
          <li key={message.id} class={`turn turn-${message.from === 'human' ? 'user' : 'assistant'}`} data-message-id={message.id}>
            <p class="turn-text">{message.text}</p>
            {message.from === 'agent' && message.sources.length > 0 ? (
              <p class="muted small">Sources: {message.sources.map((source) => source.datasource_name || 'Untitled').join(', ')}</p>
            ) : null}
            {message.eval ? (
              <p class={`feedback-shown feedback-${message.eval}`}>
                <ThumbIcon verdict={message.eval} /> {message.eval === 'good' ? 'Marked good' : 'Marked bad'}
                {message.evalComment ? `: “${message.evalComment}”` : ''}
              </p>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
