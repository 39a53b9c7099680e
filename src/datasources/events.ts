import { EventEmitter } from 'node:events';
import type { DatasourceStatus } from '../ports/records.js';

export interface StatusEventPayload {
  datasourceId: string;
  datastoreId: string;
  from: DatasourceStatus | null;
  to: DatasourceStatus;
  message: string | null;
}

export interface ProgressEventPayload {
  datasourceId: string;
  datastoreId: string;
  /** Pages (site sync) or 1 (single document) done so far, and the total when known. */
  pagesDone: number;
  pagesTotal: number | null;
  chunksDone: number;
  tokensDone: number;
}

interface EventMap {
  status: [StatusEventPayload];
  progress: [ProgressEventPayload];
}

/** Typed events of the datasource pipeline, for progress bars and UIs. */
export class DatasourceEvents extends EventEmitter<EventMap> {
  constructor() {
    super();
    // Every `waitUntilSettled` listens while it waits; dozens of concurrent waiters (one per
    // request of a server) are normal use, not the leak Node's default limit of 10 warns about.
    this.setMaxListeners(0);
  }
}
