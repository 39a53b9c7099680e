/**
 * bench:hostile-visitors at 1% of its sizes against `ragdesk serve` with its default limits, the
 * attacker's host on loopback let through by the web loader's address hook. Asserted: what each
 * limit did (named in warnings, 429s, conversations stored within the visitor rate), the server
 * alive and its memory near idle. Times are reported by the benchmark, never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { runVisitorBench } from '../../benchmarks/hostile-visitors.js';
import { DEFAULT_SERVE_LIMITS } from '../../adapters/cli/serve-limits.js';

describe('bench:hostile-visitors, scaled down', () => {
  it('bounds what anonymous visitors of a public agent make the server do', { timeout: 600_000 }, async () => {
    const result = await runVisitorBench({ scale: 0.01 });
    const rows = Object.fromEntries(result.rows.map((row) => [row.case, row]));
    expect(result.rows).toHaveLength(4);
    for (const row of result.rows) {
      const label = `${row.case}: ${row.outcome} ${JSON.stringify(row.figures)}`;
      expect(row.serverDied, label).toBe(false);
      expect(row.rssGrowthMiB, label).toBeLessThan(128);
    }
    const slow = rows['10 slow attachments, one anonymous query']!;
    expect(slow.outcome).toBe('http 200');
    expect(slow.figures.firstWarning).toContain('too_many_attachments');
    expect(slow.figures.warnings).toBe(6);

    const chain = rows['slow redirect chain, one anonymous query']!;
    expect(chain.outcome).toBe('http 200');
    expect(chain.figures.firstWarning).toContain('too_many_redirects');

    const bombs = rows['3 anonymous queries x 10 PDF bombs, owner uploads meanwhile']!;
    expect(bombs.outcome).toBe('200,200,200');

    const load = rows['anonymous load, 8 loops of new conversations']!;
    expect(load.outcome).toContain('429x');
    expect(load.figures.ownerQueryAfter).toBe(200);
    // One address: the conversation burst, then the per-minute rate over the case's own duration.
    const perSecond = DEFAULT_SERVE_LIMITS.visitorConversationsPerMinute / 60;
    const allowed = DEFAULT_SERVE_LIMITS.visitorConversationsPerMinute + Math.ceil(load.seconds * perSecond) + 1;
    // Earlier cases' queries started conversations too (one per query), plus the owner's.
    expect(load.figures.conversationsStored).toBeLessThanOrEqual(allowed + 6);
  });
});
