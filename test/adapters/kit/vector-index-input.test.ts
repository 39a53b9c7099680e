import { describe, expect, it } from 'vitest';
import { checkEntries, checkEntriesYielding } from '../../../adapters/kit/vector-index-input.js';
import { RagdeskError } from '../../../src/errors.js';
import type { IndexEntry } from '../../../src/ports/index.js';

const entry = (i: number, vector = new Float32Array([1, 0, 0])): IndexEntry => ({ id: `c${i}`, datasourceId: 'd', customId: null, vector });

async function refusal(run: () => unknown): Promise<RagdeskError> {
  try {
    await run();
  } catch (error) {
    if (RagdeskError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('checkEntries / checkEntriesYielding', () => {
  it('accept good entries', async () => {
    const entries = Array.from({ length: 3000 }, (_, i) => entry(i));
    expect(() => checkEntries(entries, 3)).not.toThrow();
    await expect(checkEntriesYielding(entries, 3)).resolves.toBeUndefined();
  });

  it('name the same entry whether checked whole or in slices, past the first slice', async () => {
    const entries = Array.from({ length: 3000 }, (_, i) => entry(i));
    entries[2500] = entry(2500, new Float32Array([1, Number.NaN, 0]));
    const whole = await refusal(() => checkEntries(entries, 3));
    const sliced = await refusal(() => checkEntriesYielding(entries, 3));
    expect(whole.code).toBe('invalid_request');
    expect(sliced.code).toBe('invalid_request');
    expect(JSON.stringify(sliced.details)).toContain('entries.2500.vector.1');
    expect(sliced.details).toEqual(whole.details);
  });

  it('hand the event loop back while checking a large batch', async () => {
    const entries = Array.from({ length: 5000 }, (_, i) => entry(i));
    let otherWorkRan = false;
    setImmediate(() => {
      otherWorkRan = true;
    });
    await checkEntriesYielding(entries, 3);
    expect(otherWorkRan).toBe(true);
  });
});
