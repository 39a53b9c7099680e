import type { DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import type { RetrievalStore } from '../ports/store.js';

/** What a set of datasources holds: the figures stored-size limits and the console's totals read. */
export interface StoredTotals {
  /** Every datasource, sites and their pages included. */
  datasources: number;
  /** Datasources that hold text themselves: files, texts and pages (a site is the group of its pages). */
  documents: number;
  chunks: number;
  tokens: number;
  /** Characters of loaded text. */
  textChars: number;
  /** Bytes of uploaded files kept for re-syncs (files whose record carries `config.file_size`). */
  fileBytes: number;
}

/**
 * Sums the datasources' counts. A site's own counts are the sum of its pages, so sites count as
 * datasources only. `excluding`: datasources about to be replaced (their old counts do not stay).
 */
export function storedTotals(records: Iterable<DatasourceRecord>, excluding: ReadonlySet<string> = new Set()): StoredTotals {
  const totals: StoredTotals = { datasources: 0, documents: 0, chunks: 0, tokens: 0, textChars: 0, fileBytes: 0 };
  for (const record of records) {
    if (excluding.has(record.id)) continue;
    totals.datasources += 1;
    if (record.type === 'web_site') continue;
    totals.documents += 1;
    totals.chunks += record.nbChunks;
    totals.tokens += record.nbTokens;
    totals.textChars += record.textSize;
    const size = record.config.file_size;
    if (record.type === 'file' && typeof size === 'number' && Number.isFinite(size) && size > 0) totals.fileBytes += size;
  }
  return totals;
}

/**
 * The datastores whose contents count against one owner's limits: the owner's, or with a null
 * owner every owner-less datastore (the instance's own budget).
 */
async function datastoresOfOwner(store: Pick<RetrievalStore, 'listDatastores'>, ownerId: string | null): Promise<DatastoreRecord[]> {
  return ownerId === null ? (await store.listDatastores()).filter((record) => record.ownerId === null) : store.listDatastores({ ownerId });
}

/** Every datasource of an owner's datastores. */
export async function datasourcesOfOwner(
  store: Pick<RetrievalStore, 'listDatastores' | 'listDatasources'>,
  ownerId: string | null,
): Promise<DatasourceRecord[]> {
  const lists = await Promise.all((await datastoresOfOwner(store, ownerId)).map((record) => store.listDatasources(record.id)));
  return lists.flat();
}
