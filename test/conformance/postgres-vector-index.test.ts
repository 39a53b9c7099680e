/**
 * The VectorIndex conformance suite against the pgvector index, over the wire (PGlite + pgvector).
 *
 * The pgvector index searches the vectors the Postgres store keeps (nothing is copied), so the
 * suite's index calls go through a harness that does what the core does: it writes the change to
 * the store (`replaceChunks`) and then calls the index. The suite's persistence part is left out
 * (no `reopen`): it expects an index with state of its own that can fall behind the store, which
 * this one cannot; test/adapters/postgres/datastore.test.ts checks what holds instead.
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { postgres } from '../../adapters/postgres/index.js';
import type { ChunkRecord, ScoredId } from '../../src/ports/records.js';
import type { RetrievalStore } from '../../src/ports/store.js';
import type { IndexCollection, IndexEntry, IndexQuery, IndexSource, OpenResult, VectorIndex } from '../../src/ports/vector-index.js';
import { describeVectorIndexConformance } from '../../src/testing/vector-index-conformance.js';
import { freshSchema, startPgliteServer, type PgliteServer } from '../helpers/pglite-server.js';

const EPOCH = '2025-01-01T00:00:00.000Z';

/** A chunk row carrying an index entry (the text only has to be valid). */
function chunkOf(datastoreId: string, datasourceId: string, entry: IndexEntry, position: number): ChunkRecord {
  return {
    id: entry.id,
    datastoreId,
    datasourceId,
    customId: entry.customId,
    position,
    text: `entry ${entry.id}`,
    tokenCount: 2,
    charOffset: 0,
    hash: entry.id,
    pageNumber: null,
    metadata: {},
    vector: entry.vector,
  };
}

/** One store datasource: the entries of one suite datasource written by one call. */
interface Doc {
  datastoreId: string;
  suiteSource: string;
  entries: Map<string, IndexEntry>;
}

/**
 * A VectorIndex whose writes reach the Postgres store first, as `writeDocuments` does in the core
 * (`replaceChunks`, then the index call). Each write becomes a new store datasource ("document")
 * per suite datasource, so a write costs its own rows, as a document sync does; an entry written
 * again or removed leaves its old document through `replaceChunks` of that document.
 */
class StoreMirroredIndex implements VectorIndex {
  readonly name: string;
  readonly specificationVersion = 'v1';
  private readonly docs = new Map<string, Doc>();
  /** chunk id -> document, per datastore */
  private readonly homes = new Map<string, Map<string, string>>();
  private written = 0;

  constructor(
    readonly store: RetrievalStore,
    readonly index: VectorIndex,
  ) {
    this.name = index.name;
  }

  private homesOf(datastoreId: string): Map<string, string> {
    let map = this.homes.get(datastoreId);
    if (map === undefined) {
      map = new Map();
      this.homes.set(datastoreId, map);
    }
    return map;
  }

  private async rewrite(docId: string): Promise<void> {
    const doc = this.docs.get(docId) as Doc;
    const chunks = [...doc.entries.values()].map((entry, i) => chunkOf(doc.datastoreId, docId, entry, i));
    await this.store.replaceChunks(docId, chunks);
  }

  /** Takes ids out of their documents (rewriting those) and forgets them. */
  private async take(datastoreId: string, ids: Iterable<string>): Promise<void> {
    const homes = this.homesOf(datastoreId);
    const touched = new Set<string>();
    for (const id of ids) {
      const docId = homes.get(id);
      if (docId === undefined) continue;
      this.docs.get(docId)?.entries.delete(id);
      homes.delete(id);
      touched.add(docId);
    }
    for (const docId of touched) await this.rewrite(docId);
  }

