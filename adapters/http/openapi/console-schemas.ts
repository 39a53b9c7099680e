import { z } from 'zod';
import { schemas, type OwnerUsage, type StoredTotals } from '../../../src/index.js';
import type { apiKeyToWire } from '../routes/keys.js';
import type { chunkPageToWire } from '../wire.js';

/** What the routes the console reads answer (keys, usage, datastore totals, chunk pages). */
const timestamp = z.string().describe('ISO-8601 date-time, UTC');

export const apiKeyResponseSchema = z.object({
  id: z.string(),
  ownerId: z.string(),
  name: z.string(),
  prefix: z.string().describe('The first characters of the secret, to tell keys apart'),
  scopes: z.array(schemas.apiKeyScopeSchema),
  datastoreIds: z.array(z.string()).nullable().describe('null: every datastore of the owner'),
  createdAt: timestamp,
  expiresAt: timestamp.nullable().describe('null: never expires'),
  lastUsedAt: timestamp.nullable().describe('Written at most once a minute per key'),
  revokedAt: timestamp.nullable(),
});

export const createdApiKeyResponseSchema = apiKeyResponseSchema.extend({
  key: z.string().describe('The secret: shown in this answer only, store it now'),
});

export const serverModelsResponseSchema = z.object({
  models: z
    .array(schemas.specModelNameSchema)
    .describe('The model names agents and queries may name on this server; empty without a chat model'),
  default: schemas.specModelNameSchema.nullable().describe('What an agent created without `modelName` gets; null without a chat model'),
  answerer: z.string().nullable().describe('The chat adapter, e.g. `openai:gpt-4.1-mini` or `local:extractive`'),
});

const figure = z.object({
  used: z.number().nullable().describe('null: not counted (no limit is set)'),
  limit: z.number().nullable().describe('null: no limit'),
});

export const usageResponseSchema = z.object({
  ownerId: z.string(),
  agentQueries: figure.extend({
    period: z.enum(['hour', 'day', 'month']).nullable(),
    bucket: z.string().nullable().describe('The current period, e.g. 2026-11-28 for a daily limit'),
  }),
  storedTokens: figure,
  chunks: figure,
  datasources: figure,
  fileBytes: figure,
  perDocument: z.object({
    maxFileBytes: z.number().nullable(),
    maxPagesPerSite: z.number().nullable(),
    maxChars: z.number().nullable(),
    maxChunks: z.number().nullable(),
  }),
});

export const datastoreStatsResponseSchema = z.object({
  datasources: z.int(),
  documents: z.int(),
  chunks: z.int(),
  tokens: z.int(),
  textChars: z.int(),
  fileBytes: z.int(),
});

export const chunkPageResponseSchema = z.object({
  chunks: z.array(
    z.object({
      id: z.string(),
      position: z.int(),
      text: z.string(),
      page_number: z.int().nullable(),
      token_count: z.int(),
      custom_id: z.string().nullable(),
    }),
  ),
  total: z.int(),
  offset: z.int(),
  limit: z.int(),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Each line fails to compile when the response type and its schema disagree.
const _DRIFT_CHECKS: [
  Same<z.output<typeof apiKeyResponseSchema>, ReturnType<typeof apiKeyToWire>>,
  Same<z.output<typeof usageResponseSchema>, OwnerUsage>,
  Same<z.output<typeof datastoreStatsResponseSchema>, StoredTotals>,
  Same<z.output<typeof chunkPageResponseSchema>, ReturnType<typeof chunkPageToWire>>,
] = [true, true, true, true];
