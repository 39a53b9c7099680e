import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import type { DatasourceRecord } from '../ports/records.js';

/**
 * The text document an upsert `id` names in this datastore, or null when the id is free (the
 * document is then created under it). An id held by anything else (another datastore, another
 * owner, a file or web datasource) is a conflict that says nothing about the holder.
 */
export async function existingDocument(
  context: RagdeskContext,
  datastoreId: string,
  id: string,
  customId: string | undefined,
): Promise<DatasourceRecord | null> {
  const existing = await context.store.getDatasource(id);
  if (!existing) return null;
  if (existing.datastoreId !== datastoreId || existing.type !== 'text') {
    throw new RagdeskError('conflict', `The document id ${JSON.stringify(id)} is already taken; choose another`, {
      details: { issues: [{ path: 'documents.id', message: 'already taken' }] },
    });
  }
  // Chunks carry the tenant id; changing it in place would leave unchanged chunks under the old one.
  if (customId !== undefined && customId !== existing.customId) {
    throw new RagdeskError('invalid_request', `Document ${JSON.stringify(id)} belongs to another custom_id; delete it to move it`, {
      details: { issues: [{ path: 'documents.custom_id', message: 'differs from the stored document' }] },
    });
  }
  return existing;
}
