/**
 * `ragdesk/openai`: chat and embeddings through the `openai` package, against OpenAI or any
 * OpenAI-compatible server (Ollama, vLLM, LM Studio). See docs/openai.md.
 */
export { openaiChat, type OpenAIChatOptions } from './chat.js';
export { openaiEmbeddings, type OpenAIEmbeddingsOptions } from './embeddings.js';
export type { OpenAIConnectionOptions } from './connection.js';
export { DEFAULT_MODEL_TABLE, SPEC_MODEL_TABLE, modelTable, resolveModel, type ModelEntry, type ModelTable } from './models.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';
export type { MaxTokensField } from './chat-request.js';
