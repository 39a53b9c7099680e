import { describe, expect, it } from 'vitest';
import { tableLine, tableSections } from '../../../adapters/loaders/table-text.js';

describe('tableLine', () => {
  it('writes a Markdown row, escaping pipes and folding line breaks', () => {
    expect(tableLine(['a', ' b | c ', 'x\r\n  y'])).toBe('| a | b \\| c | x y |');
    expect(tableLine([])).toBe('|  |');
  });
});

describe('tableSections', () => {
  it('starts every section with the header and a separator, pads short rows, marks sections standalone', () => {
    const sections = tableSections([['h1', 'h2'], ['a'], ['b', 'c'], ['d', 'e']], {
      rowsPerSection: 2,
      label: 'Sheet1',
      pageNumber: 3,
      caption: 'Sheet: Sheet1',
    });
    expect(sections).toEqual([
      { text: 'Sheet: Sheet1\n| h1 | h2 |\n| --- | --- |\n| a |  |\n| b | c |', standalone: true, pageNumber: 3, label: 'Sheet1' },
      { text: 'Sheet: Sheet1\n| h1 | h2 |\n| --- | --- |\n| d | e |', standalone: true, pageNumber: 3, label: 'Sheet1' },
    ]);
  });

  it('gives a header-only table one section and an empty table none', () => {
    expect(tableSections([['only']])).toEqual([{ text: '| only |\n| --- |', standalone: true }]);
    expect(tableSections([])).toEqual([]);
  });

  it('closes a section early once it passes maxChars', () => {
    const rows = [['h'], ...Array.from({ length: 6 }, (_, index) => [`${index}`.repeat(20)])];
    const sections = tableSections(rows, { maxChars: 60 });
    expect(sections.length).toBeGreaterThan(2);
    for (const section of sections) expect(section.text.startsWith('| h |\n| --- |\n')).toBe(true);
  });

  it('repeats only the header cells that fit in half a section, the rest marked with …', () => {
    const header = Array.from({ length: 40 }, (_, index) => `column${index}`);
    const rows = [header, header.map(() => 'x'), header.map(() => 'y')];
    const [first, second] = tableSections(rows, { rowsPerSection: 1, maxChars: 200 });
    expect(first?.text.split('\n')[0]).toBe(tableLine(header));
    const repeated = second?.text.split('\n')[0] ?? '';
    expect(repeated.endsWith('| … |')).toBe(true);
    expect(repeated.length).toBeLessThanOrEqual(100);
    expect(repeated.startsWith('| column0 |')).toBe(true);
  });

  it('refuses a table wider than maxColumns', () => {
    expect(() => tableSections([['a', 'b', 'c']], { maxColumns: 2 })).toThrow(
      expect.objectContaining({ code: 'payload_too_large', details: { reason: 'too_many_columns', columns: 3, maxColumns: 2 } }),
    );
  });
});

describe('tableLine on hostile cells', () => {
  it('joins the lines of a cell in one pass, whatever its runs of spaces (quadratic before)', () => {
    const spaces = ' '.repeat(1_000_000);
    expect(tableLine([`a${spaces}b`, `c${spaces}\n${spaces}d`])).toBe(`| a${spaces}b | c d |`);
  });
});
