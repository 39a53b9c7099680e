import { describe, expect, it } from 'vitest';
import { SurrogateJoiner, toWellFormed } from '../../src/text/well-formed.js';

const FAMILY = '👩‍👩‍👧‍👦';

describe('toWellFormed', () => {
  it('keeps paired surrogates and replaces lone halves with U+FFFD', () => {
    expect(toWellFormed(`a${FAMILY}b`)).toBe(`a${FAMILY}b`);
    expect(toWellFormed('x\uD83Dy')).toBe('x\uFFFDy');
    expect(toWellFormed('x\uDC69y')).toBe('x\uFFFDy');
    expect(toWellFormed('\uDC69\uD83D')).toBe('\uFFFD\uFFFD');
    expect(toWellFormed('')).toBe('');
  });
});

describe('SurrogateJoiner', () => {
  it('holds a trailing high surrogate until the next delta shows its low half', () => {
    const joiner = new SurrogateJoiner();
    const [high, low] = ['😀'.charAt(0), '😀'.charAt(1)];
    expect(joiner.push(`hi ${high}`)).toBe('hi ');
    expect(joiner.push(`${low}!`)).toBe('😀!');
    expect(joiner.end()).toBe('');
  });

  it('turns a high surrogate left at the end, or followed by no low half, into U+FFFD', () => {
    const joiner = new SurrogateJoiner();
    expect(joiner.push('a\uD83D')).toBe('a');
    expect(joiner.push('b')).toBe('\uFFFDb');
    expect(joiner.push('\uD83D')).toBe('');
    expect(joiner.end()).toBe('\uFFFD');
    expect(joiner.end()).toBe('');
  });

  it('yields exactly the well-formed text, wherever the deltas are cut', () => {
    const text = `é${FAMILY}x\uD83D${FAMILY}`;
    for (let cut = 0; cut <= text.length; cut++) {
      const joiner = new SurrogateJoiner();
      const out = joiner.push(text.slice(0, cut)) + joiner.push(text.slice(cut)) + joiner.end();
      expect(out).toBe(toWellFormed(text));
    }
  });
});
