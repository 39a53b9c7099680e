import type { RagdeskContext } from '../context.js';
import type { DatasourceRecord } from '../ports/records.js';
import { nowIso } from '../util/ids.js';
import { publicDatasourceId } from '../datastores/document-ids.js';
import type { DatasourceEvents } from './events.js';

export const INTERRUPTED_UPSERT =
  'The upsert that created this document stopped (the process ended) before its text was stored; update or upsert it again';

/**
 * After a crash, a datasource can be left `pending` or `running` with nothing that will ever move
 * it on: a file or web datasource whose job was not created yet (the process died between the two
 * writes of `create`), a site's page whose site job ended, or a `text` document whose upsert died
 * between creating the record and storing its chunks (its text exists nowhere else).
 *
 * Run once at start, after orphaned jobs were resumed. Only records last changed before this
 * instance opened (`openedAt`) are considered, so calls of the current process are never touched.
 * Like the job runner, it assumes this process owns the data (the embedded setup): a record
 * another live process is writing could be re-queued (harmless: the status compare-and-set lets
 * one job run) or, for a text document, marked `error` and then `synched` by its own writer.
 */
export async function settleInterrupted(
  context: RagdeskContext,
  events: DatasourceEvents,
  openedAt: string,
  enqueue: (record: DatasourceRecord) => Promise<void>,
): Promise<void> {
  const { retrieval: store } = context;
  const open = await store.listJobs({ statuses: ['pending', 'running'] });
  const covered = new Set(open.map((job) => job.datasourceId));
  for (const datastore of await store.listDatastores()) {
    for (const source of await store.listDatasources(datastore.id, { statuses: ['pending', 'running'] })) {
      if (source.status !== 'pending' && source.status !== 'running') continue;
      if (source.updatedAt >= openedAt || covered.has(source.id) || (source.groupId !== null && covered.has(source.groupId))) continue;
      if (source.type !== 'text') {
        // The job picks it up from `pending` or, like a resumed job, from `running`.
        await enqueue(source);
        continue;
      }
      const now = nowIso();
      // Text is written by upsert, never queued: `running` is the only unsettled status it has.
      const moved = await store.transitionDatasource(source.id, ['running'], {
        status: 'error',
        error: INTERRUPTED_UPSERT,
        updatedAt: now,
      });
      if (moved) {
        events.emit('status', {
          datasourceId: publicDatasourceId(source.id),
          datastoreId: source.datastoreId,
          from: source.status,
          to: 'error',
          message: INTERRUPTED_UPSERT,
        });
      }
    }
  }
}
