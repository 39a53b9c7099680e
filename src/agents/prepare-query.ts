import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import { cl100kTokenizer, type Tokenizer } from '../ingest/tokenizer.js';
import type { AgentRecord, ConversationRecord, SourceEntry } from '../ports/agent-key-usage-records.js';
import type { ChatModel, ChatRequest, GroundingPassage } from '../ports/chat-model.js';
import type { DatasourceRef } from '../ports/records.js';
import { readDatasourceRefs } from '../datastores/datasource-refs.js';
import { nowIso } from '../util/ids.js';
import { retrieveForAgent } from './agent-retrieval.js';
import { assertCanRerank, type RerankReport } from '../datastores/rerank.js';
import { resolveConversation } from './conversation-access.js';
import { MESSAGE_OVERHEAD_TOKENS, splitBudget, takeWithinBudget, truncateToTokens } from './budget.js';
import { fitHistory, loadMemory, type HistoryMessage } from './memory.js';
import { MODEL_CONTEXT_WINDOWS } from './model-windows.js';
import { assembleMessages, fillUserPrompt, formatPassage, resolvePrompts, withCallerContext } from './prompt.js';
import type { AgentQuery } from './schemas.js';
import { buildSources, citationNumbers } from './sources.js';
import { channelOf, contactOf, ignoredFieldsWarning, narrowDatastores } from './client-fields.js';
import { readAttachments, withAttachments } from './attachments.js';
import { readUploadedAttachment } from '../uploads/uploaded-attachments.js';
import { includesSources, restrictsKnowledge, withSettingsInstructions } from './agent-settings.js';
import { consumeQuery, DEFAULT_OWNER } from './usage-policy.js';
import type { AgentOptions } from './agent-options.js';
import type { AgentCaller } from './override-policy.js';
import type { VisitorAttachmentBudget } from './visitor-attachment-budget.js';

/** Everything decided before the model is called; the answer is written with it afterwards. */
export interface PreparedQuery {
  agent: AgentRecord;
  conversation: ConversationRecord;
  /** True when the conversation must be created with the messages. */
  isNewConversation: boolean;
  query: string;
  request: ChatRequest;
  modelId: string;
  sources: SourceEntry[];
  /**
   * How an answer's `[n]` markers are checked: numbers above `count` are removed, with a warning
   * when `warn` (not when the agent hides its sources, where every marker goes).
   */
  citations: { count: number; warn: boolean };
  warnings: string[];
  startedAt: string;
  /** What reranking did, when it ran. */
  rerank?: RerankReport;
}

/** Checks that depend on who asks, beyond the agent and the query. */
export interface QueryAdmission {
  /** The budget a visitor's attachments draw on. */
  visitorAttachments?: VisitorAttachmentBudget | undefined;
  /** Called before a new conversation is started; throws to refuse it (e.g. `rate_limited`). */
  admitConversation?: (() => void | Promise<void>) | undefined;
  /** The conversation so far, supplied by a stateless chat client instead of read from the store. */
  history?: readonly HistoryMessage[] | undefined;
}

/**
 * Checks the conversation, counts the query against the owner's limit, retrieves, and assembles the
 * prompt within the model's window. Throws before any model call, so a caller (the HTTP adapter)
 * can still answer with a status instead of opening a stream.
 */
