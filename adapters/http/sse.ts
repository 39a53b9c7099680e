/**
 * Server-sent event frames, byte-compatible with the reference service's clients: data is
 * `encodeURIComponent`-encoded so newlines inside a delta can never break a frame.
 */

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
};

export function eventFrame(event: string, data: string): string {
  return `event: ${event}\ndata: ${encodeURIComponent(data)}\n\n`;
}

export const DONE_FRAME = 'data: [DONE]\n\n';

export function errorFrame(code: string): string {
  return `data: [ERROR]${code}\n\n`;
}
