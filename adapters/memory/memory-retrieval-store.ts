import { matchesMetadata } from '../../src/filters/metadata-filter.js';
import { notFound } from '../../src/errors.js';
import type { ChunkRecord, DatasourceRecord, DatastoreRecord, ScoredId } from '../../src/ports/records.js';
import type {
  ChunkChange,
  DatasourcePatch,
  DatastorePatch,
  RetrievalStore,
  TextSearchLists,
  TextSearchRequest,
} from '../../src/ports/store.js';
import { patchedDatastore } from '../kit/record-patches.js';
import { conflict, copyChunk, copyDatasource, oldestFirst, patchDatasource, validateChunks } from './record-copies.js';
import { memoryCrawls } from './memory-crawls.js';
import { memoryJobs } from './memory-jobs.js';
import { memoryClosedError } from './memory-closed.js';
import { guardedMethods } from '../kit/guarded-methods.js';
import { TextPostings } from './text-postings.js';
import { containsFolded, foldedNeedle, pageBounds } from '../kit/folded-contains.js';

interface DatastoreState {
  record: DatastoreRecord;
  sequence: number;
  text: TextPostings;
}

/**
 * The `RetrievalStore` contract held in Maps: the reference implementation the conformance suite
 * is checked against, and a zero-setup store for tests. Every method validates before it mutates,
 * so a rejected call changes nothing. Records are copied in and out.
 */