export async function prepareQuery(
  context: RagdeskContext,
  chat: ChatModel,
  options: AgentOptions,
  agent: AgentRecord,
  query: AgentQuery,
  callerOwnerId: string | null | undefined,
  signal: AbortSignal | undefined,
  caller: AgentCaller = 'owner',
  admission: QueryAdmission = {},
): Promise<PreparedQuery> {
  const startedAt = nowIso();
  const chosen = await resolveConversation(context, agent, query, caller);
  const isNew = chosen.isNew;
  // Contact details are kept with the message that starts a conversation.
  const conversation = isNew ? { ...chosen.conversation, ...contactOf(query.contact), ...channelOf(query.channel) } : chosen.conversation;
  if (isNew) await admission.admitConversation?.();
  // The agent's owner pays for its queries, whoever asks (as the reference counts them); an agent
  // without an owner (library use) counts against the caller's, else the instance's.
  await consumeQuery(context.accounts, options.queryLimit, agent.ownerId ?? callerOwnerId ?? DEFAULT_OWNER, new Date());

  const tokenizer = context.chunking.tokenizer ?? cl100kTokenizer();
  const modelName = query.modelName ?? agent.modelName;
  const resolved = chat.resolveModel?.(modelName);
  const modelId = resolved?.id ?? modelName;
  const window = resolved?.contextWindow ?? MODEL_CONTEXT_WINDOWS[modelName];

  const rerankTopN = query.rerank?.topN ?? agent.settings.rerankTopN ?? undefined;
  if (rerankTopN !== undefined) assertCanRerank(context, query.rerank ? 'rerank' : 'settings.rerankTopN');
  const { fragments, missingDatastoreIds, rerank } = await retrieveForAgent(
    context,
    narrowDatastores(agent.datastoreIds, query.filters?.datastore_ids),
    query.query,
    options.retrievalTopK,
    query.filters,
    rerankTopN === undefined ? undefined : { topN: rerankTopN },
    signal,
  );
  const warnings = missingDatastoreIds.map((id) => `datastore ${id} no longer exists and was skipped`);
  if (agent.datastoreIds.length === 0) warnings.push('the agent reads no datastore, so it answers without context');
  const ignored = ignoredFieldsWarning(query);
  if (ignored) warnings.push(ignored);
  const uploadScope = {
    agentId: agent.id,
    continuedConversationId: isNew ? null : conversation.id,
    requestedConversationId: query.conversationId,
    visitorId: conversation.visitorId,
    now: context.uploadClock,
  };
  const attached = await readAttachments(
    {
      web: context.web,
      files: context.files,
      maxFileBytes: context.usage.maxFileBytes,
      owner: agent.ownerId ?? undefined,
      uploaded: (url) => readUploadedAttachment(context.accounts, url, uploadScope),
    },
    query.attachments ?? [],
    signal,
    {
      limits: options.attachments,
      clock: options.attachmentClock,
      visitor:
        caller === 'visitor' && admission.visitorAttachments ? { budget: admission.visitorAttachments, agentId: agent.id } : undefined,
    },
  );
  warnings.push(...attached.warnings);
  // Retrieval and memory use the question alone; the model also gets the attached files' text.
  const modelQuery = withAttachments(query.query, attached.parts);

  const basePrompts = resolvePrompts(agent, query);
  const prompts = { ...basePrompts, system: withSettingsInstructions(basePrompts.system, agent) };
  // The caller's context is user-side text (see withCallerContext), whoever sent it.
  const userContent = (passagesText: string) => withCallerContext(fillUserPrompt(prompts.user, modelQuery, passagesText), query.context);
  const fixed =
    (prompts.system === null ? 0 : tokenizer.count(prompts.system) + MESSAGE_OVERHEAD_TOKENS) +
    tokenizer.count(userContent('')) +
    MESSAGE_OVERHEAD_TOKENS;
  const answerTokens = query.maxTokens ?? options.budget.answerReserve;
  if (fixed + answerTokens > window) {
    throw new RagdeskError(
      'invalid_request',
      `The prompt (${fixed} tokens) plus maxTokens (${answerTokens}) exceeds the ${window}-token window of ${modelId}`,
      { details: { issues: [{ path: 'maxTokens', message: `at most ${Math.max(0, window - fixed)} for this prompt` }] } },
    );
  }
  const split = splitBudget(window, fixed, answerTokens, options.budget);

  const datasources = await readDatasourceRefs(
    context.retrieval,
    fragments.map((fragment) => fragment.datasource_id),
  );
  const fitted = fitPassages(fragments, datasources, split.context, tokenizer);
  const used = fragments.slice(0, fitted.length).map((fragment, i) => ({ ...fragment, text: fitted[i]!.text }));
  // Passages are numbered by their datasource's entry in `sources`, so `[n]` always names sources[n-1].
  const numbers = citationNumbers(used);
  const passages = fitted.map((passage, i) => ({ ...passage, number: numbers[i]! }));
  const sources = buildSources(used, datasources);
  const showSources = includesSources(agent);
  const contextText = passages.map((passage) => formatPassage(passage.number, passage.label, passage.text)).join('\n\n');
  const history = admission.history
    ? fitHistory(admission.history, split.memory, tokenizer)
    : isNew
      ? []
      : await loadMemory(context.accounts, conversation, split.memory, tokenizer);

  const request: ChatRequest = {
    messages: assembleMessages(prompts, history, userContent(contextText)),
    model: modelId,
    temperature: query.temperature ?? agent.temperature,
    ...(query.topP === undefined ? {} : { topP: query.topP }),
    ...(query.presencePenalty === undefined ? {} : { presencePenalty: query.presencePenalty }),
    ...(query.frequencyPenalty === undefined ? {} : { frequencyPenalty: query.frequencyPenalty }),
    ...(query.maxTokens === undefined ? {} : { maxTokens: query.maxTokens }),
    ...(signal ? { signal } : {}),
    grounding: { query: query.query, passages, restrictKnowledge: restrictsKnowledge(agent) },
  };
  return {
    agent,
    conversation,
    isNewConversation: isNew,
    query: query.query,
    request,
    modelId,
    sources: showSources ? sources : [],
    citations: { count: showSources ? sources.length : 0, warn: showSources },
    warnings,
    startedAt,
    ...(rerank ? { rerank } : {}),
  };
}

/**
 * Best passages first until the context budget is spent; the first is cut to fit rather than
 * dropped. Returns a prefix of `fragments`, in order.
 */
function fitPassages(
  fragments: readonly { text: string; datasource_id: string; datasource_name: string; page_number: number | null }[],
  datasources: ReadonlyMap<string, DatasourceRef>,
  budget: number,
  tokenizer: Tokenizer,
): GroundingPassage[] {
  // Numbered for the budget's count only; the caller numbers the passages that fit by datasource.
  const candidates = fragments.map((fragment, i) => {
    const name = datasources.get(fragment.datasource_id)?.name ?? fragment.datasource_name;
    const label = fragment.page_number === null ? `(${name})` : `(${name}, page ${fragment.page_number})`;
    return { number: i + 1, label, text: fragment.text };
  });
  const cost = (passage: GroundingPassage) => tokenizer.count(formatPassage(passage.number, passage.label, passage.text)) + 2;
  const fitting = takeWithinBudget(candidates, budget, cost);
  const first = candidates[0];
  if (fitting.length === 0 && first && budget > 64) {
    return [{ ...first, text: truncateToTokens(tokenizer, first.text, budget - cost({ ...first, text: '' })) }];
  }
  return fitting;
}
