import { z } from 'zod';
import { filtersSchema, idSchema, metadataSchema, nonBlankString } from '../validation.js';
import { rerankSchema } from './rerank.js';

export const MAX_TOP_K = 1000;
export const DEFAULT_TOP_K = 5;

/**
 * The reference service's datastore `type` and `visibility` mean nothing here, and are refused by
 * name rather than dropped: the vector store is the instance's index adapter (HNSW files,
 * pgvector), not a per-datastore choice; and a datastore is only ever read with its owner's key (a
 * public agent is how anyone may ask it), so only `"private"`, which every datastore is, is taken.
 */
const referenceOnlyFields = {
  type: z.never({ error: "the vector store is the server's index adapter, not chosen per datastore: leave type out" }).optional(),
  visibility: z
    .literal('private', {
      error: 'datastores are read only with their owner\'s key (make a public agent instead): leave visibility out, or "private"',
    })
    .optional(),
};

export const datastoreCreateSchema = z.object({
  name: nonBlankString.pipe(z.string().max(200)),
  description: z.string().max(10_000).optional(),
  ...referenceOnlyFields,
});

export const datastoreUpdateSchema = z.object({
  name: nonBlankString.pipe(z.string().max(200)).optional(),
  description: z.string().max(10_000).optional(),
  ...referenceOnlyFields,
});

/**
 * Text of one document (10 M characters, ~2.5 M tokens, ~5,000 chunks), and of all the documents
 * of one upsert call together. The HTTP adapter's default JSON body limit is 10 MB, so nothing it
 * accepts is refused here; a library caller with more text splits it over several calls. Checked
 * before anything is chunked, so a 100 MB string fails in milliseconds.
 */
export const MAX_DOCUMENT_CHARS = 10_000_000;
export const MAX_UPSERT_CHARS = 10_000_000;
export const MAX_UPSERT_DOCUMENTS = 10_000;

/** `max` first: the length check is O(1), and a refused string is never scanned. */
const documentText = z
  .string()
  .max(MAX_DOCUMENT_CHARS)
  .refine((value) => value.trim().length > 0, { message: 'must not be empty' });

/**
 * A document id chosen by the caller (the reference's upsert `id`): it becomes the datasource id,
 * so it is kept to a plain token that is safe in paths and logs.
 */
const documentIdSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, { message: 'letters, digits and . _ : - only, starting with a letter or digit' });

/** The API's "Document (upsert input)". */
export const documentSchema = z.object({
  /** Updates the document with this id in place, or creates it under this id. */
  id: documentIdSchema.optional(),
  text: documentText,
  name: z.string().max(500).optional(),
  metadata: metadataSchema.optional(),
  /** Tenant id for `filters.custom_ids` (an extension: the API sets it on file datasources). */
  custom_id: idSchema.optional(),
});

export const upsertSchema = z
  .array(documentSchema)
  .min(1)
  .max(MAX_UPSERT_DOCUMENTS)
  .superRefine((documents, payload) => {
    const seen = new Set<string>();
    documents.forEach((document, index) => {
      if (document.id === undefined) return;
      if (seen.has(document.id)) payload.addIssue({ code: 'custom', path: [index, 'id'], message: 'the same id twice in one call' });
      seen.add(document.id);
    });
  })
  .refine((documents) => documents.reduce((sum, document) => sum + document.text.length, 0) <= MAX_UPSERT_CHARS, {
    message: `the documents' text must total at most ${MAX_UPSERT_CHARS} characters per call`,
    // Only once every document is valid: a single oversized text is reported once, at its own path.
    when: (payload) => payload.issues.length === 0,
  });

/** Datastore Update: `id` is the datasource (document) to replace. */
export const documentUpdateSchema = z.object({
  id: idSchema,
  text: documentText,
  name: z.string().max(500).optional(),
  metadata: metadataSchema.optional(),
});

export const retrievalModeSchema = z.enum(['hybrid', 'vector', 'lexical']);

/** Datastore Query body, plus `mode`. */
export const datastoreQuerySchema = z.object({
  query: nonBlankString.pipe(z.string().max(20_000)),
  topK: z.int().min(1).max(MAX_TOP_K).default(DEFAULT_TOP_K),
  // `datastore_ids` narrows an agent's datastores; on one datastore it means nothing, so it is refused by name.
  filters: filtersSchema.extend({ datastore_ids: z.never({ error: 'only agent queries take datastore_ids' }).optional() }).optional(),
  mode: retrievalModeSchema.default('hybrid'),
  /** Second stage: the instance's reranker orders the best `topN` candidates, then `topK` are kept. */
  rerank: rerankSchema.optional(),
});

export type DatastoreCreateInput = z.input<typeof datastoreCreateSchema>;
export type DatastoreUpdateInput = z.input<typeof datastoreUpdateSchema>;
export type DocumentInput = z.input<typeof documentSchema>;
export type DocumentUpdateInput = z.input<typeof documentUpdateSchema>;
export type DatastoreQueryInput = z.input<typeof datastoreQuerySchema>;
export type RetrievalMode = z.output<typeof retrievalModeSchema>;
