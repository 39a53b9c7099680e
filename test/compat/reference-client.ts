import { EventSource } from 'eventsource';

/** What one chat message of the reference's client saw. */
export interface ClientTurn {
  /** Status and headers of the response that opened the stream. */
  status: number;
  headers: Headers;
  /** Decoded `answer` data, concatenated as the client's buffer is. */
  answer: string;
  /** The decoded, parsed `endpoint_response`. */
  response: Record<string, unknown> | undefined;
  done: boolean;
  errorCode?: string;
}

/**
 * Sends one message the way the reference service's chat hook does: a POST read as a server-sent
 * event stream (here with the `eventsource` package), `Content-Type: application/json` and no key,
 * the body built from the hook's state, `answer` and `endpoint_response` data URI-decoded into
 * buffers, `[DONE]` ending the turn and `[ERROR]<code>` failing it. `origin` is the page's origin,
 * sent as a browser sends it on a cross-origin request.
 */
export function sendChatMessage(url: string, body: Record<string, unknown>, origin: string): Promise<ClientTurn> {
  return new Promise((resolve, reject) => {
    let opened: Response | undefined;
    let answer = '';
    let endpointResponse = '';
    const settle = (done: boolean, errorCode?: string) => {
      source.close();
      if (!opened) return reject(new Error('the stream never opened'));
      resolve({
        status: opened.status,
        headers: opened.headers,
        answer,
        response: endpointResponse ? (JSON.parse(endpointResponse) as Record<string, unknown>) : undefined,
        done,
        ...(errorCode === undefined ? {} : { errorCode }),
      });
    };
    const source = new EventSource(url, {
      fetch: async (input, init) => {
        opened = await fetch(input, {
          ...init,
          method: 'POST',
          headers: { ...(init.headers as Record<string, string>), 'Content-Type': 'application/json', Origin: origin },
          // JSON.stringify drops the hook's undefined fields (isDraft, contact, context) as the browser's does.
          body: JSON.stringify(body),
        });
        return opened;
      },
    });
    source.addEventListener('answer', (event: { data: string }) => (answer += decodeURIComponent(event.data)));
    source.addEventListener('endpoint_response', (event: { data: string }) => (endpointResponse += decodeURIComponent(event.data)));
    source.onmessage = (event: { data: string }) => {
      if (event.data === '[DONE]') settle(true);
      else if (event.data.startsWith('[ERROR]')) settle(false, event.data.slice('[ERROR]'.length));
    };
    source.onerror = () => settle(false);
  });
}

/** A collision-resistant id shaped like the `cuid()` the hook generates for a new conversation. */
export function cuidLike(): string {
  const random = Array.from({ length: 16 }, () => Math.floor(Math.random() * 36).toString(36)).join('');
  return `c${Date.now().toString(36)}${random}`.slice(0, 25);
}

/** What one poll of the reference chat hook got: status, CORS header and the parsed body. */
export interface PollResult {
  status: number;
  allowOrigin: string | null;
  body: unknown;
}

/**
 * One poll of the reference chat hook's history query: a plain GET (axios from the page, so no
 * preflight and no key) of `/api/conversations/{id}?cursor=<last message id of the previous page>`,
 * `cursor=` empty for the first page. `extra` is appended to the query string.
 */
export async function pollConversation(
  apiOrigin: string,
  conversationId: string,
  cursor: string,
  origin: string,
  extra = '',
): Promise<PollResult> {
  const response = await fetch(`${apiOrigin}/api/conversations/${conversationId}?cursor=${cursor}${extra}`, {
    headers: { Accept: 'application/json, text/plain, */*', Origin: origin },
  });
  return { status: response.status, allowOrigin: response.headers.get('access-control-allow-origin'), body: await response.json() };
}

/** The hook's thumbs: `POST /api/conversations/eval-answer` with `{ eval, messageId, visitorId }` as JSON. */
export async function evalAnswer(apiOrigin: string, body: { eval: 'good' | 'bad'; messageId: string; visitorId: string }, origin: string) {
  const response = await fetch(`${apiOrigin}/api/conversations/eval-answer`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: origin },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    allowOrigin: response.headers.get('access-control-allow-origin'),
    body: await response.json(),
  };
}
