/**
 * Hostile PDFs, built here: cut short, garbage after a valid header, a wrong or missing xref, lying
 * page counts, self-referencing page trees, nesting 100,000 deep; and huge ones (10,000 pages, page
 * objects hidden in compressed object streams), refused from the raw file before pdf.js parses a
 * page. Each ends in `invalid_request` ("could not parse"), `payload_too_large` or a safe parse.
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PAGES, fileLoaders, loadFile } from '../../adapters/loaders/index.js';
import { countPdfPages, countPptxSlides } from '../../adapters/loaders/page-count.js';
import { RagdeskError } from '../../src/errors.js';
import type { LoadedDocument } from '../../src/ports/loader.js';
import { makePptx } from '../../fixtures/ooxml.js';
import { makePdf } from '../../fixtures/pdf-writer.js';
import { failure } from './helpers.js';

const GOOD = Buffer.from(makePdf([['hello world PDF-PLANTED']], 'Title')).toString('latin1');
const pdf = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));
const loaders = fileLoaders();
const load = (bytes: Uint8Array, options = loaders) => loadFile(options, { bytes, fileName: 'hostile.pdf' });

/** A typed error or a document; never another exception. */
async function outcome(bytes: Uint8Array): Promise<LoadedDocument | RagdeskError> {
  try {
    return await load(bytes);
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(RagdeskError);
    return error as RagdeskError;
  }
}

describe('malformed PDFs', () => {
  it('truncated files, garbage after the header and a header alone are invalid_request', async () => {
    const cases = {
      ...Object.fromEntries([20, 100, 180, 300].map((cut) => [`cut at ${cut}`, pdf(GOOD.slice(0, cut))])),
      garbage: new Uint8Array(
        Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31 + 7) % 256))]),
      ),
      'header only': pdf('%PDF-1.7\n'),
      'no trailer': pdf(GOOD.replace(/trailer[\s\S]*$/, '')),
    };
    for (const [name, bytes] of Object.entries(cases)) {
      const error = await failure(load(bytes));
      expect(error.code, name).toBe('invalid_request');
      expect(error.message, name).toMatch(/^could not parse PDF file "hostile.pdf"/);
      expect(error.details, name).toMatchObject({ reason: 'unparseable_file' });
    }
  }, 20_000);

  it('a wrong xref offset is repaired by the parser (the text is read)', async () => {
    for (const offset of ['999999', '0', '17']) {
      const document = await load(pdf(GOOD.replace(/startxref\n\d+/, `startxref\n${offset}`)));
      expect(document.sections[0]?.text, offset).toContain('PDF-PLANTED');
    }
  }, 20_000);

  it('lying counts, loops in the page tree and 100,000-deep nesting end safely', async () => {
    const cases = {
      'count lies high': GOOD.replace('/Count 1', '/Count 999999999'),
      'count is negative': GOOD.replace('/Count 1', '/Count -5'),
      'kids point at the parent': GOOD.replace('/Kids [4 0 R]', '/Kids [2 0 R]'),
      'page is its own contents': GOOD.replace('/Contents 5 0 R', '/Contents 4 0 R'),
      'parent loop': GOOD.replace('/Parent 2 0 R', '/Parent 4 0 R'),
      'stream length lies': GOOD.replace(/\/Length \d+/, '/Length 99999999'),
      'arrays 100,000 deep in the content': GOOD.replace('BT /F1', `${'['.repeat(100_000)}${']'.repeat(100_000)} BT /F1`),
      'dictionaries 50,000 deep in the trailer': GOOD.replace('/Root 1 0 R', `/Root 1 0 R /X ${'<<'.repeat(50_000)}${'>>'.repeat(50_000)}`),
      'strings nested 100,000 deep': GOOD.replace('BT /F1', `${'('.repeat(100_000)}${')'.repeat(100_000)} BT /F1`),
    };
    for (const [name, text] of Object.entries(cases)) {
      const result = await outcome(pdf(text));
      if (RagdeskError.isInstance(result)) expect(result.code, name).toBe('invalid_request');
      else expect(result.sections.length, name).toBeLessThanOrEqual(1);
    }
  }, 30_000);
});

