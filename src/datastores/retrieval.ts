import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import { matchesMetadata } from '../filters/metadata-filter.js';
import type { ChunkHit, DatasourceRef, DatastoreRecord, MetadataFilter, RetrievalFilter, ScoredId } from '../ports/records.js';
import { readDatasourceRefs } from './datasource-refs.js';
import { candidateIds } from './document-ids.js';
import type { FiltersInput } from '../validation.js';
import { assertDimensions } from './embed-chunks.js';
import { toFragment, type DocumentFragment } from './fragment.js';
import { assertCanRerank, rerankFragments, type RerankInput, type RerankReport } from './rerank.js';
import { fuseByScore } from './score-fusion.js';
import type { RetrievalMode } from './schemas.js';
import { similarityTo } from '../util/cosine.js';
import { nextTurn } from '../util/next-turn.js';

/** Candidates each retriever contributes to the fusion; deeper lists barely change the top 10. */
const FUSION_POOL = 50;
/**
 * Weight of the third list of a hybrid query, bm25 over the 4-grams of the stems (stores with
 * `searchTextLists`), beside the words list's 1: chosen in every fold of a 5-fold cross-validation
 * on SciFact train (docs/decisions/022-scoring-past-bm25.md).
 */
const STEM_GRAM_WEIGHT = 0.2;

/**
 * Hybrid fusion is score-based (see score-fusion.ts), not rank-based: 5-fold cross-validation on
 * SciFact train (bench:fusion) put it first in every fold, and at the embedder's own weight it never
 * fell more than 0.004 nDCG@10 below bm25 alone on a held-out fold, where reciprocal-rank fusion at
 * the same weight lost 0.009-0.022 on every fold (docs/decisions/003-hybrid-score-fusion.md).
 */

export interface RetrievalRequest {
  query: string;
  topK: number;
  filters?: FiltersInput;
  mode: RetrievalMode;
  /** Order the best `topN` candidates with the instance's reranker, then keep `topK`. */
  rerank?: RerankInput | undefined;
}

/** Filled in by a query for its caller: what reranking did (absent when it did not run). */
export interface QueryDetails {
  rerank?: RerankReport;
}

export async function retrieve(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  request: RetrievalRequest,
  details?: QueryDetails,
): Promise<DocumentFragment[]> {
  const { rerank } = request;
  if (rerank) {
    assertCanRerank(context);
    const candidates = await retrieve(context, datastore, { ...request, topK: Math.max(request.topK, rerank.topN), rerank: undefined });
    const reranked = await rerankFragments(context, request.query, candidates.slice(0, rerank.topN), request.topK, context.closeSignal);
    if (details) details.rerank = reranked.report;
    return reranked.fragments;
  }
  const expanded = await expandFilter(context, datastore, request.filters);
  if (expanded === 'none') return [];
  const filter = expanded;
  const pool = request.mode === 'hybrid' ? Math.max(request.topK, FUSION_POOL) : request.topK;
  const dispatch = signal();
  const vectorSearching =
    request.mode === 'lexical'
      ? queryVectorIfComparable(context, datastore, request.query)
      : vectorSearch(context, datastore, request.query, pool, filter, dispatch.resolve);
  const textRequest = { datastoreId: datastore.id, query: request.query, topK: pool, filter };
  const { retrieval: store } = context;
  const searchText = async (): Promise<TextLists> => ({ words: await store.searchText(textRequest), stemGrams: [] });
  // Hybrid queries fuse the 4-gram list too when the store has it.
  const lists = store.searchTextLists?.bind(store);
  const searchLists = lists ? () => lists(textRequest) : searchText;
  const [vectorSide, textLists] = await Promise.all([
    vectorSearching,
    request.mode === 'vector'
      ? { words: [], stemGrams: [] }
      : request.mode === 'hybrid'
        ? afterDispatch(dispatch.promise, vectorSearching, searchLists)
        : searchText(),
  ]);
  const vectorHits = vectorSide?.hits ?? [];
  const textHits = textLists.words;
  const ranked =
    request.mode === 'hybrid'
      ? fuseByScore([
          { hits: vectorHits, weight: context.embeddings.fusionWeight ?? 1 },
          { hits: textHits, weight: 1 },
          { hits: textLists.stemGrams, weight: STEM_GRAM_WEIGHT },
        ])
      : request.mode === 'vector'
        ? vectorHits
        : textHits;
  const raw: RawScores = {
    vector: new Map(vectorHits.map((hit) => [hit.id, hit.score])),
    lexical: request.mode === 'vector' ? null : new Map(textHits.map((hit) => [hit.id, hit.score])),
    fusion: request.mode === 'hybrid' ? new Map(ranked.map((hit) => [hit.id, hit.score])) : null,
    queryVector: vectorSide?.vector ?? null,
  };
  return hydrate(context, datastore, ranked.slice(0, request.topK), raw);
}