export function memoryRetrievalStore(): RetrievalStore {
  const datastores = new Map<string, DatastoreState>();
  const datasources = new Map<string, DatasourceRecord>();
  const chunks = new Map<string, ChunkRecord>();
  /** Chunk ids per datasource, so replace and delete need not scan every chunk. */
  const chunkIds = new Map<string, Set<string>>();
  const jobs = memoryJobs((id) => datasources.get(id));
  const crawls = memoryCrawls((id) => datasources.has(id));
  let closed = false;

  function open(): void {
    if (closed) throw memoryClosedError();
  }

  function datastoreState(id: string): DatastoreState {
    const state = datastores.get(id);
    if (state === undefined) throw notFound('datastore', id);
    return state;
  }

  function removeChunk(id: string): void {
    const chunk = chunks.get(id);
    if (chunk === undefined) return;
    chunks.delete(id);
    chunkIds.get(chunk.datasourceId)?.delete(id);
    datastores.get(chunk.datastoreId)?.text.remove(id);
  }

  /** Applies a patch, recording a status event when the status changes (as the port requires). */
  function writeDatasource(current: DatasourceRecord, patch: DatasourcePatch): DatasourceRecord {
    const next = patchDatasource(current, patch);
    datasources.set(current.id, next);
    if (next.status !== current.status) {
      jobs.appendEvent(current.id, current.status, next.status, patch.updatedAt ?? new Date().toISOString(), patch.error ?? null);
    }
    return copyDatasource(next);
  }

  function chunksOfDatastore(datastoreId: string): ChunkRecord[] {
    const result: ChunkRecord[] = [];
    for (const source of datasources.values()) {
      if (source.datastoreId !== datastoreId) continue;
      for (const id of chunkIds.get(source.id) ?? []) {
        const chunk = chunks.get(id);
        if (chunk !== undefined) result.push(chunk);
      }
    }
    return result;
  }

  return guardedMethods<RetrievalStore>(
    {
      name: 'memory',
      specificationVersion: 'v1',
      ...jobs.methods,
      putCrawlState: async (state) => crawls.putCrawlState(state),
      getCrawlStates: async (ids) => crawls.getCrawlStates(ids),
      putCrawlPages: async (pages) => crawls.putCrawlPages(pages),
      listCrawlPages: async (datasourceId, page) => crawls.listCrawlPages(datasourceId, page),
      deleteCrawlPages: async (datasourceId, urls) => crawls.deleteCrawlPages(datasourceId, urls),

      async createDatastore(record) {
        if (datastores.has(record.id)) throw conflict('datastore', record.id);
        datastores.set(record.id, { record: { ...record, ownerId: record.ownerId ?? null }, sequence: 0, text: new TextPostings() });
      },

      async getDatastore(id) {
        const state = datastores.get(id);
        return state === undefined ? null : { ...state.record };
      },

      async listDatastores(filter = {}) {
        const records = [...datastores.values()].map((state) => ({ ...state.record }));
        const { ownerId } = filter;
        return oldestFirst(ownerId === undefined ? records : records.filter((record) => record.ownerId === ownerId));
      },

      async updateDatastore(id, patch: DatastorePatch) {
        const state = datastores.get(id);
        if (state === undefined) return null;
        const next = patchedDatastore(state.record, patch);
        state.record = next;
        return { ...next };
      },

      async deleteDatastore(id) {
        if (!datastores.has(id)) return false;
        for (const source of [...datasources.values()]) {
          if (source.datastoreId !== id) continue;
          for (const chunkId of [...(chunkIds.get(source.id) ?? [])]) removeChunk(chunkId);
          chunkIds.delete(source.id);
          datasources.delete(source.id);
          jobs.dropDatasource(source.id);
          crawls.dropDatasource(source.id);
        }
        datastores.delete(id);
        return true;
      },

      async createDatasource(record) {
        if (datasources.has(record.id)) throw conflict('datasource', record.id);
        datastoreState(record.datastoreId);
        datasources.set(record.id, copyDatasource(record));
        // The history starts with the status the datasource was created in (`from` null).
        jobs.appendEvent(record.id, null, record.status, record.createdAt, record.error);
        chunkIds.set(record.id, new Set());
      },

      async getDatasource(id) {
        const record = datasources.get(id);
        return record === undefined ? null : copyDatasource(record);
      },

      async getDatasources(ids) {
        return ids.flatMap((id) => {
          const record = datasources.get(id);
          return record === undefined ? [] : [copyDatasource(record)];
        });
      },

      async getDatasourceRefs(ids) {
        return ids.flatMap((id) => {
          const record = datasources.get(id);
          if (record === undefined) return [];
          const { type, name, config, metadata } = copyDatasource(record);
          return [{ id, type, name, config, metadata }];
        });
      },

      async listDatasources(datastoreId, options = {}) {
        const matching = [...datasources.values()].filter(
          (source) =>
            source.datastoreId === datastoreId &&
            (options.groupId === undefined || source.groupId === options.groupId) &&
            (options.statuses === undefined || options.statuses.includes(source.status)),
        );
        return oldestFirst(matching.map(copyDatasource));
      },

      async pageDatasources(datastoreId, query) {
        const { offset, limit } = pageBounds(query);
        const needle = foldedNeedle(query.nameContains);
        const matching = oldestFirst(
          [...datasources.values()].filter(
            (source) =>
              source.datastoreId === datastoreId &&
              (query.groupId === undefined || source.groupId === query.groupId) &&
              (needle === undefined || containsFolded(source.name, needle)),
          ),
        );
        return { items: matching.slice(offset, offset + limit).map(copyDatasource), total: matching.length };
      },

      async listDatasourceIdsMatching(datastoreId, filter) {
        const ids: string[] = [];
        for (const source of datasources.values()) {
          if (source.datastoreId === datastoreId && matchesMetadata(filter, source.metadata)) ids.push(source.id);
        }
        return ids;
      },

      async updateDatasource(id, patch) {
        const record = datasources.get(id);
        if (record === undefined) return null;
        return writeDatasource(record, patch);
      },

      async deleteDatasource(id) {
        const record = datasources.get(id);
        if (record === undefined) return null;
        const state = datastoreState(record.datastoreId);
        const removedIds = [...(chunkIds.get(id) ?? [])];
        for (const chunkId of removedIds) removeChunk(chunkId);
        chunkIds.delete(id);
        datasources.delete(id);
        jobs.dropDatasource(id);
        crawls.dropDatasource(id);
        state.sequence += 1;
        return { removedIds, addedIds: [], sequence: state.sequence };
      },

      async transitionDatasource(id, expected, patch) {
        const record = datasources.get(id);
        if (record === undefined || !expected.includes(record.status)) return null;
        return writeDatasource(record, patch);
      },

      async replaceChunks(datasourceId, incoming, datasourcePatch): Promise<ChunkChange> {
        const source = datasources.get(datasourceId);
        if (source === undefined) throw notFound('datasource', datasourceId);
        const state = datastoreState(source.datastoreId);
        validateChunks(source, incoming, (id) => chunks.get(id)?.datasourceId);
        const existing = chunkIds.get(datasourceId) ?? new Set<string>();
        const nextIds = new Set(incoming.map((chunk) => chunk.id));
        const removedIds = [...existing].filter((id) => !nextIds.has(id));
        const addedIds = [...nextIds].filter((id) => !existing.has(id));
        for (const id of removedIds) removeChunk(id);
        const owned = new Set<string>();
        for (const chunk of incoming) {
          chunks.set(chunk.id, copyChunk(chunk));
          owned.add(chunk.id);
          state.text.add(chunk);
        }
        chunkIds.set(datasourceId, owned);
        if (datasourcePatch !== undefined) {
          writeDatasource(source, datasourcePatch);
        }
        state.sequence += 1;
        return { removedIds, addedIds, sequence: state.sequence };
      },

      async getChunks(ids) {
        const result: ChunkRecord[] = [];
        for (const id of ids) {
          const chunk = chunks.get(id);
          if (chunk !== undefined) result.push(copyChunk(chunk));
        }
        return result;
      },

      async listChunks(datasourceId) {
        const owned = [...(chunkIds.get(datasourceId) ?? [])].flatMap((id) => chunks.get(id) ?? []);
        return owned.sort((a, b) => a.position - b.position).map(copyChunk);
      },

      async pageChunks(datasourceId, query) {
        const { offset, limit } = pageBounds(query);
        const needle = foldedNeedle(query.textContains);
        const owned = [...(chunkIds.get(datasourceId) ?? [])].flatMap((id) => chunks.get(id) ?? []);
        const matching = owned.filter((chunk) => needle === undefined || containsFolded(chunk.text, needle));
        matching.sort((a, b) => a.position - b.position);
        return { items: matching.slice(offset, offset + limit).map(copyChunk), total: matching.length };
      },

      async *iterateChunks(datastoreId, options = {}) {
        const batchSize = Math.max(1, Math.floor(options.batchSize ?? 1000) || 1000);
        const snapshot = chunksOfDatastore(datastoreId);
        for (let start = 0; start < snapshot.length; start += batchSize) {
          open();
          yield snapshot.slice(start, start + batchSize).map(copyChunk);
        }
      },

      async countChunks(datastoreId) {
        return chunksOfDatastore(datastoreId).length;
      },

      async findVectorsByHash(datastoreId, hashes, dimensions) {
        const wanted = new Set(hashes);
        const found = new Map<string, Float32Array>();
        for (const chunk of chunksOfDatastore(datastoreId)) {
          if (!wanted.has(chunk.hash) || found.has(chunk.hash)) continue;
          if (chunk.vector.length === dimensions) found.set(chunk.hash, chunk.vector.slice());
        }
        return found;
      },

      async chunkSequence(datastoreId) {
        return datastores.get(datastoreId)?.sequence ?? 0;
      },

      async searchText(request: TextSearchRequest): Promise<ScoredId[]> {
        const state = datastores.get(request.datastoreId);
        if (state === undefined) return [];
        return state.text.search(request.query, request.topK, request.filter);
      },

      async searchTextLists(request: TextSearchRequest): Promise<TextSearchLists> {
        const state = datastores.get(request.datastoreId);
        if (state === undefined) return { words: [], stemGrams: [] };
        return state.text.searchLists(request.query, request.topK, request.filter);
      },

      async close() {
        closed = true;
      },
    },
    { before: open, translate: (error) => error },
  );
}
