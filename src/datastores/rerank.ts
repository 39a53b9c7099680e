import { z } from 'zod';
import type { RagdeskContext } from '../context.js';
import { RagdeskError } from '../errors.js';
import type { DocumentFragment } from './fragment.js';

/** Hosted rerank endpoints take up to 1,000 passages per call (Cohere's limit; the others' are lower or equal). */
export const MAX_RERANK_CANDIDATES = 1000;

/** `rerank` of a query: how many first-stage candidates the reranker orders. */
export const rerankSchema = z
  .object({
    topN: z.int().min(1).max(MAX_RERANK_CANDIDATES),
  })
  .strict();

export type RerankInput = z.output<typeof rerankSchema>;

/** What reranking did to one query, reported beside its results. */
export interface RerankReport {
  /** The reranker's `model`. */
  model: string;
  /** First-stage candidates it ordered. */
  candidates: number;
  /** Wall time of the reranker call, in milliseconds: what reranking added to the query. */
  ms: number;
}

/** Refuses `rerank` on an instance without a reranker, naming the field. */
export function assertCanRerank(context: RagdeskContext, field = 'rerank'): void {
  if (context.reranker) return;
  throw new RagdeskError('invalid_request', `${field}: this ragdesk instance has no reranker (createRagdesk({ reranker }))`, {
    details: { issues: [{ path: field, message: 'no reranker is configured' }] },
  });
}

/**
 * The `topK` best of `candidates` by the reranker, each with its `rerank_score`. The reranker's
 * answer is checked: an index out of range, repeated, or a score that is not a finite number is
 * `upstream_failed`, never a wrong fragment.
 */
export async function rerankFragments(
  context: RagdeskContext,
  query: string,
  candidates: readonly DocumentFragment[],
  topK: number,
  signal?: AbortSignal,
): Promise<{ fragments: DocumentFragment[]; report: RerankReport }> {
  assertCanRerank(context);
  const reranker = context.reranker!;
  const started = performance.now();
  const wanted = Math.min(topK, candidates.length);
  const ranked =
    candidates.length === 0
      ? []
      : await reranker.rerank(
          query,
          candidates.map((fragment) => fragment.text),
          wanted,
          signal ? { signal } : {},
        );
  const ms = performance.now() - started;
  const seen = new Set<number>();
  const fragments: DocumentFragment[] = [];
  for (const { index, score } of ranked.slice(0, wanted)) {
    if (!Number.isInteger(index) || index < 0 || index >= candidates.length || seen.has(index) || !Number.isFinite(score)) {
      throw new RagdeskError('upstream_failed', `Reranker ${reranker.model} answered an invalid passage index or score`, {
        details: { index, score, passages: candidates.length },
      });
    }
    seen.add(index);
    fragments.push({ ...candidates[index]!, rerank_score: score });
  }
  return { fragments, report: { model: reranker.model, candidates: candidates.length, ms } };
}
