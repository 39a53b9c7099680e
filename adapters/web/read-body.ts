/** Streams a response body into memory with the byte cap applied on the wire and after decoding. */
import type { IncomingMessage } from 'node:http';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { RagdeskError } from '../../src/errors.js';
import { tooLargeError } from './http-errors.js';

function byteCap(url: string, maxBytes: number): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.length;
      if (total > maxBytes) callback(tooLargeError(url, maxBytes));
      else callback(null, chunk);
    },
  });
}

function decoderFor(url: string, encoding: string | undefined): Transform {
  const name = (encoding ?? '').trim().toLowerCase();
  if (name === '' || name === 'identity') return new PassThrough();
  if (name === 'gzip' || name === 'x-gzip') return createGunzip();
  if (name === 'deflate') return createInflate();
  if (name === 'br') return createBrotliDecompress();
  throw new RagdeskError('upstream_failed', `${url} used an unsupported content encoding: ${name}`, {
    details: { url, reason: 'content_encoding', encoding: name },
  });
}

async function collect(source: AsyncIterable<Buffer>, chunks: Buffer[]): Promise<void> {
  for await (const chunk of source) chunks.push(chunk);
}

/** Reads the whole body; throws `payload_too_large` as soon as either count passes `maxBytes`. */
export async function readBody(response: IncomingMessage, url: string, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLargeError(url, maxBytes);
  }
  const chunks: Buffer[] = [];
  let decoder: Transform;
  try {
    decoder = decoderFor(url, response.headers['content-encoding']);
  } catch (error) {
    response.destroy();
    throw error;
  }
  try {
    await pipeline(response as Readable, byteCap(url, maxBytes), decoder, byteCap(url, maxBytes), (source) =>
      collect(source as AsyncIterable<Buffer>, chunks),
    );
  } catch (error) {
    if (RagdeskError.isInstance(error)) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR__ERROR_FORMAT_PADDING_1') {
      throw new RagdeskError('upstream_failed', `${url} sent a body that could not be decoded`, {
        cause: error,
        details: { url, reason: 'content_encoding' },
      });
    }
    throw error;
  }
  return Buffer.concat(chunks);
}
