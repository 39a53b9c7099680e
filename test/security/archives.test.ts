/**
 * Hostile OOXML archives (DOCX, PPTX, XLSX), built here: zip bombs that declare their size, lie
 * about it, or overlap one compressed blob under many names; entries whose names climb out of the
 * archive; relationships pointing outside it; XML entity bombs and external entities. Each ends in
 * `payload_too_large` or a safe parse, fast, and nothing is ever written to disk.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { fileLoaders, loadFile } from '../../adapters/loaders/index.js';
import { entryData, readZipDirectory } from '../../adapters/loaders/zip-directory.js';
import { makeDocx, makePptx, makeXlsx } from '../../fixtures/ooxml.js';
import { makeZip, type ZipSource } from '../../fixtures/zip-writer.js';
import { failure } from './helpers.js';

const loaders = fileLoaders();

/** A valid document of each format, with a planted word in its text. */
const FORMATS = {
  docx: () => makeDocx(['# Title', 'Body text DOCX-PLANTED here.']),
  pptx: () => makePptx([{ title: 'Slide', body: ['Body text PPTX-PLANTED here.'] }]),
  xlsx: () => makeXlsx([{ name: 'Sheet', rows: [['Name'], ['XLSX-PLANTED']] }]),
} as const;
type Format = keyof typeof FORMATS;
const FORMAT_NAMES = Object.keys(FORMATS) as Format[];
/** The main part of each format: the entry a bomb replaces. */
const MAIN_PART: Record<Format, string> = { docx: 'word/document.xml', pptx: 'ppt/slides/slide1.xml', xlsx: 'xl/worksheets/sheet1.xml' };

/** The entries of an archive made by the fixtures, inflated, so a test can rebuild it with changes. */
function entriesOf(archive: Uint8Array): ZipSource[] {
  return (readZipDirectory(archive) ?? []).map((entry) => ({
    name: entry.name,
    data: new Uint8Array(inflateRawSync(entryData(archive, entry) as Uint8Array)),
  }));
}

function rebuilt(format: Format, change: (entries: ZipSource[]) => ZipSource[]): Uint8Array {
  return makeZip(change(entriesOf(FORMATS[format]())));
}

/**
 * Raw deflate data inflating to `megabytes` MiB of zeros (~1 KB per MiB), like the fixtures'
 * `zeroDeflate` but with a dummy CRC: computing the real one in JavaScript costs seconds at 300 MiB,
 * and the archive is refused before any CRC would be checked.
 */
function zeroDeflate(megabytes: number): { data: Uint8Array; inflatedSize: number; crc: number } {
  const block = deflateRawSync(new Uint8Array(1 << 20), { finishFlush: constants.Z_SYNC_FLUSH });
  const final = Buffer.from([0x03, 0x00]); // last block: fixed Huffman, end of block only
  return { data: new Uint8Array(Buffer.concat([...Array<Buffer>(megabytes).fill(block), final])), inflatedSize: megabytes << 20, crc: 0 };
}

/**
 * A non-recursive "overlapping" zip bomb (Fifield 2019): `count` central-directory entries that all
 * point at one local header, so one compressed blob is inflated once per name.
 */
