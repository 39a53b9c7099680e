import { RagdeskError, type AgentStreamEvent } from '../../src/index.js';
import { DONE_FRAME, SSE_HEADERS, errorFrame, eventFrame } from './sse.js';
import type { StreamResult } from './types.js';

/**
 * The SSE body of a streaming agent query. The stream is already open (validation and the usage
 * check passed), so a failure from here on can only be told in-band: `data: [ERROR]<code>`, then the
 * stream ends. When the client leaves, the bridge stops pulling, `return()` reaches the agent's
 * iterator, and the aborted signal stops the model call.
 */
export function agentStream(
  events: AsyncIterable<AgentStreamEvent>,
  signal: AbortSignal,
  reportBug: (error: unknown) => void,
): StreamResult {
  return { kind: 'stream', status: 200, headers: { ...SSE_HEADERS }, chunks: frames(events, signal, reportBug) };
}

async function* frames(
  events: AsyncIterable<AgentStreamEvent>,
  signal: AbortSignal,
  reportBug: (error: unknown) => void,
): AsyncGenerator<string> {
  try {
    for await (const event of events) {
      if (signal.aborted) return;
      if (event.type === 'answer') yield eventFrame('answer', event.delta);
      else yield eventFrame('endpoint_response', JSON.stringify(event.response));
    }
  } catch (error) {
    if (signal.aborted) return;
    if (!RagdeskError.isInstance(error) || error.status >= 500) reportBug(error);
    yield errorFrame(RagdeskError.isInstance(error) ? error.code : 'internal');
    return;
  }
  yield DONE_FRAME;
}
