import { describe, expect, it } from 'vitest';
import { detectMimeType, fileLoaders, loadFile, MIME } from '../../../adapters/loaders/index.js';
import { RagdeskError } from '../../../src/errors.js';
import type { Loader } from '../../../src/ports/loader.js';
import { buildFixtures, CSV_ROWS, PLANTED } from '../../../fixtures/make-fixtures.js';
import { makeZip } from '../../../fixtures/zip-writer.js';

const files = buildFixtures();
const file = (name: string): Uint8Array => files[name] as Uint8Array;
const loaders = fileLoaders();
const load = (name: string, mimeType?: string) =>
  loadFile(loaders, { bytes: file(name), fileName: name, ...(mimeType === undefined ? {} : { mimeType }) });
const joined = (sections: { text: string }[]): string => sections.map((section) => section.text).join('\n\n');

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (RagdeskError.isInstance(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('file loaders: one fixture per mime type', () => {
  it('PDF: one section per page with page numbers and total pages', async () => {
    const bytes = file('sample.pdf');
    const document = await loadFile(loaders, { bytes, fileName: 'sample.pdf' });
    expect(document.mimeType).toBe(MIME.pdf);
    expect(document.totalPages).toBe(3);
    expect(document.title).toBe('Sample PDF');
    expect(document.sections.map((section) => section.pageNumber)).toEqual([1, 2, 3]);
    PLANTED.pdfPages.forEach((planted, index) => {
      expect(document.sections[index]?.text).toContain(planted);
      const others = PLANTED.pdfPages.filter((other) => other !== planted);
      for (const other of others) expect(document.sections[index]?.text).not.toContain(other);
    });
    expect(bytes.byteLength).toBeGreaterThan(0); // the caller's buffer is not detached by pdfjs
  });

  it('PPTX: one section per slide with its number and title', async () => {
    const document = await load('sample.pptx');
    expect(document.mimeType).toBe(MIME.pptx);
    expect(document.totalPages).toBe(3);
    expect(document.sections.map((section) => [section.pageNumber, section.label])).toEqual([
      [1, 'Slide title 1'],
      [2, 'Slide title 2'],
      [3, 'Slide title 3'],
    ]);
    PLANTED.slides.forEach((planted, index) => expect(document.sections[index]?.text).toContain(planted));
  });

  it('XLSX: sections per sheet labelled with the sheet name', async () => {
    const document = await load('sample.xlsx');
    expect(document.mimeType).toBe(MIME.xlsx);
    expect(document.sections.map((section) => [section.pageNumber, section.label])).toEqual([
      [1, 'Revenue'],
      [2, 'Staff'],
    ]);
    expect(document.sections[0]?.text).toContain('| Quarter | Amount |');
    expect(document.sections[0]?.text).toContain(`| Q2 | ${PLANTED.sheets.Revenue} |`);
    expect(document.sections[1]?.text).toMatch(/^Sheet: Staff\n\| Name \| Role \|/);
    expect(document.sections[1]?.text).toContain(PLANTED.sheets.Staff);
  });

  it('DOCX: headings and paragraphs as text', async () => {
    const document = await load('sample.docx');
    expect(document.mimeType).toBe(MIME.docx);
    expect(joined(document.sections)).toBe(`Sample heading\nFirst paragraph ${PLANTED.docx}.\nSecond paragraph.`);
  });

  it('CSV: groups of 30 rows, each section repeating the header row', async () => {
    const document = await load('sample.csv');
    expect(document.mimeType).toBe(MIME.csv);
    expect(document.sections).toHaveLength(Math.ceil(CSV_ROWS / 30));
    for (const section of document.sections) {
      expect(section.text.startsWith('| id | name | city |\n| --- | --- | --- |\n')).toBe(true);
    }
    expect(document.sections[0]?.text.split('\n')).toHaveLength(2 + 30);
    expect(document.sections.at(-1)?.text).toContain(`| ${CSV_ROWS} | ${PLANTED.csvLast} | Paris, France |`);
    expect(document.sections[0]?.text).toContain('| 1 | person 1 | Lyon, "France" |');
  });

  it('JSON: keys and values as indented lines', async () => {
    const document = await load('sample.json');
    expect(document.mimeType).toBe(MIME.json);
    expect(joined(document.sections)).toBe(
      ['title: Sample', 'items:', '  - id: 1', `    note: ${PLANTED.json}`, 'nested:', '  flag: true'].join('\n'),
    );
  });

  it('Markdown and plain text: kept as written', async () => {
    const markdown = await load('sample.md');
    expect(markdown.mimeType).toBe(MIME.markdown);
    expect(markdown.title).toBe('Sample Markdown');
    expect(joined(markdown.sections)).toContain(`Some *text* with ${PLANTED.markdown}.\n\n- item one`);
    const title = async (markdown: string) =>
      (await loadFile(loaders, { bytes: new TextEncoder().encode(markdown), fileName: 'notes.md' })).title;
    expect(await title('intro\n#not a heading\n#   Closing hashes ##  \nbody')).toBe('Closing hashes');
    expect(await title('# \n#\tTabbed title\n')).toBe('Tabbed title');
    // Spaces the former pattern split in every way between three quantifiers (cubic in the run).
    expect(await title(`# a${' '.repeat(100_000)}x\n`)).toBe(`a${' '.repeat(100_000)}x`);
    const text = await load('sample.txt');
    expect(text.mimeType).toBe(MIME.text);
    expect(joined(text.sections)).toBe(`Plain text file.\n${PLANTED.text}\n`);
  });

  it('HTML: main text, title, no navigation, headers, footers, scripts or hidden elements', async () => {
    const document = await load('sample.html');
    expect(document.mimeType).toBe(MIME.html);
    expect(document.title).toBe('Sample Page');
    const text = joined(document.sections);
    expect(text).toBe(`Main heading\n\nMain text ${PLANTED.html}.\n\nfirst item\nsecond item`);
    expect(text).not.toContain(PLANTED.htmlHidden);
  });
});

describe('mime type sniffing', () => {
  it('binary formats are recognised from their bytes, whatever was declared', () => {
    expect(detectMimeType(file('sample.pdf'), { declared: 'application/octet-stream' })).toBe(MIME.pdf);
    expect(detectMimeType(file('sample.docx'))).toBe(MIME.docx);
    expect(detectMimeType(file('sample.pptx'), { declared: 'application/pdf', fileName: 'x.pdf' })).toBe(MIME.pptx);
    expect(detectMimeType(file('sample.xlsx'), { declared: 'text/csv' })).toBe(MIME.xlsx);
  });

  it('text types come from the content, then the declared type, then the extension', () => {
    expect(detectMimeType(file('sample.json'))).toBe(MIME.json);
    expect(detectMimeType(file('sample.json'), { declared: 'text/plain' })).toBe(MIME.json);
    expect(detectMimeType(file('sample.html'), { fileName: 'page' })).toBe(MIME.html);
    expect(detectMimeType(file('sample.csv'), { declared: 'application/octet-stream', fileName: 'data.csv' })).toBe(MIME.csv);
    expect(detectMimeType(file('sample.csv'), { declared: 'application/vnd.ms-excel' })).toBe(MIME.csv);
    expect(detectMimeType(file('sample.md'), { fileName: 'README.md' })).toBe(MIME.markdown);
    expect(detectMimeType(file('sample.md'), { declared: 'text/x-markdown; charset=utf-8' })).toBe(MIME.markdown);
    expect(detectMimeType(file('sample.txt'), { declared: 'application/pdf' })).toBe(MIME.text);
    expect(detectMimeType(new TextEncoder().encode('Notes on the %PDF-1.7 header.'))).toBe(MIME.text);
    expect(detectMimeType(new TextEncoder().encode('{ not json'), { declared: 'application/json' })).toBe(MIME.text);
  });

  it('skips leading comments before the HTML tag, in one pass however the comments are laid out', () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    expect(detectMimeType(encode('<!-- a --> <!--b-->\n<!DOCTYPE html><p>x</p>'))).toBe(MIME.html);
    expect(detectMimeType(encode('<!-- only a comment --> plain words'))).toBe(MIME.text);
    // Splitting these into comments had 2^n ways for a backtracking regular expression (over 30 s at 20).
    expect(detectMimeType(encode(`${'<!---->'.repeat(290)}x`))).toBe(MIME.text);
    expect(detectMimeType(encode(`${'<!---->'.repeat(290)}<html>`))).toBe(MIME.html);
  });

  it('a file loaded under a wrong declared type goes to the right parser', async () => {
    const document = await loadFile(loaders, { bytes: file('sample.pptx'), mimeType: 'application/pdf' });
    expect(document.mimeType).toBe(MIME.pptx);
    expect(document.sections).toHaveLength(3);
  });

  it('decodes UTF-8 with BOM, UTF-16 and Shift_JIS text', async () => {
    const shiftJis = new Uint8Array([
      0x96, 0xbc, 0x91, 0x4f, 0x2c, 0x94, 0x4e, 0x97, 0xee, 0x0d, 0x0a, 0x8d, 0xb2, 0x93, 0xa1, 0x2c, 0x33, 0x30,
    ]);
    const csv = await loadFile(loaders, { bytes: shiftJis, fileName: 'people.csv' });
    expect(joined(csv.sections)).toBe('| 名前 | 年齢 |\n| --- | --- |\n| 佐藤 | 30 |');
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('café')]);
    expect(joined((await loadFile(loaders, { bytes: bom })).sections)).toBe('café');
    const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from('héllo', 'utf16le')]);
    expect(joined((await loadFile(loaders, { bytes: utf16 })).sections)).toBe('héllo');
    const latin1 = new Uint8Array(Buffer.from('réalité et café', 'latin1'));
    expect(joined((await loadFile(loaders, { bytes: latin1 })).sections)).toBe('réalité et café');
  });
});

