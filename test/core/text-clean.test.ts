import { describe, expect, it } from 'vitest';
import { cleanText, cleanTextYielding } from '../../src/ingest/text-clean.js';
import { seededRandom } from '../../src/testing/random.js';

// Letters, every kind of whitespace and control character the rules touch, and a ZWJ emoji.
const ALPHABET = [
  'a',
  'b',
  'é',
  ' ',
  '  ',
  '\t',
  '\n',
  '\n\n\n',
  '\r\n',
  '\r',
  '\u00a0',
  '\f',
  '\u2029',
  '\u0085',
  '\u0007',
  '\ufeff',
  '👩‍👧',
];

function sampleText(seed: number, length: number): string {
  const random = seededRandom(seed);
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const part = ALPHABET[Math.floor(random() * ALPHABET.length)] as string;
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

describe('cleanTextYielding', () => {
  it('cleans a text of many slices exactly as cleanText does, pausing between slices', async () => {
    for (const seed of [1, 2, 3]) {
      const text = ` \n${sampleText(seed, 300_000)}\r\n `;
      let pauses = 0;
      const cleaned = await cleanTextYielding(text, () => {
        pauses++;
        return Promise.resolve();
      });
      expect(cleaned).toBe(cleanText(text));
      expect(pauses).toBeGreaterThanOrEqual(4);
    }
  });

  it('cleans a short text in one step', async () => {
    let pauses = 0;
    const text = 'a \u00a0 b\r\n\n\n\nc';
    const cleaned = await cleanTextYielding(text, () => {
      pauses++;
      return Promise.resolve();
    });
    expect(cleaned).toBe(cleanText(text));
    expect(pauses).toBe(0);
  });
});

describe('cleanText on long runs of whitespace', () => {
  it('removes spaces and tabs before a line break in one pass, whatever the run (quadratic before)', () => {
    expect(cleanText('a \t \nb\t\t\nc')).toBe('a\nb\nc');
    const tabs = '\t'.repeat(1_000_000);
    expect(cleanText(`a${tabs}b`)).toBe(`a${tabs}b`);
    expect(cleanText(`a${' \t'.repeat(500_000)}\nb`)).toBe('a\nb');
  });
});
