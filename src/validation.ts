import { z } from 'zod';
import { RagdeskError, type FieldIssue } from './errors.js';

/**
 * Parses input at the library's edge. Any schema failure becomes one `invalid_request` error whose
 * `details.issues` name every bad field, so callers (and the HTTP adapter) can point at them.
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  what: string,
): z.output<Schema> {
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
export const nonBlankString = z
  .string()
  .refine((value) => value.trim().length > 0, { message: 'must not be empty' });

/** Flat metadata: nested objects and arrays are refused so every value stays filterable. */
export const metadataSchema = z.record(
  z.string(),
  z.union([z.string(), z.number().refine(Number.isFinite, 'must be finite'), z.boolean(), z.null()]),
);

export const idSchema = z.string().min(1).max(200);

/** SPEC "Filters object". Empty lists place no restriction. */
export const filtersSchema = z.object({
  custom_ids: z.array(idSchema).max(1000).optional(),
  datasource_ids: z.array(idSchema).max(1000).optional(),
});

export type FiltersInput = z.output<typeof filtersSchema>;
