import { RagdeskError, type AgentResponse, type AgentStreamEvent, type SourceEntry } from '../../../src/index.js';
import type { StreamResult } from '../types.js';
import { DONE_FRAME } from '../sse.js';

/** The headers the AI SDK's clients recognise its UI message stream by. */
const UI_MESSAGE_STREAM_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-vercel-ai-ui-message-stream': 'v1',
  'x-accel-buffering': 'no',
};

const TEXT_ID = 'text-1';

/** ragdesk's own facts about the answer, as the assistant message's `metadata`. */
interface RagdeskMessageMetadata {
  conversationId: string;
  visitorId: string;
  messageId: string;
  model: string;
  usage: AgentResponse['usage'];
  warnings: string[];
}

/**
 * An agent's answer as an AI SDK UI message stream (protocol v1): `start`, a step holding one text
 * part (`text-start`, `text-delta`s, `text-end`) and one source part per source, then `finish` with
 * ragdesk's metadata, and `data: [DONE]`. A failure after the stream opened is an `error` chunk
 * (the client's `onError` and error state), then `[DONE]`, as the SDK's own servers end.
 */
export function uiMessageStream(
  events: AsyncIterable<AgentStreamEvent>,
  warnings: readonly string[],
  signal: AbortSignal,
  reportBug: (error: unknown) => void,
): StreamResult {
  return { kind: 'stream', status: 200, headers: { ...UI_MESSAGE_STREAM_HEADERS }, chunks: frames(events, warnings, signal, reportBug) };
}

function frame(chunk: Record<string, unknown>): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

async function* frames(
  events: AsyncIterable<AgentStreamEvent>,
  warnings: readonly string[],
  signal: AbortSignal,
  reportBug: (error: unknown) => void,
): AsyncGenerator<string> {
  yield frame({ type: 'start' });
  yield frame({ type: 'start-step' });
  yield frame({ type: 'text-start', id: TEXT_ID });
  try {
    for await (const event of events) {
      if (signal.aborted) return;
      if (event.type === 'answer') {
        yield frame({ type: 'text-delta', id: TEXT_ID, delta: event.delta });
        continue;
      }
      const response = event.response;
      yield frame({ type: 'text-end', id: TEXT_ID });
      for (const source of response.sources) yield frame(sourceChunk(source));
      yield frame({ type: 'finish-step' });
      yield frame({ type: 'finish', finishReason: finishReasonOf(response), messageMetadata: metadataOf(response, warnings) });
    }
  } catch (error) {
    if (signal.aborted) return;
    if (!RagdeskError.isInstance(error) || error.status >= 500) reportBug(error);
    const text = RagdeskError.isInstance(error) ? `${error.code}: ${error.message}` : 'internal: the answer failed';
    yield frame({ type: 'error', errorText: text });
  }
  yield DONE_FRAME;
}

/** A web source is a `source-url`; a file or text a `source-document`. Both carry ragdesk's fields. */
function sourceChunk(source: SourceEntry): Record<string, unknown> {
  const providerMetadata = {
    ragdesk: {
      datasourceId: source.datasource_id,
      datasourceType: source.datasource_type,
      customId: source.custom_id,
      pageNumber: source.page_number,
      score: source.score,
      text: source.text,
    },
  };
  if (source.source_url !== null) {
    return { type: 'source-url', sourceId: source.chunk_id, url: source.source_url, title: source.datasource_name, providerMetadata };
  }
  return {
    type: 'source-document',
    sourceId: source.chunk_id,
    mediaType: source.mime_type ?? 'text/plain',
    title: source.datasource_name,
    filename: source.datasource_name,
    providerMetadata,
  };
}

function finishReasonOf(response: AgentResponse): string {
  return response.finishReason === 'content_filter' ? 'content-filter' : response.finishReason;
}

function metadataOf(response: AgentResponse, warnings: readonly string[]): RagdeskMessageMetadata {
  return {
    conversationId: response.conversationId,
    visitorId: response.visitorId,
    messageId: response.messageId,
    model: response.model,
    usage: response.usage,
    warnings: [...warnings, ...response.warnings],
  };
}
