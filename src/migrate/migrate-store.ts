import { assertAdapter } from '../adapter-checks/assert-adapter.js';
import { ACCOUNT_STORE_METHODS, RETRIEVAL_STORE_METHODS } from '../adapter-checks/store-methods.js';
import { RagdeskError } from '../errors.js';
import type { DatasourceRecord, DatastoreRecord, StatusEvent } from '../ports/records.js';
import type { DatasourcePatch, Store, StorePair } from '../ports/store.js';

export interface MigrateStoreOptions {
  /** Where the data is now (e.g. `sqliteStores(...)`): both stores, or one `Store` serving as both. Only read. */
  from: StorePair | Store;
  /** Where it goes (e.g. `await postgresStores(...)`). Must not hold any of the copied ids yet. */
  to: StorePair | Store;
  /** Called as the copy advances, for progress output. */
  onProgress?: (progress: MigrationProgress) => void;
  /** Messages appended per `appendMessages` call (default 500). */
  messageBatch?: number;
}

export interface MigrationProgress {
  stage: 'datastore' | 'agents' | 'keys';
  /** The datastore being copied (stage `datastore`). */
  datastoreId?: string;
  datasourcesDone: number;
  datasourcesTotal: number;
  chunks: number;
}

/** What was copied. */
export interface MigrationReport {
  datastores: number;
  datasources: number;
  chunks: number;
  statusEvents: number;
  files: number;
  jobs: number;
  agents: number;
  conversations: number;
  messages: number;
  apiKeys: number;
  /** What the Store port cannot enumerate and so was not copied. */
  notCopied: string[];
}

/**
 * Copies everything a Store holds into another Store through the Store port alone, so any pair of
 * adapters works (SQLite to Postgres is the case it exists for): datastores, datasources with their
 * status history, stored uploads and jobs, chunks with their vectors (nothing is embedded again),
 * agents, conversations with their messages, and API keys.
 *
 * Status history is replayed: the datasource is created in its first recorded status and every
 * later change is applied with its own time and message, which makes the target record the same
 * events. Usage counters are not copied (the port has no way to list them; they restart at 0).
 *
 * Refuses, before writing anything, when the target already holds one of the ids. Not resumable:
 * after a failure, empty the target (drop its schema) and run again. Stop the instances using
 * `from` first, or writes made during the copy may be missed.
 */
export async function migrateStore(options: MigrateStoreOptions): Promise<MigrationReport> {
  const from = storePair('from', options.from);
  const to = storePair('to', options.to);
  const messageBatch = Math.max(1, Math.floor(options.messageBatch ?? 500));
  const report: MigrationReport = {
    datastores: 0,
    datasources: 0,
    chunks: 0,
    statusEvents: 0,
    files: 0,
    jobs: 0,
    agents: 0,
    conversations: 0,
    messages: 0,
    apiKeys: 0,
    notCopied: ['usage counters (the Store port cannot list them; they restart at 0 in the target)'],
  };
  const datastores = await from.retrieval.listDatastores();
  const agents = await from.accounts.listAgents();
  const keys = await from.accounts.listApiKeys();
  await assertTargetFree(to, datastores, agents, keys);

  for (const datastore of datastores) {
    await to.retrieval.createDatastore(datastore);
    report.datastores += 1;
    const datasources = await from.retrieval.listDatasources(datastore.id);
    let chunks = 0;
    for (const [done, datasource] of datasources.entries()) {
      const events = await from.retrieval.listStatusEvents(datasource.id);
      report.statusEvents += await copyDatasource(to, datasource, events);
      const stored = await from.retrieval.listChunks(datasource.id);
      if (stored.length > 0) await to.retrieval.replaceChunks(datasource.id, stored);
      chunks += stored.length;
      const file = await from.retrieval.getDatasourceFile(datasource.id);
      if (file !== null) {
        await to.retrieval.putDatasourceFile(datasource.id, file);
        report.files += 1;
      }
      for (const job of await from.retrieval.listJobs({ datasourceId: datasource.id })) {
        await to.retrieval.createJob(job);
        report.jobs += 1;
      }
      report.datasources += 1;
      options.onProgress?.({
        stage: 'datastore',
        datastoreId: datastore.id,
        datasourcesDone: done + 1,
        datasourcesTotal: datasources.length,
        chunks,
      });
    }
    report.chunks += chunks;
  }

  for (const agent of agents) {
    await to.accounts.createAgent(agent);
    report.agents += 1;
    for (const conversation of await from.accounts.listConversations(agent.id)) {
      await to.accounts.createConversation(conversation);
      report.conversations += 1;
      // Newest first from the port; appended oldest first so insertion order (the tie-breaker) holds.
      const messages = (await from.accounts.listMessages(agent.id, conversation.id)).reverse();
      for (let start = 0; start < messages.length; start += messageBatch) {
        await to.accounts.appendMessages(agent.id, conversation.id, messages.slice(start, start + messageBatch));
      }
      report.messages += messages.length;
    }
  }
  options.onProgress?.({ stage: 'agents', datasourcesDone: 0, datasourcesTotal: 0, chunks: report.chunks });

  for (const key of keys) {
    await to.accounts.createApiKey(key);
    report.apiKeys += 1;
  }
  options.onProgress?.({ stage: 'keys', datasourcesDone: 0, datasourcesTotal: 0, chunks: report.chunks });
  return report;
}

