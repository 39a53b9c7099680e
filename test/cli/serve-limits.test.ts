import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseServeArgs, startService } from '../../adapters/cli/serve-command.js';
import { DEFAULT_SERVE_LIMITS, parseServeLimits } from '../../adapters/cli/serve-limits.js';
import { UsageError } from '../../adapters/cli/io.js';
import { tempDir } from '../helpers/setups.js';
import { recordingIo } from './io.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('ragdesk serve limits', () => {
  it('has limits on by default and reads the flags', () => {
    expect(parseServeArgs([], ROOT).limits).toEqual(DEFAULT_SERVE_LIMITS);
    expect(DEFAULT_SERVE_LIMITS.queryLimit).not.toBeNull();
    expect(DEFAULT_SERVE_LIMITS.visitorQueriesPerMinute).toBeGreaterThan(0);
    expect(DEFAULT_SERVE_LIMITS.visitorConversationsPerMinute).toBeGreaterThan(0);
    expect(
      parseServeLimits({ 'query-limit': '50/hour', 'rate-limit': '0', 'visitor-query-rate': '6', 'visitor-conversation-rate': '2' }),
    ).toEqual({
      queryLimit: { maxQueries: 50, period: 'hour' },
      ratePerSecond: 0,
      visitorQueriesPerMinute: 6,
      visitorConversationsPerMinute: 2,
    });
    expect(parseServeLimits({ 'query-limit': 'none' }).queryLimit).toBeNull();
    for (const bad of ['50', '50/week', '-1/day', 'lots']) expect(() => parseServeLimits({ 'query-limit': bad })).toThrow(UsageError);
    expect(() => parseServeLimits({ 'visitor-query-rate': '-1' })).toThrow(/--visitor-query-rate must be a number >= 0/);
    expect(() => parseServeLimits({ 'rate-limit': '' })).toThrow(UsageError);
  });

  it("visitors of a public agent spend the owner's --query-limit and meet --visitor-conversation-rate (429, Retry-After)", async () => {
    const temp = tempDir('ragdesk-serve-limits-');
    try {
      const io = recordingIo();
      const args = [
        '--port',
        '0',
        '--data-dir',
        temp.dir,
        '--no-ui',
        '--no-preload',
        '--query-limit',
        '3/day',
        '--visitor-conversation-rate',
        '2',
      ];
      const service = await startService(parseServeArgs(args, ROOT), io);
      try {
        const call = async (path: string, body: unknown, key: string | null) => {
          const response = await fetch(`${service.origin}/api${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
            body: JSON.stringify(body),
          });
          return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
        };
        const key = service.createdKey!;
        const agent = await call('/agents', { name: 'public', description: 'd', visibility: 'public' }, key);
        const query = (body: Record<string, unknown>, as: string | null = null) =>
          call(`/agents/${agent.body.id as string}/query`, { query: 'hello', ...body }, as);
        const first = await query({});
        expect(first.status).toBe(200);
        expect((await query({})).status).toBe(200);
        // A third new conversation from this address within the minute: refused, nothing counted.
        const limited = await query({});
        expect(limited.status).toBe(429);
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        // Continuing a conversation is not a new one; it is the owner's third query of the day.
        expect((await query({ conversationId: first.body.conversationId, visitorId: first.body.visitorId })).status).toBe(200);
        // The owner's quota is spent by the visitor's three queries.
        const owner = await query({}, key);
        expect(owner.status).toBe(402);
        expect((owner.body.error as { code: string }).code).toBe('usage_limit');
      } finally {
        await service.close();
      }
    } finally {
      temp.remove();
    }
  });
});
