import { describe, expect, it } from 'vitest';
import { decodeText, isAcceptedType, isHtmlType, parseMediaType, sniffPageType } from '../../../adapters/web/media-types.js';

describe('parseMediaType', () => {
  it('lower-cases the essence and finds a charset among the parameters, quoted or not', () => {
    expect(parseMediaType('Text/HTML; Charset="ISO-8859-1"')).toEqual({ mime: 'text/html', charset: 'iso-8859-1' });
    expect(parseMediaType('text/plain; format=flowed; charset=UTF-8')).toEqual({ mime: 'text/plain', charset: 'utf-8' });
    expect(parseMediaType('application/json')).toEqual({ mime: 'application/json' });
    expect(parseMediaType(undefined)).toEqual({ mime: '' });
    expect(parseMediaType('')).toEqual({ mime: '' });
  });
});

describe('isAcceptedType', () => {
  it('pages take HTML, XHTML and plain text; sitemaps XML, text and gzip; robots and files anything', () => {
    expect(isAcceptedType('page', 'text/html')).toBe(true);
    expect(isAcceptedType('page', 'application/xhtml+xml')).toBe(true);
    expect(isAcceptedType('page', 'application/pdf')).toBe(false);
    expect(isAcceptedType('sitemap', 'application/rss+xml')).toBe(true);
    expect(isAcceptedType('sitemap', 'application/x-gzip')).toBe(true);
    expect(isAcceptedType('sitemap', 'text/html')).toBe(false);
    expect(isAcceptedType('robots', 'image/png')).toBe(true);
    expect(isAcceptedType('file', 'application/zip')).toBe(true);
    // No type at all: the body is sniffed later.
    expect(isAcceptedType('page', '')).toBe(true);
  });

  it('isHtmlType: HTML and XHTML only', () => {
    expect([isHtmlType('text/html'), isHtmlType('application/xhtml+xml'), isHtmlType('text/plain')]).toEqual([true, true, false]);
  });
});

describe('sniffPageType', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it('markup is HTML, other text is plain, a NUL in the first KB is binary', () => {
    expect(sniffPageType(bytes('  \n<!DOCTYPE html><p>x'))).toBe('text/html');
    expect(sniffPageType(bytes('<!-- comment --><div>x</div>'))).toBe('text/html');
    expect(sniffPageType(bytes('plain words < and >'))).toBe('text/plain');
    expect(sniffPageType(new Uint8Array([0x25, 0x50, 0x00, 0x01]))).toBeUndefined();
  });
});

describe('decodeText', () => {
  it('a byte-order mark wins over the header charset, which wins over <meta charset>', () => {
    const latin1 = Buffer.from('<meta charset="utf-8"><p>caf\xe9</p>', 'latin1');
    expect(decodeText(latin1, 'iso-8859-1', true)).toContain('café');
    expect(decodeText(Buffer.from([0xef, 0xbb, 0xbf, 0x63, 0x61, 0x66, 0xc3, 0xa9]), 'iso-8859-1', false)).toBe('café');
    expect(decodeText(Buffer.from([0xff, 0xfe, 0x68, 0x00, 0x69, 0x00]), undefined, false)).toBe('hi');
  });

  it('reads <meta charset> of HTML when the header has none, and falls back to UTF-8', () => {
    const page = Buffer.from(
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"></head>\x93q\x94',
      'latin1',
    );
    expect(decodeText(page, undefined, true)).toContain('“q”');
    expect(decodeText(page, undefined, false)).not.toContain('“q”');
    expect(decodeText(Buffer.from('naïve'), 'no-such-charset', false)).toBe('naïve');
  });
});
