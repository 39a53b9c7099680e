/** Datasource pipeline part of the Store conformance suite: status history, transitions, files, jobs. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { DatasourceRecord, DatastoreRecord, JobRecord } from '../ports/records.js';
import type { JobPatch } from '../ports/store.js';
import { isoAt, makeChunks, makeDatasource, makeDatastore, makeJob } from './fixtures.js';
import { samplePassages } from './sample-texts.js';
import { expectCode, type StoreSuiteContext } from './store-harness.js';

export function describeJobConformance(context: StoreSuiteContext): void {
  const store = () => context.store();

  describe('datasource pipeline', () => {
    let datastore: DatastoreRecord;
    let source: DatasourceRecord;
    let other: DatasourceRecord;

    beforeEach(async () => {
      datastore = makeDatastore({ name: 'Pipeline' });
      source = makeDatasource(datastore, { name: 'report.pdf', type: 'file', status: 'pending' });
      other = makeDatasource(datastore, { name: 'other.txt', status: 'pending', createdAt: isoAt(1) });
      await store().createDatastore(datastore);
      await store().createDatasource(source);
      await store().createDatasource(other);
    });

    it('records the initial status and every status change, from updates and replaces', async () => {
      await store().updateDatasource(source.id, { status: 'running', updatedAt: isoAt(10) });
      await store().updateDatasource(source.id, { name: 'renamed.pdf', updatedAt: isoAt(11) });
      await store().updateDatasource(source.id, { status: 'error', error: 'parse failed', updatedAt: isoAt(12) });
      await store().replaceChunks(source.id, makeChunks(source, samplePassages(2, 41)), { status: 'synched', error: null, updatedAt: isoAt(13) });
      expect(await store().listStatusEvents(source.id)).toEqual([
        { datasourceId: source.id, from: null, to: 'pending', at: source.createdAt, message: null },
        { datasourceId: source.id, from: 'pending', to: 'running', at: isoAt(10), message: null },
        { datasourceId: source.id, from: 'running', to: 'error', at: isoAt(12), message: 'parse failed' },
        { datasourceId: source.id, from: 'error', to: 'synched', at: isoAt(13), message: null },
      ]);
      expect(await store().listStatusEvents('missing')).toEqual([]);
    });

    it('transitions only from an expected status (compare-and-set)', async () => {
      const moved = await store().transitionDatasource(source.id, ['pending', 'unsynched'], { status: 'running', updatedAt: isoAt(5) });
      expect(moved).toMatchObject({ id: source.id, status: 'running', updatedAt: isoAt(5) });
      expect(await store().transitionDatasource(source.id, ['pending'], { status: 'running' })).toBeNull();
      expect(await store().transitionDatasource('missing', ['pending'], { status: 'running' })).toBeNull();
      expect((await store().getDatasource(source.id))?.status).toBe('running');
      const events = await store().listStatusEvents(source.id);
      expect(events.map((event) => event.to)).toEqual(['pending', 'running']);
    });

    it('keeps an uploaded file per datasource, replacing the earlier one', async () => {
      const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256);
      await store().putDatasourceFile(source.id, { bytes, mimeType: 'application/pdf', fileName: 'report.pdf' });
      bytes[0] = 255;
      const read = await store().getDatasourceFile(source.id);
      expect(read?.mimeType).toBe('application/pdf');
      expect(read?.fileName).toBe('report.pdf');
      expect(Array.from(read!.bytes)).toEqual(Array.from({ length: 300 }, (_, i) => (i * 37) % 256));
      await store().putDatasourceFile(source.id, { bytes: new Uint8Array([1, 2, 3]), mimeType: 'text/plain', fileName: null });
      const replaced = await store().getDatasourceFile(source.id);
      expect({ ...replaced, bytes: Array.from(replaced!.bytes) }).toEqual({ bytes: [1, 2, 3], mimeType: 'text/plain', fileName: null });
      expect(await store().getDatasourceFile(other.id)).toBeNull();
      await expectCode(store().putDatasourceFile('missing', { bytes: new Uint8Array(1), mimeType: 'text/plain', fileName: null }), 'not_found');
    });

    it('creates, reads, lists and patches jobs', async () => {
      const first = makeJob(source, 20);
      const second = makeJob(other, 10);
      const third = makeJob(source, 30, { status: 'done' });
      for (const job of [first, second, third]) await store().createJob(job);
      expect(await store().getJob(first.id)).toEqual(first);
      expect(await store().getJob('missing')).toBeNull();
      await expectCode(store().createJob(first), 'conflict');
      await expectCode(store().createJob(makeJob({ id: 'missing', datastoreId: datastore.id }, 1)), 'not_found');

      const listed = async (filter: Parameters<ReturnType<StoreSuiteContext['store']>['listJobs']>[0]) =>
        (await store().listJobs(filter)).map((job) => job.id);
      expect(await listed({})).toEqual([second.id, first.id, third.id]);
      expect(await listed({ datasourceId: source.id })).toEqual([first.id, third.id]);
      expect(await listed({ statuses: ['pending'] })).toEqual([second.id, first.id]);
      expect(await listed({ datasourceId: source.id, statuses: ['done', 'failed'] })).toEqual([third.id]);

      const patch: JobPatch = { status: 'failed', lastError: 'boom', updatedAt: isoAt(40) };
      expect(await store().updateJob(first.id, patch)).toEqual({ ...first, ...patch });
      expect(await store().getJob(first.id)).toEqual({ ...first, ...patch });
      expect(await store().updateJob('missing', patch)).toBeNull();
    });

    it('claims the oldest due job once, and re-claims it when its lease expires', async () => {
      const later = makeJob(source, 50, { runAt: isoAt(500) });
      const oldest = makeJob(source, 10);
      const newer = makeJob(other, 20);
      const finished = makeJob(other, 5, { status: 'done' });
      for (const job of [later, newer, oldest, finished]) await store().createJob(job);

      const now = isoAt(100);
      const claimA = await store().claimJob({ owner: 'worker-a', now, leaseUntil: isoAt(160) });
      expect(claimA).toMatchObject({ id: oldest.id, status: 'running', leaseOwner: 'worker-a', leaseUntil: isoAt(160), attempts: 1 });
      const claimB = await store().claimJob({ owner: 'worker-b', now, leaseUntil: isoAt(160) });
      expect(claimB?.id).toBe(newer.id);
      expect(await store().claimJob({ owner: 'worker-c', now, leaseUntil: isoAt(160) })).toBeNull();

      // worker-a died: at 600 its lease has run out and the job is due again (`later` is due too, but newer).
      const again = await store().claimJob({ owner: 'worker-c', now: isoAt(600), leaseUntil: isoAt(700) });
      expect(again).toMatchObject({ id: oldest.id, leaseOwner: 'worker-c', attempts: 2 });
      expect(await store().getJob(oldest.id)).toEqual(again);
    });

    it('never hands the same job to two concurrent claims', async () => {
      for (let i = 0; i < 6; i++) await store().createJob(makeJob(i % 2 ? source : other, i));
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store().claimJob({ owner: `w${i}`, now: isoAt(100), leaseUntil: isoAt(200) })),
      );
      const won = claims.filter((job): job is JobRecord => job !== null).map((job) => job.id);
      expect(won.length).toBe(6);
      expect(new Set(won).size).toBe(6);
    });

    it('deleting a datasource removes its file, jobs and history; deleting the datastore removes the rest', async () => {
      await store().putDatasourceFile(source.id, { bytes: new Uint8Array([1]), mimeType: 'text/plain', fileName: null });
      await store().createJob(makeJob(source, 1));
      await store().createJob(makeJob(other, 2));
      await store().deleteDatasource(source.id);
      expect(await store().getDatasourceFile(source.id)).toBeNull();
      expect(await store().listJobs({ datasourceId: source.id })).toEqual([]);
      expect(await store().listStatusEvents(source.id)).toEqual([]);
      expect((await store().listJobs({})).map((job) => job.datasourceId)).toEqual([other.id]);
      await store().deleteDatastore(datastore.id);
      expect(await store().listJobs({})).toEqual([]);
      expect(await store().listStatusEvents(other.id)).toEqual([]);
    });
  });
}
