import { RagdeskError, allowsDatastores, parseInput, schemas, type Agent, type Conversation } from '../../../src/index.js';
import { missing, ownedAgent } from '../access.js';
import { requirePrincipal, requireScope } from '../auth.js';
import { readJsonObject } from '../body.js';
import { conversationToWire } from '../conversation-wire.js';
import { json, param, type OperationContext, type Route } from '../operation.js';
import { queryObject } from '../query-params.js';

const VISITOR_ID = {
  name: 'visitorId',
  description: "A visitor's id: reads the conversation without a key when it is this visitor's and the agent is public",
  required: false,
};

const AGENT_ID = {
  name: 'agentId',
  description:
    'The agent whose conversation this is. Conversation ids are unique within an agent only: needed (else 409) when two conversations ' +
    'the caller may read share the id',
  required: false,
};

export const conversationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/conversations/{id}',
    operationId: 'getConversation',
    summary:
      'The conversation with its messages, newest first (`from`: `human` or `agent`). The owner reads any conversation of its agents ' +
      "(`read` scope); anyone else only a public agent's conversation, with the `visitorId` it was started with (or without it when the " +
      "agent's `allowConversationReadById` setting is true). Any other id answers " +
      'exactly like an unknown one (401 without a key, 404 with one). `cursor` (the last message id of the previous page) reads older messages. ' +
      'Ids are unique within an agent: when two readable conversations have this id, `agentId` says which (409 without it).',
    tag: 'conversations',
    auth: 'public-agent',
    queryParameters: [
      VISITOR_ID,
      AGENT_ID,
      { name: 'cursor', description: 'The id of the last message of the previous page', required: false },
      { name: 'limit', description: 'At most this many messages (1-200, default 50)', required: false },
    ],
    response: 'ConversationWithMessages',
    errors: [400, 401, 403, 404, 409],
    async originAgents(context) {
      const { agentId } = queryObject(context, ['visitorId', 'cursor', 'limit', 'agentId']);
      const candidates = await context.ragdesk.agents.conversations.findAll(param(context, 'id'), agentId === undefined ? {} : { agentId });
      return agentsOf(context, candidates);
    },
    async run(context) {
      const id = param(context, 'id');
      const query = queryObject(context, ['visitorId', 'cursor', 'limit', 'agentId']);
      const { agentId, reader } = await readerOf(context, id, query.visitorId, query.agentId);
      const conversation = await context.ragdesk.agents.conversations
        .get(id, { ...query, ...reader, agentId })
        .catch(asRefused(context, 'conversation', id));
      return json(conversationToWire(conversation));
    },
  },
  {
    method: 'DELETE',
    path: '/conversations/{id}',
    operationId: 'deleteConversation',
    summary:
      "Deletes a conversation of the key owner's agents with its messages; answers the conversation as it was. When two of the owner's " +
      'agents have a conversation with this id, `agentId` says which (409 without it).',
    tag: 'conversations',
    auth: { scope: 'write' },
    queryParameters: [AGENT_ID],
    response: 'Conversation',
    errors: [400, 404, 409],
    async run(context) {
      const id = param(context, 'id');
      const query = queryObject(context, ['agentId']);
      await readJsonObject(context.request, context.options.maxJsonBytes);
      const candidates = await context.ragdesk.agents.conversations.findAll(id, query);
      const owned = [];
      for (const conversation of candidates) {
        if (await ownsAgentOf(context, conversation)) owned.push(conversation);
      }
      const [only] = owned;
      if (only === undefined) throw missing('conversation', id);
      if (owned.length > 1) throw severalReadable(id);
      return json(await context.ragdesk.agents.conversations.delete(id, { agentId: only.agentId }));
    },
  },
  {
    method: 'GET',
    path: '/agents/{id}/conversations',
    operationId: 'listConversations',
    summary:
      "An agent's conversations, newest activity first, a page at a time (`nextCursor`), with their message count, " +
      'feedback counts and first question. Filters: `visitorId`, `channel`, `from` / `to` (last activity, ISO date or date-time), ' +
      '`feedback` (`good`, `bad`, `any` marked answer, `none`).',
    tag: 'conversations',
    auth: { scope: 'read' },
    queryParameters: [
      { name: 'limit', description: 'Conversations per page (1-100, default 20)', required: false },
      { name: 'cursor', description: 'The `nextCursor` of the previous page', required: false },
      { name: 'visitorId', description: "Only this visitor's conversations", required: false },
      { name: 'channel', description: 'Only conversations started on this channel', required: false },
      { name: 'from', description: 'Last activity at or after this ISO date or date-time', required: false },
      { name: 'to', description: 'Last activity at or before this ISO date or date-time (a date includes its whole day)', required: false },
      {
        name: 'feedback',
        description: '`good` or `bad`: has an answer marked so; `any`: has a marked answer; `none`: has none',
        required: false,
      },
    ],
    response: 'ConversationPage',
    errors: [400, 401, 404],
    async run(context) {
      const agent = await ownedAgent(context.ragdesk, requirePrincipal(context.principal), param(context, 'id'));
      const query = queryObject(context, ['limit', 'cursor', 'visitorId', 'channel', 'from', 'to', 'feedback']);
      return json(await context.ragdesk.agents.conversations.list(agent.id, query));
    },
  },
  {
    method: 'POST',
    path: '/messages/{id}/feedback',
    operationId: 'setMessageFeedback',
    summary:
      'Marks an answer `good` or `bad` (`eval`; null removes the mark) with an optional `comment`. Whoever may read the ' +
      'conversation may mark it: the owner, or a visitor of a public agent with its `visitorId`. Answers the message.',
    tag: 'conversations',
    auth: 'public-agent',
    body: { json: schemas.messageFeedbackSchema, name: 'MessageFeedbackRequest' },
    response: 'ConversationMessage',
    errors: [400, 403, 404, 413, 415],
    async originAgents(context) {
      const conversation = await context.ragdesk.agents.conversations.conversationOfMessage(param(context, 'id'));
      return agentsOf(context, conversation === null ? [] : [conversation]);
    },
    async run(context) {
      const body = parseInput(
        schemas.messageFeedbackSchema,
        await readJsonObject(context.request, context.options.maxJsonBytes),
        'feedback',
      );
      return json(await markAnswer(context, param(context, 'id'), body));
    },
  },
  {
    method: 'POST',
    path: '/conversations/eval-answer',
    operationId: 'evalAnswer',
    summary:
      'Deprecated form of POST /api/messages/{id}/feedback kept for clients of the reference service: the message is named by ' +
      '`messageId` in the body.',
    tag: 'conversations',
    auth: 'public-agent',
    deprecated: true,
    body: { json: schemas.evalAnswerSchema, name: 'EvalAnswerRequest' },
    response: 'ConversationMessage',
    errors: [400, 404, 413, 415],
    async run(context) {
      const body = parseInput(schemas.evalAnswerSchema, await readJsonObject(context.request, context.options.maxJsonBytes), 'feedback');
      const { messageId, ...feedback } = body;
      return json(await markAnswer(context, messageId, feedback));
    },
  },
];

