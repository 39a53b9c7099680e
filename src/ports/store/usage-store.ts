import type { UsageConsumption } from '../agent-key-usage-records.js';

/** Usage counters behind quotas and query limits (Store conformance: `usage counters`). */
export interface UsageStore {
  /**
   * Atomically adds `amount` to a usage counter unless that would exceed `limit`. Returns whether
   * it was added and the counter's value afterwards (unchanged when refused). Counters start at 0.
   */
  consumeUsage(request: UsageConsumption): Promise<{ allowed: boolean; used: number }>;
}
