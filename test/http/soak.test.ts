import { describe, expect, it } from 'vitest';
import { runSoak, soakRows } from '../../benchmarks/soak.js';

/**
 * In CI: the soak of `npm run bench:soak`, a few seconds per backend
 * (RAGDESK_SOAK_SECONDS, default 4). 100 streaming agent queries stay open at all times over
 * loopback while files and documents are ingested and deleted; the full 60 s run and its figures
 * are in benchmarks/README.md ("Soak").
 */
const SECONDS = Number(process.env.RAGDESK_SOAK_SECONDS ?? 4);

describe('soak: 100 concurrent streaming agent queries while ingesting', () => {
  it(
    `fails no request and keeps memory flat (${SECONDS} s per backend)`,
    async () => {
      const reports = await runSoak({ seconds: SECONDS, concurrency: 100, documents: 100 });
      console.table(soakRows(reports));
      for (const report of reports) {
        const label = report.backend;
        expect(report.failures, label).toEqual([]);
        expect(report.queries.failed + report.ingestion.failed, label).toBe(0);
        // Load really was 100 streams at once, with ingestion alongside.
        expect(report.peakOpenStreams, label).toBe(100);
        expect(report.peakServerStreams, label).toBeGreaterThan(10);
        expect(report.queries.completed, label).toBeGreaterThanOrEqual(100);
        expect(report.ingestion.requests, label).toBeGreaterThan(0);
        expect(report.ingestion.deleted + report.ingestion.documents, label).toBeGreaterThan(0);
        // No leak: what the heap holds after a forced GC does not grow with the requests served.
        expect(report.memory.growth.heapUsedMiB, label).toBeLessThan(24);
        // The longest event-loop stall is a figure of the machine's speed and load: bench:soak reports
        // it against its goal; a test that must pass on a loaded machine cannot bound it.
      }
    },
    60_000 + SECONDS * 2 * 1000 * 3,
  );
});