describe('refusals happen before parsing', () => {
  const spy = (): Loader & { calls: number } => {
    const loader = {
      name: 'spy',
      specificationVersion: 'v1' as const,
      mimeTypes: Object.values(MIME),
      calls: 0,
      async load() {
        loader.calls++;
        return { mimeType: 'text/plain', sections: [] };
      },
    };
    return loader;
  };

  it('unsupported types get unsupported_media_type', async () => {
    const loader = spy();
    const zip = makeZip([{ name: 'readme.txt', data: 'hello' }]);
    const ole = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...new Array<number>(600).fill(0)]);
    for (const [bytes, fileName, expected] of [
      [file('junk.bin'), 'junk.bin', 'application/octet-stream'],
      [zip, 'archive.zip', 'application/zip'],
      [ole, 'old.xls', 'application/vnd.ms-excel'],
      [new TextEncoder().encode('{"cells": []}'), 'notebook.ipynb', 'application/x-ipynb+json'],
    ] as const) {
      const result = await failure(loadFile([loader], { bytes, fileName, mimeType: 'text/plain' }));
      expect(result.code).toBe('unsupported_media_type');
      expect(result.message).toContain(expected);
    }
    expect(loader.calls).toBe(0);
  });

  it('files over maxBytes get payload_too_large', async () => {
    const small = fileLoaders({ maxBytes: 1000 });
    expect(await failure(loadFile(small, { bytes: file('sample.pdf') }))).toMatchObject({ code: 'payload_too_large' });
    const loader = spy();
    const result = await failure(loadFile([loader], { bytes: file('sample.csv'), maxBytes: 100 }));
    expect(result.code).toBe('payload_too_large');
    expect(loader.calls).toBe(0);
    expect(() => fileLoaders({ maxBytes: 0 })).toThrow(/fileLoaders option maxBytes must be a finite number > 0/);
  });

  it('documents with more pages than maxPages get payload_too_large', async () => {
    const twoPages = fileLoaders({ maxPages: 2 });
    expect(await failure(loadFile(twoPages, { bytes: file('sample.pdf') }))).toMatchObject({ code: 'payload_too_large' });
    expect(await failure(loadFile(twoPages, { bytes: file('sample.pptx') }))).toMatchObject({ code: 'payload_too_large' });
  });

  it('zip bombs fail cleanly and fast, declared or lying about their size', async () => {
    for (const name of ['zip-bomb.docx', 'zip-bomb-lying.docx']) {
      const started = performance.now();
      const result = await failure(load(name));
      expect(result.code, name).toBe('payload_too_large');
      expect(performance.now() - started, name).toBeLessThan(1000);
    }
    expect(file('zip-bomb-lying.docx').byteLength).toBeLessThan(50_000);
  });

  it('the inflated-size cap is configurable', async () => {
    const tight = fileLoaders({ maxUncompressedBytes: 100 });
    expect(await failure(loadFile(tight, { bytes: file('sample.docx') }))).toMatchObject({ code: 'payload_too_large' });
  });

  it('corrupt files of a supported type fail with invalid_request, not a crash', async () => {
    const pdf = await failure(load('corrupt.pdf'));
    expect(pdf.code).toBe('invalid_request');
    expect(pdf.message).toMatch(/^could not parse PDF file "corrupt.pdf"/);
    const truncatedDocx = file('sample.docx').subarray(0, 400);
    const docx = await failure(loadFile(loaders, { bytes: truncatedDocx, fileName: 'broken.docx' }));
    expect(docx.code).toBe('invalid_request');
    const json = loaders.find((loader) => loader.mimeTypes.includes(MIME.json)) as Loader;
    const badJson = await failure(json.load({ bytes: new TextEncoder().encode('{"a":'), mimeType: MIME.json }));
    expect(badJson.code).toBe('invalid_request');
  });

  it('an aborted signal stops the load', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(loadFile(loaders, { bytes: file('sample.pdf'), signal: controller.signal })).rejects.toThrow(/abort/i);
  });
});
