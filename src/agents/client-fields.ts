import { z } from 'zod';
import { RagdeskError } from '../errors.js';
import type { ConversationContact } from '../ports/agent-key-usage-records.js';
import { filtersSchema, idSchema } from '../validation.js';

/**
 * Fields the reference service's chat clients (its web widget and dashboard hook) send with every
 * agent query. They are accepted so those clients work unchanged; the ones with a meaning here are
 * used, the others are named once in the response's `warnings`. Any other unknown key is still a
 * 400, so a typo in our own fields is caught.
 */

/** `null` and `""` mean "not given": the reference's clients send both for a first message. */
export const optionalId = z.preprocess((value) => (value === null || value === '' ? undefined : value), idSchema.optional());

const shortText = z.string().max(200);

/**
 * A boolean as form-filling tools send an optional one: `""` (left empty) is absent, and `"true"` /
 * `"false"` are the booleans (the reference's Zapier app renders its fields into strings).
 */
const formBoolean = z.preprocess((value) => {
  if (value === '' || value === null) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}, z.boolean().optional());

/** A file the user attached to the message, already uploaded somewhere the server can fetch. */
const attachmentSchema = z.object({
  name: z.string().min(1).max(500),
  url: z.string().max(4_000),
  size: z.number().min(0).optional(),
  mimeType: z.string().max(200).optional(),
});

export const contactSchema = z.object({
  email: z.string().max(320).optional(),
  phoneNumber: shortText.optional(),
  firstName: shortText.optional(),
  lastName: shortText.optional(),
  conversationId: z.string().max(200).optional(),
  userId: shortText.optional(),
});

/** Agent query filters: the datastore filters plus `datastore_ids`, which narrows the agent's datastores. */
export const agentFiltersSchema = filtersSchema.extend({
  datastore_ids: z.array(idSchema).max(100).optional(),
});

export const clientQueryFields = {
  channel: shortText.optional(),
  /** Text about the asker or the page they are on; reaches the model fenced in the user message (prompt.ts). */
  context: z.string().max(20_000).optional(),
  attachments: z.array(attachmentSchema).max(10).optional(),
  attachmentsForAI: z.array(shortText).max(50).optional(),
  images: z.array(z.string().max(4_000)).max(10).optional(),
  contact: contactSchema.optional(),
  isDraft: z.boolean().optional(),
  truncateQuery: formBoolean.optional(),
  toolsConfig: z.record(z.string().max(200), z.unknown()).optional(),
  formId: optionalId,
  contactId: optionalId,
};

export interface ClientFields {
  channel?: string | undefined;
  attachmentsForAI?: readonly string[] | undefined;
  images?: readonly string[] | undefined;
  isDraft?: boolean | undefined;
  truncateQuery?: boolean | undefined;
  toolsConfig?: Record<string, unknown> | undefined;
  formId?: string | undefined;
  contactId?: string | undefined;
}

/**
 * One warning naming the fields that were given a value but mean nothing here (the defaults the
 * reference's client always sends, such as empty lists, are not worth a warning). `channel` is
 * only a label in the reference, so a plain value is not reported either.
 */
export function ignoredFieldsWarning(query: ClientFields): string | null {
  const ignored: string[] = [];
  if (query.attachmentsForAI?.length) ignored.push('attachmentsForAI');
  if (query.images?.length) ignored.push('images (the chat model here takes no images)');
  if (query.isDraft === true) ignored.push('isDraft');
  if (query.truncateQuery !== undefined) ignored.push('truncateQuery');
  if (query.toolsConfig !== undefined && Object.keys(query.toolsConfig).length > 0) ignored.push('toolsConfig');
  if (query.formId !== undefined) ignored.push('formId');
  if (query.contactId !== undefined) ignored.push('contactId');
  return ignored.length === 0 ? null : `ignored fields with no meaning here: ${ignored.join(', ')}`;
}

/**
 * The datastores one query reads: the agent's, narrowed to `filters.datastore_ids` when given. A
 * datastore the agent does not read is refused (403), as the reference does, rather than ignored.
 */
export function narrowDatastores(agentDatastoreIds: readonly string[], wanted: readonly string[] | undefined): readonly string[] {
  if (wanted === undefined || wanted.length === 0) return agentDatastoreIds;
  const outside = wanted.filter((id) => !agentDatastoreIds.includes(id));
  if (outside.length > 0) {
    throw new RagdeskError('forbidden', 'filters.datastore_ids names a datastore this agent does not read', {
      details: { issues: [{ path: 'filters.datastore_ids', message: `not a datastore of this agent: ${outside.slice(0, 5).join(', ')}` }] },
    });
  }
  return agentDatastoreIds.filter((id) => wanted.includes(id));
}

/** The contact fields worth keeping with a new conversation (the reference's `conversationId` inside it is not). */
export function contactOf(contact: z.output<typeof contactSchema> | undefined): { contact: ConversationContact } | Record<string, never> {
  if (!contact) return {};
  const kept: ConversationContact = {};
  for (const key of ['email', 'phoneNumber', 'firstName', 'lastName', 'userId'] as const) {
    const value = contact[key]?.trim();
    if (value) kept[key] = value;
  }
  return Object.keys(kept).length > 0 ? { contact: kept } : {};
}

/** The channel worth keeping with a new conversation (a label, for filtering the conversation list). */
export function channelOf(channel: string | undefined): { channel: string } | Record<string, never> {
  const kept = channel?.trim();
  return kept ? { channel: kept } : {};
}
