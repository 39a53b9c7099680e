import type { ChunkRecord, DatasourceRef, Metadata } from '../ports/records.js';

/**
 * The API's "Document fragment" (`text`, `score`, `source`, `datasource_id`, `datasource_name`) plus the
 * richer fields citations need.
 */
export interface DocumentFragment {
  text: string;
  /** Hybrid: reciprocal-rank-fusion score; vector: cosine similarity; lexical: bm25. Higher is better. */
  score: number;
  /** Source URL or name of the document the fragment comes from. */
  source: string;
  datasource_id: string;
  datasource_name: string;
  custom_id: string | null;
  chunk_id: string;
  page_number: number | null;
  metadata: Metadata;
}

export function toFragment(chunk: ChunkRecord, datasource: DatasourceRef | undefined, score: number): DocumentFragment {
  const metadata: Metadata = { ...(datasource?.metadata ?? {}), ...chunk.metadata };
  return {
    text: chunk.text,
    score,
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
