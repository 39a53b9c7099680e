import OpenAI, { type ClientOptions } from 'openai';
import { z } from 'zod';
import { RagdeskError } from '../../src/errors.js';
import { callRetryPolicy, type CallRetryPolicy, type RetryOptions } from './retry.js';

/** How the adapters reach a server; shared by `openaiChat` and `openaiEmbeddings`. */
export interface OpenAIConnectionOptions {
  /** Default: `OPENAI_API_KEY`. Local servers (Ollama, vLLM, LM Studio) ignore it; none is needed with `baseURL`. */
  apiKey?: string;
  /**
   * Any OpenAI-compatible server, e.g. `http://localhost:11434/v1` (Ollama), `http://localhost:8000/v1`
   * (vLLM), `http://localhost:1234/v1` (LM Studio). Default: `OPENAI_BASE_URL`, else OpenAI.
   */
  baseURL?: string;
  /** A ready client (then `apiKey`, `baseURL` and `clientOptions` are not used). */
  client?: OpenAI;
  /** Further `openai` client options (organization, project, defaultHeaders, fetch, logLevel...). */
  clientOptions?: Omit<ClientOptions, 'apiKey' | 'baseURL' | 'maxRetries'>;
  /**
   * Per attempt, in ms (default 120000). For `generate` and embeddings: the whole answer. For
   * `stream`: the wait for the first chunk and for each next one, so long answers are not cut.
   */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2; 0 turns retrying off). See `retry` for the waits. */
  maxRetries?: number;
  /** Backoff tuning for retries. */
  retry?: RetryOptions;
}

export interface Connection {
  client: OpenAI;
  timeoutMs: number;
  retry: CallRetryPolicy;
}

const DEFAULT_TIMEOUT_MS = 120_000;

const connectionSchema = z.object({
  apiKey: z.string().min(1).optional(),
  baseURL: z.url().optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxRetries: z.number().int().min(0).max(20).optional(),
  retry: z
    .object({
      initialDelayMs: z.number().min(0).optional(),
      maxDelayMs: z.number().min(0).optional(),
      maxRetryAfterMs: z.number().min(0).optional(),
    })
    .optional(),
});

/** Throws `invalid_request` naming every bad field, as the core's validation does. */
export function checkOptions<Schema extends z.ZodType>(schema: Schema, value: unknown, what: string): void {
  const result = schema.safeParse(value);
  if (result.success) return;
  const issues = result.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
  throw new RagdeskError('invalid_request', `Invalid ${what} options: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, {
    details: { issues },
  });
}

export function connect(options: OpenAIConnectionOptions, what: string): Connection {
  const { client, clientOptions: _clientOptions, ...plain } = options;
  checkOptions(connectionSchema, plain, what);
  return {
    client: client ?? newClient(options, what),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    retry: callRetryPolicy(options.maxRetries, options.retry),
  };
}

function newClient(options: OpenAIConnectionOptions, what: string): OpenAI {
  const baseURL = options.baseURL ?? process.env['OPENAI_BASE_URL'];
  const apiKey = options.apiKey ?? process.env['OPENAI_API_KEY'] ?? (baseURL ? 'not-needed' : undefined);
  if (apiKey === undefined) {
    throw new RagdeskError('invalid_request', `${what}: give apiKey (or set OPENAI_API_KEY), or a baseURL of a server that needs none`, {
      details: { issues: [{ path: 'apiKey', message: 'required without baseURL' }] },
    });
  }
  // The adapter retries on its own (see retry.ts); the client must not retry underneath it.
  return new OpenAI({ ...options.clientOptions, apiKey, ...(baseURL ? { baseURL } : {}), maxRetries: 0 });
}
