/**
 * Timeouts of the server `ragdesk serve` runs. Node's defaults let a slow client hold a connection
 * for a minute before its headers are complete and five minutes before its body is (and check only
 * every 30 s), so a few hundred slowloris connections pin the process. These are tighter and apply
 * to receiving a request only: a long answer (an SSE stream) is not cut by them.
 */
import type { ServerOptions } from 'node:http';
import { UsageError } from './io.js';

export interface ServerTimeouts {
  /** Time from connection (or the previous request) until the request headers are complete. */
  headersTimeoutMs: number;
  /** Time until the whole request, body included, has arrived (a 50 MB upload at 1 MB/s takes 50 s). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
};

/** `parseArgs` option specs of the timeout flags. */
export const SERVER_TIMEOUT_FLAGS = {
  'headers-timeout-ms': { type: 'string' },
  'request-timeout-ms': { type: 'string' },
  'keep-alive-timeout-ms': { type: 'string' },
} as const;

export const SERVER_TIMEOUT_USAGE =
  `  --headers-timeout-ms ${DEFAULT_SERVER_TIMEOUTS.headersTimeoutMs}, --request-timeout-ms ${DEFAULT_SERVER_TIMEOUTS.requestTimeoutMs} ` +
  `and --keep-alive-timeout-ms ${DEFAULT_SERVER_TIMEOUTS.keepAliveTimeoutMs}\n` +
  '  cut clients that are slow to send a request and close idle connections.';

function milliseconds(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`--${flag} must be a whole number of milliseconds >= 1, got ${JSON.stringify(text)}`);
  return value;
}

export function parseServerTimeouts(values: Partial<Record<keyof typeof SERVER_TIMEOUT_FLAGS, string>>): ServerTimeouts {
  const timeouts = {
    headersTimeoutMs: milliseconds('headers-timeout-ms', values['headers-timeout-ms'], DEFAULT_SERVER_TIMEOUTS.headersTimeoutMs),
    requestTimeoutMs: milliseconds('request-timeout-ms', values['request-timeout-ms'], DEFAULT_SERVER_TIMEOUTS.requestTimeoutMs),
    keepAliveTimeoutMs: milliseconds('keep-alive-timeout-ms', values['keep-alive-timeout-ms'], DEFAULT_SERVER_TIMEOUTS.keepAliveTimeoutMs),
  };
  if (timeouts.headersTimeoutMs > timeouts.requestTimeoutMs) {
    throw new UsageError('--headers-timeout-ms must not be larger than --request-timeout-ms');
  }
  return timeouts;
}

/** node:http server options for these timeouts. */
export function serverTimeoutOptions(
  timeouts: ServerTimeouts,
): Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionsCheckingInterval'> {
  return {
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // How often node looks for connections past those limits (its default is every 30 s).
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersTimeoutMs),
  };
}
