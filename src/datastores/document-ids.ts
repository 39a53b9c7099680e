import { createHash } from 'node:crypto';
import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import type { DatasourceRecord, DatastoreRecord } from '../ports/records.js';

/**
 * Document ids are per owner. A caller-chosen document id (upsert `id`) is unique within the owner
 * of its datastore (owner-less datastores count as one owner), so another owner's use of the same
 * id neither blocks nor reveals anything. The store keeps one global key per datasource, so the
 * datasource of document `doc-1` is stored under `<owner tag>~doc-1`: the tag is a hash of the
 * owner id, and `~` never occurs in a document id or a generated id, so the id the caller sees is
 * the stored one with the tag cut off, with no lookup. Datasources stored before this rule keep
 * their bare ids and are still found under them (see {@link candidateIds}).
 */
const SEPARATOR = '~';
const STORED_DOCUMENT_ID = /^[0-9a-f]{16}~/;

function ownerTag(ownerId: string | null): string {
  return createHash('sha256')
    .update(`ragdesk-document-owner\u0000${ownerId ?? ''}`)
    .digest()
    .toString('hex', 0, 8);
}

/** The stored datasource id of document `documentId` of this owner. */
export function storedDocumentId(ownerId: string | null, documentId: string): string {
  return `${ownerTag(ownerId)}${SEPARATOR}${documentId}`;
}

/** The id a caller sees for a stored datasource id: the document id, or the id itself. */
export function publicDatasourceId(storedId: string): string {
  return STORED_DOCUMENT_ID.test(storedId) ? storedId.slice(17) : storedId;
}

/** A datasource record as callers see it: ids the caller chose, never the stored form. */
export function publicDatasource(record: DatasourceRecord): DatasourceRecord {
  if (!STORED_DOCUMENT_ID.test(record.id)) return record;
  return { ...record, id: publicDatasourceId(record.id) };
}

/**
 * The stored ids an id given by a caller of this owner may name, in the order they are tried: the
 * owner's document with that id, then a datasource stored under the id itself (a generated id of a
 * file or web datasource, or a document upserted before ids were per owner). Callers check that a
 * bare-id hit belongs to the owner: bare ids are global.
 */
export function candidateIds(ownerId: string | null, id: string): string[] {
  const stored = storedDocumentId(ownerId, id);
  return stored === id ? [id] : [stored, id];
}

/**
 * Finds the datasource an id names for this owner: the first candidate whose datastore belongs to
 * the owner (`ownerId` undefined: any owner, for library callers who hold every datastore). Both
 * candidates are read in one round trip, and the datastore of every hit is read, so another
 * owner's document costs the same as a free id.
 */
export async function findDatasource(
  context: RagdeskContext,
  id: string,
  ownerId: string | null | undefined,
): Promise<{ datasource: DatasourceRecord; datastore: DatastoreRecord | null } | null> {
  const records = await context.retrieval.getDatasources(candidateIds(ownerId ?? null, id));
  for (const datasource of records) {
    const datastore = await context.retrieval.getDatastore(datasource.datastoreId);
    if (ownerId === undefined || (datastore !== null && datastore.ownerId === ownerId)) return { datasource, datastore };
  }
  return null;
}

/**
 * The text document an upsert `id` names in this datastore, or null when the id is free for this
 * owner (the document is then created under {@link storedDocumentId}). Another owner's use of the
 * id is invisible here. The same owner's use of it in another datastore, or for a file or web
 * datasource, is a conflict: ids are unique within an owner, and the owner sees all of theirs.
 */
export async function existingDocument(
  context: RagdeskContext,
  datastore: DatastoreRecord,
  id: string,
  customId: string | undefined,
): Promise<DatasourceRecord | null> {
  const found = await findDatasource(context, id, datastore.ownerId);
  if (!found) return null;
  const existing = found.datasource;
  if (existing.datastoreId !== datastore.id || existing.type !== 'text') {
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