type FeedbackBody = { eval: 'good' | 'bad' | null; comment?: string | null | undefined; visitorId?: string | undefined };

async function markAnswer(context: OperationContext, messageId: string, body: FeedbackBody) {
  const { ragdesk } = context;
  const conversation = await ragdesk.agents.conversations.conversationOfMessage(messageId);
  const access =
    conversation === null ? null : await readerOf(context, conversation.id, body.visitorId, conversation.agentId).catch(() => null);
  if (access === null) throw refused(context, 'message', messageId);
  const { visitorId: _given, ...rest } = body;
  return ragdesk.agents.conversations.setFeedback(messageId, { ...rest, ...access.reader }).catch(asRefused(context, 'message', messageId));
}

/**
 * The one answer for anything the caller may not read, the same as for an unknown id: without a key
 * a 401 asking for one (as the query route answers for a private agent), with a key a 404.
 */
function refused(context: OperationContext, kind: string, id: string): RagdeskError {
  if (context.principal !== null) return missing(kind, id);
  return new RagdeskError(
    'unauthorized',
    'Missing API key: send "Authorization: Bearer <API key>" (a visitor of a public agent reads its own conversation with its visitorId)',
  );
}

/** The library's not_found for a visitor id that does not match, answered as {@link refused}. */
function asRefused(context: OperationContext, kind: string, id: string) {
  return (error: unknown): never => {
    if (RagdeskError.isInstance(error) && error.code === 'not_found') throw refused(context, kind, id);
    throw error;
  };
}