/** A query's lexical lists: the words, and the 4-grams of the stems (empty when not searched). */
interface TextLists {
  words: ScoredId[];
  stemGrams: ScoredId[];
}

/** What each retriever said about the hits, reported beside the one comparable `score`. */
interface RawScores {
  vector: ReadonlyMap<string, number>;
  lexical: ReadonlyMap<string, number> | null;
  fusion: ReadonlyMap<string, number> | null;
  /** For the similarity of hits the vector side did not return (null: the embedder does not match the datastore). */
  queryVector: Float32Array | null;
}

/** Whether the instance's embedder made the datastore's vectors (else queries can only be lexical). */
export function embeddingMatches(context: RagdeskContext, datastore: DatastoreRecord): boolean {
  return datastore.embeddingModel === context.embeddings.model && datastore.embeddingDimensions === context.embeddings.dimensions;
}

export function assertEmbeddingMatches(context: RagdeskContext, datastore: DatastoreRecord): void {
  const { embeddings } = context;
  if (!embeddingMatches(context, datastore)) {
    throw new RagdeskError(
      'embedding_mismatch',
      `Datastore ${datastore.id} was embedded with ${datastore.embeddingModel} (${datastore.embeddingDimensions} dimensions) ` +
        `but this instance embeds with ${embeddings.model} (${embeddings.dimensions}); call datastore.reindex() to re-embed it`,
      {
        details: {
          datastoreModel: datastore.embeddingModel,
          datastoreDimensions: datastore.embeddingDimensions,
          embedderModel: embeddings.model,
          embedderDimensions: embeddings.dimensions,
        },
      },
    );
  }
}

/** `dispatched` is called once the query is handed to the index. */
async function vectorSearch(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  query: string,
  topK: number,
  filter: RetrievalFilter | undefined,
  dispatched: () => void = () => undefined,
): Promise<{ hits: ScoredId[]; vector: Float32Array }> {
  assertEmbeddingMatches(context, datastore);
  const [vector] = await Promise.all([embedQuery(context, query), context.ensureIndex(datastore)]);
  const hits = context.index.query(datastore.id, { vector, topK, filter });
  dispatched();
  return { hits: await hits, vector };
}

/**
 * The lexical half of a hybrid query starts once the vector half is handed to the index, or on the
 * next turn of the event loop if that takes longer (an embedder across the network). The bm25
 * search is synchronous work on this thread: started first, it ran before the query embedding's
 * continuation could send the vector search to the HNSW graph thread, so the two halves ran one
 * after the other (hybrid p50 = vector + lexical: 1M chunks 5.1 ms = 1.7 + 2.7 + rest). Started
 * after, the graph searches while this thread scores bm25.
 */
async function afterDispatch<T>(dispatched: Promise<void>, vectorSearching: Promise<unknown>, run: () => Promise<T>): Promise<T> {
  // A vector half that fails before it is sent must not hold the lexical half (its error wins anyway).
  await Promise.race([
    dispatched,
    nextTurn(),
    vectorSearching.then(
      () => undefined,
      () => undefined,
    ),
  ]);
  return run();
}

