/**
 * A `Reranker` over the hosted `/rerank` endpoints, which share one request shape with small
 * differences in field names: a query, a list of texts, how many to return; an answer of (index,
 * score) pairs. Cohere (v2), Jina and Voyage take `documents`; Hugging Face Text Embeddings
 * Inference (TEI) takes `texts` and answers every text. Retries 429 (honouring Retry-After), 408
 * and 5xx and network failures, with a timeout per attempt.
 */
import { RagdeskError } from '../../src/errors.js';
import type { RerankedPassage, Reranker, RerankOptions } from '../../src/ports/reranker.js';
import { abortedError, retryAfterMs, sleep } from '../kit/call-waits.js';
import { integerOption, optionError } from '../kit/option-checks.js';

export type RerankProvider = 'cohere' | 'jina' | 'voyage' | 'tei';

export interface HttpRerankerOptions {
  provider: RerankProvider;
  /**
   * The endpoint. Defaults: Cohere `https://api.cohere.com/v2/rerank`, Jina
   * `https://api.jina.ai/v1/rerank`, Voyage `https://api.voyageai.com/v1/rerank`; TEI has none
   * (your server's `http://host:port/rerank`).
   */
  url?: string;
  /** Sent as `Authorization: Bearer …` (TEI: only when set). */
  apiKey?: string;
  /** The provider's model id (required but for TEI, which serves one model). */
  model?: string;
  /** Time one attempt may take (default 30,000 ms). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Backoff before the first retry (default 500 ms), doubling for each further one. */
  retryDelayMs?: number;
  /** Longest Retry-After honoured (default 60,000 ms); a longer one fails at once with `rate_limited`. */
  maxRetryAfterMs?: number;
}

/** What tests replace: the clock of timeouts and waits, and fetch. Not part of the public options. */
export interface RerankerSeams {
  fetch?: typeof fetch;
  /** Calls `fire` after `ms` unless cancelled (default: setTimeout). */
  schedule?: (ms: number, fire: () => void) => () => void;
  /** Waits between attempts (default: a timer the signal ends). */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

const DEFAULT_URLS: Partial<Record<RerankProvider, string>> = {
  cohere: 'https://api.cohere.com/v2/rerank',
  jina: 'https://api.jina.ai/v1/rerank',
  voyage: 'https://api.voyageai.com/v1/rerank',
};

export function httpReranker(options: HttpRerankerOptions): Reranker {
  return createHttpReranker(options, {});
}

export function createHttpReranker(options: HttpRerankerOptions, seams: RerankerSeams): Reranker {
  const { provider } = options;
  const owner = 'httpReranker';
  if (!['cohere', 'jina', 'voyage', 'tei'].includes(provider)) {
    throw optionError(owner, 'provider', 'must be cohere, jina, voyage or tei', provider);
  }
  const url = options.url ?? DEFAULT_URLS[provider];
  if (!url || !/^https?:\/\//.test(url)) throw optionError(owner, 'url', `must be an http(s) URL (required for ${provider})`, url);
  if (provider !== 'tei' && !options.model) throw optionError(owner, 'model', `is required for ${provider}`, options.model);
  const timeoutMs = integerOption(owner, 'timeoutMs', options.timeoutMs, 30_000);
  const attempts = integerOption(owner, 'maxRetries', options.maxRetries, 2, 0) + 1;
  const retryDelayMs = integerOption(owner, 'retryDelayMs', options.retryDelayMs, 500, 0);
  const maxRetryAfterMs = integerOption(owner, 'maxRetryAfterMs', options.maxRetryAfterMs, 60_000, 0);
  const doFetch = seams.fetch ?? fetch;
  const schedule =
    seams.schedule ??
    ((ms: number, fire: () => void) => {
      const timer = setTimeout(fire, ms);
      return () => clearTimeout(timer);
    });
  const wait = seams.sleep ?? sleep;
  const model = `${provider}:${options.model ?? 'tei'}`;

  async function attempt(body: string, signal: AbortSignal | undefined): Promise<unknown> {
    const controller = new AbortController();
    let timedOut = false;
    const cancel = schedule(timeoutMs, () => {
      timedOut = true;
      controller.abort();
    });
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await doFetch(url!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body,
        signal: controller.signal,
      });
      const text = await response.text();
      if (!response.ok) throw statusError(provider, response.status, text, response.headers);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new RagdeskError('upstream_failed', `${provider} rerank answered a body that is not JSON`, {
          details: { status: response.status },
        });
      }
    } catch (error) {
      if (RagdeskError.isInstance(error)) throw error;
      if (signal?.aborted) throw abortedError(signal, error);
      if (timedOut) {
        throw new RagdeskError('upstream_timeout', `${provider} rerank took longer than ${timeoutMs} ms`, {
          retryable: true,
          details: { timeoutMs },
        });
      }
      throw new RagdeskError('upstream_failed', `${provider} rerank could not be reached: ${(error as Error).message}`, {
        retryable: true,
        cause: error,
      });
    } finally {
      cancel();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    specificationVersion: 'v1',
    model,
    async rerank(query: string, passages: readonly string[], topN: number, callOptions: RerankOptions = {}): Promise<RerankedPassage[]> {
      const wanted = Math.min(Math.max(0, Math.floor(topN)), passages.length);
      if (wanted === 0) return [];
      const { signal } = callOptions;
      if (signal?.aborted) throw abortedError(signal);
      const body = JSON.stringify(requestBody(provider, options.model, query, passages, wanted));
      for (let retry = 0; ; retry++) {
        try {
          return parseAnswer(provider, await attempt(body, signal), passages.length, wanted);
        } catch (error) {
          const failure = error as RagdeskError;
          if (!failure.retryable || retry + 1 >= attempts) throw failure;
          const asked = failure.details?.['retryAfterMs'];
          if (typeof asked === 'number' && asked > maxRetryAfterMs) throw failure;
          await wait(typeof asked === 'number' ? asked : retryDelayMs * 2 ** retry, signal);
        }
      }
    },
  };
}

