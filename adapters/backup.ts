/**
 * Backup and restore of an embedded data directory (`openRagdesk`'s layout: `ragdesk.db` and
 * `indexes/`), safe while an instance serves from it. Exported by `ragdesk/node`; the CLI's
 * `ragdesk backup <dir>` / `ragdesk restore <dir>` call these.
 *
 * A backup directory has the same layout plus `ragdesk-backup.json`, written last: a directory
 * without it is an interrupted backup and is refused by restore.
 */
import { randomBytes } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { RagdeskError } from '../src/errors.js';
import { copyIndexFiles, verifyIndexFiles } from './hnsw/files/backup.js';
import { backupSqliteFile, fileSha256, inspectSqliteFile } from './sqlite/backup.js';

const MANIFEST = 'ragdesk-backup.json';
const DATABASE = 'ragdesk.db';
const INDEXES = 'indexes';
const FORMAT = 'ragdesk-backup';
const VERSION = 1;

/** What a datastore's vector index looks like in a backup. */
export interface BackedUpIndex {
  datastoreId: string;
  /**
   * `current`: files matching the database snapshot, loaded as they are after a restore.
   * `rebuild`: no usable files (none yet, or written before or after the snapshot); the index is
   * rebuilt from the restored database on first use, with no re-embedding.
   */
  state: 'current' | 'rebuild';
  detail?: string;
}

export interface BackupManifest {
  format: typeof FORMAT;
  version: typeof VERSION;
  createdAt: string;
  database: { file: string; bytes: number; sha256: string; pages: number };
  datastores: number;
  indexes: BackedUpIndex[];
}

export interface BackupReport extends BackupManifest {
  target: string;
  /** Times the database copy started over because the instance wrote meanwhile. */
  restarts: number;
  durationMs: number;
}

export interface RestoreReport {
  dataDir: string;
  manifest: BackupManifest;
  /** True when a non-empty data directory was replaced (`force`). */
  replaced: boolean;
  durationMs: number;
}

/**
 * Backs up `dataDir` into `targetDir` (created; refused when it exists and is not empty, unless
 * `force`). The database is copied with SQLite's online backup API as one consistent snapshot
 * while writes go on; the index files are copied after it, each checked against the checksum in
 * its header, and kept only when they reflect exactly that snapshot (else the restored instance
 * rebuilds that index from the database on first use).
 */
export async function backupDataDir(dataDir: string, targetDir: string, options: { force?: boolean } = {}): Promise<BackupReport> {
  const started = performance.now();
  const target = resolve(targetDir);
  const source = resolve(dataDir);
  if (!(await exists(join(source, DATABASE)))) throw new RagdeskError('not_found', `No ragdesk data in ${source} (${DATABASE} is missing)`);
  await refuseNonEmpty(target, options.force, 'backup target');
  const staging = join(dirname(target), `.${basename(target)}.partial-${randomBytes(4).toString('hex')}`);
  await mkdir(staging, { recursive: true });
  try {
    const snapshot = await backupSqliteFile(join(source, DATABASE), join(staging, DATABASE));
    const sequences = new Map(snapshot.datastores.map((datastore) => [datastore.id, datastore]));
    const files = await copyIndexFiles(join(source, INDEXES), join(staging, INDEXES), (id) => sequences.has(id));
    const indexes: BackedUpIndex[] = [];
    for (const datastore of snapshot.datastores) {
      const copy = files.copied.find((collection) => collection.datastoreId === datastore.id);
      if (copy && copy.sequence === datastore.chunkSequence && copy.model === datastore.embeddingModel) {
        indexes.push({ datastoreId: datastore.id, state: 'current' });
        continue;
      }
      // Files of another state than the snapshot would only be rebuilt on open: not worth keeping.
      if (copy) await rm(join(staging, INDEXES, copy.directory), { recursive: true, force: true });
      const detail = copy
        ? `index files reflect chunk sequence ${copy.sequence}, the snapshot ${datastore.chunkSequence}`
        : 'no index files yet';
      indexes.push({ datastoreId: datastore.id, state: 'rebuild', detail });
    }
    const manifest: BackupManifest = {
      format: FORMAT,
      version: VERSION,
      createdAt: new Date().toISOString(),
      database: { file: DATABASE, bytes: snapshot.bytes, sha256: snapshot.sha256, pages: snapshot.pages },
      datastores: snapshot.datastores.length,
      indexes,
    };
    await writeFile(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await moveInto(staging, target);
    return { ...manifest, target, restarts: snapshot.restarts, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Checks a backup without changing anything: manifest present, database checksum and
 * `quick_check`, every index binary against its header. Throws `invalid_request` listing the
 * problems; returns the manifest when the backup is sound.
 */
export async function verifyBackup(backupDir: string): Promise<BackupManifest> {
  const dir = resolve(backupDir);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST), 'utf8')) as BackupManifest;
  } catch (error) {
    throw new RagdeskError('invalid_request', `${dir} is not a complete ragdesk backup (${MANIFEST} is missing or unreadable)`, {
      cause: error,
    });
  }
  if (manifest.format !== FORMAT || manifest.version !== VERSION) {
    throw new RagdeskError(
      'invalid_request',
      `${dir}: unknown backup format ${String(manifest.format)} version ${String(manifest.version)}`,
    );
  }
  const problems: string[] = [];
  const database = join(dir, DATABASE);
  if (!(await exists(database))) problems.push(`${DATABASE} is missing`);
  else {
    if ((await fileSha256(database)) !== manifest.database.sha256) problems.push(`${DATABASE} does not match the checksum in ${MANIFEST}`);
    else problems.push(...inspectSqliteFile(database).problems.map((problem) => `${DATABASE}: ${problem}`));
  }
  const indexes = await verifyIndexFiles(join(dir, INDEXES));
  problems.push(...indexes.problems.map((problem) => `${INDEXES}/${problem}`));
  if (problems.length > 0) {
    throw new RagdeskError('invalid_request', `The backup in ${dir} is damaged: ${problems.join('; ')}`, { details: { problems } });
  }
  return manifest;
}

