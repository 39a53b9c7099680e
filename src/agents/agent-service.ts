import type { RagdeskContext } from '../context.js';
import { notFound, RagdeskError } from '../errors.js';
import type { AgentRecord } from '../ports/agent-key-usage-records.js';
import type { ChatModel, ChatStreamPart } from '../ports/chat-model.js';
import { SurrogateJoiner, toWellFormed } from '../text/well-formed.js';
import { newId, nowIso } from '../util/ids.js';
import { linkedSignal } from '../util/linked-signal.js';
import { idSchema, parseInput } from '../validation.js';
import { toAgent, type Agent, type AgentResponse, type AgentStreamEvent } from './agent.js';
import type { AgentOptions } from './agent-options.js';
import { ConversationService } from '../conversations/conversation-service.js';
import { CitationStreamFilter, checkCitations, danglingCitationWarnings } from './citations.js';
import { finishAnswer } from './finish-answer.js';
import { checkVisitorQuery, type AgentCaller } from './override-policy.js';
import { splitSettings } from './agent-settings.js';
import { historySchema, type HistoryMessage } from './history.js';
import { prepareQuery, type PreparedQuery } from './prepare-query.js';
import { assertRunnable, modelList, queryModel, type ModelList } from './model-offer.js';
import { VisitorAttachmentBudget } from './visitor-attachment-budget.js';
import {
  agentCreateSchema,
  agentQuerySchema,
  agentUpdateSchema,
  type AgentCreateInput,
  type AgentQueryInput,
  type AgentUpdateInput,
} from './schemas.js';

export interface AgentCallOptions {
  /** Stops retrieval and the model call; nothing is stored for an aborted query. */
  signal?: AbortSignal;
  /**
   * The caller's owner (the API key's). Queries count against the agent's owner whoever asks; this
   * one is charged only for an agent without an owner.
   */
  ownerId?: string | null;
  /**
   * `'visitor'` for a caller who does not own the agent (no key, or another owner's key; the HTTP
   * adapter decides): per-query settings only where the agent's `allowOverrides` lists them,
   * `context` bounded, and a conversation continues only with the visitorId it was started with.
   * Default `'owner'`.
   */
  caller?: AgentCaller;
  /**
   * The conversation so far, supplied by the caller instead of read from the store: stateless chat
   * clients (OpenAI-compatible ones, the AI SDK) send the whole exchange with every question. Only
   * `user` and `assistant` turns; fitted to the memory budget, the oldest dropped first. Not with
   * `conversationId`: the query starts a new conversation that stores this question and its answer.
   */
  history?: readonly HistoryMessage[];
  /**
   * Called before the query starts a new conversation; throwing refuses the query with that error
   * before it is counted or anything is stored (the HTTP adapter limits how fast visitors start
   * conversations this way).
   */
  admitConversation?: () => void | Promise<void>;
}

/** `ragdesk.agents`: agents that answer from their datastores, with memory, sources and streaming. */
export class AgentService {
  /** What all visitors of one agent may read of attachments (see `AttachmentLimits`). */
  private readonly visitorAttachments: VisitorAttachmentBudget;
  /** The agents' conversations: read, list, delete, and feedback on answers. */
  readonly conversations: ConversationService;

  /** @internal Created by `createRagdesk`. */
  constructor(
    private readonly context: RagdeskContext,
    private readonly chat: ChatModel | undefined,
    private readonly options: AgentOptions,
  ) {
    this.visitorAttachments = new VisitorAttachmentBudget(options.attachments, options.attachmentClock);
    this.conversations = new ConversationService(context);
  }

  /** Creates an agent. Every datastore it names must exist (and belong to the same owner). */
  async create(input: AgentCreateInput, options: { ownerId?: string | null } = {}): Promise<Agent> {
    const { rest: parsed, settings } = splitSettings(parseInput(agentCreateSchema, input, 'agent'));
    this.context.assertOpen();
    const ownerId = options.ownerId ?? null;
    if (parsed.modelName !== undefined) assertRunnable(this.chat, parsed.modelName, 'modelName');
    await this.assertDatastores(parsed.datastoreIds, ownerId);
    if (parsed.handle) await this.assertHandleFree({ id: null, ownerId, handle: parsed.handle, visibility: parsed.visibility });
    const now = nowIso();
    const record: AgentRecord = {
      id: newId(),
      ownerId,
      name: parsed.name.trim(),
      description: parsed.description,
      modelName: parsed.modelName ?? this.models().default ?? 'gpt_3_5_turbo',
      temperature: parsed.temperature,
      visibility: parsed.visibility,
      systemPrompt: parsed.systemPrompt ?? null,
      userPrompt: parsed.userPrompt ?? null,
      promptType: parsed.promptType ?? null,
      promptTemplate: parsed.promptTemplate ?? null,
      allowOverrides: [...new Set(parsed.allowOverrides)],
      datastoreIds: [...new Set(parsed.datastoreIds)],
      handle: parsed.handle ?? null,
      settings,
      createdAt: now,
      updatedAt: now,
    };
    await this.context.accounts.createAgent(record);
    return toAgent(record);
  }

