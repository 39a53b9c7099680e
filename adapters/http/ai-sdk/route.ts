import { readJsonObject } from '../body.js';
import { pathAgent } from '../routes/agents.js';
import { param, type Route } from '../operation.js';
import { admittedQueryOptions, queryableAgent } from '../queryable-agent.js';
import { toUiChatCall, uiChatRequestSchema } from './request.js';
import { uiMessageStream } from './stream.js';

/**
 * `POST /agents/{id}/ai-sdk`: the agent behind the AI SDK's `useChat` (`DefaultChatTransport({ api })`).
 * Who may ask is as on the agent query route (public agents answer without a key); the history
 * comes from the messages the client sends, not from a stored conversation.
 */
export const aiSdkChatRoute: Route = {
  method: 'POST',
  path: '/agents/{id}/ai-sdk',
  operationId: 'chatAgentUiMessages',
  summary:
    "AI SDK chat: the body is what the AI SDK's DefaultChatTransport sends (`id`, `messages` as UI messages, `trigger`); the last " +
    "message is the question (it must be the user's), the earlier ones its history. The answer is a UI message stream (v1): " +
    '`start`, `text-start`, `text-delta`s, `text-end`, a `source-url` or `source-document` per source, `finish` (its ' +
    '`messageMetadata` holds the conversation, usage and warnings), then `data: [DONE]`. Public agents answer without a key.',
  tag: 'agents',
  auth: 'public-agent',
  body: { json: uiChatRequestSchema, name: 'UiMessageChatRequest' },
  response: 'event-stream',
  streams:
    'SSE of AI SDK UI message chunks, `data: <chunk JSON>`, header `x-vercel-ai-ui-message-stream: v1`; a failure after it opened is an `error` chunk',
  errors: [400, 402, 403, 404, 413, 415],
  originAgents: pathAgent,
  async run(context) {
    const { agent, caller } = await queryableAgent(context, param(context, 'id'));
    const call = toUiChatCall(await readJsonObject(context.request, context.options.maxJsonBytes));
    const events = await context.ragdesk.agents.openStream(
      agent.id,
      { query: call.query },
      // Stateless clients name no visitor: the visitor limits go by client address.
      { ...(await admittedQueryOptions(context, caller, undefined)), history: call.history },
    );
    return uiMessageStream(events, call.warnings, context.request.signal, context.reportBug);
  },
};
