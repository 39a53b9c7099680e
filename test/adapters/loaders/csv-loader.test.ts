import { describe, expect, it } from 'vitest';
import { csvLoader, type CsvOptions } from '../../../adapters/loaders/csv-loader.js';
import type { LoadedDocument } from '../../../src/ports/loader.js';

const load = (text: string | Uint8Array, options: CsvOptions = {}): Promise<LoadedDocument> =>
  csvLoader(options).load({ bytes: typeof text === 'string' ? new TextEncoder().encode(text) : text, mimeType: 'text/csv' });
const textOf = async (text: string | Uint8Array, options: CsvOptions = {}): Promise<string> =>
  (await load(text, options)).sections.map((section) => section.text).join('\n\n');

describe('csvLoader', () => {
  it('writes a Markdown table: header, separator, one line per row, row count in metadata', async () => {
    const document = await load('id,name\n1,Ada\n2,Grace\n');
    expect(document.sections).toEqual([{ text: '| id | name |\n| --- | --- |\n| 1 | Ada |\n| 2 | Grace |', standalone: true }]);
    expect(document.metadata).toEqual({ rows: 2 });
  });

  it('guesses the delimiter among comma, semicolon, tab and pipe', async () => {
    expect(await textOf('a;b;c\n1;2,5;3\n')).toBe('| a | b | c |\n| --- | --- | --- |\n| 1 | 2,5 | 3 |');
    expect(await textOf('a\tb\n1\t2\n')).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
    expect(await textOf('a|b\n1|2\n')).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
    // A comma inside every line is not enough: the semicolon splits consistently into more fields.
    expect(await textOf('x;y;z\n"1,5";2;3\n')).toContain('| 1,5 | 2 | 3 |');
  });

  it('follows RFC 4180 quoting: delimiters, doubled quotes and line breaks inside quotes', async () => {
    const text = await textOf('name,quote\r\n"Lyon, France","He said ""hi"""\r\n"multi\nline",plain\r\n');
    expect(text).toBe('| name | quote |\n| --- | --- |\n| Lyon, France | He said "hi" |\n| multi line | plain |');
  });

  it('drops a UTF-8 byte order mark and blank rows, pads short rows', async () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('id,name,city\n\n1,Ada\n , ,\n2,Grace,Paris\n')]);
    const document = await load(bytes);
    expect(document.sections[0]?.text).toBe('| id | name | city |\n| --- | --- | --- |\n| 1 | Ada |  |\n| 2 | Grace | Paris |');
    expect(document.metadata).toEqual({ rows: 2 });
  });

  it('splits rows into sections that each repeat the header', async () => {
    const rows = Array.from({ length: 5 }, (_, index) => `${index},v${index}`);
    const document = await load(['k,v', ...rows].join('\n'), { rowsPerSection: 2 });
    expect(document.sections).toHaveLength(3);
    for (const section of document.sections) {
      expect(section.text.startsWith('| k | v |\n| --- | --- |\n')).toBe(true);
      expect(section.standalone).toBe(true);
    }
    expect(document.sections[2]?.text.endsWith('| 4 | v4 |')).toBe(true);
  });

  it('refuses a file with a row wider than maxColumns (default 1,000)', async () => {
    await expect(textOf('a,b,c\n1,2,3\n', { maxColumns: 3 })).resolves.toContain('| 1 | 2 | 3 |');
    await expect(load('a,b,c\n1,2,3,4\n', { maxColumns: 3 })).rejects.toMatchObject({
      code: 'payload_too_large',
      details: { reason: 'too_many_columns', columns: 4, maxColumns: 3 },
    });
    const wide = Array.from({ length: 2_000 }, (_, index) => `c${index}`).join(',');
    await expect(load(`${wide}\n`)).rejects.toMatchObject({ details: { reason: 'too_many_columns', maxColumns: 1_000 } });
  });

  it('gives no section for an empty file', async () => {
    expect(await load('')).toMatchObject({ sections: [], metadata: { rows: 0 } });
  });
});
