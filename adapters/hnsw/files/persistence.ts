/**
 * On-disk layout of one collection, under `<dir>/<collection directory>/`:
 *
 *   header                    what the index reflects (sequence, model, id/label map) and which
 *                             binary belongs to it, with that binary's size and SHA-256
 *                             (header-codec.ts; `header.json` in folders written before version 4)
 *   index.<gen>.<nonce>.bin   the graph's file (graph-file.ts); never rewritten once a header names it
 *   *.tmp                     in-flight writes; leftovers of a crash, deleted on the next flush
 *
 * A flush writes a new binary under a new name, then replaces the header by rename, and only then
 * deletes the previous binary. A crash at any point leaves either the old pair or the new pair, and
 * the checksum rejects any other combination (a binary copied over, a torn or truncated file)
 * before hnswlib reads it: a damaged file must never reach the native loader.
 *
 * Hashing is skipped when the binary is provably the file this code wrote and nothing wrote to it
 * since: the header also records the binary's inode, size and change time (ctime, which a write,
 * a rename or a `touch` moves and no user call can set back). Any copy, restore, rewrite or torn
 * combination has another stamp and is hashed. What the stamp cannot see is a disk flipping bits
 * under an unchanged inode, which SQLite's own file does not detect either. Hashing 166 MB (100k
 * 384-d vectors) took 0.5-1.2 s of the first query after reopening on the 2-core benchmark machine.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { releaseBuffer } from '../../kit/release-buffer.js';
import { currentHeader, decodeHeader, headerFile, HEADER_FILE, JSON_HEADER_FILE, type IndexHeader } from './header-codec.js';

export { HEADER_FILE, type IndexHeader } from './header-codec.js';

export type HeaderContent = Omit<IndexHeader, 'format' | 'version' | 'binary'>;

export type HeaderRead = { ok: true; header: IndexHeader } | { ok: false; reason: 'missing' | 'corrupt'; detail: string };

/**
 * Directory of a collection. Readable prefix for humans, hash suffix for uniqueness: datastore ids
 * may contain `/`, `..` or differ only by case, which a case-insensitive file system would merge.
 */
export function collectionDirectory(root: string, datastoreId: string): string {
  const readable = datastoreId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 48);
  const hash = createHash('sha256').update(datastoreId, 'utf8').digest('hex').slice(0, 16);
  return join(root, `${readable}-${hash}`);
}

/** The collection's header: `header`, or `header.json` in a folder written before version 4. */
export async function readHeader(directory: string): Promise<HeaderRead> {
  for (const name of [HEADER_FILE, JSON_HEADER_FILE]) {
    let bytes: Buffer;
    try {
      bytes = await readWhole(join(directory, name));
    } catch (error) {
      if (isNotFound(error)) continue;
      return { ok: false, reason: 'corrupt', detail: `header unreadable: ${String(error)}` };
    }
    try {
      return { ok: true, header: decodeHeader(bytes, name) };
    } catch (error) {
      return { ok: false, reason: 'corrupt', detail: `header invalid: ${String(error)}` };
    }
  }
  return { ok: false, reason: 'missing', detail: 'no header file' };
}

/**
 * A file's bytes in one read. readFile reads in 512 KiB steps, each a trip through the event loop:
 * at 100k entries (9 MB) those trips waited behind whatever else a reopen's first query was doing
 * on the thread, ~60 ms where the bytes take ~5.
 */
async function readWhole(path: string): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = Buffer.allocUnsafeSlow(size);
    const { bytesRead } = await handle.read(bytes, 0, size, 0);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Path of the header's binary once its size and checksum match; throws otherwise. The checksum is
 * skipped when the file's stamp is the one the header recorded (see above), unless `hash` is
 * `'always'` (backups: a copy must be checked byte by byte).
 */
export async function verifiedBinary(
  directory: string,
  header: IndexHeader,
  hash: 'unless-stamped' | 'always' = 'unless-stamped',
): Promise<string> {
  const path = join(directory, header.binary.file);
  const stats = await stat(path, { bigint: true });
  if (stats.size !== BigInt(header.binary.bytes)) throw new Error(`binary is ${stats.size} bytes, header says ${header.binary.bytes}`);
  if (hash === 'unless-stamped' && header.binary.stamp !== undefined && header.binary.stamp === stampOf(stats)) return path;
  const sha256 = await fileSha256(path);
  if (sha256 !== header.binary.sha256) throw new Error('binary checksum does not match the header');
  return path;
}

/**
 * Writes a new generation: the binary (via `writeBinary`, given a temporary path), then the header
 * naming it. Returns the header written.
 */
export async function writeGeneration(
  directory: string,
  content: HeaderContent,
  writeBinary: (path: string) => Promise<void>,
): Promise<IndexHeader> {
  await mkdir(directory, { recursive: true });
  const file = `index.${content.generation}.${randomBytes(4).toString('hex')}.bin`;
  const temporary = join(directory, `${file}.tmp`);
  await writeBinary(temporary);
  await syncFile(temporary);
  const { size } = await stat(temporary);
  const sha256 = await fileSha256(temporary);
  await rename(temporary, join(directory, file));
  const header = currentHeader({ ...content, binary: { file, bytes: size, sha256, stamp: await fileStamp(join(directory, file)) } });
  const written = headerFile(header);
  const headerTemporary = join(directory, `${written.name}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(headerTemporary, 'w');
  try {
    await handle.writeFile(written.bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(headerTemporary, join(directory, written.name));
  await syncDirectory(directory);
  // A folder written before version 4: its header names a binary removed below (`header` is read first).
  await rm(join(directory, JSON_HEADER_FILE), { force: true });
  await removeOtherFiles(directory, file);
  return header;
}

/** Deletes superseded binaries and crash leftovers. Best effort: a leftover only costs disk space. */
export async function removeOtherFiles(directory: string, keep: string): Promise<void> {
  const names = await readdir(directory).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name !== keep && (name.endsWith('.bin') || name.endsWith('.tmp')))
      .map((name) => rm(join(directory, name), { force: true }).catch(() => undefined)),
  );
}

export async function removeCollectionDirectory(directory: string): Promise<void> {
  await rm(directory, { recursive: true, force: true });
}

/** Inode, size and change time (ns) of a file: equal stamps mean the same file, unwritten since. */
async function fileStamp(path: string): Promise<string> {
  return stampOf(await stat(path, { bigint: true }));
}

function stampOf(stats: BigIntStats): string {
  return `${stats.ino}:${stats.size}:${stats.ctimeNs}`;
}

/**
 * Through one buffer, freed at the end: a read stream's new 1 MB buffer per chunk waited for the
 * collector, as the links file's steps did (graph-file.ts).
 */
async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  const file = await open(path, 'r');
  const buffer = Buffer.allocUnsafeSlow(1 << 20);
  try {
    for (let position = 0; ;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
  } finally {
    await file.close();
    releaseBuffer(buffer);
  }
  return hash.digest('hex');
}

/** hnswlib writes with a plain ofstream; without fsync a power loss could leave a renamed empty file. */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the renames durable. Not supported on every platform (Windows), where it is skipped. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Durability of the rename is best effort where directories cannot be opened.
  }
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}
