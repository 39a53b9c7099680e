import { parseArgs } from 'node:util';
import { backupDataDir, restoreDataDir } from '../backup.js';
import { UsageError, type CliIo } from './io.js';

export const BACKUP_USAGE = `ragdesk backup <target dir> [--data-dir ./data] [--force]
  safe while a server uses the data folder: an online SQLite snapshot plus verified index files
ragdesk restore <backup dir> [--data-dir ./data] [--force]
  refuses a non-empty data folder unless --force (then replaces it whole); stop the server first`;

function parse(args: string[], command: string): { dir: string; dataDir: string; force: boolean } {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'data-dir': { type: 'string', default: './data' }, force: { type: 'boolean', default: false } },
  });
  const [dir, ...extra] = positionals;
  if (dir === undefined || extra.length > 0) throw new UsageError(`${command} takes exactly one directory`);
  return { dir, dataDir: values['data-dir'] ?? './data', force: values.force ?? false };
}

export async function runBackup(args: string[], io: CliIo): Promise<number> {
  const { dir, dataDir, force } = parse(args, 'backup');
  const report = await backupDataDir(dataDir, dir, { force });
  const rebuild = report.indexes.filter((index) => index.state === 'rebuild').length;
  io.stdout(
    `Backed up ${dataDir} to ${report.target}: database ${report.database.bytes} bytes (sha256 ${report.database.sha256.slice(0, 12)}…), ` +
      `${report.datastores} datastores, ${report.indexes.length - rebuild} index files current` +
      `${rebuild > 0 ? `, ${rebuild} rebuilt from the database on first use after a restore` : ''}, ${report.durationMs} ms\n`,
  );
  return 0;
}

export async function runRestore(args: string[], io: CliIo): Promise<number> {
  const { dir, dataDir, force } = parse(args, 'restore');
  const report = await restoreDataDir(dir, dataDir, { force });
  io.stdout(
    `Restored ${dir} (taken ${report.manifest.createdAt}) into ${report.dataDir}${report.replaced ? ', replacing its content' : ''}: ` +
      `${report.manifest.datastores} datastores, ${report.durationMs} ms\n`,
  );
  return 0;
}
