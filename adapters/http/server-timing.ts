import type { RerankReport } from '../../src/index.js';

/** A `Server-Timing` value for the reranker's share of a query (milliseconds, as the header wants them). */
export function rerankTiming(report: RerankReport): string {
  return `rerank;dur=${report.ms.toFixed(2)};desc="${report.model.replace(/["\\\r\n]/g, '')} over ${report.candidates}"`;
}
