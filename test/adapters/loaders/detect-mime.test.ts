import { describe, expect, it } from 'vitest';
import { detectMimeType } from '../../../adapters/loaders/detect-mime.js';
import { MIME } from '../../../adapters/loaders/mime-types.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('detectMimeType', () => {
  it('trusts a PDF signature over a declared type or extension', () => {
    expect(detectMimeType(bytes('%PDF-1.7\n...'), { declared: 'text/plain', fileName: 'notes.txt' })).toBe(MIME.pdf);
  });

  it('lets the declared type or extension choose only among the text types the bytes allow', () => {
    const csv = bytes('name,age\nada,36\n');
    expect(detectMimeType(csv, { fileName: 'people.csv' })).toBe(MIME.csv);
    expect(detectMimeType(bytes('# Title\n\nSome *text*.'), { fileName: 'readme.md' })).toBe(MIME.markdown);
    expect(detectMimeType(bytes('<!doctype html><html><body><p>hi</p></body></html>'), {})).toBe(MIME.html);
    // A PDF extension cannot turn text into a PDF.
    expect(detectMimeType(bytes('just words'), { fileName: 'report.pdf' })).not.toBe(MIME.pdf);
  });

  it('reads JSON from its content and Windows CSV uploads declared as Excel as CSV', () => {
    expect(detectMimeType(bytes('{"a": [1, 2, 3]}'), {})).toBe(MIME.json);
    expect(detectMimeType(bytes('a;b\n1;2\n'), { declared: 'application/vnd.ms-excel', fileName: 'export.csv' })).toBe(MIME.csv);
  });

  it('answers application/octet-stream for binary data it does not know', () => {
    expect(detectMimeType(new Uint8Array([0, 159, 146, 150, 0, 255, 1, 2, 0, 0]), { fileName: 'blob.bin' })).toBe(
      'application/octet-stream',
    );
  });
});
