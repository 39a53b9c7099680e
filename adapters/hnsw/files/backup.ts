/**
 * Copying the index files of a data directory for a backup, and checking them on restore. Binaries
 * are never rewritten once a header names them (see persistence.ts), so a header and the binary it
 * names, checksummed after the copy, are a consistent pair even while the instance keeps flushing.
 */
import { copyFile, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { headerFile } from './header-codec.js';
import { readHeader, verifiedBinary, type IndexHeader } from './persistence.js';

export interface CopiedCollection {
  /** Directory name under the index directory. */
  directory: string;
  datastoreId: string;
  /** The store chunk sequence these files reflect. */
  sequence: number;
  model: string;
  dimensions: number;
  bytes: number;
}

export interface SkippedCollection {
  directory: string;
  reason: string;
}

/** A flush replacing the binary between reading the header and copying it: read the new header and copy again. */
const ATTEMPTS = 3;

/**
 * Copies every collection under `sourceDir` whose datastore `keep` accepts into `targetDir`: the
 * binary first, checked against its header's size and SHA-256, then the header. Collections with
 * missing or damaged files, or of datastores not in the snapshot, are skipped: the store rebuilds
 * a missing collection on open.
 */
export async function copyIndexFiles(
  sourceDir: string,
  targetDir: string,
  keep: (datastoreId: string) => boolean,
): Promise<{ copied: CopiedCollection[]; skipped: SkippedCollection[] }> {
  const copied: CopiedCollection[] = [];
  const skipped: SkippedCollection[] = [];
  const names = await readdir(sourceDir, { withFileTypes: true }).catch(() => []);
  for (const entry of names) {
    if (!entry.isDirectory()) continue;
    const outcome = await copyCollection(join(sourceDir, entry.name), join(targetDir, entry.name), keep);
    if ('reason' in outcome) skipped.push({ directory: entry.name, reason: outcome.reason });
    else copied.push({ directory: entry.name, ...outcome });
  }
  return { copied, skipped };
}

async function copyCollection(
  source: string,
  target: string,
  keep: (datastoreId: string) => boolean,
): Promise<Omit<CopiedCollection, 'directory'> | { reason: string }> {
  let lastProblem = '';
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const read = await readHeader(source);
    if (!read.ok) return { reason: `${read.reason}: ${read.detail}` };
    const { header } = read;
    if (!keep(header.datastoreId)) return { reason: `datastore ${header.datastoreId} is not in the database snapshot` };
    await mkdir(target, { recursive: true });
    try {
      await copyFile(join(source, header.binary.file), join(target, header.binary.file));
      await verifiedBinary(target, header, 'always');
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
      await rm(join(target, header.binary.file), { force: true });
      continue;
    }
    const file = headerFile(header);
    await writeFile(join(target, file.name), file.bytes);
    return summary(header);
  }
  await rm(target, { recursive: true, force: true });
  return { reason: `the files kept changing during the copy (${lastProblem})` };
}

/** Checks each collection of a backup: header readable, binary matching it. Returns the problems found. */
export async function verifyIndexFiles(dir: string): Promise<{ collections: CopiedCollection[]; problems: string[] }> {
  const collections: CopiedCollection[] = [];
  const problems: string[] = [];
  const names = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of names) {
    if (!entry.isDirectory()) continue;
    const read = await readHeader(join(dir, entry.name));
    if (!read.ok) {
      problems.push(`${entry.name}: ${read.reason} (${read.detail})`);
      continue;
    }
    try {
      await verifiedBinary(join(dir, entry.name), read.header, 'always');
      collections.push({ directory: entry.name, ...summary(read.header) });
    } catch (error) {
      problems.push(`${entry.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { collections, problems };
}

function summary(header: IndexHeader): Omit<CopiedCollection, 'directory'> {
  return {
    datastoreId: header.datastoreId,
    sequence: header.sequence,
    model: header.model,
    dimensions: header.dimensions,
    bytes: header.binary.bytes,
  };
}
