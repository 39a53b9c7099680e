import type { ConversationFilter } from '../../src/ports/store.js';

/**
 * The SQL of `findConversations`, shared by the SQL stores: conditions on the `conversations` table
 * `c`, newest activity first with the id as tie-break, keyset paging. `param` writes the n-th
 * placeholder (`?` or `$n`); `id` is how the store compares ids in byte order.
 */
export function conversationFilterSql(
  filter: ConversationFilter,
  messagesTable: string,
  param: (index: number) => string,
  id = 'c.id',
): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const next = (value: unknown) => {
    values.push(value);
    return param(values.length);
  };
  const conditions = [`c.agent_id = ${next(filter.agentId)}`];
  if (filter.visitorId !== undefined) conditions.push(`c.visitor_id = ${next(filter.visitorId)}`);
  if (filter.channel !== undefined) conditions.push(`c.channel = ${next(filter.channel)}`);
  if (filter.updatedFrom !== undefined) conditions.push(`c.updated_at >= ${next(filter.updatedFrom)}`);
  if (filter.updatedTo !== undefined) conditions.push(`c.updated_at <= ${next(filter.updatedTo)}`);
  if (filter.feedback !== undefined) {
    const marked = `SELECT 1 FROM ${messagesTable} m WHERE m.agent_id = c.agent_id AND m.conversation_id = c.id AND m.feedback IS NOT NULL`;
    if (filter.feedback === 'any') conditions.push(`EXISTS (${marked})`);
    else if (filter.feedback === 'none') conditions.push(`NOT EXISTS (${marked})`);
    else conditions.push(`EXISTS (${marked} AND m.feedback = ${next(filter.feedback)})`);
  }
  if (filter.after !== undefined) {
    const { updatedAt } = filter.after;
    conditions.push(`(c.updated_at < ${next(updatedAt)} OR (c.updated_at = ${next(updatedAt)} AND ${id} < ${next(filter.after.id)}))`);
  }
  const limit = next(Math.max(1, Math.floor(filter.limit)));
  return { sql: `WHERE ${conditions.join(' AND ')} ORDER BY c.updated_at DESC, ${id} DESC LIMIT ${limit}`, values };
}
