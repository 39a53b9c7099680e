import { describe, expect, it } from 'vitest';
import { Strength, insideCluster, sentenceSpans, wordSpans, type Span } from '../../src/ingest/boundaries.js';

const pieces = (text: string, spans: Iterable<Span>) => [...spans].map((span) => [text.slice(span.start, span.end), span.strength]);

describe('sentenceSpans', () => {
  it('tiles the region: sentences, lines and paragraph breaks, each ending after its content', () => {
    const text = 'First one. Second one!\nA line\n\nNew paragraph';
    expect(pieces(text, sentenceSpans(text, 0, text.length, Strength.paragraph))).toEqual([
      ['First one.', Strength.sentence],
      // A sentence end and a line break at one place: the stronger, the sentence, is kept.
      [' Second one!', Strength.sentence],
      ['\nA line', Strength.paragraph],
      ['\n\nNew paragraph', Strength.paragraph],
    ]);
  });

  it('does not end a sentence after an abbreviation or before a lowercase word', () => {
    const text = 'See Dr. Smith et al. for it. Then e.g. this. and more';
    const cuts = [...sentenceSpans(text, 0, text.length, Strength.paragraph)].map((span) => text.slice(span.start, span.end));
    expect(cuts).toEqual(['See Dr. Smith et al. for it.', ' Then e.g. this. and more']);
  });

  it('works inside a region of a larger string without reading past it', () => {
    const text = 'xx. Inside one. Inside two. yy. Outside.';
    const from = 4;
    const to = text.indexOf(' yy');
    const spans = [...sentenceSpans(text, from, to, Strength.word)];
    expect(spans[0]!.start).toBe(from);
    expect(spans.at(-1)!.end).toBe(to);
    expect(spans.at(-1)!.strength).toBe(Strength.word);
    expect(spans.map((span) => text.slice(span.start, span.end)).join('')).toBe(text.slice(from, to));
  });
});

describe('wordSpans', () => {
  it('keeps the space before a word with that word and tiles the region', () => {
    const text = 'one  two three';
    expect(pieces(text, wordSpans(text, 0, text.length, Strength.sentence))).toEqual([
      ['one', Strength.word],
      ['  two', Strength.word],
      [' three', Strength.sentence],
    ]);
  });
});

describe('insideCluster', () => {
  it('refuses cuts inside surrogate pairs, ZWJ sequences, variation selectors, skin tones and combining marks', () => {
    const family = '👩‍👧';
    expect(insideCluster(family, 1)).toBe(true); // inside the first surrogate pair
    expect(insideCluster(family, 2)).toBe(true); // before the joiner
    expect(insideCluster(family, 3)).toBe(true); // after the joiner
    expect(insideCluster('👍🏽', 2)).toBe(true); // before the skin tone
    expect(insideCluster('❤️', 1)).toBe(true); // before the variation selector
    expect(insideCluster('e\u0301', 1)).toBe(true); // before a combining accent
  });

  it('allows cuts between plain characters and at the ends', () => {
    expect(insideCluster('ab', 1)).toBe(false);
    expect(insideCluster('ab', 0)).toBe(false);
    expect(insideCluster('ab', 2)).toBe(false);
    expect(insideCluster('👩👧', 2)).toBe(false);
  });
});

describe('sentenceSpans on long runs of terminators', () => {
  it('finds a run of dots once, at its start, whether or not a space follows (quadratic before)', () => {
    const text = `Wait${'.'.repeat(3)} Then go. Dots${'.'.repeat(1_000_000)}x and more. 終わり。。。次`;
    const spans = [...sentenceSpans(text, 0, text.length, Strength.paragraph)];
    expect(spans.map((span) => text.slice(span.start, span.end).trim().slice(0, 12))).toEqual([
      'Wait...',
      'Then go.',
      'Dots........',
      '終わり。。。',
      '次',
    ]);
  });
});
