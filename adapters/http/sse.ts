/**
 * Server-sent event frames, byte-compatible with the reference service's clients: data is
 * `encodeURIComponent`-encoded so newlines inside a delta can never break a frame.
 */
import { toWellFormed } from '../../src/index.js';

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
};

/** `data` is made well-formed first: `encodeURIComponent` throws on a lone surrogate. */
export function eventFrame(event: string, data: string): string {
  return `event: ${event}\ndata: ${encodeURIComponent(toWellFormed(data))}\n\n`;
}

export const DONE_FRAME = 'data: [DONE]\n\n';

export function errorFrame(code: string): string {
  return `data: [ERROR]${code}\n\n`;
}
