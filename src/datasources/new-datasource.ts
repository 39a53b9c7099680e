import type { DatasourceRecord } from '../ports/records.js';
import { newId, nowIso } from '../util/ids.js';

/** What a caller decides about a new datasource; everything else starts empty and `pending`. */
export type NewDatasourceFields = Pick<DatasourceRecord, 'datastoreId' | 'type' | 'name'> &
  Partial<Pick<DatasourceRecord, 'groupId' | 'customId' | 'config' | 'metadata'>>;

/** A datasource record before its first sync: one place for the defaults of every type. */
export function newDatasource(fields: NewDatasourceFields, now: string = nowIso()): DatasourceRecord {
  return {
    id: newId(),
    status: 'pending',
    groupId: null,
    customId: null,
    config: {},
    metadata: {},
    ...fields,
    error: null,
    contentHash: null,
    nbChunks: 0,
    nbTokens: 0,
    textSize: 0,
    createdAt: now,
    updatedAt: now,
    lastSynch: null,
  };
}
