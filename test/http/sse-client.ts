import { EventSource } from 'eventsource';

interface StreamOutcome {
  /** Status of a refused stream (e.g. 402); undefined when the stream opened. */
  refusedWith?: number;
  /** Decoded `answer` deltas, in order. */
  deltas: string[];
  /** The decoded, parsed `endpoint_response`. */
  response?: unknown;
  /** `[ERROR]<code>` seen: the code. */
  errorCode?: string;
  done: boolean;
}

export interface StreamHandle {
  outcome: Promise<StreamOutcome>;
  /** Resolves at the first answer delta. */
  firstDelta: Promise<void>;
  close(): void;
}

/**
 * Reads a streaming agent query the way the reference service's clients do, with the `eventsource`
 * package: POST through its `fetch` hook, `answer` and `endpoint_response` data URI-decoded and
 * concatenated, `[DONE]` ends, `[ERROR]` fails, a status on open (402) refuses.
 */
export function openAgentStream(origin: string, agentId: string, body: Record<string, unknown>, key: string | null): StreamHandle {
  const outcome: StreamOutcome = { deltas: [], done: false };
  const responseParts: string[] = [];
  let settle!: (value: StreamOutcome) => void;
  let firstDelta!: () => void;
  const promise = new Promise<StreamOutcome>((resolve) => (settle = resolve));
  const first = new Promise<void>((resolve) => (firstDelta = resolve));
  const source = new EventSource(`${origin}/api/agents/${agentId}/query`, {
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        method: 'POST',
        headers: {
          ...(init.headers as Record<string, string>),
          'content-type': 'application/json',
          ...(key ? { authorization: `Bearer ${key}` } : {}),
        },
        body: JSON.stringify({ ...body, streaming: true }),
      }),
  });
  const finish = () => {
    source.close();
    if (responseParts.length) outcome.response = JSON.parse(responseParts.join('')) as unknown;
    settle(outcome);
  };
  source.addEventListener('answer', (event: { data: string }) => {
    outcome.deltas.push(decodeURIComponent(event.data));
    firstDelta();
  });
  source.addEventListener('endpoint_response', (event: { data: string }) => responseParts.push(decodeURIComponent(event.data)));
  source.onmessage = (event: { data: string }) => {
    if (event.data === '[DONE]') {
      outcome.done = true;
      finish();
    } else if (event.data.startsWith('[ERROR]')) {
      outcome.errorCode = event.data.slice('[ERROR]'.length);
      finish();
    }
  };
  source.onerror = (event) => {
    // A status on open refuses the stream; anything else (the server ended without [DONE]) is a failure too.
    outcome.refusedWith = event.code;
    finish();
  };
  return { outcome: promise, firstDelta: first, close: () => source.close() };
}
