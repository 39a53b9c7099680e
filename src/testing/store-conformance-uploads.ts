/** Store conformance, upload part (`UploadStore`): one write per link, before its deadline. */
import type { AccountStore, UploadRecord } from '../ports/store.js';
import { describe, expect, it } from 'vitest';
import { isoAt } from './fixtures.js';
import { expectCode, type StoreSuiteContext } from './store-harness.js';

function makeUpload(overrides: Partial<UploadRecord> = {}): UploadRecord {
  return {
    id: 'rdu_conformance1',
    secretHash: 'a'.repeat(64),
    ownerId: 'owner-1',
    agentId: 'agent-1',
    conversationId: 'conversation-1',
    visitorId: null,
    fileName: 'notes.md',
    mimeType: 'text/markdown',
    maxBytes: 1_000,
    createdAt: isoAt(0),
    uploadBefore: isoAt(900),
    keepUntil: isoAt(86_400),
    uploadedAt: null,
    size: null,
    ...overrides,
  };
}

export function describeUploadConformance(context: { store: StoreSuiteContext<AccountStore>['store'] }): void {
  const store = () => context.store();

  describe('uploads', () => {
    it('creates a record without bytes, reads it back, and refuses a duplicate id', async () => {
      const record = makeUpload({ visitorId: 'visitor-1' });
      await store().createUpload(record);
      expect(await store().getUpload(record.id)).toEqual(record);
      expect(await store().getUploadBytes(record.id)).toBeNull();
      expect(await store().getUpload('rdu_unknown')).toBeNull();
      await expectCode(store().createUpload(record), 'conflict');
    });

    it('writes the bytes once, before the deadline only', async () => {
      await store().createUpload(makeUpload());
      await store().createUpload(makeUpload({ id: 'rdu_late' }));
      const bytes = new TextEncoder().encode('# Notes\nThe first upload.');
      const done = await store().completeUpload('rdu_conformance1', { bytes, at: isoAt(10) });
      expect(done).toMatchObject({ uploadedAt: isoAt(10), size: bytes.byteLength });
      expect(Buffer.from((await store().getUploadBytes('rdu_conformance1'))!).toString()).toBe('# Notes\nThe first upload.');
      // A second upload changes nothing.
      expect(await store().completeUpload('rdu_conformance1', { bytes: new Uint8Array([1, 2, 3]), at: isoAt(20) })).toBeNull();
      expect(Buffer.from((await store().getUploadBytes('rdu_conformance1'))!).toString()).toBe('# Notes\nThe first upload.');
      // At or after the deadline, and for an unknown id: nothing written.
      expect(await store().completeUpload('rdu_late', { bytes, at: isoAt(900) })).toBeNull();
      expect(await store().getUploadBytes('rdu_late')).toBeNull();
      expect((await store().getUpload('rdu_late'))?.uploadedAt).toBeNull();
      expect(await store().completeUpload('rdu_unknown', { bytes, at: isoAt(10) })).toBeNull();
    });

    it('of two racing uploads exactly one wins', async () => {
      await store().createUpload(makeUpload());
      const results = await Promise.all([
        store().completeUpload('rdu_conformance1', { bytes: new Uint8Array([1]), at: isoAt(5) }),
        store().completeUpload('rdu_conformance1', { bytes: new Uint8Array([2]), at: isoAt(5) }),
      ]);
      expect(results.filter((result) => result !== null)).toHaveLength(1);
    });

    it('deletes uploads kept until before the cutoff, bytes included', async () => {
      await store().createUpload(makeUpload({ id: 'rdu_old', keepUntil: isoAt(100) }));
      await store().createUpload(makeUpload({ id: 'rdu_new', keepUntil: isoAt(200) }));
      await store().completeUpload('rdu_old', { bytes: new Uint8Array([7]), at: isoAt(5) });
      expect(await store().deleteUploadsBefore(isoAt(150))).toBe(1);
      expect(await store().getUpload('rdu_old')).toBeNull();
      expect(await store().getUploadBytes('rdu_old')).toBeNull();
      expect(await store().getUpload('rdu_new')).not.toBeNull();
    });
  });
}
