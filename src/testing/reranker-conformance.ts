/**
 * The Reranker conformance suite (`ragdesk/testing`): what the core relies on from any reranker.
 *
 *   describeRerankerConformance('cohere', { create: () => httpReranker({ provider: 'cohere', url, model, apiKey }) });
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RagdeskError } from '../errors.js';
import type { Reranker } from '../ports/reranker.js';

export interface RerankerHarness {
  /** The reranker under test; called at the start of every test. */
  create(): Reranker | Promise<Reranker>;
  /** Runs after every test. */
  cleanup?(): void | Promise<void>;
}

const QUERY = 'how do tides follow the moon';
const PASSAGES = [
  'Sourdough bread rises because wild yeast ferments the dough overnight.',
  'Ocean tides follow the moon: its gravity pulls the water into two bulges as the earth turns.',
  'A volcano erupts when magma pressure exceeds the strength of the crust.',
  'Photosynthesis stores light energy in glucose inside chloroplasts.',
  'Iron rusts when it reacts with oxygen and water.',
];

export function describeRerankerConformance(name: string, harness: RerankerHarness): void {
  describe(`Reranker conformance: ${name}`, () => {
    afterEach(async () => {
      await harness.cleanup?.();
    });

    it("declares the port's version and a model id", async () => {
      const reranker = await harness.create();
      expect(reranker.specificationVersion).toBe('v1');
      expect(typeof reranker.model).toBe('string');
      expect(reranker.model.length).toBeGreaterThan(0);
    });

    it('answers min(topN, passages) distinct indexes, best first, with finite scores', async () => {
      const reranker = await harness.create();
      for (const topN of [1, 3, PASSAGES.length, PASSAGES.length + 10]) {
        const ranked = await reranker.rerank(QUERY, PASSAGES, topN);
        expect(ranked).toHaveLength(Math.min(topN, PASSAGES.length));
        expect(new Set(ranked.map((passage) => passage.index)).size).toBe(ranked.length);
        for (const passage of ranked) {
          expect(Number.isInteger(passage.index) && passage.index >= 0 && passage.index < PASSAGES.length).toBe(true);
          expect(Number.isFinite(passage.score)).toBe(true);
        }
        for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1]!.score).toBeGreaterThanOrEqual(ranked[i]!.score);
      }
    });

    it('puts the passage that answers the query first', async () => {
      const reranker = await harness.create();
      expect((await reranker.rerank(QUERY, PASSAGES, 2))[0]!.index).toBe(1);
    });

    it('answers no passages with [] and refuses an aborted call with aborted', async () => {
      const reranker = await harness.create();
      expect(await reranker.rerank(QUERY, [], 5)).toEqual([]);
      const controller = new AbortController();
      controller.abort();
      const error = await reranker.rerank(QUERY, PASSAGES, 2, { signal: controller.signal }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(RagdeskError.isInstance(error) && error.code).toBe('aborted');
    });
  });
}
