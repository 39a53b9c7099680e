import { createHash } from 'node:crypto';
import { chunkSectionsYielding } from '../ingest/chunker.js';
import { cleanTextYielding } from '../ingest/text-clean.js';
import { TimeSlices } from '../util/time-slices.js';
import type { RagdeskContext } from '../context.js';
import type { LoadedSection } from '../ports/loader.js';
import type { ChunkRecord, DatasourceRecord, DatastoreRecord } from '../ports/records.js';
import type { DatasourcePatch } from '../ports/store.js';
import { nowIso } from '../util/ids.js';
import { assertTokenBudget, documentLimits, documentTooLarge } from '../datasources/usage-limits.js';
import { chunkRecords } from './chunk-records.js';
import { embedChunks } from './embed-chunks.js';
import { nextTurn } from '../util/next-turn.js';

/** One document to make searchable: a new datasource, or new text for an existing one. */
export interface DocumentWrite {
  datasource: DatasourceRecord;
  /** True when the datasource record does not exist yet. */
  isNew: boolean;
  /** Plain text, or sections that keep page numbers and labels (sheet, slide title). */
  content: string | readonly LoadedSection[];
  /** Extra fields (name, metadata) applied in the same atomic step as the chunks. */
  patch?: DatasourcePatch;
}

interface PreparedWrite {
  write: DocumentWrite;
  chunks: Omit<ChunkRecord, 'vector'>[];
  contentHash: string;
  textSize: number;
  tokens: number;
}

/** Synchronous work between two yields while a document is cleaned, hashed and chunked. */
const PREPARE_SLICE_MS = 8;

/**
 * Chunks, embeds (reusing vectors by chunk hash) and stores documents, then mirrors the change into
 * the vector index. Everything that can fail on input or upstream happens before the first write,
 * so a failed embedding call leaves the store untouched.
 */
export async function writeDocuments(context: RagdeskContext, datastore: DatastoreRecord, writes: readonly DocumentWrite[]): Promise<void> {
  const prepared: PreparedWrite[] = [];
  for (const write of writes) {
    // Chunking is tokenizer work (20-50 ms for 50 KB): it starts on a turn of its own, not appended
    // to whatever the caller did just before, and hands the loop back every few milliseconds.
    await nextTurn();
    prepared.push(await prepare(context, write));
  }
  // The embedder's first slice would otherwise run in the same turn as the last chunking.
  await nextTurn();
  await assertTokenBudget(
    context,
    datastore.id,
    new Set(writes.map((write) => write.datasource.id)),
    prepared.reduce((sum, item) => sum + item.tokens, 0),
  );
  const textsByHash = new Map<string, string>();
  for (const item of prepared) for (const chunk of item.chunks) textsByHash.set(chunk.hash, chunk.text);
  const { vectors } = await embedChunks(context.retrieval, context.embeddings, datastore.id, textsByHash);

  await context.ensureIndex(datastore);
  await context.writes.run(datastore.id, async () => {
    for (let next = 0; next < prepared.length;) {
      const group = newDocumentGroup(context, prepared, next);
      if (group.length > 1) await commitNew(context, datastore, group, vectors);
      else await commit(context, datastore, prepared[next] as PreparedWrite, vectors);
      next += Math.max(1, group.length);
    }
  });
}

/**
 * New documents committed together (`RetrievalStore.createDocuments`): one store transaction and one index
 * call for many small documents instead of two transactions, an index call and three event-loop
 * turns each. Bounded so one synchronous transaction stays a short stall (~0.2 ms of SQLite work
 * per one-chunk document here).
 */
const GROUP_DOCUMENTS = 64;
const GROUP_CHUNKS = 256;

/** The run of new documents starting at `start` that fits one group (empty when the store cannot). */
function newDocumentGroup(context: RagdeskContext, prepared: readonly PreparedWrite[], start: number): PreparedWrite[] {
  if (context.retrieval.createDocuments === undefined) return [];
  const group: PreparedWrite[] = [];
  let chunks = 0;
  for (let i = start; i < prepared.length && group.length < GROUP_DOCUMENTS; i++) {
    const item = prepared[i] as PreparedWrite;
    if (!item.write.isNew || (group.length > 0 && chunks + item.chunks.length > GROUP_CHUNKS)) break;
    group.push(item);
    chunks += item.chunks.length;
  }
  return group;
}

/** What `replaceChunks` records on a document once its chunks are stored. */
function syncedPatch(item: PreparedWrite, chunkCount: number, now: string): DatasourcePatch {
  return {
    ...item.write.patch,
    status: 'synched',
    error: null,
    contentHash: item.contentHash,
    nbChunks: chunkCount,
    nbTokens: item.tokens,
    textSize: item.textSize,
    lastSynch: now,
    updatedAt: now,
  };
}

function withVectors(item: PreparedWrite, vectors: ReadonlyMap<string, Float32Array>): ChunkRecord[] {
  return item.chunks.map((chunk) => ({ ...chunk, vector: vectors.get(chunk.hash) as Float32Array }));
}

function indexEntries(records: readonly ChunkRecord[], added: ReadonlySet<string>) {
  return records
    .filter((record) => added.has(record.id))
    .map((record) => ({ id: record.id, vector: record.vector, datasourceId: record.datasourceId, customId: record.customId }));
}