/**
 * Creates the datasource in its first recorded status, replays each later status change with its
 * time and message, then writes the record's final fields (which changes no status, so adds no
 * event). Returns the number of events the target now holds for it.
 */
async function copyDatasource(to: StorePair, datasource: DatasourceRecord, events: readonly StatusEvent[]): Promise<number> {
  const [first, ...later] = events;
  await to.retrieval.createDatasource({
    ...datasource,
    status: first?.to ?? datasource.status,
    error: first === undefined ? datasource.error : first.message,
  });
  for (const event of later) {
    await to.retrieval.updateDatasource(datasource.id, { status: event.to, error: event.message, updatedAt: event.at });
  }
  const { id: _id, datastoreId: _datastore, type: _type, createdAt: _created, ...fields } = datasource;
  const final: DatasourcePatch = fields;
  await to.retrieval.updateDatasource(datasource.id, final);
  return Math.max(1, events.length);
}

async function assertTargetFree(
  to: StorePair,
  datastores: readonly DatastoreRecord[],
  agents: readonly { id: string }[],
  keys: readonly { id: string; hash: string }[],
): Promise<void> {
  const taken: string[] = [];
  for (const datastore of datastores) if ((await to.retrieval.getDatastore(datastore.id)) !== null) taken.push(`datastore ${datastore.id}`);
  for (const agent of agents) if ((await to.accounts.getAgent(agent.id)) !== null) taken.push(`agent ${agent.id}`);
  for (const key of keys) if ((await to.accounts.findApiKeyByHash(key.hash)) !== null) taken.push(`API key ${key.id}`);
  if (taken.length > 0) {
    throw new RagdeskError(
      'conflict',
      `the target store already holds ${taken.length} of the records to copy (${taken.slice(0, 3).join(', ')}${taken.length > 3 ? ', ...' : ''}); migrate into an empty store`,
      { details: { taken: taken.slice(0, 50) } },
    );
  }
}

/** Both stores of `stores`, checked: a pair as it is, a `Store` as both. */
function storePair(port: string, stores: StorePair | Store): StorePair {
  const pair: StorePair =
    typeof stores === 'object' && stores !== null && 'retrieval' in stores ? stores : { retrieval: stores, accounts: stores };
  assertAdapter(`${port}.retrieval`, pair.retrieval, RETRIEVAL_STORE_METHODS);
  assertAdapter(`${port}.accounts`, pair.accounts, ACCOUNT_STORE_METHODS);
  return pair;
}
