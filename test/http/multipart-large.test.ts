/** A large file part is joined over several event-loop turns and arrives byte for byte. */
import { describe, expect, it } from 'vitest';
import { readMultipart } from '../../adapters/http/multipart.js';
import type { HttpRequest } from '../../adapters/http/types.js';

function multipartRequest(bytes: Uint8Array, piece: number): HttpRequest {
  const boundary = 'ragdesk-boundary-1234';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nfile\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Buffer.concat([head, bytes, tail]);
  return {
    method: 'POST',
    path: '/api/datasources',
    query: new URLSearchParams(),
    header: (name: string) =>
      ({ 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) })[name],
    body: (async function* () {
      for (let offset = 0; offset < body.length; offset += piece) yield body.subarray(offset, offset + piece);
    })(),
    signal: new AbortController().signal,
  };
}

describe('readMultipart with a large file', () => {
  it('joins a 9 MB file, past the size joined in one turn, byte for byte', async () => {
    const bytes = new Uint8Array(9 * 1024 * 1024 + 3);
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 7 + (i >> 16)) & 0xff;
    const form = await readMultipart(multipartRequest(bytes, 64 * 1024), 50 * 1024 * 1024);
    expect(form.fields.get('type')).toBe('file');
    expect(form.file?.fileName).toBe('big.bin');
    expect(Buffer.from(form.file!.bytes).equals(Buffer.from(bytes))).toBe(true);
  });
});
