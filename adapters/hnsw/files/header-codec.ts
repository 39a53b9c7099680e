/**
 * A collection header's bytes (persistence.ts says which files a collection has and how they are
 * replaced).
 *
 * Version 4, `header`: u32 version, u32 byte length of a UTF-8 JSON object (everything but
 * the entries and the tables: format, version, datastore, model, dimensions, sequence, generation,
 * next label, binary), zero padding to a multiple of 4; then, by label (0 to nextLabel - 1), the
 * int32 datasource and custom id indexes (`PersistedEntries`); then three packed string lists
 * (adapters/kit/packed-strings.ts): the ids by label, the datasource ids, the custom ids.
 * Little-endian. Loading takes the arrays as views and decodes an id when a result or a write asks
 * for it: at 100k entries, the JSON header of version 3 cost ~80 ms of a reopen's first query
 * (a 9 MB text decoded, 200k strings parsed, each entry placed by its label), this one ~5.
 *
 * Versions 1-3, `header.json`, are still read (and written again by a backup that copies one).
 * 3: JSON; the live entries as parallel arrays (ids, labels, datasource and custom id indexes),
 * the numbers as base64 of little-endian int32 arrays; 2: the numbers as JSON arrays. From 2 on,
 * the binary is hnswlib's file without the live elements' vectors (graph-file.ts), which the store
 * holds; 1: hnswlib's own file.
 */
import { align4, fourByteAligned } from '../../kit/byte-layout.js';
import { PackedStrings, readPacked } from '../../kit/packed-strings.js';

export const HEADER_FILE = 'header';
/** Where versions 1-3 kept the header. */
export const JSON_HEADER_FILE = 'header.json';
const FORMAT = 'ragdesk-hnsw';
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

/** A new header of the current version. */
export function currentHeader(content: Omit<IndexHeader, 'format' | 'version'>): IndexHeader {
  return { format: FORMAT, version: FORMAT_VERSION, ...content };
}

/** The file a header belongs in, and its bytes, in the header's own version. */
export function headerFile(header: IndexHeader): { name: string; bytes: Buffer } {
  if (header.version === FORMAT_VERSION) return { name: HEADER_FILE, bytes: encodeBinary(header) };
  return { name: JSON_HEADER_FILE, bytes: Buffer.from(legacyText(header), 'utf8') };
}

/** The header in `bytes` as read from the file `name`; throws when they do not hold one. */
export function decodeHeader(bytes: Buffer, name: string): IndexHeader {
  if (name === HEADER_FILE) return decodeBinary(bytes);
  return parseLegacy(JSON.parse(bytes.toString('utf8')) as unknown);
}

function encodeBinary(header: IndexHeader): Buffer {
  const { entries, datasourceIds, customIds, ...meta } = header;
  const json = Buffer.from(JSON.stringify(meta), 'utf8');
  const arraysAt = align4(8 + json.length);
  const lists = [entries.ids, datasourceIds, customIds];
  const bytes = Buffer.alloc(
    arraysAt + entries.datasources.byteLength + entries.customIds.byteLength + lists.reduce((sum, list) => sum + list.serializedLength, 0),
  );
  bytes.writeUInt32LE(FORMAT_VERSION, 0);
  bytes.writeUInt32LE(json.length, 4);
  json.copy(bytes, 8);
  let at = arraysAt;
  for (const array of [entries.datasources, entries.customIds]) {
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  for (const list of lists) at = list.serializeInto(bytes, at);
  return bytes;
}

function decodeBinary(file: Buffer): IndexHeader {
  const aligned = fourByteAligned(file);
  const bytes = Buffer.from(aligned.buffer, aligned.byteOffset, aligned.byteLength);
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== FORMAT_VERSION) throw new Error('not a version 4 header');
  const jsonLength = bytes.readUInt32LE(4);
  if (8 + jsonLength > bytes.length) throw new Error('cut short');
  const header = checkFields(JSON.parse(bytes.toString('utf8', 8, 8 + jsonLength)) as unknown);
  if (header.version !== FORMAT_VERSION) throw new Error('version');
  const labels = header.nextLabel;
  let at = align4(8 + jsonLength);
  if (at + labels * 8 > bytes.length) throw new Error('cut short');
  const datasources = new Int32Array(bytes.buffer, bytes.byteOffset + at, labels);
  const customIds = new Int32Array(bytes.buffer, bytes.byteOffset + at + labels * 4, labels);
  at += labels * 8;
  const lists: PackedStrings[] = [];
  for (let i = 0; i < 3; i++) {
    const { strings, next } = readPacked(bytes, at);
    lists.push(strings);
    at = next;
  }
  if (at !== bytes.length) throw new Error('trailing bytes');
  const [ids, datasourceIds, tenantIds] = lists as [PackedStrings, PackedStrings, PackedStrings];
  if (ids.length !== labels) throw new Error('entries.ids');
  return { ...header, datasourceIds, customIds: tenantIds, entries: { ids, datasources, customIds } };
}

/** The fields besides the entries and tables, checked; throws on the first that is not valid. */
function checkFields(value: unknown): Omit<IndexHeader, 'entries' | 'datasourceIds' | 'customIds'> {
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
  return header;
}

/** A header of versions 1-3 as its JSON file held it. */
function legacyText(header: IndexHeader): string {
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

/**
 * A header of versions 1-3, its entries by label. The entries' numbers are checked against the
 * tables where the collection takes them in (collection.ts, one pass that also counts them).
 */
function parseLegacy(value: unknown): IndexHeader {
  const fields = checkFields(value);
  if (fields.version === FORMAT_VERSION) throw new Error('a version 4 header is not JSON');
  const stored = value as { datasourceIds?: unknown; customIds?: unknown; entries?: unknown };
  const entries = stored.entries as Record<string, unknown> | undefined;
  if (typeof entries !== 'object' || entries === null) throw new Error('entries');
  const numbers = (key: 'labels' | 'datasources' | 'customIds'): ArrayLike<number> => {
    const values = entries[key];
    if (fields.version === NUMBERS_AS_BASE64) return decodeInts(values, `entries.${key}`);
    if (!Array.isArray(values)) throw new Error(`entries.${key}`);
    return values as number[];
  };
  if (!isStringArray(entries.ids)) throw new Error('entries.ids');
  const parallel = { ids: entries.ids, labels: numbers('labels'), datasources: numbers('datasources'), customIds: numbers('customIds') };
  for (const key of ['labels', 'datasources', 'customIds'] as const) {
    if (parallel[key].length !== parallel.ids.length) throw new Error(`entries.${key}`);
  }
  return {
    ...fields,
    datasourceIds: packedArray(stored.datasourceIds, 'datasourceIds'),
    customIds: packedArray(stored.customIds, 'customIds'),
    entries: entriesByLabel(fields.nextLabel, parallel),
  };
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

/** A version 3 array of numbers back; not a whole number of 32-bit values: thrown. */
function decodeInts(value: unknown, what: string): Int32Array {
  if (typeof value !== 'string') throw new Error(what);
  const decoded = Buffer.from(value, 'base64');
  if (decoded.length % 4 !== 0) throw new Error(what);
  // Copied out: a decoded buffer may sit at an offset a 32-bit view cannot start at.
  const array = new Int32Array(decoded.length / 4);
  new Uint8Array(array.buffer).set(decoded);
  return array;
}

function packedArray(value: unknown, what: string): PackedStrings {
  if (!isStringArray(value)) throw new Error(what);
  return PackedStrings.of(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
