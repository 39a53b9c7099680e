import type { ChunkHit, DatasourceRef, Metadata } from '../ports/records.js';
import { publicDatasourceId } from './document-ids.js';

/**
 * The API's "Document fragment" (`text`, `score`, `source`, `datasource_id`, `datasource_name`) plus the
 * richer fields citations need.
 */
export interface DocumentFragment {
  text: string;
  /**
   * Similarity of the fragment to the query on a 0..1 scale that means the same in every mode: the
   * cosine similarity of their embeddings (clamped at 0). The order is the retrieval's (fused in
   * hybrid mode), not necessarily by this value.
   */
  score: number;
  /** Cosine similarity as the vector search returned it; null when the vector side did not find the fragment. */
  vector_score: number | null;
  /** bm25 of the lexical search; null when it did not find the fragment (or did not run: vector mode). */
  lexical_score: number | null;
  /** Fused value (weighted sum of min-max scaled scores) that ordered hybrid results; null in vector and lexical modes. */
  fusion_score: number | null;
  /** The reranker's relevance when the query asked for `rerank` (then the order is by it); absent otherwise. */
  rerank_score?: number;
  /** Source URL or name of the document the fragment comes from. */
  source: string;
  datasource_id: string;
  datasource_name: string;
  custom_id: string | null;
  chunk_id: string;
  page_number: number | null;
  metadata: Metadata;
}

export interface FragmentScores {
  score: number;
  vector_score: number | null;
  lexical_score: number | null;
  fusion_score: number | null;
}

export function toFragment(chunk: ChunkHit, datasource: DatasourceRef | undefined, scores: FragmentScores): DocumentFragment {
  const metadata: Metadata = { ...(datasource?.metadata ?? {}), ...chunk.metadata };
  return {
    text: chunk.text,
    ...scores,
    source: sourceOf(datasource, metadata),
    datasource_id: chunk.datasourceId,
    datasource_name: datasource?.name ?? '',
    custom_id: chunk.customId,
    chunk_id: chunk.id,
    page_number: chunk.pageNumber,
    metadata,
  };
}

function sourceOf(datasource: DatasourceRef | undefined, metadata: Metadata): string {
  if (typeof metadata.source === 'string' && metadata.source) return metadata.source;
  const url = datasource?.config.source_url;
  if (typeof url === 'string' && url) return url;
  return datasource?.name ?? '';
}

/**
 * Fragments as callers see them: `datasource_id` is the id the caller chose for a document. Inside
 * retrieval it stays the stored id, which is what the store and the index are keyed by.
 */
export function publicFragments(fragments: readonly DocumentFragment[]): DocumentFragment[] {
  return fragments.map((fragment) => ({ ...fragment, datasource_id: publicDatasourceId(fragment.datasource_id) }));
}