  /** Stores entries as new documents, one per suite datasource. */
  private async add(datastoreId: string, entries: readonly IndexEntry[]): Promise<void> {
    const bySource = new Map<string, IndexEntry[]>();
    for (const entry of entries) bySource.set(entry.datasourceId, [...(bySource.get(entry.datasourceId) ?? []), entry]);
    for (const [suiteSource, group] of bySource) {
      this.written += 1;
      const docId = `${datastoreId}/${suiteSource}/${this.written}`;
      this.docs.set(docId, { datastoreId, suiteSource, entries: new Map(group.map((entry) => [entry.id, entry])) });
      for (const entry of group) this.homesOf(datastoreId).set(entry.id, docId);
      await this.store.createDatasource({
        id: docId,
        datastoreId,
        type: 'text',
        name: docId,
        status: 'synched',
        groupId: null,
        customId: null,
        config: {},
        metadata: {},
        error: null,
        contentHash: null,
        nbChunks: 0,
        nbTokens: 0,
        textSize: 0,
        createdAt: EPOCH,
        updatedAt: EPOCH,
        lastSynch: null,
      });
      await this.rewrite(docId);
    }
  }

  async open(collection: IndexCollection, source: IndexSource): Promise<OpenResult> {
    const { datastoreId } = collection;
    if ((await this.store.getDatastore(datastoreId)) === null) {
      await this.store.createDatastore({
        id: datastoreId,
        ownerId: null,
        name: datastoreId,
        description: '',
        embeddingModel: collection.model,
        embeddingDimensions: collection.dimensions,
        createdAt: EPOCH,
        updatedAt: EPOCH,
      });
    }
    // The store is the source of truth: make it hold what the suite's source holds.
    for (const [docId, doc] of [...this.docs]) {
      if (doc.datastoreId !== datastoreId) continue;
      await this.store.deleteDatasource(docId);
      this.docs.delete(docId);
    }
    this.homes.delete(datastoreId);
    const entries: IndexEntry[] = [];
    for await (const batch of source.entries()) entries.push(...batch);
    await this.add(datastoreId, entries);
    return this.index.open(collection, source);
  }

  async upsert(datastoreId: string, entries: readonly IndexEntry[], sequence: number): Promise<void> {
    if ((await this.store.getDatastore(datastoreId)) !== null) {
      await this.take(
        datastoreId,
        entries.map((entry) => entry.id),
      );
      await this.add(datastoreId, entries);
    }
    await this.index.upsert(datastoreId, entries, sequence);
  }

  async remove(datastoreId: string, ids: readonly string[], sequence: number): Promise<void> {
    if ((await this.store.getDatastore(datastoreId)) !== null) await this.take(datastoreId, ids);
    await this.index.remove(datastoreId, ids, sequence);
  }

  /** Suite datasource ids become the ids of their documents (plus one that never exists, so the list stays non-empty). */
  query(datastoreId: string, query: IndexQuery): Promise<ScoredId[]> {
    const sources = query.filter?.datasourceIds;
    if (sources === undefined || sources.length === 0) return this.index.query(datastoreId, query);
    const docIds = [...this.docs]
      .filter(([, doc]) => doc.datastoreId === datastoreId && sources.includes(doc.suiteSource))
      .map(([id]) => id);
    return this.index.query(datastoreId, { ...query, filter: { ...query.filter, datasourceIds: [...docIds, `${datastoreId}/none`] } });
  }

  count(datastoreId: string): Promise<number> {
    return this.index.count(datastoreId);
  }

  flush(datastoreId?: string): Promise<void> {
    return this.index.flush(datastoreId);
  }

  drop(datastoreId: string): Promise<void> {
    return this.index.drop(datastoreId);
  }

  async close(): Promise<void> {
    await this.index.close();
    await this.store.close();
  }
}

let pglite: PgliteServer | undefined;
let schema = '';
beforeAll(async () => {
  pglite = await startPgliteServer();
});
afterAll(async () => {
  await pglite?.close();
});

describeVectorIndexConformance('pgvector (PGlite over the wire, through the Postgres store)', {
  async create() {
    schema = freshSchema('vectors');
    const { retrieval, accounts, index } = await postgres({ pool: pglite!.pool, schema });
    await accounts.close();
    return new StoreMirroredIndex(retrieval, index);
  },
  async cleanup() {
    await pglite!.pool.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  },
});
