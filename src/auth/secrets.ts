import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every ragdesk API key starts with this, so leaked keys are recognisable (secret scanners, logs). */
export const KEY_PREFIX = 'rdk_';
/** 32 random bytes, base64url: 43 characters after the prefix. */
const SECRET_BYTES = 32;
const SECRET_LENGTH = KEY_PREFIX.length + 43;
/** Characters of the secret kept in clear in the record, so listings can tell keys apart. */
const SHOWN_LENGTH = KEY_PREFIX.length + 8;

export function generateSecret(): string {
  return KEY_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
}

/** SHA-256 hex of the whole secret: what the Store keeps and looks keys up by. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function shownPrefix(secret: string): string {
  return secret.slice(0, SHOWN_LENGTH);
}

/**
 * Whether a presented string can be a key at all. Cheap and independent of any stored secret, so
 * refusing early leaks nothing; it keeps absurd inputs (megabytes of header) away from the Store.
 */
export function looksLikeKey(value: string): boolean {
  return value.length >= 16 && value.length <= 512 && /^[\x21-\x7e]+$/.test(value);
}

/** Whether a generated key has the current format (keys configured by an operator need not). */
export function isGeneratedFormat(value: string): boolean {
  return value.length === SECRET_LENGTH && value.startsWith(KEY_PREFIX) && /^[A-Za-z0-9_-]+$/.test(value.slice(KEY_PREFIX.length));
}

/**
 * Constant-time equality of two hex digests. The Store lookup already matched on the hash; comparing
 * again without early exit means a Store whose lookup is looser than byte equality (a collation, a
 * prefix index) can never let a near-miss through, and the comparison itself leaks no timing.
 */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  if (left.length !== 32 || right.length !== 32) return false;
  return timingSafeEqual(left, right);
}