  /**
   * The model names this instance's chat adapter runs and the default an agent gets. Saving an
   * agent, or a query, naming another is refused with `model_not_available`; an agent saved
   * earlier with another is answered by the default, with a warning.
   */
  models(): ModelList {
    return modelList(this.chat);
  }

  /** The agent with this id; throws `not_found` when there is none. */
  async get(id: string): Promise<Agent> {
    return toAgent(await this.record(id));
  }

  /** Agents oldest first; with `ownerId`, only that owner's. */
  async list(options: { ownerId?: string } = {}): Promise<Agent[]> {
    this.context.assertOpen();
    const records = await this.context.accounts.listAgents(options.ownerId === undefined ? {} : { ownerId: options.ownerId });
    return records.map(toAgent);
  }

  /** Agent Update: PATCH semantics, `description` required; returns the full agent. */
  async update(id: string, input: AgentUpdateInput): Promise<Agent> {
    const { rest: parsed, settings } = splitSettings(parseInput(agentUpdateSchema, input, 'agent update'));
    const current = await this.record(id);
    // Keeping the stored model is allowed (a form sends it back unchanged); choosing one is checked.
    if (parsed.modelName !== undefined && parsed.modelName !== current.modelName) assertRunnable(this.chat, parsed.modelName, 'modelName');
    if (parsed.datastoreIds) await this.assertDatastores(parsed.datastoreIds, current.ownerId);
    const handle = parsed.handle === undefined ? current.handle : parsed.handle;
    const visibility = parsed.visibility ?? current.visibility;
    if (handle && (handle !== current.handle || visibility !== current.visibility)) {
      await this.assertHandleFree({ id, ownerId: current.ownerId, handle, visibility });
    }
    const patch: Partial<AgentRecord> = { updatedAt: nowIso() };
    if (Object.keys(settings).length > 0) patch.settings = { ...current.settings, ...settings };
    for (const [key, value] of Object.entries(parsed)) {
      if (value !== undefined) (patch as Record<string, unknown>)[key] = value;
    }
    if (parsed.name !== undefined) patch.name = parsed.name.trim();
    if (parsed.datastoreIds) patch.datastoreIds = [...new Set(parsed.datastoreIds)];
    if (parsed.allowOverrides) patch.allowOverrides = [...new Set(parsed.allowOverrides)];
    const updated = await this.context.accounts.updateAgent(id, patch);
    if (!updated) throw notFound('agent', id);
    return toAgent(updated);
  }

  /** Agent Delete: deletes the agent with its conversations; returns the agent as it was. */
  async delete(id: string): Promise<Agent> {
    const current = await this.record(id);
    if (!(await this.context.accounts.deleteAgent(id))) throw notFound('agent', id);
    return toAgent(current);
  }

  /** Agent Query: retrieve, assemble the prompt with the conversation so far, answer, remember. */
  async query(id: string, input: AgentQueryInput, options: AgentCallOptions = {}): Promise<AgentResponse> {
    return this.context.operation(async () => {
      // Closing the instance cancels the model call (its duration is the model's, not ours).
      const linked = linkedSignal(options.signal, this.context.closeSignal);
      try {
        const { chat, prepared } = await this.prepare(id, input, { ...options, signal: linked.signal });
        const result = await callModel(() => chat.generate(prepared.request), linked.signal);
        const checked = checkCitations(toWellFormed(result.text), prepared.citations.count);
        const warnings = [...result.warnings, ...danglingCitationWarnings(checked.removed, prepared.citations)];
        return await finishAnswer(this.context, chat, this.options, prepared, { ...result, text: checked.text, warnings });
      } finally {
        linked.dispose();
      }
    });
  }