function requestBody(
  provider: RerankProvider,
  model: string | undefined,
  query: string,
  passages: readonly string[],
  topN: number,
): object {
  switch (provider) {
    case 'cohere':
      return { model, query, documents: passages, top_n: topN };
    case 'jina':
      return { model, query, documents: passages, top_n: topN, return_documents: false };
    case 'voyage':
      return { model, query, documents: passages, top_k: topN, return_documents: false, truncation: true };
    case 'tei':
      return { query, texts: passages, truncate: true, raw_scores: false, return_text: false };
  }
}

/** The provider's list of (index, score), checked, best first, at most `topN`. */
function parseAnswer(provider: RerankProvider, body: unknown, count: number, topN: number): RerankedPassage[] {
  const list =
    provider === 'tei' ? body : provider === 'voyage' ? (body as { data?: unknown })?.data : (body as { results?: unknown })?.results;
  if (!Array.isArray(list)) throw malformed(provider, 'no list of results');
  const seen = new Set<number>();
  const ranked: RerankedPassage[] = [];
  for (const item of list as unknown[]) {
    const record = (item ?? {}) as Record<string, unknown>;
    const index = record.index;
    const score = provider === 'tei' ? record.score : record.relevance_score;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || seen.has(index)) {
      throw malformed(provider, `a result names passage ${JSON.stringify(index)} of ${count}`);
    }
    if (typeof score !== 'number' || !Number.isFinite(score)) throw malformed(provider, `passage ${index} has no numeric score`);
    seen.add(index);
    ranked.push({ index, score });
  }
  return ranked.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, topN);
}

function malformed(provider: RerankProvider, what: string): RagdeskError {
  return new RagdeskError('upstream_failed', `${provider} rerank answered an unexpected body: ${what}`);
}

/** 429 → rate_limited (with the wait asked for); 408 and 5xx → retryable; other 4xx → not. */
function statusError(provider: RerankProvider, status: number, text: string, headers: Headers): RagdeskError {
  const message = providerMessage(text);
  const detail = `${provider} rerank answered ${status}${message ? `: ${message}` : ''}`;
  if (status === 429) {
    const wait = retryAfterMs(headers);
    return new RagdeskError('rate_limited', detail, {
      retryable: true,
      details: { status, ...(wait === undefined ? {} : { retryAfterMs: wait }) },
    });
  }
  return new RagdeskError('upstream_failed', detail, { retryable: status === 408 || status >= 500, details: { status } });
}

/** The error text of the providers' bodies: Cohere `message`, Jina and Voyage `detail`, TEI `error`. */
function providerMessage(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    for (const key of ['message', 'detail', 'error']) {
      const value = body[key];
      if (typeof value === 'string') return value.slice(0, 500);
    }
  } catch {
    // Not JSON: the start of the text says enough.
  }
  return text.slice(0, 200);
}
