import { randomUUID } from 'node:crypto';
import { RagdeskError, allowsDatastores, type Agent, type AgentStreamEvent } from '../../../src/index.js';
import { requireScope } from '../auth.js';
import { readJsonObject } from '../body.js';
import { json, type OperationContext, type Route } from '../operation.js';
import { admittedQueryOptions, queryableAgent } from '../queryable-agent.js';
import { DONE_FRAME, SSE_HEADERS } from '../sse.js';
import type { StreamResult } from '../types.js';
import { openaiErrorBody } from './errors.js';
import { chatCompletionRequestSchema, parseChatCompletionRequest, toAgentCall } from './request.js';
import { ChunkWriter, completionBody, modelOf, type CompletionIdentity } from './wire.js';

/** A public agent answers visitors here only when its owner turned `openaiCompatPublic` on. */
const openaiVisitors = (agent: Agent) => agent.visibility === 'public' && agent.settings.openaiCompatPublic === true;

/**
 * `POST {base}/chat/completions` and `GET {base}/models`: any OpenAI Chat Completions client talks
 * to an agent, `model` naming it. Paths are relative to the API base path when `base` lies inside
 * it, else absolute (answered outside it, as `/v1` usually is).
 */
export function openaiCompatRoutes(base: string, apiBasePath: string): Route[] {
  const inside = apiBasePath !== '' && (base === apiBasePath || base.startsWith(`${apiBasePath}/`));
  const prefix = inside ? base.slice(apiBasePath.length) : base;
  const outside = !inside && apiBasePath !== '' ? { outsideBasePath: true as const } : {};
  return [
    {
      method: 'POST',
      path: `${prefix}/chat/completions`,
      operationId: 'createChatCompletion',
      summary:
        'OpenAI-compatible chat: `model` is an agent id or handle (`@handle` or the bare handle), the last message the question ' +
        "(it must be the user's), the earlier ones its history. With `stream: true` the answer is a text/event-stream of " +
        '`chat.completion.chunk` objects ending with `data: [DONE]`. Sources and the conversation are in the extra field `ragdesk`. ' +
        "Errors have OpenAI's shape with ragdesk's `code` and `details`. Only when the handler was created with `openaiCompat`.",
      tag: 'openai',
      auth: 'public-agent',
      body: { json: chatCompletionRequestSchema, name: 'ChatCompletionRequest' },
      response: 'ChatCompletion',
      streams: 'SSE: `data: <chat.completion.chunk JSON>` frames, the last with `finish_reason` and `ragdesk`, then `data: [DONE]`',
      errors: [400, 402, 403, 404, 413, 415],
      ...outside,
      run: createChatCompletion,
    },
    {
      method: 'GET',
      path: `${prefix}/models`,
      operationId: 'listModels',
      summary:
        "The agents this caller may chat with, as OpenAI models: with a key, its owner's agents (needs the `query` scope); " +
        'with or without one, the public agents whose owner turned `openaiCompatPublic` on.',
      tag: 'openai',
      auth: 'public-agent',
      response: 'ModelList',
      errors: [403],
      ...outside,
      run: listModels,
    },
  ];
}

async function createChatCompletion(context: OperationContext) {
  const request = parseChatCompletionRequest(await readJsonObject(context.request, context.options.maxJsonBytes));
  const { agent, caller } = await queryableAgent(context, await agentRef(context, request.model), openaiVisitors).catch(
    (error: unknown) => {
      throw RagdeskError.isInstance(error) && error.code === 'not_found' ? unknownModel(request.model) : error;
    },
  );
  const call = toAgentCall(request, agent, caller);
  const identity: CompletionIdentity = { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model: request.model };
  // Stateless clients name no visitor: the visitor limits go by client address.
  const options = { ...(await admittedQueryOptions(context, caller, undefined)), history: call.history };
  if (call.stream) {
    const events = await context.ragdesk.agents.openStream(agent.id, call.query, options);
    const writer = new ChunkWriter(identity, call.includeUsage);
    const stream: StreamResult = {
      kind: 'stream',
      status: 200,
      headers: { ...SSE_HEADERS },
      chunks: chunks(events, writer, call.warnings, context),
    };
    return stream;
  }
  const response = await context.ragdesk.agents.query(agent.id, call.query, options);
  return json(completionBody(identity, response, call.warnings));
}

/**
 * The stream is open (the question was valid and allowed), so a later failure is told in-band the
 * way OpenAI's servers do: one `data: {"error": ...}` frame, then the stream ends without `[DONE]`
 * (the `openai` SDK throws it as an APIError).
 */
async function* chunks(
  events: AsyncIterable<AgentStreamEvent>,
  writer: ChunkWriter,
  warnings: readonly string[],
  context: OperationContext,
): AsyncGenerator<string> {
  const signal = context.request.signal;
  try {
    yield writer.start();
    for await (const event of events) {
      if (signal.aborted) return;
      if (event.type === 'answer') yield writer.delta(event.delta);
      else yield* writer.finish(event.response, warnings);
    }
  } catch (error) {
    if (signal.aborted) return;
    if (!RagdeskError.isInstance(error) || error.status >= 500) context.reportBug(error);
    const failure = RagdeskError.isInstance(error) ? error : new RagdeskError('internal', 'The answer failed; see the server log');
    yield `data: ${JSON.stringify(openaiErrorBody(failure.status, failure.toJSON()))}\n\n`;
    return;
  }
  yield DONE_FRAME;
}

async function listModels(context: OperationContext) {
  const { principal, ragdesk } = context;
  if (principal) requireScope(principal, 'query');
  const agents = await ragdesk.agents.list();
  const listed = agents.filter((agent) =>
    principal && agent.ownerId === principal.ownerId ? allowsDatastores(principal, agent.datastoreIds) : openaiVisitors(agent),
  );
  return json({ object: 'list', data: listed.map(modelOf) });
}

/** `@handle` and ids go as they are; anything else is tried as an id first, then as a handle. */
async function agentRef(context: OperationContext, model: string): Promise<string> {
  if (model.startsWith('@')) return model;
  const isId = await context.ragdesk.agents.get(model).then(
    () => true,
    (error: unknown) => {
      if (RagdeskError.isInstance(error) && (error.code === 'not_found' || error.code === 'invalid_request')) return false;
      throw error;
    },
  );
  return isId ? model : `@${model}`;
}

function unknownModel(model: string): RagdeskError {
  return new RagdeskError('not_found', `The model ${JSON.stringify(model)} does not exist or you do not have access to it`, {
    details: { issues: [{ path: 'model', message: 'no agent with this id or handle for this caller' }] },
  });
}
