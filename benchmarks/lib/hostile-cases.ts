/**
 * The inputs of bench:hostile, generated at `scale` (1 = the sizes that froze or killed the server;
 * the CI test runs a small fraction). Every input is something one authenticated tenant can send:
 * an upload under the 50 MB file limit, a text upsert, or a site to crawl.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { makeDocx } from '../../fixtures/ooxml.js';
import { makePdf } from '../../fixtures/pdf-writer.js';
import { crc32, makeZip, zeroDeflate, type ZipSource } from '../../fixtures/zip-writer.js';
import { entryData, readZipDirectory } from '../../adapters/loaders/zip-directory.js';

export type HostileInput =
  | { kind: 'file'; fileName: string; bytes: Uint8Array }
  | { kind: 'upsert'; text: string }
  | { kind: 'crawl'; linksPerPage: number }
  | { kind: 'scripted'; run(target: ScriptTarget): Promise<ScriptedRun> };

/** What a scripted case may use: the server's API (as the bench's owner, or with no key at all). */
export interface ScriptTarget {
  origin: string;
  datastoreId: string;
  api(method: string, path: string, body?: unknown, options?: { anonymous?: boolean }): Promise<{ status: number; json: unknown }>;
}

/** A scripted case's result: a datasource to wait for, or the answer that settled it; `close` cleans up. */
export interface ScriptedRun {
  datasourceId?: string;
  settled?: { status: string; error: string; chunks: number };
  close: () => Promise<void>;
}

export interface HostileCase {
  name: string;
  /** What the issue's reproduction saw, for the table's reader. */
  make(): HostileInput;
}

const encoder = new TextEncoder();
const atLeast = (minimum: number, value: number) => Math.max(minimum, Math.round(value));

/** Prose-like text of about `bytes` bytes; paragraphs differ so chunks do not dedupe. */
function prose(bytes: number): Uint8Array {
  const words = ['the', 'index', 'stores', 'vectors', 'for', 'every', 'chunk', 'and', 'retrieval', 'ranks', 'them', 'by', 'similarity'];
  const paragraphs: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const sentence = Array.from({ length: 12 }, (_, i) => words[(n * 7 + i * 3) % words.length]).join(' ');
    const paragraph = `Paragraph ${n}: ${sentence}. It mentions item ${n * 13} and ${n % 97}.\n\n`;
    paragraphs.push(paragraph);
    size += paragraph.length;
  }
  return encoder.encode(paragraphs.join(''));
}

function csv(columns: number, rows: number, cell: (row: number, column: number) => string): Uint8Array {
  const lines: string[] = [Array.from({ length: columns }, (_, c) => `col${c}`).join(',')];
  for (let r = 0; r < rows; r++) lines.push(Array.from({ length: columns }, (_, c) => cell(r, c)).join(','));
  return encoder.encode(lines.join('\n'));
}

