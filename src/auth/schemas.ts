import { z } from 'zod';
import { idSchema } from '../validation.js';

export const apiKeyScopeSchema = z.enum(['read', 'write', 'query', 'admin']);

/** What `ragdesk.keys.create` accepts. */
export const apiKeyCreateSchema = z.strictObject({
  /** Whose key: it sees exactly this owner's datastores and agents. */
  ownerId: idSchema,
  name: z.string().max(200).default(''),
  /** Defaults to read + write + query (everything but `admin`). */
  scopes: z.array(apiKeyScopeSchema).min(1).max(4).default(['read', 'write', 'query']),
  /** When given, the key may only touch these datastores (and agents that read only them). */
  datastoreIds: z.array(idSchema).min(1).max(1000).nullable().default(null),
  /** When the key stops working (an ISO-8601 date-time, in the future); null: never. */
  expiresAt: z
    .string()
    .max(40)
    .refine((value) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)), 'must be an ISO-8601 date-time')
    .nullable()
    .default(null),
});

export type ApiKeyCreateInput = z.input<typeof apiKeyCreateSchema>;
