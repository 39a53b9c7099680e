import { describe, expect, it } from 'vitest';
import { compileWildcard, matchWildcard, type StepCounter } from '../../../adapters/web/wildcard-match.js';

const counter = (limit = Number.MAX_SAFE_INTEGER): StepCounter => ({ steps: 0, limit });
const matches = (source: string, text: string, start = true, end = true): boolean | undefined =>
  matchWildcard(compileWildcard(source, { start, end }), text, counter());

/** What a regular expression says on small inputs, where backtracking costs nothing. */
function reference(source: string, text: string, start: boolean, end: boolean): boolean {
  const body = source
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`${start ? '^' : ''}${body}${end ? '$' : ''}`).test(text);
}

describe('matchWildcard', () => {
  it('anchors each end only where asked and where the pattern has no `*`', () => {
    expect(matches('/docs/*', '/docs/a/b')).toBe(true);
    expect(matches('/docs/*', '/blog/docs/a')).toBe(false);
    expect(matches('*.html', '/a/b.html')).toBe(true);
    expect(matches('*.html', '/a/b.html?x')).toBe(false);
    expect(matches('/a*b*c', '/abc')).toBe(true);
    expect(matches('/a*b*c', '/acb')).toBe(false);
    expect(matches('/exact', '/exact')).toBe(true);
    expect(matches('/exact', '/exact/more')).toBe(false);
    expect(matches('/exact', '/exact/more', true, false)).toBe(true);
    expect(matches('about', 'https://s.test/about-us', false, false)).toBe(true);
    expect(matches('.pdf', '/x.pdf?', false, true)).toBe(false);
    expect(matches('*', '')).toBe(true);
    expect(matches('', '')).toBe(true);
    expect(matches('', 'x')).toBe(false);
    // The anchored tail may not overlap the anchored head.
    expect(matches('ab*ba', 'aba')).toBe(false);
    expect(matches('ab*ba', 'abba')).toBe(true);
  });

  it('agrees with a regular expression on every small pattern and text over a two-letter alphabet', () => {
    const words = (length: number, alphabet: string): string[] =>
      length === 0 ? [''] : words(length - 1, alphabet).flatMap((word) => [...alphabet].map((letter) => word + letter));
    const patterns = [0, 1, 2, 3, 4].flatMap((length) => words(length, 'ab*'));
    const texts = [0, 1, 2, 3, 4, 5].flatMap((length) => words(length, 'ab'));
    let compared = 0;
    for (const source of patterns) {
      for (const [start, end] of [
        [true, true],
        [true, false],
        [false, true],
        [false, false],
      ] as const) {
        for (const text of texts) {
          expect(matches(source, text, start, end), `${source} ${start} ${end} ${text}`).toBe(reference(source, text, start, end));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(20_000);
  });

  it('takes at most 2 x text + pattern steps on the patterns that are exponential for a backtracking regex', () => {
    const cases: Array<[string, string]> = [
      ['/*a*a*a*a*a*a*a*a*b', `/${'a'.repeat(52)}`],
      ['/*a*a*a*a*a*a*a*a*b', `/${'a'.repeat(5_000)}`],
      [`/${'*a'.repeat(12)}*b`, `/${'a'.repeat(39)}`],
      ['*a*a*a*a*a*a*a*a*b', `/${'a'.repeat(44)}`],
      [`*${'a'.repeat(200)}b*`, 'a'.repeat(10_000)],
      [`${'*aab'.repeat(100)}*`, 'aa'.repeat(5_000)],
    ];
    for (const [source, text] of cases) {
      const steps = counter();
      expect(matchWildcard(compileWildcard(source, { start: true, end: true }), text, steps)).toBe(false);
      expect(steps.steps, source).toBeLessThanOrEqual(2 * text.length + source.length);
    }
  });

  it('gives up with undefined once past the step limit', () => {
    const pattern = compileWildcard(`${'*x'.repeat(50)}*`, { start: true, end: true });
    // Every segment is found, 200 characters after the previous one: 10,050 steps to decide.
    const text = `${'y'.repeat(200)}x`.repeat(50);
    const limited = counter(1_000);
    expect(matchWildcard(pattern, text, limited)).toBeUndefined();
    expect(limited.steps).toBeLessThanOrEqual(1_000 + 2 * 201);
    expect(matchWildcard(pattern, text, counter())).toBe(true);
  });
});
