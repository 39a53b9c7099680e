import { describe, expect, expectTypeOf, it } from 'vitest';
import { DEFAULT_MODEL_TABLE, SPEC_MODEL_TABLE, modelTable, resolveModel } from '../../adapters/openai/index.js';
import { MODEL_CONTEXT_WINDOWS, SPEC_MODEL_WINDOWS, type ModelName, type SpecModelName } from '../../src/index.js';

// The old Spec* names stay exported as deprecated aliases for one minor version; code written
// against either name must keep working until then.
describe('renamed model exports', () => {
  it('exports the model table under its new name and its deprecated one', () => {
    expect(DEFAULT_MODEL_TABLE.gpt_4).toEqual({ id: 'gpt-4.1', contextWindow: 1_047_576 });
    expect(SPEC_MODEL_TABLE).toBe(DEFAULT_MODEL_TABLE);
    expect(modelTable()).toEqual(DEFAULT_MODEL_TABLE);
    expect(resolveModel('gpt_3_5_turbo')).toEqual(DEFAULT_MODEL_TABLE.gpt_3_5_turbo);
  });

  it('exports the context windows under their new name and their deprecated one', () => {
    expect(MODEL_CONTEXT_WINDOWS.gpt_4_32k).toBe(32_768);
    expect(SPEC_MODEL_WINDOWS).toBe(MODEL_CONTEXT_WINDOWS);
  });

  it('keeps SpecModelName as the same type as ModelName', () => {
    expectTypeOf<SpecModelName>().toEqualTypeOf<ModelName>();
    const names: SpecModelName[] = Object.keys(DEFAULT_MODEL_TABLE) as ModelName[];
    expect(names.sort()).toEqual(['gpt_3_5_turbo', 'gpt_3_5_turbo_16k', 'gpt_4', 'gpt_4_32k']);
  });
});