/** Page objects inside a FlateDecode object stream (PDF 1.5+), as modern writers store them. */
function objectStreamPdf(pages: number): Uint8Array {
  const objects = Array.from({ length: pages }, () => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>`);
  let offset = 0;
  const header = objects
    .map((object, i) => {
      const entry = `${i + 4} ${offset}`;
      offset += object.length + 1;
      return entry;
    })
    .join(' ');
  const body = `${header}\n${objects.join('\n')}`;
  const compressed = deflateSync(Buffer.from(body, 'latin1'));
  const prefix =
    `%PDF-1.5\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Count ${pages} /Kids [] >>\nendobj\n` +
    `3 0 obj\n<< /Type /ObjStm /N ${pages} /First ${header.length + 1} /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`;
  return new Uint8Array(Buffer.concat([Buffer.from(prefix, 'latin1'), compressed, Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1')]));
}

describe('huge PDFs and presentations', () => {
  it('a 10,000-page PDF is refused from its raw bytes, by default and with a tighter limit', async () => {
    const bytes = makePdf(Array.from({ length: 10_000 }, (_, i) => [`page ${i}`]));
    expect(await countPdfPages(bytes)).toBe(10_000);
    const byDefault = await failure(load(bytes));
    expect(byDefault.code).toBe('payload_too_large');
    expect(byDefault.details).toEqual({ pages: 10_000, maxPages: DEFAULT_MAX_PAGES });
    const tight = await failure(load(bytes, fileLoaders({ maxPages: 50 })));
    expect(tight.details).toEqual({ pages: 10_000, maxPages: 50 });
  }, 20_000);

  it('page objects hidden in compressed object streams are counted too', async () => {
    const bytes = objectStreamPdf(5_000);
    expect(Buffer.from(bytes).toString('latin1')).not.toContain('/Type /Page ');
    expect(await countPdfPages(bytes)).toBe(5_000);
    expect((await failure(load(bytes))).details).toEqual({ pages: 5_000, maxPages: DEFAULT_MAX_PAGES });
  }, 20_000);

  it('the page tree node (/Type /Pages) is not a page; a PDF within the limit parses', async () => {
    const bytes = makePdf(Array.from({ length: 3 }, (_, i) => [`page ${i}`]));
    expect(await countPdfPages(bytes)).toBe(3);
    const document = await load(bytes, fileLoaders({ maxPages: 3 }));
    expect(document.totalPages).toBe(3);
    await expect(load(bytes, fileLoaders({ maxPages: 2 }))).rejects.toMatchObject({ code: 'payload_too_large' });
    expect(() => fileLoaders({ maxPages: 0 })).toThrow(/fileLoaders option maxPages must be a finite number > 0/);
    expect((await load(bytes, fileLoaders({ maxPages: Infinity }))).totalPages).toBe(3);
  }, 20_000);

  it('a presentation with more slides than the limit is refused from its ZIP directory', async () => {
    const slides = makePptx(Array.from({ length: 30 }, (_, i) => ({ title: `Slide ${i}`, body: ['text'] })));
    expect(countPptxSlides(slides)).toBe(30);
    const error = await failure(loadFile(fileLoaders({ maxPages: 10 }), { bytes: slides, fileName: 'deck.pptx' }));
    expect(error.details).toEqual({ pages: 30, maxPages: 10 });
  }, 20_000);
});

describe('counting pages of a PDF with a hostile dictionary', () => {
  it('reads a megabyte-long /Filter array in one pass (the regular expression was quadratic in it)', async () => {
    const pdf = Buffer.from(makePdf([['one page']])).toString('latin1');
    // An object stream whose filter array holds one endless name: one filter, so it is inflated.
    const objectStream = `9 0 obj\n<< /Type /ObjStm /Filter [/${'a'.repeat(1_000_000)}] /X /FlateDecode /N 0 >>\nstream\n\nendstream\nendobj\n`;
    const at = pdf.indexOf('xref');
    const hostile = `${pdf.slice(0, at)}${objectStream}${pdf.slice(at)}`;
    expect(await countPdfPages(new Uint8Array(Buffer.from(hostile, 'latin1')))).toBe(1);
  });
});