function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

async function embedQuery(context: RagdeskContext, query: string): Promise<Float32Array> {
  const { vectors } = await context.embeddings.embed([query], { purpose: 'query' });
  const vector = vectors[0];
  if (!vector) throw new RagdeskError('upstream_failed', `Embedder ${context.embeddings.model} returned no vector`);
  assertDimensions(vector, context.embeddings);
  return vector;
}

/**
 * Lexical mode still reports the similarity `score`, so a threshold means the same in every mode;
 * that needs the query's embedding, when the datastore's vectors are comparable with it.
 */
async function queryVectorIfComparable(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  query: string,
): Promise<{ hits: ScoredId[]; vector: Float32Array } | null> {
  if (!embeddingMatches(context, datastore)) return null;
  return { hits: [], vector: await embedQuery(context, query) };
}

/**
 * The store-level filter of a query, or `'none'` when nothing can match (an empty list means "no
 * restriction" to the ports, so an empty result must never reach them as one). A datasource id in
 * a filter names the datastore owner's document with that id or a datasource stored under the id
 * itself (both are kept: the search reads this datastore only, so a bare id of another owner
 * matches nothing), and also selects the datasources grouped under it (a site's pages; groups have
 * generated ids, so children are looked up by the id itself). A metadata filter becomes the set of
 * datasources whose metadata passes it, so both halves filter while they search: bm25 while
 * scoring, HNSW in its filtered walk or exact scan (by that set's chunk count).
 */
async function expandFilter(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  filters: FiltersInput | undefined,
): Promise<RetrievalFilter | undefined | 'none'> {
  if (!filters) return undefined;
  const filter: RetrievalFilter = {};
  if (filters.custom_ids?.length) filter.customIds = filters.custom_ids;
  let sources: Set<string> | undefined;
  if (filters.datasource_ids?.length) {
    sources = new Set(filters.datasource_ids.flatMap((id) => candidateIds(datastore.ownerId, id)));
    for (const id of filters.datasource_ids) {
      for (const child of await context.retrieval.listDatasources(datastore.id, { groupId: id })) sources.add(child.id);
    }
  }
  if (filters.metadata) {
    const matching = await datasourcesMatching(context, datastore.id, filters.metadata);
    sources = sources === undefined ? new Set(matching) : new Set(matching.filter((id) => sources!.has(id)));
    if (sources.size === 0) return 'none';
  }
  if (sources !== undefined) filter.datasourceIds = [...sources];
  return filter.customIds || filter.datasourceIds ? filter : undefined;
}

async function datasourcesMatching(context: RagdeskContext, datastoreId: string, filter: MetadataFilter): Promise<string[]> {
  const { retrieval: store } = context;
  if (store.listDatasourceIdsMatching) return store.listDatasourceIdsMatching(datastoreId, filter);
  const datasources = await store.listDatasources(datastoreId);
  return datasources.filter((datasource) => matchesMetadata(filter, datasource.metadata)).map((datasource) => datasource.id);
}

