import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';
import { payloadTooLarge } from './loader-errors.js';
import { entryData, readZipDirectory, type ZipEntry } from './zip-directory.js';

const inflate = promisify(inflateRaw);

/** OOXML documents have tens to hundreds of parts; thousands are a sign of abuse. */
const MAX_ZIP_ENTRIES = 10_000;

/**
 * Refuses an archive that would inflate past `maxUncompressedBytes`, before the parser sees it:
 * first from the sizes its central directory declares, then by inflating each entry with zlib
 * (native, off the main thread) capped at its declared size, so an archive that lies about its sizes
 * fails in milliseconds instead of being streamed through the parser's JavaScript inflater.
 */
export async function checkArchiveSize(bytes: Uint8Array, maxUncompressedBytes: number): Promise<void> {
  const entries = readZipDirectory(bytes);
  if (entries === undefined) return; // unreadable: the parser reports it as corrupt
  if (entries.length > MAX_ZIP_ENTRIES) {
    throw payloadTooLarge(`the archive has ${entries.length} entries, more than ${MAX_ZIP_ENTRIES}`, {
      entries: entries.length,
    });
  }
  const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (declared > maxUncompressedBytes) {
    throw payloadTooLarge(`the archive declares ${declared} uncompressed bytes, more than the limit of ${maxUncompressedBytes}`, {
      declaredUncompressedBytes: declared,
      maxUncompressedBytes,
    });
  }
  for (const entry of entries) await checkEntry(bytes, entry, maxUncompressedBytes);
}

async function checkEntry(bytes: Uint8Array, entry: ZipEntry, maxUncompressedBytes: number): Promise<void> {
  if (entry.method !== 8) return;
  const data = entryData(bytes, entry);
  if (data === undefined) return;
  try {
    await inflate(data, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') return; // corrupt: the parser says so
    throw payloadTooLarge(`the archive entry ${JSON.stringify(entry.name)} inflates past its declared ${entry.uncompressedSize} bytes`, {
      entry: entry.name,
      maxUncompressedBytes,
    });
  }
}
