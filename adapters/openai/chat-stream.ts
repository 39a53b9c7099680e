import type { ChatRequest, ChatStreamPart, ChatUsage } from '../../src/ports/chat-model.js';
import { RagdeskError } from '../../src/errors.js';
import { Attempt } from './attempt.js';
import { COUNTED_USAGE_WARNING, countedUsage, finishReasonOf, usageOf, type ChatBody } from './chat-request.js';
import type { Connection } from './connection.js';
import { toRagdeskError, withAttempts } from './errors.js';
import { abortedError, nextDelay, sleep } from './retry.js';

export interface StreamSettings {
  connection: Connection;
  /** Ask for the usage chunk (`stream_options.include_usage`). */
  streamUsage: boolean;
  what: string;
}

/**
 * Streams one chat completion: text deltas, then one finish part. An attempt that fails before any
 * text was yielded is retried like a plain call; after the first delta a failure ends the stream
 * with an error, since a retry would repeat or contradict text the consumer already has.
 */
export async function* streamChat(settings: StreamSettings, request: ChatRequest, body: ChatBody): AsyncGenerator<ChatStreamPart> {
  const { connection, what } = settings;
  const callerSignal = request.signal;
  let yielded = false;
  for (let retryIndex = 0; ; retryIndex++) {
    if (callerSignal?.aborted) throw abortedError(callerSignal);
    const attempt = new Attempt(callerSignal, connection.timeoutMs);
    let failure: RagdeskError;
    try {
      const stream = await connection.client.chat.completions.create(
        { ...body, stream: true, ...(settings.streamUsage ? { stream_options: { include_usage: true } } : {}) },
        { signal: attempt.signal, maxRetries: 0 },
      );
      let text = '';
      let finish: string | null | undefined;
      let usage: ChatUsage | undefined;
      for await (const chunk of stream) {
        // Chunks already buffered when the signal fired must not reach the consumer.
        if (attempt.callerAborted || attempt.timedOut) break;
        attempt.restartTimer();
        // Some servers (vLLM with continuous usage stats) send usage on every chunk: keep the last.
        usage = usageOf(chunk.usage) ?? usage;
        const choice = chunk.choices?.find((candidate) => candidate.index === 0);
        if (!choice) continue;
        if (choice.finish_reason) finish = choice.finish_reason;
        const piece = choice.delta?.content;
        if (typeof piece === 'string' && piece !== '') {
          text += piece;
          yielded = true;
          yield { type: 'delta', text: piece };
        }
      }
      // The client ends the iteration quietly when its signal fires, so aborts and timeouts are
      // recognised here rather than caught.
      if (attempt.callerAborted || attempt.timedOut) throw new Error('stream stopped');
      if (finish === undefined || finish === null) {
        throw new RagdeskError('upstream_failed', `${what}: the stream ended before the model finished`, {
          details: { reason: 'incomplete_stream' },
        });
      }
      const warnings: string[] = [];
      if (!usage) warnings.push(COUNTED_USAGE_WARNING);
      yield { type: 'finish', usage: usage ?? countedUsage(request, text), finishReason: finishReasonOf(finish), warnings };
      return;
    } catch (error) {
      failure = toRagdeskError(error, attempt, callerSignal, what);
    } finally {
      // Also runs when the consumer stops early (`break`): it closes the upstream request.
      attempt.dispose();
    }
    const wait = yielded ? null : nextDelay(connection.retry, retryIndex, failure);
    if (wait === null || failure.code === 'aborted') throw withAttempts(failure, retryIndex + 1);
    await sleep(wait, callerSignal);
  }
}
