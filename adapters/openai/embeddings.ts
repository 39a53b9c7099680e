import { z } from 'zod';
import { RagdeskError } from '../../src/errors.js';
import { cl100kTokenizer } from '../../src/ingest/tokenizer.js';
import type { EmbedOptions, EmbeddingResult, Embeddings } from '../../src/ports/embeddings.js';
import { decodeBase64Vector, floatVector } from './base64.js';
import { callWithRetries } from './call.js';
import { checkOptions, connect, type OpenAIConnectionOptions } from './connection.js';

export interface OpenAIEmbeddingsOptions extends OpenAIConnectionOptions {
  /** Default `text-embedding-3-small`. */
  model?: string;
  /**
   * Vector length. Default: the model's own (1536 for text-embedding-3-small and ada-002, 3072 for
   * text-embedding-3-large); required for other models (e.g. 768 for Ollama's nomic-embed-text).
   */
  dimensions?: number;
  /**
   * Send `dimensions` to the server (shortened text-embedding-3 vectors). Default: true exactly
   * when the model is a text-embedding-3 model and `dimensions` differs from its own length; other
   * servers may reject the field.
   */
  sendDimensions?: boolean;
  /**
   * Texts per request (default 128, at most 2048). OpenAI also caps a request at 300k tokens, so
   * 128 leaves room for 2,300-token chunks; lower it for larger chunks.
   */
  maxBatchSize?: number;
  /** Hybrid-retrieval weight of this embedder relative to bm25 (default 1). */
  fusionWeight?: number;
}

const NATIVE_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

const DEFAULT_MODEL = 'text-embedding-3-small';
const DEFAULT_BATCH = 128;

const embeddingsSchema = z.object({
  model: z.string().min(1).optional(),
  dimensions: z.number().int().min(1).max(65_536).optional(),
  sendDimensions: z.boolean().optional(),
  maxBatchSize: z.number().int().min(1).max(2048).optional(),
  fusionWeight: z.number().positive().optional(),
});

/** `Embeddings` over the embeddings API of OpenAI or any compatible server. */
export function openaiEmbeddings(options: OpenAIEmbeddingsOptions = {}): Embeddings {
  const { model = DEFAULT_MODEL, dimensions: given, sendDimensions, maxBatchSize = DEFAULT_BATCH, fusionWeight } = options;
  checkOptions(embeddingsSchema, { model, dimensions: given, sendDimensions, maxBatchSize, fusionWeight }, 'openaiEmbeddings');
  const native = NATIVE_DIMENSIONS[model];
  const dimensions = given ?? native;
  if (dimensions === undefined) {
    throw new RagdeskError('invalid_request', `openaiEmbeddings: give dimensions for model ${model} (its vector length)`, {
      details: { issues: [{ path: 'dimensions', message: `required for model ${model}` }] },
    });
  }
  const requestDimensions = sendDimensions ?? (model.startsWith('text-embedding-3-') && dimensions !== native);
  const connection = connect(options, 'openaiEmbeddings');
  const what = `openaiEmbeddings(${model})`;

  return {
    model,
    specificationVersion: 'v1',
    dimensions,
    maxBatchSize,
    ...(fusionWeight === undefined ? {} : { fusionWeight }),

    async embed(texts: readonly string[], embedOptions: EmbedOptions): Promise<EmbeddingResult> {
      if (embedOptions.signal?.aborted) {
        throw new RagdeskError('aborted', 'The call was aborted by the caller', { cause: embedOptions.signal.reason });
      }
      if (texts.length > maxBatchSize) {
        throw new RagdeskError('invalid_request', `${what}: at most ${maxBatchSize} texts per call, got ${texts.length}`);
      }
      const vectors: Float32Array[] = new Array<Float32Array>(texts.length);
      // Blank texts never go upstream: OpenAI answers 400 for "" in a batch and other servers reject
      // whitespace. They get one fixed unit vector (zero would turn cosine into NaN), as offline.
      const sent: number[] = [];
      texts.forEach((text, index) => {
        if (text.trim() === '') vectors[index] = blankVector(dimensions);
        else sent.push(index);
      });
      if (sent.length === 0) return { vectors, usage: { tokens: 0 } };

      const input = sent.map((index) => texts[index]!);
      const response = await callWithRetries(connection, embedOptions.signal, what, (signal) =>
        connection.client.embeddings.create(
          { model, input, encoding_format: 'base64', ...(requestDimensions ? { dimensions } : {}) },
          { signal, maxRetries: 0 },
        ),
      );
      const data = response.data ?? [];
      if (data.length !== input.length) {
        throw new RagdeskError('upstream_failed', `${what}: asked for ${input.length} embeddings, got ${data.length}`, {
          details: { reason: 'count_mismatch' },
        });
      }
      // Servers may answer out of order; `index` says which input each vector belongs to.
      data.forEach((item, position) => {
        const slot = Number.isInteger(item.index) ? item.index : position;
        const target = sent[slot];
        if (target === undefined || vectors[target] !== undefined) {
          throw new RagdeskError('upstream_failed', `${what}: embedding index ${item.index} is out of range or repeated`, {
            details: { reason: 'bad_index' },
          });
        }
        const raw: unknown = item.embedding;
        vectors[target] =
          typeof raw === 'string' ? decodeBase64Vector(raw, dimensions, what) : floatVector(raw as number[], dimensions, what);
      });
      const reported = response.usage?.prompt_tokens;
      const tokens = typeof reported === 'number' ? reported : input.reduce((sum, text) => sum + cl100kTokenizer().count(text), 0);
      return { vectors, usage: { tokens } };
    },
  };
}

const blankVectors = new Map<number, Float32Array>();

/** The same unit vector for every blank text: all components 1/sqrt(d). */
function blankVector(dimensions: number): Float32Array {
  let vector = blankVectors.get(dimensions);
  if (!vector) {
    vector = new Float32Array(dimensions).fill(1 / Math.sqrt(dimensions));
    blankVectors.set(dimensions, vector);
  }
  // A copy: callers own (and may normalise in place) what they receive.
  return vector.slice();
}