/**
 * Restores a backup into `dataDir`. Verifies the backup first; refuses a data directory that
 * exists and is not empty unless `force`, and then replaces it whole (old WAL files included). The
 * data directory must not be in use: stop the instance (`ragdesk serve`) first.
 */
export async function restoreDataDir(backupDir: string, dataDir: string, options: { force?: boolean } = {}): Promise<RestoreReport> {
  const started = performance.now();
  const source = resolve(backupDir);
  const target = resolve(dataDir);
  const manifest = await verifyBackup(source);
  const replaced = await refuseNonEmpty(target, options.force, 'data directory');
  const staging = join(dirname(target), `.${basename(target)}.restoring-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(staging, { recursive: true });
    await cp(join(source, DATABASE), join(staging, DATABASE));
    if (await exists(join(source, INDEXES))) await cp(join(source, INDEXES), join(staging, INDEXES), { recursive: true });
    await moveInto(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  return { dataDir: target, manifest, replaced, durationMs: Math.round(performance.now() - started) };
}

/** Throws `conflict` when `path` is a non-empty directory (or a file) and not `force`; returns whether it held anything. */
async function refuseNonEmpty(path: string, force: boolean | undefined, what: string): Promise<boolean> {
  let entries: string[];
  try {
    entries = await readdir(path);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return false;
    throw new RagdeskError('conflict', `The ${what} ${path} is not a directory`, { cause: error });
  }
  if (entries.length > 0 && !force) {
    throw new RagdeskError('conflict', `The ${what} ${path} is not empty; pass force to replace its content`, {
      details: { path, entries: entries.length },
    });
  }
  return entries.length > 0;
}

/**
 * Puts the finished `staging` directory at `target`: renames (atomic on one file system), moving a
 * previous `target` aside first and deleting it after. When `target` cannot be renamed (a mount
 * point), its content is emptied and the staging content copied in.
 */
async function moveInto(staging: string, target: string): Promise<void> {
  if (!(await exists(target))) {
    await rename(staging, target);
    return;
  }
  const aside = join(dirname(target), `.${basename(target)}.replaced-${randomBytes(4).toString('hex')}`);
  try {
    await rename(target, aside);
  } catch {
    for (const name of await readdir(target)) await rm(join(target, name), { recursive: true, force: true });
    await cp(staging, target, { recursive: true });
    await rm(staging, { recursive: true, force: true });
    return;
  }
  await rename(staging, target);
  await rm(aside, { recursive: true, force: true });
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
