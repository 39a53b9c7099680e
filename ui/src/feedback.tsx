import { useState } from 'preact/hooks';
import { ApiError, errorFrom } from './api.js';
import type { Verdict } from './conversation-history.js';

export interface FeedbackProps {
  apiBase: string;
  apiKey: string | null;
  messageId: string;
  /** The visitor's id: what lets someone without the owner's key mark an answer of a public agent. */
  visitorId: string | undefined;
  value: Verdict | null;
  onChange: (value: Verdict | null) => void;
}

/** Thumbs up / down on an answer, then an optional comment; pressing the same thumb again removes the mark. */
export function Feedback({ apiBase, apiKey, messageId, visitorId, value, onChange }: FeedbackProps) {
  const [error, setError] = useState<string | null>(null);
  const [commenting, setCommenting] = useState(false);
  const [comment, setComment] = useState('');
  const [sent, setSent] = useState(false);

  async function send(verdict: Verdict | null, withComment: string | null) {
    setError(null);
    try {
      const response = await fetch(`${apiBase}/messages/${encodeURIComponent(messageId)}/feedback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ eval: verdict, ...(withComment ? { comment: withComment } : {}), ...(visitorId ? { visitorId } : {}) }),
      });
      if (!response.ok) throw await errorFrom(response);
      onChange(verdict);
      return true;
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.explain() : 'The feedback could not be sent.');
      return false;
    }
  }

  async function press(verdict: Verdict) {
    const next = value === verdict ? null : verdict;
    setSent(false);
    if (await send(next, null)) {
      setCommenting(next !== null);
      setComment('');
    }
  }

  async function submitComment(event: Event) {
    event.preventDefault();
    const text = comment.trim();
    if (!text || value === null) return;
    if (await send(value, text)) {
      setCommenting(false);
      setSent(true);
    }
  }

  return (
    <div class="feedback">
      <span class="feedback-label">Was this helpful?</span>
      <button type="button" class="thumb" aria-pressed={value === 'good'} aria-label="Good answer" onClick={() => void press('good')}>
        <ThumbIcon verdict="good" />
      </button>
      <button type="button" class="thumb" aria-pressed={value === 'bad'} aria-label="Bad answer" onClick={() => void press('bad')}>
        <ThumbIcon verdict="bad" />
      </button>
      {sent ? <span class="feedback-note">Thanks, noted.</span> : null}
      {commenting ? (
        <form class="feedback-comment" onSubmit={(event) => void submitComment(event)}>
          <label class="sr-only" for={`comment-${messageId}`}>
            Comment on this answer
          </label>
          <input
            id={`comment-${messageId}`}
            type="text"
            maxLength={2000}
            placeholder="Add a comment (optional)"
            value={comment}
            onInput={(event) => setComment((event.target as HTMLInputElement).value)}
          />
          <button type="submit" class="button small" disabled={comment.trim() === ''}>
            Send
          </button>
        </form>
      ) : null}
      {error ? (
        <p class="turn-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A thumb drawn in SVG (emoji fonts are missing on many machines), down for `bad`. */
export function ThumbIcon({ verdict }: { verdict: Verdict }) {
  return (
    <svg class="thumb-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
      <path
        fill="currentColor"
        transform={verdict === 'bad' ? 'rotate(180 12 12)' : undefined}
        d="M2 10h4v11H2z M8 10l4-8c1.5 0 2.5 1 2.2 2.6L13.5 9H20a2 2 0 0 1 2 2.3l-1.4 8A2 2 0 0 1 18.6 21H8z"
      />
    </svg>
  );
}
