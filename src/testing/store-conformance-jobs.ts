/**
 * Datasource pipeline part of the Store conformance suite: status history, transitions and files
 * (`DatasourceStore`), and `JobStore`.
 */
import type { JobPatch, RetrievalStore } from '../ports/store.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DatasourceRecord, DatastoreRecord, JobRecord } from '../ports/records.js';
import { isoAt, makeChunks, makeDatasource, makeDatastore, makeJob } from './fixtures.js';
import { samplePassages } from './sample-texts.js';
import { expectCode, type StoreSuiteContext } from './store-harness.js';

export function describeJobConformance(context: StoreSuiteContext<RetrievalStore>): void {
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
      await store().replaceChunks(source.id, makeChunks(source, samplePassages(2, 41)), {
        status: 'synched',
        error: null,
        updatedAt: isoAt(13),
      });
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
      await expectCode(
        store().putDatasourceFile('missing', { bytes: new Uint8Array(1), mimeType: 'text/plain', fileName: null }),
        'not_found',
      );
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

      const listed = async (filter: Parameters<ReturnType<StoreSuiteContext<RetrievalStore>['store']>['listJobs']>[0]) =>
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

    it('appends no event when the status stays, nor when a transition is refused', async () => {
      const initial = await store().listStatusEvents(source.id);
      await store().updateDatasource(source.id, { status: 'pending', nbChunks: 2, updatedAt: isoAt(20) });
      await store().replaceChunks(source.id, makeChunks(source, samplePassages(1, 42)), { status: 'pending', updatedAt: isoAt(21) });
      const before = await store().getDatasource(source.id);
      expect(await store().transitionDatasource(source.id, ['running', 'synched'], { status: 'error', error: 'x' })).toBeNull();
      expect(await store().getDatasource(source.id)).toEqual(before);
      expect(await store().listStatusEvents(source.id)).toEqual(initial);
      const moved = await store().transitionDatasource(source.id, ['pending'], { status: 'running', updatedAt: isoAt(22) });
      expect(moved).toEqual(await store().getDatasource(source.id));
      expect((await store().listStatusEvents(source.id)).slice(initial.length)).toEqual([
        { datasourceId: source.id, from: 'pending', to: 'running', at: isoAt(22), message: null },
      ]);
    });

    it('round-trips file bytes exactly, in fresh copies, whatever view they come in', async () => {
      const put = (bytes: Uint8Array) =>
        store().putDatasourceFile(source.id, { bytes, mimeType: 'application/octet-stream', fileName: 'f.bin' });
      const read = async () => (await store().getDatasourceFile(source.id))!.bytes;

      await put(new Uint8Array(0));
      expect((await read()).byteLength).toBe(0);

      // Every byte value, in a view at an odd offset of a larger buffer (as Node Buffers often are).
      const all = Uint8Array.from({ length: 256 * 4 }, (_, i) => (i * 131) % 256);
      const backing = new Uint8Array(all.length + 7);
      backing.set(all, 3);
      const view = backing.subarray(3, 3 + all.length);
      await put(view);
      view.fill(0);
      const first = await read();
      expect(first).toBeInstanceOf(Uint8Array);
      expect(Array.from(first)).toEqual(Array.from(all));
      first.fill(9);
      expect(Array.from(await read())).toEqual(Array.from(all));

      // A Node Buffer (a Uint8Array subclass whose slice() does not copy).
      const buffer = Buffer.from('0123456789');
      await put(buffer.subarray(2, 6));
      buffer.fill(0);
      expect(Buffer.from(await read()).toString()).toBe('2345');
    });

    it('skips jobs that are not yet due and leaves running jobs with a live lease alone', async () => {
      const future = makeJob(source, 1, { runAt: isoAt(200) });
      const leased = makeJob(other, 2, { status: 'running', attempts: 1, leaseOwner: 'worker-a', leaseUntil: isoAt(300) });
      const cancelled = makeJob(other, 3, { status: 'cancelled' });
      const due = makeJob(source, 4, { runAt: isoAt(100) });
      for (const job of [future, leased, cancelled, due]) await store().createJob(job);

      const claim = (now: number, owner = 'worker-b') => store().claimJob({ owner, now: isoAt(now), leaseUntil: isoAt(now + 1000) });
      expect(await claim(99)).toBeNull();
      expect((await claim(100))?.id).toBe(due.id);
      expect(await claim(150)).toBeNull();
      expect(await claim(250)).toMatchObject({ id: future.id, attempts: 1, leaseOwner: 'worker-b' });
      expect(await store().getJob(leased.id)).toEqual(leased);
      expect(await claim(301, 'worker-c')).toMatchObject({ id: leased.id, attempts: 2, leaseOwner: 'worker-c', status: 'running' });
      expect(await store().getJob(cancelled.id)).toEqual(cancelled);
    });

    it('cascades deletes to the stored rows themselves', async () => {
      const inspect = context.harness.inspect;
      for (const target of [source, other]) {
        await store().putDatasourceFile(target.id, { bytes: new Uint8Array([1, 2]), mimeType: 'text/plain', fileName: null });
        await store().createJob(makeJob(target, 1));
        await store().updateDatasource(target.id, { status: 'running' });
      }
      const rows = async (id: string) => [
        await inspect?.fileRows?.(id),
        await inspect?.jobRows?.(id),
        await inspect?.statusEventRows?.(id),
      ];
      const expectRows = async (id: string, expected: number[]) => {
        const counted = await rows(id);
        counted.forEach((count, i) => {
          if (count !== undefined) expect(count).toBe(expected[i]);
        });
      };
      await expectRows(source.id, [1, 1, 2]);
      await store().deleteDatasource(source.id);
      await expectRows(source.id, [0, 0, 0]);
      await expectRows(other.id, [1, 1, 2]);
      expect(await store().getDatasourceFile(other.id)).not.toBeNull();
      await store().deleteDatastore(datastore.id);
      await expectRows(other.id, [0, 0, 0]);
      expect(await store().getDatasourceFile(other.id)).toBeNull();
      expect(await store().getJob(makeJob(other, 1).id)).toBeNull();
      // Recreating the same ids starts from nothing.
      await store().createDatastore(datastore);
      await store().createDatasource(other);
      expect(await store().getDatasourceFile(other.id)).toBeNull();
      expect(await store().listJobs({ datasourceId: other.id })).toEqual([]);
      expect((await store().listStatusEvents(other.id)).length).toBeLessThanOrEqual(1);
    });

    it.skipIf(context.harness.reopen === undefined)('keeps history, files and jobs across close and reopen', async () => {
      await store().transitionDatasource(source.id, ['pending'], { status: 'running', updatedAt: isoAt(5) });
      const bytes = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) % 256);
      await store().putDatasourceFile(source.id, { bytes, mimeType: 'application/pdf', fileName: 'report.pdf' });
      const waiting = makeJob(other, 2);
      await store().createJob(makeJob(source, 1));
      await store().createJob(waiting);
      const claimed = await store().claimJob({ owner: 'worker-a', now: isoAt(10), leaseUntil: isoAt(20) });
      const events = await store().listStatusEvents(source.id);
      const jobs = await store().listJobs({});

      const reopened = await context.reopen();
      expect(await reopened.listStatusEvents(source.id)).toEqual(events);
      const file = await reopened.getDatasourceFile(source.id);
      expect(file?.mimeType).toBe('application/pdf');
      expect(file?.fileName).toBe('report.pdf');
      expect(Array.from(file!.bytes)).toEqual(Array.from(bytes));
      expect(await reopened.listJobs({})).toEqual(jobs);
      // The lease survives: before it expires only the waiting job is due; after, the claimed one again.
      expect((await reopened.claimJob({ owner: 'worker-b', now: isoAt(15), leaseUntil: isoAt(50) }))?.id).toBe(waiting.id);
      expect(await reopened.claimJob({ owner: 'worker-b', now: isoAt(21), leaseUntil: isoAt(50) })).toMatchObject({
        id: claimed!.id,
        attempts: 2,
      });
    });
  });
}
