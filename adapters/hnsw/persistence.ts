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
import { isAscii } from 'node:buffer';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PackedStrings, readPacked } from '../kit/packed-strings.js';
import { releaseBuffer } from '../kit/release-buffer.js';

export const HEADER_FILE = 'header.json';
const FORMAT = 'ragdesk-hnsw';
/**
 * 4: the entries by label (`PersistedEntries`), the ids and the datasource and custom id tables as
 * base64 of packed string lists (adapters/kit/packed-strings.ts), decoded one string at a time when
 * needed; the file is ASCII (anything else escaped), read without a UTF-8 decode. At 100k entries,
 * parsing 200k JSON strings, then placing each entry by its label, was most of reading the header
 * ahead of a reopen's first query. 3: parallel arrays of live entries (ids, labels, datasource and
 * custom id indexes), the ids and tables as JSON strings, the numbers as base64 of little-endian
 * 32-bit arrays; 2: the numbers as JSON arrays. From 2 on, the binary is hnswlib's file without
 * the live elements' vectors (graph-file.ts), which the store holds; 1: hnswlib's own file. Older
 * versions are still read.
 */
const FORMAT_VERSION = 4;
const NUMBERS_AS_BASE64 = 3;

/**
 * The id → label map and filter attributes, by label (0 to nextLabel - 1): a loaded collection
 * takes the arrays as they are. A label with no live entry has datasource -1 and id ''.
 */
interface PersistedEntries {
  ids: PackedStrings;
  /** Index into `IndexHeader.datasourceIds`; -1: no live entry. */
  datasources: Int32Array;
  /** Index into `IndexHeader.customIds`; -1: none. */
  customIds: Int32Array;
}

/** The entries of versions 1-3: live entries only, as parallel arrays. */
interface ParallelEntries {
  ids: string[];
  labels: ArrayLike<number>;
  datasources: ArrayLike<number>;
  customIds: ArrayLike<number>;
}