/** One page whose content stream is FlateDecode data inflating to `megabytes` MiB of zeros. */
export function pdfDeflateBomb(megabytes: number): Uint8Array {
  const deflated = zeroDeflate(megabytes).data;
  // zlib framing around the raw deflate blocks; the checksum is not what is being tested.
  const stream = Buffer.concat([Buffer.from([0x78, 0x9c]), Buffer.from(deflated), Buffer.alloc(4)]);
  const head =
    '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n' +
    '2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n' +
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>\nendobj\n' +
    `4 0 obj\n<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`;
  const tail = '\nendstream\nendobj\n';
  const offsets = [0, 0, 0, 0];
  const headBuffer = Buffer.from(head, 'latin1');
  for (let id = 1; id <= 4; id++) offsets[id - 1] = headBuffer.indexOf(`${id} 0 obj`);
  const position = headBuffer.length + stream.length + tail.length;
  const xref = `xref\n0 5\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  const trailer = `trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${position}\n%%EOF\n`;
  return new Uint8Array(Buffer.concat([headBuffer, stream, Buffer.from(tail + xref + trailer, 'latin1')]));
}

/** A DOCX whose document.xml inflates to `megabytes` MiB, declared truthfully or as 1 KB. */
function docxBomb(megabytes: number, lying: boolean): Uint8Array {
  const valid = makeDocx(['# Title', 'Body']);
  const entries: ZipSource[] = (readZipDirectory(valid) ?? []).map((entry) => ({
    name: entry.name,
    data: new Uint8Array(inflateRawSync(entryData(valid, entry) as Uint8Array)),
  }));
  const bomb = zeroDeflate(megabytes);
  return makeZip(
    entries.map((entry) =>
      entry.name === 'word/document.xml'
        ? { name: entry.name, data: '', rawDeflate: bomb, ...(lying ? { declaredSize: 1024 } : {}) }
        : entry,
    ),
  );
}

/** A DOCX whose document.xml is `megabytes` MB of real paragraphs (an honest, huge XML part). */
function docxHugeXml(megabytes: number): Uint8Array {
  const valid = makeDocx(['# Title', 'Body']);
  const entries: ZipSource[] = (readZipDirectory(valid) ?? []).map((entry) => ({
    name: entry.name,
    data: new Uint8Array(inflateRawSync(entryData(valid, entry) as Uint8Array)),
  }));
  const paragraph = '<w:p><w:r><w:t>word word word</w:t></w:r></w:p>';
  const head =
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
  const xml = Buffer.from(head + paragraph.repeat(Math.round((megabytes * 1e6) / paragraph.length)) + '</w:body></w:document>');
  const rawDeflate = { data: new Uint8Array(deflateRawSync(xml)), inflatedSize: xml.length, crc: crc32(xml) };
  return makeZip(entries.map((entry) => (entry.name === 'word/document.xml' ? { name: entry.name, data: '', rawDeflate } : entry)));
}

export function hostileCases(scale: number): HostileCase[] {
  const family = '👩‍👩‍👧‍👦';
  return [
    { name: 'plain text 49 MB', make: () => ({ kind: 'file', fileName: 'big.txt', bytes: prose(atLeast(20_000, 49e6 * scale)) }) },
    {
      name: 'CSV header of 1,000,000 columns',
      make: () => ({ kind: 'file', fileName: 'header.csv', bytes: csv(atLeast(200, 1e6 * scale), 3, (r, c) => `${r * c}`) }),
    },
    {
      name: 'CSV 100,000 columns x 200 rows',
      make: () => ({ kind: 'file', fileName: 'wide.csv', bytes: csv(atLeast(200, 1e5 * scale), 200, (r, c) => `${(r + c) % 10}`) }),
    },
    {
      name: 'CSV 1,000 columns x 2,000 rows (at the column limit)',
      make: () => ({
        kind: 'file',
        fileName: 'at-limit.csv',
        bytes: csv(atLeast(10, 1_000 * scale), atLeast(20, 2_000 * scale), (r, c) => `${(r * 31 + c) % 1000}`),
      }),
    },
    {
      name: 'JSON with 1,000,000 keys',
      make: () => {
        const keys = atLeast(1_000, 1e6 * scale);
        const parts: string[] = [];
        for (let i = 0; i < keys; i++) parts.push(`"key_${i}":"value ${i}"`);
        return { kind: 'file', fileName: 'keys.json', bytes: encoder.encode(`{${parts.join(',')}}`) };
      },
    },
    {
      name: 'PDF with a deflate bomb content stream',
      make: () => ({ kind: 'file', fileName: 'bomb.pdf', bytes: pdfDeflateBomb(atLeast(64, 3_500 * scale)) }),
    },
    {
      name: 'ZWJ emoji text 1 MB',
      make: () => ({ kind: 'file', fileName: 'emoji.txt', bytes: encoder.encode(family.repeat(atLeast(800, (1e6 * scale) / 25))) }),
    },
    { name: 'ZWJ emoji upsert 20 KB', make: () => ({ kind: 'upsert', text: family.repeat(atLeast(200, 800)) }) },
    { name: 'crawl, pages with 220,000 links each', make: () => ({ kind: 'crawl', linksPerPage: atLeast(500, 220_000 * scale) }) },
    {
      name: 'DOCX zip bomb (declared 300 MB)',
      make: () => ({ kind: 'file', fileName: 'declared.docx', bytes: docxBomb(atLeast(8, 300 * scale), false) }),
    },
    {
      name: 'DOCX zip bomb (declares 1 KB, inflates 300 MB)',
      make: () => ({ kind: 'file', fileName: 'lying.docx', bytes: docxBomb(atLeast(8, 300 * scale), true) }),
    },
    {
      name: 'DOCX with a 190 MB XML part',
      make: () => ({ kind: 'file', fileName: 'huge-xml.docx', bytes: docxHugeXml(Math.max(1, 190 * scale)) }),
    },
    {
      name: 'PDF of 50,000 pages',
      make: () => ({
        kind: 'file',
        fileName: 'pages.pdf',
        bytes: makePdf(Array.from({ length: atLeast(100, 50_000 * scale) }, (_, i) => [`page ${i}`])),
      }),
    },
  ];
}
