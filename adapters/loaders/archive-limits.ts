import { payloadTooLarge } from './loader-errors.js';
import { readZipDirectory } from './zip-directory.js';

/** OOXML documents have tens to hundreds of parts; thousands are a sign of abuse. */
const MAX_ZIP_ENTRIES = 10_000;

/**
 * Refuses an archive whose central directory declares more inflated bytes than allowed, before
 * anything is inflated. An archive that lies about its sizes is stopped by the parser's own cap on
 * bytes actually inflated (officeparser's `decompressionLimits`), which the loader also sets.
 */
export function checkArchiveSize(bytes: Uint8Array, maxUncompressedBytes: number): void {
  const entries = readZipDirectory(bytes);
  if (entries === undefined) return; // unreadable: the parser reports it as corrupt
  if (entries.length > MAX_ZIP_ENTRIES) {
    throw payloadTooLarge(`the archive has ${entries.length} entries, more than ${MAX_ZIP_ENTRIES}`, {
      entries: entries.length,
    });
  }
  const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  if (declared > maxUncompressedBytes) {
    throw payloadTooLarge(
      `the archive declares ${declared} uncompressed bytes, more than the limit of ${maxUncompressedBytes}`,
      { declaredUncompressedBytes: declared, maxUncompressedBytes },
    );
  }
}
