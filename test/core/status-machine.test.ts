import { describe, expect, it } from 'vitest';
import { assertTransition, canTransition, isSettled } from '../../src/datasources/status-machine.js';
import { RagdeskError } from '../../src/index.js';
import type { DatasourceStatus } from '../../src/ports/records.js';

const ALL: DatasourceStatus[] = ['unsynched', 'pending', 'running', 'synched', 'error', 'usage_limit_reached'];

describe('datasource status machine', () => {
  it('allows the documented path and re-syncs through pending', () => {
    const path: DatasourceStatus[] = [
      'unsynched',
      'pending',
      'running',
      'synched',
      'pending',
      'running',
      'error',
      'pending',
      'running',
      'usage_limit_reached',
      'pending',
    ];
    for (let i = 1; i < path.length; i++) expect(canTransition(path[i - 1]!, path[i]!), `${path[i - 1]} -> ${path[i]}`).toBe(true);
  });

  it('rejects skipping pending or running, and leaving running sideways', () => {
    for (const from of ALL) {
      for (const to of ALL) {
        const allowed = canTransition(from, to);
        if (to === 'running') expect(allowed, `${from} -> running`).toBe(from === 'pending');
        if (['synched', 'error', 'usage_limit_reached'].includes(to)) expect(allowed, `${from} -> ${to}`).toBe(from === 'running');
        if (from === to) expect(allowed, `${from} -> itself`).toBe(false);
      }
    }
    expect(() => assertTransition('ds1', 'synched', 'running')).toThrow(RagdeskError);
    try {
      assertTransition('ds1', 'synched', 'running');
    } catch (error) {
      expect((error as RagdeskError).code).toBe('conflict');
      expect((error as RagdeskError).details).toEqual({ datasourceId: 'ds1', from: 'synched', to: 'running' });
    }
  });

  it('knows when no job is at work', () => {
    expect(ALL.filter(isSettled).sort()).toEqual(['error', 'synched', 'unsynched', 'usage_limit_reached']);
  });
});
