/**
 * On-disk layout of one collection, under `<dir>/<collection directory>/`:
 *
 *   header.json               what the index reflects (sequence, model, id/label map) and which
 *                             binary belongs to it, with that binary's size and SHA-256
 *   index.<gen>.<nonce>.bin   hnswlib's own file; never rewritten once a header names it
 *   *.tmp                     in-flight writes; leftovers of a crash, deleted on the next flush
 *
 * A flush writes a new binary under a new name, then replaces `header.json` by rename, and only then
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
import { releaseBuffer } from '../kit/release-buffer.js';

export const HEADER_FILE = 'header.json';
const FORMAT = 'ragdesk-hnsw';
/**
 * 3: the entries' numbers (labels, datasource and custom id indexes) are base64 of little-endian
 * 32-bit arrays: at 100k entries, parsing them as JSON numbers and checking each was a third of
 * reading the header, ahead of a reopen's first query. 2: the same as JSON arrays. From 2 on, the
 * binary is hnswlib's file without the live elements' vectors (graph-file.ts), which the store
 * holds; 1: hnswlib's own file. Older versions are still read.
 */
const FORMAT_VERSION = 3;

/** The id → label map and filter attributes, as parallel arrays (compact for 100k entries). */
interface PersistedEntries {
  ids: string[];
  labels: ArrayLike<number>;
  /** Index into `IndexHeader.datasourceIds`. */
  datasources: ArrayLike<number>;
  /** Index into `IndexHeader.customIds`, or -1 for no custom id. */
  customIds: ArrayLike<number>;
}

/** `PersistedEntries` as version 3 writes them. */
interface EncodedEntries {
  ids: string[];
  labels: string;
  datasources: string;
  customIds: string;
}

export interface IndexHeader {
  format: typeof FORMAT;
  version: 1 | 2 | typeof FORMAT_VERSION;
  datastoreId: string;
  model: string;
  dimensions: number;
  /** The store chunk sequence the index reflects; any other value at open means stale. */
  sequence: number;
  generation: number;
  /** Next unused label; labels are never reused (see collection.ts). */
  nextLabel: number;
  /** `stamp`: inode, size and ctime in ns of the file as renamed into place (absent in older headers). */
  binary: { file: string; bytes: number; sha256: string; stamp?: string };
  datasourceIds: string[];
  customIds: string[];
  entries: PersistedEntries;
}

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

export async function readHeader(directory: string): Promise<HeaderRead> {
  let text: string;
  try {
    text = await readWhole(join(directory, HEADER_FILE));
  } catch (error) {
    if (isNotFound(error)) return { ok: false, reason: 'missing', detail: 'no header file' };
    return { ok: false, reason: 'corrupt', detail: `header unreadable: ${String(error)}` };
  }
  try {
    return { ok: true, header: parseHeader(JSON.parse(text) as unknown) };
  } catch (error) {
    return { ok: false, reason: 'corrupt', detail: `header invalid: ${String(error)}` };
  }
}

/**
 * A file's text in one read. readFile reads in 512 KiB steps, each a trip through the event loop:
 * at 100k entries (9 MB) those trips waited behind whatever else a reopen's first query was doing
 * on the thread, ~60 ms where the bytes take ~5. Bytes, then one decode: readFile's 'utf8' decodes
 * chunk by chunk through a StringDecoder, which cost more than the JSON.parse.
 */