function overlappingBomb(names: string[], megabytes: number, declared?: number): Uint8Array {
  const blob = zeroDeflate(megabytes);
  const size = declared ?? blob.inflatedSize;
  const first = Buffer.from(names[0] as string, 'utf8');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(blob.crc, 14);
  local.writeUInt32LE(blob.data.length, 18);
  local.writeUInt32LE(size, 22);
  local.writeUInt16LE(first.length, 26);
  const body = Buffer.concat([local, first, Buffer.from(blob.data)]);
  const centrals = names.map((name) => {
    const encoded = Buffer.from(name, 'utf8');
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(blob.crc, 16);
    central.writeUInt32LE(blob.data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(encoded.length, 28);
    central.writeUInt32LE(0, 42);
    return Buffer.concat([central, encoded]);
  });
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(names.length, 8);
  end.writeUInt16LE(names.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(body.length, 16);
  return new Uint8Array(Buffer.concat([body, directory, end]));
}

const PREFIX: Record<Format, string> = { docx: 'word', pptx: 'ppt', xlsx: 'xl' };
const load = (bytes: Uint8Array, format: Format) => loadFile(loaders, { bytes, fileName: `hostile.${format}` });

describe('zip bombs in DOCX, PPTX and XLSX', () => {
  it.each(FORMAT_NAMES)(
    '%s: a main part that declares 4 GB is refused from the directory',
    async (format) => {
      const bomb = rebuilt(format, (entries) =>
        entries.map((entry) => (entry.name === MAIN_PART[format] ? { ...entry, declaredSize: 0xfffffff0 } : entry)),
      );
      const error = await failure(load(bomb, format));
      expect(error.code).toBe('payload_too_large');
      expect(error.details).toMatchObject({ maxUncompressedBytes: 200 * 1024 * 1024 });
    },
    10_000,
  );

  it.each(FORMAT_NAMES)(
    '%s: a main part that declares 1 KB but inflates to 300 MB is stopped at its declared size',
    async (format) => {
      const bomb = rebuilt(format, (entries) =>
        entries.map((entry) =>
          entry.name === MAIN_PART[format] ? { name: entry.name, data: '', rawDeflate: zeroDeflate(300), declaredSize: 1024 } : entry,
        ),
      );
      expect(bomb.byteLength).toBeLessThan(400_000);
      const error = await failure(load(bomb, format));
      expect(error.code).toBe('payload_too_large');
      expect(error.message).toContain(MAIN_PART[format]);
    },
    10_000,
  );

  it.each(FORMAT_NAMES)(
    '%s: 100 names over one 10 MB blob (an overlapping bomb) are refused, honest or lying',
    async (format) => {
      const names = ['[Content_Types].xml', ...Array.from({ length: 99 }, (_, i) => `${PREFIX[format]}/part${i}.xml`)];
      for (const declared of [undefined, 1000]) {
        const bomb = overlappingBomb(names, 10, declared);
        expect(bomb.byteLength).toBeLessThan(50_000);
        const error = await failure(load(bomb, format));
        expect(error.code).toBe('payload_too_large');
      }
    },
    10_000,
  );

  it.each(FORMAT_NAMES)(
    '%s: honest archives past a configured cap are refused; the planted text loads under it',
    async (format) => {
      const big = rebuilt(format, (entries) => [...entries, { name: `${PREFIX[format]}/media/filler.bin`, data: new Uint8Array(3 << 20) }]);
      const tight = fileLoaders({ maxUncompressedBytes: 1 << 20 });
      expect((await failure(loadFile(tight, { bytes: big, fileName: `big.${format}` }))).code).toBe('payload_too_large');
      const document = await loadFile(fileLoaders({ maxUncompressedBytes: 8 << 20 }), { bytes: big, fileName: `big.${format}` });
      expect(document.sections.map((section) => section.text).join('\n')).toContain(`${format.toUpperCase()}-PLANTED`);
    },
    20_000,
  );

  it('a DOCX carrying an embedded workbook that is itself a bomb is parsed safely (embedded archives are not opened)', async () => {
    const inner = makeZip([
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'xl/worksheets/sheet1.xml', data: '', rawDeflate: zeroDeflate(300), declaredSize: 100 },
    ]);
    const docx = rebuilt('docx', (entries) => [...entries, { name: 'word/embeddings/Microsoft_Excel_Worksheet.xlsx', data: inner }]);
    const document = await load(docx, 'docx');
    expect(document.sections[0]?.text).toContain('DOCX-PLANTED');
  }, 20_000);
});

describe('path traversal inside archives', () => {
  let sandbox: string;
  const escapeTarget = () => join(sandbox, 'escaped');

  beforeAll(() => {
    sandbox = mkdtempSync(join(tmpdir(), 'ragdesk-traversal-'));
  });
  afterAll(() => {
    rmSync(sandbox, { recursive: true, force: true });
  });

  it.each(FORMAT_NAMES)(
    '%s: entries named ../, /abs, C:\\ and with NUL are never written anywhere; the document still loads',
    async (format) => {
      const climbing = `../../../../../../../..${escapeTarget()}/evil.xml`;
      const archive = rebuilt(format, (entries) => [
        ...entries,
        { name: climbing, data: '<x>ESCAPED-ENTRY</x>' },
        { name: `${escapeTarget()}/absolute.xml`, data: '<x>ESCAPED-ENTRY</x>' },
        { name: 'C:\\Windows\\System32\\evil.xml', data: '<x/>' },
        { name: `${PREFIX[format]}/media/nul\u0000.png`, data: 'x' },
        { name: `${PREFIX[format]}/../../../escape.xml`, data: '<x/>' },
      ]);
      expect(readZipDirectory(archive)?.some((entry) => entry.name === climbing)).toBe(true);
      const before = readdirSync(process.cwd()).sort();
      const document = await load(archive, format);
      const text = document.sections.map((section) => section.text).join('\n');
      expect(text).toContain(`${format.toUpperCase()}-PLANTED`);
      expect(text).not.toContain('ESCAPED-ENTRY');
      expect(existsSync(escapeTarget())).toBe(false);
      expect(readdirSync(sandbox)).toEqual([]);
      expect(readdirSync(process.cwd()).sort()).toEqual(before);
    },
    20_000,
  );

  it('a DOCX whose relationships point outside the archive reads nothing from the file system', async () => {
    const docx = rebuilt('docx', (entries) =>
      entries.map((entry) =>
        entry.name === 'word/_rels/document.xml.rels' || entry.name === '_rels/.rels'
          ? {
              name: entry.name,
              data: Buffer.from(entry.data as Uint8Array)
                .toString('utf8')
                .replace(/Target="[^"]*document\.xml"/, 'Target="../../../../../../etc/passwd"'),
            }
          : entry,
      ),
    );
    const outcome = await load(docx, 'docx').then(
      (document) => document.sections.map((section) => section.text).join('\n'),
      (error: unknown) => error,
    );
    if (typeof outcome === 'string') expect(outcome).not.toMatch(/root:.*:0:0/);
    else expect((await failure(Promise.reject(outcome))).code).toBe('invalid_request');
  }, 10_000);
});

describe('XML inside archives', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const laughs = (() => {
    const entities = ['<!ENTITY a0 "lol lol lol lol lol lol lol lol lol lol">'];
    for (let level = 1; level <= 9; level++) entities.push(`<!ENTITY a${level} "${`&a${level - 1};`.repeat(10)}">`);
    return `<!DOCTYPE x [${entities.join('')}]>`;
  })();
  const external = '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>';

  it.each(FORMAT_NAMES)(
    '%s: a billion-laughs DTD and an external entity are not expanded',
    async (format) => {
      // xmldom reports the undefined entities on console.error; the test keeps the output clean.
      vi.spyOn(console, 'error').mockImplementation(() => undefined);
      for (const [doctype, entity] of [
        [laughs, '&a9;'],
        [external, '&xxe;'],
      ] as const) {
        const archive = rebuilt(format, (entries) =>
          entries.map((entry) => {
            if (entry.name !== MAIN_PART[format] && !(format === 'xlsx' && entry.name === 'xl/sharedStrings.xml')) return entry;
            const xml = Buffer.from(entry.data as Uint8Array).toString('utf8');
            const withDoctype = xml.replace(/^(<\?xml[^>]*\?>\s*)?/, (declaration) => `${declaration}${doctype}`);
            return {
              name: entry.name,
              data: withDoctype.replace(`${format.toUpperCase()}-PLANTED`, `${format.toUpperCase()}-PLANTED ${entity}`),
            };
          }),
        );
        const outcome = await load(archive, format).then(
          (document) => document.sections.map((section) => section.text).join('\n'),
          (error: unknown) => error,
        );
        if (typeof outcome === 'string') {
          expect(outcome.length).toBeLessThan(10_000);
          expect(outcome).not.toMatch(/(lol ){50}/);
          expect(outcome).not.toMatch(/root:.*:0:0/);
        } else {
          expect((await failure(Promise.reject(outcome))).code).toBe('invalid_request');
        }
      }
    },
    20_000,
  );
});
