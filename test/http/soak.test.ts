import { cpus } from 'node:os';
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
    `fails no request, keeps memory flat and never blocks the event loop over 100 ms (${SECONDS} s per backend)`,
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
        // ragdesk's own code never held the loop for 100 ms: time the OS kept the loop's thread off
        // the CPU is not counted (the benchmark reports both; see benchmarks/lib/thread-cpu.ts). On a machine running more than 1.5 jobs per
        // core, CPU time per unit of work itself inflates (shared caches, GC threads) and a loop turn
        // collects more work while it waits: there the bound is 250 ms, and the table says so.
        const oversubscribed = report.loadAverage[0] / cpus().length > 1.5;
        if (oversubscribed) console.log(`${label}: load average ${report.loadAverage[0]} on ${cpus().length} cores, stall bound 250 ms`);
        expect(report.eventLoop.longestStallMs, label).toBeLessThan(oversubscribed ? 250 : 100);
      }
    },
    60_000 + SECONDS * 2 * 1000 * 3,
  );
});