export interface IndexHeader {
  format: typeof FORMAT;
  version: 1 | 2 | typeof NUMBERS_AS_BASE64 | typeof FORMAT_VERSION;
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
  datasourceIds: PackedStrings;
  customIds: PackedStrings;
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
    text = headerString(await readWhole(join(directory, HEADER_FILE)));
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
 * The header's text. Version 4 writes ASCII only, which reads as Latin-1 without a UTF-8 decode
 * (~20 ms of 12 MB at 100k entries); older headers hold raw UTF-8.
 */
function headerString(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
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
 * A header as its file holds it (what `readHeader` parses back), in the header's own version (a
 * backup copies older headers as they are).
 */
export function headerText(header: IndexHeader): string {
  const { ids, datasources, customIds } = header.entries;
  if (header.version === FORMAT_VERSION) {
    const text = JSON.stringify({
      ...header,
      datasourceIds: packedBase64(header.datasourceIds),
      customIds: packedBase64(header.customIds),
      entries: { ids: packedBase64(ids), datasources: intsBase64(datasources), customIds: intsBase64(customIds) },
    });
    return text.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  const tables = { datasourceIds: header.datasourceIds.toArray(), customIds: header.customIds.toArray() };
  const live = parallelEntries(header.entries);
  if (header.version === NUMBERS_AS_BASE64) {
    const entries = {
      ids: live.ids,
      labels: intsBase64(live.labels),
      datasources: intsBase64(live.datasources),
      customIds: intsBase64(live.customIds),
    };
    return JSON.stringify({ ...header, ...tables, entries });
  }
  return JSON.stringify({ ...header, ...tables, entries: live });
}

/** Entries by label as versions 1-3 stored them: the live ones, as parallel arrays. */
function parallelEntries(entries: PersistedEntries): { ids: string[]; labels: number[]; datasources: number[]; customIds: number[] } {
  const live = { ids: [] as string[], labels: [] as number[], datasources: [] as number[], customIds: [] as number[] };
  entries.datasources.forEach((datasource, label) => {
    if (datasource < 0) return;
    live.ids.push(entries.ids.at(label));
    live.labels.push(label);
    live.datasources.push(datasource);
    live.customIds.push(entries.customIds[label] as number);
  });
  return live;
}

/** Entries of versions 1-3 by label; throws on a label out of range or named twice. */
function entriesByLabel(nextLabel: number, parallel: ParallelEntries): PersistedEntries {
  const { ids, labels, datasources: sources, customIds: tenants } = parallel;
  const names = new Array<string>(nextLabel).fill('');
  const datasources = new Int32Array(nextLabel).fill(-1);
  const customIds = new Int32Array(nextLabel).fill(-1);
  for (let i = 0; i < ids.length; i++) {
    const label = labels[i] as number;
    const datasource = sources[i] as number;
    if (!(Number.isInteger(label) && label >= 0 && label < nextLabel)) throw new Error('entry label');
    if (datasources[label] !== -1) throw new Error(`header entries repeat label ${label}`);
    if (!(Number.isInteger(datasource) && datasource >= 0)) throw new Error('entry datasource');
    names[label] = ids[i] as string;
    datasources[label] = datasource;
    customIds[label] = tenants[i] as number;
  }
  return { ids: PackedStrings.of(names), datasources, customIds };
}

function intsBase64(values: ArrayLike<number>): string {
  const array = Int32Array.from(values);
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString('base64');
}

function packedBase64(strings: PackedStrings): string {
  const bytes = strings.serialize();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Base64 back to bytes of their own (a decoded buffer may sit at an offset a 32-bit view cannot
 * start at); not a whole number of 32-bit values: thrown.
 */
function base64Bytes(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string') throw new Error(what);
  const decoded = Buffer.from(value, 'base64');
  if (decoded.length % 4 !== 0) throw new Error(what);
  const bytes = new Uint8Array(decoded.length);
  bytes.set(decoded);
  return bytes;
}

/** A version 3 or 4 array of numbers back. */
function decodeInts(value: unknown, what: string): Int32Array {
  const bytes = base64Bytes(value, what);
  return new Int32Array(bytes.buffer, 0, bytes.length / 4);
}

/** A version 4 string list back; anything else is thrown. */
function decodePacked(value: unknown, what: string): PackedStrings {
  const bytes = base64Bytes(value, what);
  const { strings, next } = readPacked(bytes, 0);
  if (next !== bytes.length) throw new Error(what);
  return strings;
}

/** A version 1-3 array of strings as a packed list; anything else is thrown. */
function packedArray(value: unknown, what: string): PackedStrings {
  if (!isStringArray(value)) throw new Error(what);
  return PackedStrings.of(value);
}

/**
 * A header's fields checked and its entries decoded. The entries' numbers are checked against the
 * tables where the collection takes them in (collection.ts, one pass that also counts them).
 */
function parseHeader(value: unknown): IndexHeader {
  const header = value as IndexHeader;
  const check = (condition: boolean, what: string): void => {
    if (!condition) throw new Error(what);
  };
  check(typeof value === 'object' && value !== null, 'not an object');
  check(header.format === FORMAT && [1, 2, NUMBERS_AS_BASE64, FORMAT_VERSION].includes(header.version), 'unknown format or version');
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
  const stored = value as { datasourceIds?: unknown; customIds?: unknown; entries?: unknown };
  const entries = stored.entries as Record<string, unknown> | undefined;
  check(typeof entries === 'object' && entries !== null, 'entries');
  if (header.version === FORMAT_VERSION) {
    header.datasourceIds = decodePacked(stored.datasourceIds, 'datasourceIds');
    header.customIds = decodePacked(stored.customIds, 'customIds');
    header.entries = {
      ids: decodePacked(entries?.ids, 'entries.ids'),
      datasources: decodeInts(entries?.datasources, 'entries.datasources'),
      customIds: decodeInts(entries?.customIds, 'entries.customIds'),
    };
    for (const key of ['ids', 'datasources', 'customIds'] as const)
      check(header.entries[key].length === header.nextLabel, `entries.${key}`);
    return header;
  }
  header.datasourceIds = packedArray(stored.datasourceIds, 'datasourceIds');
  header.customIds = packedArray(stored.customIds, 'customIds');
  const numbers = (key: 'labels' | 'datasources' | 'customIds'): ArrayLike<number> => {
    const values = entries?.[key];
    if (header.version === NUMBERS_AS_BASE64) return decodeInts(values, `entries.${key}`);
    check(Array.isArray(values), `entries.${key}`);
    return values as number[];
  };
  check(isStringArray(entries?.ids), 'entries.ids');
  const parallel = {
    ids: entries?.ids as string[],
    labels: numbers('labels'),
    datasources: numbers('datasources'),
    customIds: numbers('customIds'),
  };
  for (const key of ['labels', 'datasources', 'customIds'] as const) check(parallel[key].length === parallel.ids.length, `entries.${key}`);
  header.entries = entriesByLabel(header.nextLabel, parallel);
  return header;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
