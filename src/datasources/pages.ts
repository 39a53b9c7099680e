import { z } from 'zod';
import type { ChunkRecord, DatasourceRecord } from '../ports/records.js';

/** Largest page the list methods answer. */
export const MAX_PAGE_SIZE = 200;

const pageFields = {
  // Coerced: the HTTP adapter passes query string values through as they came.
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50),
};

export const datasourcePageSchema = z.strictObject({
  ...pageFields,
  name: z.string().max(200).optional(),
  /** `none`: top-level datasources only; an id: the pages of that site. */
  groupId: z.string().min(1).max(200).optional(),
});
export const chunkPageSchema = z.strictObject({ ...pageFields, q: z.string().max(500).optional() });

export type DatasourcePageInput = z.input<typeof datasourcePageSchema>;
export type ChunkPageInput = z.input<typeof chunkPageSchema>;

export interface DatasourcePage {
  datasources: DatasourceRecord[];
  /** How many datasources match (all pages). */
  total: number;
  offset: number;
  limit: number;
}

/** A chunk as a reader sees it: no vector, no hash. */
export interface ChunkView {
  id: string;
  position: number;
  text: string;
  tokenCount: number;
  pageNumber: number | null;
  customId: string | null;
}

export interface ChunkPage {
  chunks: ChunkView[];
  /** How many chunks match (all pages). */
  total: number;
  offset: number;
  limit: number;
}

export function pageOf(parsed: { offset: number; limit: number }): { offset: number; limit: number } {
  return { offset: parsed.offset, limit: parsed.limit };
}

export function chunkView(chunk: ChunkRecord): ChunkView {
  return {
    id: chunk.id,
    position: chunk.position,
    text: chunk.text,
    tokenCount: chunk.tokenCount,
    pageNumber: chunk.pageNumber,
    customId: chunk.customId,
  };
}
