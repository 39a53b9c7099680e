import { describe, expect, it } from 'vitest';
import { hasLongRun } from '../../src/ingest/tokenizer.js';
import { seededRandom } from '../../src/testing/random.js';

/** The definition: more than 100 code units in a row that are neither `\s` nor NEL. */
// Without the u flag: code units, as the tokenizer's slices count them (an emoji is two).
const reference = (text: string) => /[^\s\u0085]{101}/.test(text);

const SPACES = [' ', ' ', ' ', '\n', '\t', '\u00a0', '\u3000', '\u2009', '\u0085', '\r\n'];
const LETTERS = ['a', 'Z', '9', '-', 'é', '中', '😀'];

describe('hasLongRun', () => {
  it('finds a run of 101 non-space code units and not one of 100, whatever white space ends it', () => {
    for (const space of SPACES) {
      expect(hasLongRun(`x${space}${'a'.repeat(100)}${space}y`)).toBe(false);
      expect(hasLongRun(`x${space}${'a'.repeat(101)}${space}y`)).toBe(true);
      // A gap between two plain spaces longer than the limit, broken by other white space.
      expect(hasLongRun(` ${'a'.repeat(60)}${space}${'b'.repeat(60)} `)).toBe(false);
    }
    expect(hasLongRun('a'.repeat(101))).toBe(true);
    expect(hasLongRun('')).toBe(false);
  });

  it('agrees with the regular expression on random text with runs around the limit', () => {
    const random = seededRandom(7);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    for (let trial = 0; trial < 2_000; trial++) {
      let text = '';
      const pieces = 1 + Math.floor(random() * 6);
      for (let piece = 0; piece < pieces; piece++) {
        const letter = pick(LETTERS);
        text += letter.repeat(Math.floor((random() * 120) / letter.length)) + pick(SPACES);
      }
      expect(hasLongRun(text), JSON.stringify(text.slice(0, 40))).toBe(reference(text));
    }
  });
});