  /**
   * Streaming form of `query`. Resolves once the query is valid, allowed (usage limit) and its
   * context retrieved, so callers can still answer with an error status; then yields `answer`
   * deltas and one `endpoint_response`. A failure after that is thrown from the iterator as a
   * `RagdeskError`; aborting `signal` stops the model call and stores nothing.
   */
  async openStream(id: string, input: AgentQueryInput, options: AgentCallOptions = {}): Promise<AsyncIterable<AgentStreamEvent>> {
    const { chat, prepared } = await this.context.operation(() => this.prepare(id, input, options));
    return this.streamAnswer(chat, prepared, options.signal);
  }

  /**
   * Not an `operation` as a whole: a consumer may stop pulling at any time, and close must not
   * wait for it. Closing the instance aborts the model stream (the consumer gets `closed`); the
   * final write is an operation, so it either lands whole before the store closes or not at all.
   */
  private async *streamAnswer(
    chat: ChatModel,
    prepared: PreparedQuery,
    callerSignal: AbortSignal | undefined,
  ): AsyncGenerator<AgentStreamEvent> {
    const linked = linkedSignal(callerSignal, this.context.closeSignal);
    const signal = linked.signal;
    let text = '';
    // Models may cut a delta between the two halves of an emoji: rejoined here, so every delta
    // (and the stored answer) is well-formed and equals the non-streaming answer once joined.
    const joiner = new SurrogateJoiner();
    // Then each `[n]` is checked against the sources, holding back only what may be a split marker.
    const citations = new CitationStreamFilter(prepared.citations.count);
    let finish: Extract<ChatStreamPart, { type: 'finish' }> | undefined;
    try {
      for await (const part of chat.stream({ ...prepared.request, signal })) {
        throwIfAborted(signal);
        if (part.type === 'delta') {
          const delta = part.text ? citations.push(joiner.push(part.text)) : '';
          if (!delta) continue;
          text += delta;
          yield { type: 'answer', delta };
        } else {
          finish = part;
        }
      }
    } catch (error) {
      throw asModelError(error, signal);
    } finally {
      // Also when the consumer stops early (`return()` on the iterator).
      linked.dispose();
    }
    throwIfAborted(signal);
    if (!finish) throw new RagdeskError('upstream_failed', `Chat model ${chat.name} ended its stream without a finish part`);
    const rest = citations.push(joiner.end()) + citations.end();
    if (rest) {
      text += rest;
      yield { type: 'answer', delta: rest };
    }
    const warnings = [...finish.warnings, ...danglingCitationWarnings(citations.removed, prepared.citations)];
    const outcome = { text, ...finish, warnings };
    const response = await this.context.operation(() => finishAnswer(this.context, chat, this.options, prepared, outcome));
    yield { type: 'endpoint_response', response };
  }

  private async prepare(
    id: string,
    input: AgentQueryInput,
    options: AgentCallOptions,
  ): Promise<{ chat: ChatModel; prepared: PreparedQuery }> {
    const query = parseInput(agentQuerySchema, input, 'agent query');
    const history = options.history === undefined ? undefined : parseInput(historySchema, options.history, 'history');
    if (history && query.conversationId !== undefined) {
      throw new RagdeskError('invalid_request', 'Give either a conversationId or a history, not both', {
        details: { issues: [{ path: 'conversationId', message: 'not allowed together with history' }] },
      });
    }
    const agent = await this.record(id);
    const caller = options.caller ?? 'owner';
    if (caller === 'visitor') checkVisitorQuery(agent, { context: (input as { context?: unknown }).context, ...query });
    const chat = this.chat;
    if (!chat) {
      throw new RagdeskError('invalid_adapter', 'No chat model is configured: pass `chat` to createRagdesk (openaiChat or localAnswerer)');
    }
    if (query.modelName !== undefined) assertRunnable(chat, query.modelName, 'modelName');
    const model = queryModel(chat, agent.modelName, query.modelName);
    throwIfAborted(options.signal);
    // An agent saved with a model this server does not run is answered by the default (see queryModel).
    const answering = model.name === agent.modelName || query.modelName !== undefined ? agent : { ...agent, modelName: model.name };
    const prepared = await prepareQuery(this.context, chat, this.options, answering, query, options.ownerId, options.signal, caller, {
      history,
      visitorAttachments: this.visitorAttachments,
      admitConversation: options.admitConversation,
    });
    if (model.warning) prepared.warnings.unshift(model.warning);
    throwIfAborted(options.signal);
    return { chat, prepared };
  }

