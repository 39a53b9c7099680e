import { RagdeskError } from '../../src/errors.js';
import type { Ragdesk } from '../../src/ragdesk.js';
import type { CliIo } from './io.js';

export interface PreloadReport {
  loaded: number;
  failed: number;
  seconds: number;
}

/**
 * Loads every datastore's search indexes after the server listens, one datastore at a time: they
 * would otherwise load inside the first query that reaches each one (about a second at 100k chunks,
 * tens of seconds at a million), which a visitor waits for. Queries that arrive meanwhile wait only
 * for the load already under way. A datastore that cannot be loaded is reported and skipped (its
 * queries say why); closing the instance ends the loop. Never rejects: it runs unawaited.
 */
export async function preloadDatastores(ragdesk: Ragdesk, io: CliIo): Promise<PreloadReport> {
  const started = performance.now();
  const report: PreloadReport = { loaded: 0, failed: 0, seconds: 0 };
  try {
    for (const datastore of await ragdesk.datastores.list()) {
      try {
        await datastore.load();
        report.loaded++;
      } catch (error) {
        if (isClosed(error)) break;
        // Deleted since it was listed: nothing to load.
        if (RagdeskError.isInstance(error) && error.code === 'not_found') continue;
        report.failed++;
        io.stderr(`  could not load datastore ${datastore.id} (${JSON.stringify(datastore.name)}): ${messageOf(error)}\n`);
      }
    }
  } catch (error) {
    if (!isClosed(error)) io.stderr(`  could not list the datastores to load: ${messageOf(error)}\n`);
  }
  report.seconds = (performance.now() - started) / 1000;
  if (report.loaded > 0) {
    io.stderr(`Loaded ${report.loaded} datastore${report.loaded === 1 ? '' : 's'} for search in ${report.seconds.toFixed(1)} s\n`);
  }
  return report;
}

function isClosed(error: unknown): boolean {
  return RagdeskError.isInstance(error) && error.code === 'closed';
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