/**
 * A group of new documents in one store step, then one index upsert. When the step fails nothing
 * was written, and the documents go one by one instead: the error then comes from the document
 * that causes it, with the ones before it stored, exactly as without grouping.
 */
async function commitNew(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  group: readonly PreparedWrite[],
  vectors: ReadonlyMap<string, Float32Array>,
): Promise<void> {
  const createDocuments = context.retrieval.createDocuments?.bind(context.retrieval);
  if (createDocuments === undefined) throw new Error('the store cannot create documents together');
  const now = nowIso();
  const records = group.map((item) => withVectors(item, vectors));
  await nextTurn();
  let change: Awaited<ReturnType<typeof createDocuments>>;
  try {
    change = await createDocuments(
      group.map((item, i) => ({
        datasource: { ...item.write.datasource, status: 'running', updatedAt: now },
        chunks: records[i] as ChunkRecord[],
        patch: syncedPatch(item, (records[i] as ChunkRecord[]).length, now),
      })),
    );
  } catch {
    for (const item of group) await commit(context, datastore, item, vectors);
    return;
  }
  await nextTurn();
  const added = new Set(change.addedIds);
  await context.index.upsert(
    datastore.id,
    records.flatMap((chunks) => indexEntries(chunks, added)),
    change.sequence,
  );
}

async function prepare(context: RagdeskContext, write: DocumentWrite): Promise<PreparedWrite> {
  const { maxChars, maxChunks } = documentLimits(context.usage);
  const raw: readonly LoadedSection[] = typeof write.content === 'string' ? [{ text: write.content }] : write.content;
  // Refused on the extracted length, before any copy of the text is made.
  let extracted = 0;
  for (const section of raw) extracted += typeof section?.text === 'string' ? section.text.length : 0;
  if (extracted > maxChars) {
    throw documentTooLarge(
      `the document has ${extracted} characters of text, more than the limit of ${maxChars} (usage.maxExtractedChars)`,
      { reason: 'too_much_text', characters: extracted, limit: maxChars },
    );
  }
  // A table comes as thousands of small sections: cleaning and hashing them one after another
  // was one 0.5 s turn for 20 M characters, so both pause by time, not by section.
  const slices = new TimeSlices(PREPARE_SLICE_MS);
  const sections: LoadedSection[] = [];
  for (const section of raw) {
    const text = await cleanTextYielding(section.text, () => slices.pause());
    if (text) sections.push(typeof write.content === 'string' ? { text } : { ...section, text });
    await slices.pause();
  }
  // The hash of the sections joined with blank lines, without building the joined copy.
  const hash = createHash('sha256');
  let textSize = 0;
  for (const [index, section] of sections.entries()) {
    if (index > 0) hash.update('\n\n');
    hash.update(section.text);
    textSize += (index > 0 ? 2 : 0) + section.text.length;
    await slices.pause();
  }
  const pieces = await chunkSectionsYielding(sections, context.chunking, PREPARE_SLICE_MS, {
    maxChunks,
    exceeded: () =>
      documentTooLarge(`the document makes more than ${maxChunks} chunks, the limit (usage.maxChunksPerDatasource)`, {
        reason: 'too_many_chunks',
        limit: maxChunks,
      }),
  });
  const chunks = await chunkRecords(write.datasource, pieces, () => slices.pause());
  const tokens = chunks.reduce((sum, chunk) => sum + chunk.tokenCount, 0);
  return { write, chunks, contentHash: hash.digest('hex'), textSize, tokens };
}

async function commit(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  item: PreparedWrite,
  vectors: ReadonlyMap<string, Float32Array>,
): Promise<void> {
  const { retrieval: store, index } = context;
  const { datasource, isNew, patch } = item.write;
  const now = nowIso();
  if (!isNew && !patch && datasource.contentHash === item.contentHash && datasource.nbChunks === item.chunks.length) {
    // Same text as the last sync: nothing to chunk, embed or index again.
    await store.updateDatasource(datasource.id, { status: 'synched', error: null, lastSynch: now, updatedAt: now });
    return;
  }
  if (isNew) await store.createDatasource({ ...datasource, status: 'running', updatedAt: now });
  await nextTurn();
  const records = withVectors(item, vectors);
  const change = await store.replaceChunks(datasource.id, records, syncedPatch(item, records.length, now)).catch(async (error: unknown) => {
    // A new document whose chunks could not be stored must not stay `running` with no chunks:
    // nobody holds its id yet, and nothing would ever finish it. Best effort; a crash here is
    // what `settleInterrupted` handles at the next start.
    if (isNew) {
      const removed = await store.deleteDatasource(datasource.id).catch(() => null);
      if (removed) await index.remove(datastore.id, [], removed.sequence).catch(() => undefined);
    }
    throw error;
  });
  await nextTurn();
  if (change.removedIds.length > 0) await index.remove(datastore.id, change.removedIds, change.sequence);
  const entries = indexEntries(records, new Set(change.addedIds));
  if (entries.length > 0 || change.removedIds.length === 0) {
    await index.upsert(datastore.id, entries, change.sequence);
  }
}
