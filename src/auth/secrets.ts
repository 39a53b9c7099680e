import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Every ragdesk API key starts with this, so leaked keys are recognisable (secret scanners, logs). */
export const KEY_PREFIX = 'rdk_';
/** 32 random bytes, base64url: 43 characters. */
const SECRET_BYTES = 32;
/** Random bytes of the per-key salt of the stored digest. */
const SALT_BYTES = 16;
/** Characters of the secret kept in clear in the record, so listings can tell keys apart. */
const SHOWN_LENGTH = KEY_PREFIX.length + 8;
/** How a stored digest names its scheme, so the scheme can change later without a schema change. */
const HMAC_SCHEME = 'hmac-sha256';

/**
 * Current format: `rdk_<key id>_<43 base64url characters>`. The id (a UUID, not secret) says which
 * record to load; the random part is the secret. Fixed lengths make the split unambiguous even
 * though base64url itself may contain `_`.
 */
const CURRENT_FORMAT = /^rdk_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_[A-Za-z0-9_-]{43}$/;
/** Format of keys created before the id was embedded: `rdk_<43 characters>`, stored as plain SHA-256. */
const LEGACY_FORMAT = /^rdk_[A-Za-z0-9_-]{43}$/;
const STORED_HMAC = /^hmac-sha256:([0-9a-f]{32}):([0-9a-f]{64})$/;
const STORED_LEGACY = /^[0-9a-f]{64}$/;

/** A new secret for the key record `id`. */
export function generateSecret(id: string): string {
  const secret = `${KEY_PREFIX}${id}_${randomBytes(SECRET_BYTES).toString('base64url')}`;
  if (!CURRENT_FORMAT.test(secret)) throw new TypeError(`API key ids must be lower-case UUIDs, got ${JSON.stringify(id)}`);
  return secret;
}

/** What the account store keeps for a new secret: `hmac-sha256:<salt hex>:<HMAC-SHA256(salt, secret) hex>`. */
export function digestSecret(secret: string): string {
  const salt = randomBytes(SALT_BYTES).toString('hex');
  return `${HMAC_SCHEME}:${salt}:${hmac(salt, secret).toString('hex')}`;
}

/**
 * How to find the record of a presented secret: by the id it carries (current keys), by the plain
 * SHA-256 of the whole secret (keys created before ids were embedded), or not at all.
 */
export type SecretLookup = { kind: 'id'; id: string } | { kind: 'legacy-hash'; hash: string } | { kind: 'none' };

export function lookupOf(secret: string): SecretLookup {
  const current = CURRENT_FORMAT.exec(secret);
  if (current?.[1]) return { kind: 'id', id: current[1] };
  if (LEGACY_FORMAT.test(secret)) return { kind: 'legacy-hash', hash: sha256Hex(secret) };
  return { kind: 'none' };
}

/**
 * Whether `secret` matches the stored digest, in constant time for the comparison itself. A stored
 * value of another scheme never matches, so a legacy record cannot be reached through the id path
 * and the other way round.
 */
export function matchesStored(stored: string, secret: string): boolean {
  const salted = STORED_HMAC.exec(stored);
  if (salted?.[1] && salted[2]) {
    if (lookupOf(secret).kind !== 'id') return false;
    return timingSafeEqual(hmac(salted[1], secret), Buffer.from(salted[2], 'hex'));
  }
  if (STORED_LEGACY.test(stored)) {
    if (lookupOf(secret).kind !== 'legacy-hash') return false;
    return timingSafeEqual(createHash('sha256').update(secret, 'utf8').digest(), Buffer.from(stored, 'hex'));
  }
  return false;
}

/**
 * Work equal to one `matchesStored` on a salted digest, done when no record was found, so the time
 * of a refusal does not tell an unknown key id from a known one with the wrong secret.
 */
export function burnComparison(secret: string): void {
  timingSafeEqual(hmac('0'.repeat(SALT_BYTES * 2), secret), Buffer.alloc(32));
}

export function shownPrefix(secret: string): string {
  return secret.slice(0, SHOWN_LENGTH);
}

/**
 * Whether a presented string can be a key at all. Cheap and independent of any stored secret, so
 * refusing early leaks nothing; it keeps absurd inputs (megabytes of header) away from the account store.
 */
export function looksLikeKey(value: string): boolean {
  return value.length >= 16 && value.length <= 512 && /^[\x21-\x7e]+$/.test(value);
}

function hmac(saltHex: string, secret: string): Buffer {
  return createHmac('sha256', Buffer.from(saltHex, 'hex')).update(secret, 'utf8').digest();
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
