import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { RagdeskError } from '../../src/index.js';
import { declaredLength, tooLarge } from './body.js';
import type { HttpRequest } from './types.js';
import { nextTurn } from '../../src/util/next-turn.js';

interface UploadedFile {
  bytes: Uint8Array;
  fileName: string | undefined;
  /** The type the client declared; the loader sniffs the bytes and decides. */
  mimeType: string | undefined;
}

export interface ParsedForm {
  fields: Map<string, string>;
  file: UploadedFile | null;
}

/** Room for the form's own bytes (boundaries, part headers, small fields) on top of the file. */
const FORM_OVERHEAD = 1024 * 1024;
const MULTIPART = /^multipart\/form-data\s*;/i;

export function isMultipart(request: HttpRequest): boolean {
  return MULTIPART.test(request.header('content-type') ?? '');
}

/**
 * Parses `multipart/form-data` as it streams in (busboy). The one file part (`file`) is counted while
 * it arrives and refused with 413 the moment it passes `maxFileBytes`, so an oversized upload is
 * never read whole. An accepted file is held in memory once (bounded by the limit), because the
 * Store keeps uploads with their datasource so a sync can run again after a restart.
 */
export async function readMultipart(request: HttpRequest, maxFileBytes: number): Promise<ParsedForm> {
  const contentType = request.header('content-type') ?? '';
  if (!MULTIPART.test(contentType)) {
    throw new RagdeskError('unsupported_media_type', 'Expected Content-Type multipart/form-data', {
      details: { expected: 'multipart/form-data' },
    });
  }
  const declared = declaredLength(request);
  const maxFormBytes = maxFileBytes + FORM_OVERHEAD;
  if (declared !== undefined && declared > maxFormBytes) throw tooLarge(maxFileBytes);
  if (request.body === null || declared === 0) throw new RagdeskError('invalid_request', 'The multipart body is empty');

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      limits: { files: 1, fileSize: maxFileBytes, fields: 50, fieldSize: 64 * 1024, parts: 60 },
      // Browsers and fetch send `filename="…"` as raw UTF-8; busboy's default (latin1) garbles it.
      // Directories in it are dropped (busboy's default), so only the last segment is kept.
      defParamCharset: 'utf8',
    });
  } catch (error) {
    throw new RagdeskError('invalid_request', `Malformed multipart Content-Type: ${(error as Error).message}`);
  }

  const fields = new Map<string, string>();
  let file: UploadedFile | null = null;
  let assembled: Promise<void> | undefined;
  let failure: RagdeskError | undefined;
  const fail = (error: RagdeskError) => {
    failure ??= error;
    parser.destroy(failure);
  };

  parser.on('field', (name, value, info) => {
    if (info.valueTruncated || info.nameTruncated)
      fail(new RagdeskError('payload_too_large', `Form field ${JSON.stringify(name.slice(0, 100))} is too long`));
    else fields.set(name, value);
  });
  parser.on('file', (name, stream, info) => {
    if (name !== 'file') {
      stream.on('error', () => undefined);
      stream.resume();
      fail(
        new RagdeskError('invalid_request', `Unexpected file field ${JSON.stringify(name.slice(0, 100))}; the file goes in "file"`, {
          details: { issues: [{ path: name.slice(0, 100), message: 'unexpected file field' }] },
        }),
      );
      return;
    }
    // Destroying the parser on a limit makes the part stream fail too; that failure is `failure`.
    stream.on('error', () => undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      chunks.push(chunk);
    });
    stream.on('limit', () => fail(tooLarge(maxFileBytes)));
    stream.on('end', () => {
      if (stream.truncated) return;
      assembled = concatInSteps(chunks, size).then((bytes) => {
        file = { bytes, fileName: info.filename || undefined, mimeType: info.mimeType || undefined };
      });
    });
  });
  parser.on('filesLimit', () => fail(new RagdeskError('invalid_request', 'Send one file per request')));
  parser.on('fieldsLimit', () => fail(new RagdeskError('invalid_request', 'Too many form fields')));
  parser.on('partsLimit', () => fail(new RagdeskError('invalid_request', 'Too many form parts')));

  const closed = new Promise<void>((resolve) => parser.once('close', resolve));
  try {
    await pipeline(Readable.from(chunksOf(request.body, maxFormBytes, maxFileBytes), { objectMode: false }), parser);
    await closed;
    await assembled;
  } catch (error) {
    if (failure) throw failure;
    if (RagdeskError.isInstance(error)) throw error;
    throw new RagdeskError('invalid_request', `Malformed multipart body: ${(error as Error).message}`);
  }
  if (failure) throw failure;
  return { fields, file };
}

/** Bytes joined per event-loop turn by {@link concatInSteps}. */
const CONCAT_STEP_BYTES = 4 * 1024 * 1024;

/**
 * `Buffer.concat` a few MiB per turn: joining a 49 MB upload's pieces in one call held the event
 * loop 2 s on the loaded 2-core benchmark machine (copying into fresh, not yet mapped pages).
 */
async function concatInSteps(chunks: readonly Buffer[], size: number): Promise<Uint8Array> {
  if (size <= CONCAT_STEP_BYTES) return Buffer.concat(chunks, size);
  const bytes = Buffer.allocUnsafe(size);
  let offset = 0;
  let sinceYield = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
    sinceYield += chunk.length;
    if (sinceYield >= CONCAT_STEP_BYTES) {
      sinceYield = 0;
      await nextTurn();
    }
  }
  return bytes;
}

/** C0 and C1 controls, DEL, and the Unicode bidirectional overrides and isolates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are stripped from labels
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A file name as a label: without control characters (a name is shown in listings and terminals,
 * where an escape sequence or a bidi override would rewrite what is displayed) and trimmed. Path
 * separators stay as text: a name is never used as a path anywhere (uploads are stored in the
 * Store with their datasource). Undefined when nothing printable is left.
 */
export function cleanFileName(name: string | undefined): string | undefined {
  const cleaned = name?.replace(UNPRINTABLE, '').trim();
  return cleaned ? cleaned : undefined;
}

/**
 * Hands the body on through a plain generator: when the parser stops early, `Readable.from` calls
 * `throw()` on its source, and a node request stream would answer that by destroying itself (and the
 * socket the error response still has to travel on). A generator turns that into a quiet `return()`.
 */
async function* chunksOf(body: AsyncIterable<Uint8Array>, maxFormBytes: number, maxFileBytes: number): AsyncGenerator<Uint8Array> {
  // busboy counts the file part only: a chunked body (no Content-Length) of preamble, part headers
  // or epilogue would be read to its end. The whole form is capped here, as a declared length is.
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxFormBytes) throw tooLarge(maxFileBytes);
    yield chunk;
  }
}
