import { RagdeskError } from '../../src/index.js';

/**
 * Fields of an agent's own answer that a PATCH cannot change: a client that reads an agent, edits
 * a field and sends the whole body back (as the reference service's dashboard and scripts do) gets
 * the edit applied and these named in `warnings`, instead of a 400 for each. `settings` and
 * `datastoreIds` repeat writable fields (the top-level settings, `tools`), which are the ones read.
 */
const READ_ONLY_FIELDS = ['id', 'ownerId', 'datastoreIds', 'settings', 'createdAt', 'updatedAt', 'warnings'] as const;

export function withoutReadOnlyFields(
  agentId: string,
  body: Record<string, unknown>,
): { body: Record<string, unknown>; warnings: string[] } {
  // An id naming another agent is a body sent to the wrong path: refused rather than applied.
  if ('id' in body && body.id !== agentId) {
    throw new RagdeskError('invalid_request', 'id does not match the agent in the path', {
      details: { issues: [{ path: 'id', message: 'must be the id of the agent in the path, or absent' }] },
    });
  }
  const kept: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [field, value] of Object.entries(body)) {
    if ((READ_ONLY_FIELDS as readonly string[]).includes(field)) ignored.push(field);
    else kept[field] = value;
  }
  const warnings = ignored.length === 0 ? [] : [`read-only fields ignored: ${ignored.join(', ')}`];
  return { body: kept, warnings };
}
