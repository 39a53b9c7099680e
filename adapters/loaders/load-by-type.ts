import type { LoadedDocument, Loader } from '../../src/ports/loader.js';
import { detectMimeType } from './detect-mime.js';
import { DEFAULT_MAX_BYTES, MAX_BYTES, type FileLoaderList } from './builtin-loaders.js';
import { payloadTooLarge, unsupportedMediaType } from './loader-errors.js';

export interface LoadFileInput {
  bytes: Uint8Array;
  /** The type the uploader declared; a hint only, the bytes decide. */
  mimeType?: string;
  fileName?: string;
  signal?: AbortSignal;
  /** Overrides the limit the loader list was built with. */
  maxBytes?: number;
}

/**
 * Sniffs the file's type, enforces the size limit and parses it with the loader for that type.
 * Throws `payload_too_large` and `unsupported_media_type` before any parsing starts; a file of a
 * supported type that cannot be read throws `invalid_request` ("could not parse ...").
 */
export async function loadFile(loaders: readonly Loader[], input: LoadFileInput): Promise<LoadedDocument> {
  const { mimeType, loader } = checkFile(loaders, input);
  input.signal?.throwIfAborted();
  return loader.load({
    bytes: input.bytes,
    mimeType,
    ...(input.fileName === undefined ? {} : { fileName: input.fileName }),
    ...(input.signal === undefined ? {} : { signal: input.signal }),
  });
}

/** Size limit and sniffed type, checked without parsing: the gate before anything is stored. */
export function checkFile(
  loaders: readonly Loader[],
  input: Pick<LoadFileInput, 'bytes' | 'mimeType' | 'fileName' | 'maxBytes'>,
): { mimeType: string; loader: Loader } {
  const maxBytes = input.maxBytes ?? (loaders as FileLoaderList)[MAX_BYTES] ?? DEFAULT_MAX_BYTES;
  if (input.bytes.byteLength > maxBytes) {
    throw payloadTooLarge(`the file is ${input.bytes.byteLength} bytes, more than the limit of ${maxBytes}`, {
      bytes: input.bytes.byteLength,
      maxBytes,
    });
  }
  const mimeType = detectMimeType(input.bytes, { declared: input.mimeType, fileName: input.fileName });
  return { mimeType, loader: loaderFor(loaders, mimeType, input.fileName) };
}

/** The loader of a type already detected; `unsupported_media_type` when none reads it. */
export function loaderFor(loaders: readonly Loader[], mimeType: string, fileName?: string): Loader {
  const loader = loaders.find((candidate) => candidate.mimeTypes.includes(mimeType));
  if (loader === undefined) throw unsupportedMediaType(mimeType, fileName);
  return loader;
}
