/** Maps HTTP statuses and transport failures onto stable `RagdeskError` codes. */
import type { IncomingHttpHeaders } from 'node:http';
import { RagdeskError } from '../../src/errors.js';

/** `Retry-After` (seconds or an HTTP date) in milliseconds, capped at one hour. */
function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, ms), 3_600_000);
}

export function statusError(url: string, status: number, headers: IncomingHttpHeaders): RagdeskError {
  const details: Record<string, unknown> = { url, status };
  if (status === 404 || status === 410) {
    return new RagdeskError('not_found', `${url} answered ${status}`, { details });
  }
  const retryable = status === 429 || status >= 500;
  if (retryable) {
    const retryAfter = retryAfterMs(headers['retry-after']);
    if (retryAfter !== undefined) details.retryAfterMs = retryAfter;
  }
  return new RagdeskError('upstream_failed', `${url} answered ${status}`, { details, retryable });
}

export function timeoutError(url: string, timeoutMs: number): RagdeskError {
  return new RagdeskError('upstream_failed', `${url} did not answer within ${timeoutMs} ms`, {
    details: { url, reason: 'timeout', timeoutMs },
    retryable: true,
  });
}

export function tooLargeError(url: string, maxBytes: number): RagdeskError {
  return new RagdeskError('payload_too_large', `${url} is larger than ${maxBytes} bytes`, {
    details: { url, maxBytes },
  });
}

/** Connection-level failures (refused, reset, TLS) are worth retrying; the rest are not. */
export function transportError(url: string, error: unknown): RagdeskError {
  if (RagdeskError.isInstance(error)) return error;
  const code = (error as { code?: string }).code ?? 'unknown';
  const tls = /^(ERR_TLS|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|ERR_SSL)/.test(code);
  const message = error instanceof Error ? error.message : String(error);
  return new RagdeskError('upstream_failed', `request to ${url} failed: ${message}`, {
    cause: error,
    details: { url, reason: tls ? 'tls' : 'network', errorCode: code },
    retryable: !tls,
  });
}
