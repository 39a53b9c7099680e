import { expect } from 'vitest';
import { RagdeskError } from '../../src/errors.js';

/** Resolves with the error a promise (or a throwing call) ends in; fails the test if it succeeds. */
export async function failure(run: Promise<unknown> | (() => unknown)): Promise<RagdeskError> {
  try {
    await (typeof run === 'function' ? run() : run);
  } catch (error) {
    // A typed error, never a RangeError, TypeError or a library's own exception.
    expect(error, String(error)).toBeInstanceOf(RagdeskError);
    return error as RagdeskError;
  }
  throw new Error('expected a RagdeskError, but the call succeeded');
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** Hostile strings for ids, queries and names: SQL, FTS5 and tsquery syntax, control characters. */
export const HOSTILE_STRINGS = [
  '"',
  '""',
  "'",
  "'; DROP TABLE chunks; --",
  '"; DROP TABLE datastores; --',
  '*',
  'a*',
  'NEAR(',
  'NEAR(a b, 2)',
  '-',
  '-foo',
  ':',
  'text:foo',
  '^',
  '^foo',
  'AND',
  'OR NOT',
  '(',
  ')',
  '{col}',
  '%',
  '_',
  '\\',
  '!',
  '&',
  '|',
  '<->',
  'a & !b | c:*',
  '$1',
  '?',
  '\u0000',
  'a\u0000b',
  '\n',
  '../../etc/passwd',
  '🦜',
] as const;