async function hydrate(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  hits: readonly ScoredId[],
  raw: RawScores,
): Promise<DocumentFragment[]> {
  if (hits.length === 0) return [];
  // Hits lacking the vector side's similarity (lexical-only hits) are scored by the index from the
  // vectors it holds, else from the stored vectors, which are read for those hits only.
  const unscored = raw.queryVector === null ? [] : hits.filter((hit) => !raw.vector.has(hit.id)).map((hit) => hit.id);
  const indexed =
    raw.queryVector === null ? new Map<string, number>() : await indexSimilarities(context, datastore.id, raw.queryVector, unscored);
  const missing = indexed.size === 0 ? unscored : unscored.filter((id) => !indexed.has(id));
  const { chunks, datasources, vectors } = await readHits(
    context,
    datastore.id,
    hits.map((hit) => hit.id),
    missing,
  );
  const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
  const similarTo = raw.queryVector === null ? null : similarityTo(raw.queryVector);
  const storedSimilarity = (stored: Float32Array | undefined) => (similarTo && stored?.length ? similarTo(stored) : 0);
  const fragments: DocumentFragment[] = [];
  for (const hit of hits) {
    // A hit the store no longer has was deleted after the index answered: skip it, never invent it.
    const chunk = byId.get(hit.id);
    if (!chunk) continue;
    const vectorScore = raw.vector.get(hit.id) ?? null;
    const similarity = vectorScore ?? indexed.get(hit.id) ?? storedSimilarity(vectors.get(hit.id));
    fragments.push(
      toFragment(chunk, datasources.get(chunk.datasourceId), {
        score: toUnitScale(similarity),
        vector_score: vectorScore,
        lexical_score: raw.lexical ? (raw.lexical.get(hit.id) ?? null) : null,
        fusion_score: raw.fusion ? (raw.fusion.get(hit.id) ?? null) : null,
      }),
    );
  }
  return fragments;
}

/**
 * The similarity of these hits to the query, from the vectors the index holds (one native call on
 * the HNSW index: reading a lexical top 100's vectors from SQLite and comparing them here was a
 * quarter of such a query's CPU). Hits it cannot answer for are left out and scored from the
 * stored vectors.
 */
async function indexSimilarities(
  context: RagdeskContext,
  datastoreId: string,
  vector: Float32Array,
  ids: readonly string[],
): Promise<ReadonlyMap<string, number>> {
  const { index } = context;
  if (ids.length === 0 || !index.similarities) return new Map();
  // A throw is a real failure (a closed index, a failed graph): it fails the query like any other read.
  const scored = await index.similarities(datastoreId, vector, ids);
  return new Map(scored.map((hit) => [hit.id, hit.score]));
}

/**
 * The hits' chunks, their datasources, and the stored vectors of `vectorIds` (the hits the vector
 * side did not score). With the store's joined read, the vectors come apart and only for those
 * hits: a hybrid top 100 used to read all hundred 4 KB vectors as soon as one hit lacked a score,
 * then the datasources in a second statement (on SciFact that read took 1.07 ms of CPU, 0.81 now).
 */
async function readHits(
  context: RagdeskContext,
  datastoreId: string,
  ids: readonly string[],
  vectorIds: readonly string[],
): Promise<{ chunks: ChunkHit[]; datasources: ReadonlyMap<string, DatasourceRef>; vectors: ReadonlyMap<string, Float32Array> }> {
  const { retrieval: store } = context;
  if (store.getChunkHits && (vectorIds.length === 0 || store.getChunkVectors)) {
    const [hits, vectors] = await Promise.all([
      store.getChunkHits(ids),
      vectorIds.length > 0 && store.getChunkVectors ? store.getChunkVectors(datastoreId, vectorIds) : [],
    ]);
    return {
      chunks: hits.chunks,
      datasources: new Map(hits.datasources.map((ref) => [ref.id, ref])),
      vectors: new Map(vectors.map((entry) => [entry.id, entry.vector])),
    };
  }
  const chunks = await store.getChunks(ids, { vectors: vectorIds.length > 0 });
  // One round trip for all the hits' datasources (one per hit cost 0.17 ms for ten at 10k chunks).
  const datasources = await readDatasourceRefs(
    store,
    chunks.map((chunk) => chunk.datasourceId),
  );
  const wanted = new Set(vectorIds);
  const vectors = new Map(chunks.filter((chunk) => wanted.has(chunk.id)).map((chunk) => [chunk.id, chunk.vector]));
  return { chunks, datasources, vectors };
}

/** The reported `score`: the query-chunk cosine similarity, clamped to 0..1 (negative similarity means unrelated). */
function toUnitScale(similarity: number): number {
  return Math.min(1, Math.max(0, similarity));
}
