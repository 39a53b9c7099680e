import { z } from 'zod';
import { RagdeskError, type FieldIssue } from './errors.js';
import { metadataFilterSchema } from './filters/metadata-filter.js';

/**
 * Parses input at the library's edge. Any schema failure becomes one `invalid_request` error whose
 * `details.issues` name every bad field, so callers (and the HTTP adapter) can point at them.
 */
export function parseInput<Schema extends z.ZodType>(schema: Schema, value: unknown, what: string): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues: FieldIssue[] = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const summary = issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message));
  return failWith(what, summary, issues);
}

function failWith(what: string, summary: string[], issues: FieldIssue[]): never {
  throw new RagdeskError('invalid_request', `Invalid ${what}: ${summary.slice(0, 5).join('; ')}`, {
    details: { issues },
  });
}

/** A string with at least one non-space character. */
export const nonBlankString = z.string().refine((value) => value.trim().length > 0, { message: 'must not be empty' });

/** Metadata bounds: room for tags, titles and URLs, not a second document store. */
export const MAX_METADATA_ENTRIES = 256;
const MAX_METADATA_KEY_CHARS = 256;
export const MAX_METADATA_STRING_CHARS = 10_000;

const metadataRecord = z.record(
  z.string().max(MAX_METADATA_KEY_CHARS),
  z.union([z.string().max(MAX_METADATA_STRING_CHARS), z.number().refine(Number.isFinite, 'must be finite'), z.boolean(), z.null()]),
);

/**
 * Flat metadata: nested objects and arrays are refused so every value stays filterable. The entry
 * count is checked before any value is parsed (zod spends ~15 µs per entry), so an object of a
 * million keys fails at once instead of after seconds of validation.
 */
export const metadataSchema = z.preprocess<unknown, typeof metadataRecord, z.input<typeof metadataRecord>>((value, context) => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  let entries = 0;
  for (const key in value) {
    if (Object.hasOwn(value, key) && ++entries > MAX_METADATA_ENTRIES) {
      context.addIssue({ code: 'custom', message: `must have at most ${MAX_METADATA_ENTRIES} entries` });
      break;
    }
  }
  return value;
}, metadataRecord);

export const idSchema = z.string().min(1).max(200);

/** The API's "Filters object". Empty lists place no restriction. */
export const filtersSchema = z.object({
  custom_ids: z.array(idSchema).max(1000).optional(),
  datasource_ids: z.array(idSchema).max(1000).optional(),
  /** Conditions on the documents' metadata (grammar in filters/metadata-filter.ts). */
  metadata: metadataFilterSchema.optional(),
});

export type FiltersInput = z.output<typeof filtersSchema>;
