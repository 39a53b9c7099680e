import { errorFrom } from './api.js';

/** One passage of a source entry's datasource, as the model was given it. */
export interface SourcePassage {
  chunk_id: string;
  page_number: number | null;
  text: string;
  score: number;
}

/** The API's "Source entry": one per datasource the answer drew on, best first; `[n]` cites entry n. */
export interface SourceEntry {
  chunk_id: string;
  datasource_id: string;
  datasource_name: string;
  datasource_type: string;
  source_url: string | null;
  page_number: number | null;
  score: number;
  text: string;
  /** Absent from servers that list one excerpt per entry. */
  passages?: SourcePassage[];
}

export interface AgentAnswer {
  answer: string;
  conversationId: string;
  visitorId: string;
  sources: SourceEntry[];
  messageId: string;
}

export interface StreamCallbacks {
  /** Each decoded `answer` piece, as it arrives. */
  onDelta(text: string): void;
}

/** A stream that ended with `data: [ERROR]<code>` after it opened. */
export class StreamError extends Error {
  constructor(readonly code: string) {
    super(`The answer stopped with an error (${code})`);
  }
}

/**
 * Asks an agent with `streaming: true` and reads the event stream (docs/http.md, Streaming):
 * `answer` events carry URI-encoded pieces, `endpoint_response` the whole response, then `[DONE]`.
 * Aborting `signal` cancels the request, which makes the server stop the model call.
 */
export async function streamAgentQuery(
  url: string,
  headers: Record<string, string>,
  body: { query: string; conversationId?: string; visitorId?: string },
  callbacks: StreamCallbacks,
  signal: AbortSignal,
): Promise<AgentAnswer | null> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ ...body, streaming: true }),
    signal,
  });
  if (!response.ok || !response.body) throw await errorFrom(response);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  let final: AgentAnswer | null = null;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += value;
    let end: number;
    while ((end = buffered.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, '');
      const event = parseEvent(block);
      if (event.data.startsWith('[DONE]')) return final;
      if (event.data.startsWith('[ERROR]')) throw new StreamError(event.data.slice(7) || 'unknown');
      if (event.name === 'answer') callbacks.onDelta(decodeURIComponent(event.data));
      else if (event.name === 'endpoint_response') final = JSON.parse(decodeURIComponent(event.data)) as AgentAnswer;
    }
  }
  return final;
}

function parseEvent(block: string): { name: string; data: string } {
  let name = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  return { name, data: data.join('\n') };
}