  private async record(id: string): Promise<AgentRecord> {
    parseInput(idSchema, id, 'agent id');
    this.context.assertOpen();
    const record = await this.context.accounts.getAgent(id);
    if (!record) throw notFound('agent', id);
    return record;
  }

  /**
   * The agent of `ownerId` (default: no owner, the single-tenant case) with this `@handle`; throws
   * `not_found` when that owner has none. Handles are unique within an owner only, so another
   * owner's agent with the same handle is never found here, and the lookup reads only this
   * owner's agents.
   */
  async getByHandle(handle: string, options: { ownerId?: string | null } = {}): Promise<Agent> {
    this.context.assertOpen();
    const found = (await this.ownerAgents(options.ownerId ?? null)).find((agent) => agent.handle === handle);
    if (!found) throw notFound('agent', `@${handle}`);
    return toAgent(found);
  }

  /**
   * The public agent with this `@handle`, for callers without an owner of their own (a visitor's
   * `/api/agents/@handle/query`); throws `not_found` when no public agent has it. Unambiguous:
   * two public agents never share a handle (see assertHandleFree).
   */
  async getPublicByHandle(handle: string): Promise<Agent> {
    this.context.assertOpen();
    const found = (await this.context.accounts.listAgents()).find((agent) => agent.visibility === 'public' && agent.handle === handle);
    if (!found) throw notFound('agent', `@${handle}`);
    return toAgent(found);
  }

  /**
   * A handle names one agent of its owner; another owner's private agents neither block it nor
   * show through (only this owner's agents are read). A public agent's handle is also its address
   * for visitors, so it must not be the handle of another public agent: that refusal tells only
   * what any visitor can already see. The stores' unique indexes back both checks against races.
   */
  private async assertHandleFree(agent: { id: string | null; ownerId: string | null; handle: string; visibility: string }): Promise<void> {
    const mine = (await this.ownerAgents(agent.ownerId)).find((other) => other.handle === agent.handle && other.id !== agent.id);
    if (mine) throw handleTaken(agent.handle, 'already taken by another of your agents');
    if (agent.visibility !== 'public') return;
    const publicHolder = (await this.context.accounts.listAgents()).find(
      (other) => other.visibility === 'public' && other.handle === agent.handle && other.id !== agent.id,
    );
    if (publicHolder) throw handleTaken(agent.handle, 'already the address of another public agent');
  }

  /** One owner's agents (the owner-less ones for null). */
  private async ownerAgents(ownerId: string | null): Promise<AgentRecord[]> {
    if (ownerId !== null) return this.context.accounts.listAgents({ ownerId });
    return (await this.context.accounts.listAgents()).filter((agent) => agent.ownerId === null);
  }

  private async assertDatastores(ids: readonly string[], ownerId: string | null): Promise<void> {
    for (const datastoreId of ids) {
      const datastore = await this.context.retrieval.getDatastore(datastoreId);
      // Another owner's datastore answers like a missing one: its existence is not ours to reveal.
      if (!datastore || (ownerId !== null && datastore.ownerId !== ownerId)) throw notFound('datastore', datastoreId);
    }
  }
}

async function callModel<T>(call: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  try {
    const result = await call();
    throwIfAborted(signal);
    return result;
  } catch (error) {
    throw asModelError(error, signal);
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

/** `closed` when the instance is closing (the close signal's reason), else `aborted` by the caller. */
function abortError(signal: AbortSignal, cause?: unknown): RagdeskError {
  const options = cause === undefined ? {} : { cause };
  if (isClosing(signal)) return new RagdeskError('closed', 'The ragdesk instance was closed during the query', options);
  return new RagdeskError('aborted', 'The query was aborted by the caller', options);
}

function isClosing(signal: AbortSignal | undefined): boolean {
  const reason: unknown = signal?.aborted ? signal.reason : undefined;
  return RagdeskError.isInstance(reason) && reason.code === 'closed';
}

function asModelError(error: unknown, signal: AbortSignal | undefined): RagdeskError {
  if (isClosing(signal)) return abortError(signal as AbortSignal, error);
  if (RagdeskError.isInstance(error)) return error;
  if (signal?.aborted) return abortError(signal, error);
  const message = error instanceof Error ? error.message : String(error);
  return new RagdeskError('upstream_failed', `Chat model failed: ${message}`, { cause: error });
}

function handleTaken(handle: string, message: string): RagdeskError {
  return new RagdeskError('conflict', `The handle ${JSON.stringify(handle)} is ${message}; choose another`, {
    details: { issues: [{ path: 'handle', message }] },
  });
}
