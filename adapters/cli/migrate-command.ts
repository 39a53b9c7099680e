import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RagdeskError, migrateStore, type MigrationProgress } from '../../src/index.js';
import type { StorePair } from '../../src/ports/store.js';
import type { VectorIndex } from '../../src/ports/vector-index.js';
import { loadPg } from '../postgres/pg-module.js';
import { sqliteStores } from '../sqlite/index.js';
import { processIo, UsageError, type CliIo } from './io.js';

export const MIGRATE_USAGE = `ragdesk migrate --from <data dir> --to <postgres url> [--schema ragdesk]
    copy an embedded data folder (SQLite) into Postgres + pgvector: datastores, datasources,
    chunks with their vectors (no re-embedding), agents, conversations and API keys`;

/**
 * `ragdesk migrate`: copies the SQLite store of a data folder into a Postgres database (through
 * `migrateStore`), builds each datastore's HNSW index once the rows are in (faster than growing it
 * row by row), then compares chunk counts. Returns the exit code: 0 done, 1 failed, 2 usage.
 */
export async function runMigrateCommand(args: string[], io: CliIo = processIo): Promise<number> {
  let values: { from?: string; to?: string; schema?: string };
  try {
    values = parseArgs({
      args,
      options: { from: { type: 'string' }, to: { type: 'string' }, schema: { type: 'string', default: 'ragdesk' } },
    }).values;
    if (!values.from || !values.to) throw new UsageError('migrate needs --from <data dir> and --to <postgres url>');
  } catch (error) {
    io.stderr(`ragdesk: ${error instanceof Error ? error.message : String(error)}\n\n${MIGRATE_USAGE}\n`);
    return 2;
  }
  const path = join(values.from, 'ragdesk.db');
  if (!existsSync(path)) {
    io.stderr(`ragdesk: no ragdesk.db in ${values.from} (is it a ragdesk data folder?)\n`);
    return 1;
  }
  const schema = values.schema ?? 'ragdesk';
  let source: StorePair | undefined;
  let target: (StorePair & { index: VectorIndex }) | undefined;
  // Loaded here, not at the top: the rest of the CLI works without the optional `pg` package.
  const [pg, { postgres }] = await Promise.all([loadPg(), import('../postgres/index.js')]);
  const pool = new pg.Pool({ connectionString: values.to, max: 4 });
  pool.on('error', () => undefined);
  try {
    source = sqliteStores({ path });
    target = await postgres({ pool, schema });
    const started = Date.now();
    const report = await migrateStore({
      from: source,
      to: target,
      // Redrawn in place on a terminal; in logs, one line per finished datastore.
      onProgress: (progress) => {
        if (io.interactive || progress.stage !== 'datastore' || progress.datasourcesDone === progress.datasourcesTotal)
          io.stderr(describe(progress));
      },
    });
    io.stderr('\n');

    // Planner statistics for the freshly loaded tables (autovacuum would get there, later).
    const tables = ['datastores', 'datasources', 'chunks', 'status_events', 'jobs', 'agents', 'conversations', 'messages', 'api_keys'];
    await pool.query(`ANALYZE ${tables.map((table) => `${pg.escapeIdentifier(schema)}.${table}`).join(', ')}`);

    // HNSW indexes: one build per datastore over its loaded rows.
    for (const datastore of await target.retrieval.listDatastores()) {
      const store = target.retrieval;
      const built = Date.now();
      await target.index.open(
        { datastoreId: datastore.id, dimensions: datastore.embeddingDimensions, model: datastore.embeddingModel },
        { sequence: () => store.chunkSequence(datastore.id), entries: async function* () {} },
      );
      io.stderr(`HNSW index of ${datastore.id} ready in ${((Date.now() - built) / 1000).toFixed(1)} s\n`);
    }

    const mismatches: string[] = [];
    for (const datastore of await source.retrieval.listDatastores()) {
      const [before, after] = await Promise.all([source.retrieval.countChunks(datastore.id), target.retrieval.countChunks(datastore.id)]);
      if (before !== after) mismatches.push(`${datastore.id}: ${before} chunks in SQLite, ${after} in Postgres`);
    }
    io.stdout(
      `Copied ${report.datastores} datastores, ${report.datasources} datasources, ${report.chunks} chunks, ` +
        `${report.statusEvents} status events, ${report.files} files, ${report.jobs} jobs, ${report.agents} agents, ` +
        `${report.conversations} conversations, ${report.messages} messages, ${report.apiKeys} API keys ` +
        `in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`,
    );
    for (const note of report.notCopied) io.stdout(`Not copied: ${note}.\n`);
    if (mismatches.length > 0) {
      io.stderr(`ragdesk: chunk counts differ after the copy:\n${mismatches.map((line) => `  ${line}`).join('\n')}\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    io.stderr(
      `\nragdesk: ${RagdeskError.isInstance(error) ? `${error.code}: ` : ''}${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  } finally {
    await target?.index.close();
    await target?.retrieval.close();
    await target?.accounts.close();
    await pool.end();
    await source?.retrieval.close();
    await source?.accounts.close();
  }
}

function describe(progress: MigrationProgress): string {
  if (progress.stage === 'datastore') {
    return `\rdatastore ${progress.datastoreId}: ${progress.datasourcesDone}/${progress.datasourcesTotal} datasources, ${progress.chunks} chunks`;
  }
  return `\n${progress.stage === 'agents' ? 'agents, conversations and messages copied' : 'API keys copied'}`;
}
