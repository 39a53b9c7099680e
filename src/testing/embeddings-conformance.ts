import { afterEach, describe, expect, it } from 'vitest';
import { RagdeskError } from '../errors.js';
import type { Embeddings } from '../ports/embeddings.js';
import { samplePassages } from './sample-texts.js';

/** How the suite gets the embedder under test, and what that embedder promises. */
export interface EmbeddingsHarness {
  /** The embedder under test; called at the start of every test. */
  create(): Embeddings | Promise<Embeddings>;
  /** Vectors have unit length (default true; OpenAI's and the offline embedder's do). */
  normalized?: boolean;
  /**
   * Least cosine similarity between two embeddings of one text, in separate calls or batched with
   * others (default 0.99999). Hosted models are not bit-exact across batches: give them ~0.999.
   */
  sameTextSimilarity?: number;
  /** Largest batch the suite sends at once (default: `maxBatchSize`, capped at 256 to stay fast). */
  largestBatch?: number;
  /** Runs after every test. */
  cleanup?(): void | Promise<void>;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(normA * normB);
}

function norm(vector: Float32Array): number {
  let sum = 0;
  for (const value of vector) sum += value * value;
  return Math.sqrt(sum);
}

/**
 * The Embeddings contract (`src/ports/embeddings.ts`), for every embedder: one finite vector of
 * `dimensions` per text in input order, determinism, normalisation, empty and blank inputs, full
 * batches, usage and aborts.
 */
export function describeEmbeddingsConformance(label: string, harness: EmbeddingsHarness): void {
  const similar = harness.sameTextSimilarity ?? 0.99999;
  const texts = samplePassages(6, 41);

  describe(`Embeddings conformance: ${label}`, () => {
    let embeddings: Embeddings;

    async function create(): Promise<Embeddings> {
      embeddings = await harness.create();
      return embeddings;
    }

    function expectVectors(vectors: Float32Array[], count: number): void {
      expect(vectors).toHaveLength(count);
      for (const vector of vectors) {
        expect(vector).toBeInstanceOf(Float32Array);
        expect(vector.length).toBe(embeddings.dimensions);
        expect(vector.every(Number.isFinite)).toBe(true);
        expect(norm(vector)).toBeGreaterThan(0);
        if (harness.normalized !== false) expect(norm(vector)).toBeCloseTo(1, 3);
      }
    }

    afterEach(async () => {
      await harness.cleanup?.();
    });

    it('describes itself: model id, dimensions, batch size, fusion weight', async () => {
      await create();
      expect(typeof embeddings.model).toBe('string');
      expect(embeddings.model.length).toBeGreaterThan(0);
      expect(Number.isInteger(embeddings.dimensions) && embeddings.dimensions > 0).toBe(true);
      expect(Number.isInteger(embeddings.maxBatchSize) && embeddings.maxBatchSize > 0).toBe(true);
      if (embeddings.fusionWeight !== undefined) {
        expect(Number.isFinite(embeddings.fusionWeight) && embeddings.fusionWeight > 0).toBe(true);
      }
    });

    it('returns one finite vector of `dimensions` per text, for documents and queries', async () => {
      await create();
      for (const purpose of ['document', 'query'] as const) {
        const result = await embeddings.embed(texts, { purpose });
        expectVectors(result.vectors, texts.length);
        expect(Number.isInteger(result.usage.tokens)).toBe(true);
        expect(result.usage.tokens).toBeGreaterThan(0);
      }
    });

    it('keeps input order in a batch: each vector matches its own text embedded alone', async () => {
      await create();
      const batch = (await embeddings.embed(texts, { purpose: 'document' })).vectors;
      const alone = await Promise.all(texts.map(async (text) => (await embeddings.embed([text], { purpose: 'document' })).vectors[0]!));
      batch.forEach((vector, i) => {
        expect(cosine(vector, alone[i]!)).toBeGreaterThanOrEqual(similar);
        for (let j = 0; j < alone.length; j++) {
          if (j !== i) expect(cosine(vector, alone[j]!)).toBeLessThan(cosine(vector, alone[i]!));
        }
      });
    });

    it('is deterministic across calls, and different texts get different vectors', async () => {
      await create();
      const first = await embeddings.embed([texts[0]!, texts[1]!], { purpose: 'document' });
      const again = await embeddings.embed([texts[0]!], { purpose: 'document' });
      expect(cosine(first.vectors[0]!, again.vectors[0]!)).toBeGreaterThanOrEqual(similar);
      expect(cosine(first.vectors[0]!, first.vectors[1]!)).toBeLessThan(0.999);
    });

    it('an empty list gives no vectors and no usage', async () => {
      await create();
      const result = await embeddings.embed([], { purpose: 'document' });
      expect(result.vectors).toEqual([]);
      expect(result.usage.tokens).toBe(0);
    });

    it('blank texts get valid vectors and leave their neighbours untouched', async () => {
      await create();
      const result = await embeddings.embed(['', texts[2]!, '   \n', texts[3]!], { purpose: 'document' });
      expectVectors(result.vectors, 4);
      const alone = await embeddings.embed([texts[2]!, texts[3]!], { purpose: 'document' });
      expect(cosine(result.vectors[1]!, alone.vectors[0]!)).toBeGreaterThanOrEqual(similar);
      expect(cosine(result.vectors[3]!, alone.vectors[1]!)).toBeGreaterThanOrEqual(similar);
    });

    it('embeds a full batch in order', async () => {
      await create();
      const size = Math.min(harness.largestBatch ?? embeddings.maxBatchSize, embeddings.maxBatchSize, 256);
      const many = samplePassages(size, 43).map((text, i) => `${i}: ${text}`);
      const result = await embeddings.embed(many, { purpose: 'document' });
      expectVectors(result.vectors, size);
      const probes = [0, Math.floor(size / 2), size - 1];
      const alone = (
        await embeddings.embed(
          probes.map((i) => many[i]!),
          { purpose: 'document' },
        )
      ).vectors;
      probes.forEach((index, k) => expect(cosine(result.vectors[index]!, alone[k]!)).toBeGreaterThanOrEqual(similar));
    });

    it('an aborted signal rejects the call', async () => {
      await create();
      const controller = new AbortController();
      controller.abort();
      const failure = await embeddings.embed(texts, { purpose: 'query', signal: controller.signal }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure, 'embed resolved despite an aborted signal').toBeDefined();
      // `aborted` RagdeskError, or the platform's AbortError from `signal.throwIfAborted()`.
      const code = RagdeskError.isInstance(failure) ? failure.code : (failure as Error).name;
      expect(['aborted', 'AbortError']).toContain(code);
    });
  });
}