/**
 * Which conversation `id` names for this caller, and who reads it, as options for the library:
 * `{}` for the owner of its agent (with the `read` scope), `{ visitorId }` for a visitor of a public
 * agent whose visitor id it is. Ids are unique within an agent only, so the id may name several
 * conversations: only those the caller may read count (`agentId` narrows them to one agent's), and
 * two of them are a 409 naming `agentId`. None is the answer of an unknown id, so another owner's
 * conversation is never told apart from a free id.
 */
async function readerOf(
  context: OperationContext,
  id: string,
  visitorId: string | undefined,
  agentId: string | undefined,
): Promise<{ agentId: string; reader: { visitorId?: string } }> {
  const { conversations } = context.ragdesk.agents;
  const readable: { agentId: string; reader: { visitorId?: string }; owner: boolean }[] = [];
  for (const conversation of await conversations.findAll(id, agentId === undefined ? {} : { agentId })) {
    if (await ownsAgentOf(context, conversation)) {
      readable.push({ agentId: conversation.agentId, reader: {}, owner: true });
      continue;
    }
    const agent = await context.ragdesk.agents.get(conversation.agentId);
    if (agent.visibility !== 'public') continue;
    if (!visitorId && agent.settings.allowConversationReadById === true) {
      // The owner chose to let the id alone open its conversations (for clients that send no visitor id).
      readable.push({ agentId: agent.id, reader: { visitorId: conversation.visitorId }, owner: false });
      continue;
    }
    // The library compares the visitor id in constant time.
    const visitors = visitorId ? await conversations.findAll(id, { agentId: agent.id, visitorId }) : [];
    if (visitors.length > 0 && visitorId) readable.push({ agentId: agent.id, reader: { visitorId }, owner: false });
  }
  const [only] = readable;
  if (only === undefined) throw refused(context, 'conversation', id);
  if (readable.length > 1) throw severalReadable(id);
  if (only.owner) requireScope(requirePrincipal(context.principal), 'read');
  return { agentId: only.agentId, reader: only.reader };
}

/** Two conversations the caller may read have this id: the 409 naming the parameter that picks one. */
function severalReadable(id: string): RagdeskError {
  return new RagdeskError('conflict', `More than one of your conversations has the id ${JSON.stringify(id)}; say which with agentId`, {
    details: { issues: [{ path: 'agentId', message: 'required: more than one conversation has this id' }] },
  });
}

/** The agents of these conversations, each once, for the check of a browser's origin. */
async function agentsOf(context: OperationContext, conversations: readonly Conversation[]): Promise<Agent[]> {
  const agents: Agent[] = [];
  for (const agentId of new Set(conversations.map((conversation) => conversation.agentId))) {
    agents.push(await context.ragdesk.agents.get(agentId));
  }
  return agents;
}

/** The caller's key belongs to the agent's owner and may reach every datastore the agent reads. */
async function ownsAgentOf(context: OperationContext, conversation: Conversation): Promise<boolean> {
  const { principal } = context;
  if (principal === null) return false;
  const agent = await context.ragdesk.agents.get(conversation.agentId);
  return agent.ownerId === principal.ownerId && allowsDatastores(principal, agent.datastoreIds);
}