async function readWhole(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const bytes = Buffer.allocUnsafeSlow(size);
    const { bytesRead } = await handle.read(bytes, 0, size, 0);
    return bytes.toString('utf8', 0, bytesRead);
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
  const header: IndexHeader = {
    format: FORMAT,
    version: FORMAT_VERSION,
    ...content,
    binary: { file, bytes: size, sha256, stamp: await fileStamp(join(directory, file)) },
  };
  const headerTemporary = join(directory, `${HEADER_FILE}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(headerTemporary, 'w');
  try {
    await handle.writeFile(headerText(header));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(headerTemporary, join(directory, HEADER_FILE));
  await syncDirectory(directory);
  await removeOtherFiles(directory, file);
  return header;
}

/** Deletes superseded binaries and crash leftovers. Best effort: a leftover only costs disk space. */
export async function removeOtherFiles(directory: string, keep: string): Promise<void> {
  const names = await readdir(directory).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name !== keep && name !== HEADER_FILE && (name.endsWith('.bin') || name.endsWith('.tmp')))
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

/**
 * A header as its file holds it (what `readHeader` parses back). The entries' numbers are in the
 * memory form after a read (typed arrays for version 3): written here in the header's own version.
 */
export function headerText(header: IndexHeader): string {
  if (header.version !== FORMAT_VERSION) {
    const { ids, labels, datasources, customIds } = header.entries;
    return JSON.stringify({
      ...header,
      entries: { ids, labels: Array.from(labels), datasources: Array.from(datasources), customIds: Array.from(customIds) },
    });
  }
  return JSON.stringify({ ...header, entries: encodeEntries(header.entries) });
}

function encodeEntries(entries: PersistedEntries): EncodedEntries {
  const base64 = (values: ArrayLike<number>) => {
    const array = Int32Array.from(values);
    return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('base64');
  };
  return {
    ids: entries.ids,
    labels: base64(entries.labels),
    datasources: base64(entries.datasources),
    customIds: base64(entries.customIds),
  };
}

/** A version 3 array back; not an Int32Array's worth of bytes: thrown. */
function decodeInts(value: unknown, what: string): Int32Array {
  if (typeof value !== 'string') throw new Error(what);
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length % 4 !== 0) throw new Error(what);
  // Copied out: a decoded buffer may sit at an offset a 32-bit view cannot start at.
  const array = new Int32Array(bytes.length / 4);
  new Uint8Array(array.buffer).set(bytes);
  return array;
}

function parseHeader(value: unknown): IndexHeader {
  const header = value as IndexHeader;
  const check = (condition: boolean, what: string): void => {
    if (!condition) throw new Error(what);
  };
  check(typeof value === 'object' && value !== null, 'not an object');
  check(header.format === FORMAT && [1, 2, FORMAT_VERSION].includes(header.version), 'unknown format or version');
  if (header.version === FORMAT_VERSION && typeof header.entries === 'object' && header.entries !== null) {
    const encoded = header.entries as unknown as Partial<EncodedEntries>;
    header.entries = {
      ids: encoded.ids as string[],
      labels: decodeInts(encoded.labels, 'entries.labels'),
      datasources: decodeInts(encoded.datasources, 'entries.datasources'),
      customIds: decodeInts(encoded.customIds, 'entries.customIds'),
    };
  }
  check(typeof header.datastoreId === 'string' && typeof header.model === 'string', 'datastoreId/model');
  for (const key of ['dimensions', 'generation', 'nextLabel'] as const) {
    check(Number.isSafeInteger(header[key]) && header[key] >= 0, key);
  }
  // -1 marks a state that failed mid-mutation: it parses, then fails the sequence check (stale).
  check(Number.isSafeInteger(header.sequence), 'sequence');
  const binary = header.binary as Partial<IndexHeader['binary']> | undefined;
  check(typeof binary?.file === 'string' && /^index\.[0-9]+\.[0-9a-f]+\.bin$/.test(binary.file), 'binary.file');
  check(Number.isSafeInteger(binary?.bytes) && typeof binary?.sha256 === 'string', 'binary size/checksum');
  check(binary?.stamp === undefined || typeof binary.stamp === 'string', 'binary stamp');
  check(isStringArray(header.datasourceIds) && isStringArray(header.customIds), 'attribute tables');
  const entries = header.entries as Partial<PersistedEntries> | undefined;
  const count = entries?.ids?.length ?? -1;
  check(isStringArray(entries?.ids), 'entries.ids');
  for (const key of ['labels', 'datasources', 'customIds'] as const) {
    const values = entries?.[key];
    check((Array.isArray(values) || values instanceof Int32Array) && values.length === count, `entries.${key}`);
  }
  const valid = header.entries;
  for (let i = 0; i < count; i++) {
    const label = valid.labels[i] as number;
    const datasource = valid.datasources[i] as number;
    const customId = valid.customIds[i] as number;
    check(Number.isInteger(label) && label >= 0 && label < header.nextLabel, 'entry label');
    check(Number.isInteger(datasource) && datasource >= 0 && datasource < header.datasourceIds.length, 'entry datasource');
    check(Number.isInteger(customId) && customId >= -1 && customId < header.customIds.length, 'entry custom id');
  }
  return header;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
