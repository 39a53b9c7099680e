import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { datasetLabel, datasetPath, datasetsDir, missingDataset } from '../../fixtures/datasets.js';
import { tempDir } from '../helpers/setups.js';

describe('the data sets folder (RAGDESK_DATASETS_DIR)', () => {
  const dirs: { remove(): void }[] = [];
  const folder = () => {
    const made = tempDir();
    dirs.push(made);
    return made.dir;
  };
  afterEach(() => {
    vi.unstubAllEnvs();
    for (const made of dirs.splice(0)) made.remove();
  });

  it('is the folder the variable names, resolved', () => {
    const dir = folder();
    vi.stubEnv('RAGDESK_DATASETS_DIR', dir);
    expect(datasetsDir()).toBe(resolve(dir));
    expect(datasetPath('datasets', 'scifact')).toBe(join(resolve(dir), 'datasets', 'scifact'));
  });

  it('defaults to a shared folder beside the checkout', () => {
    vi.stubEnv('RAGDESK_DATASETS_DIR', '');
    expect(datasetsDir()).toBe(resolve(import.meta.dirname, '..', '..', '..', 'shared'));
  });

  it('names a data set in results by its place in the folder, never by a machine path', () => {
    const dir = folder();
    vi.stubEnv('RAGDESK_DATASETS_DIR', dir);
    expect(datasetLabel(join(dir, 'datasets', 'scifact'))).toBe('datasets/scifact');
    expect(datasetLabel('/elsewhere/beir/nfcorpus')).toBe('nfcorpus');
  });

  it('gives a printable reason to skip when a data set is absent', () => {
    const dir = folder();
    vi.stubEnv('RAGDESK_DATASETS_DIR', dir);
    const scifact = datasetPath('datasets', 'scifact');
    expect(missingDataset(scifact)).toContain('RAGDESK_DATASETS_DIR');
    mkdirSync(scifact, { recursive: true });
    expect(missingDataset(scifact)).toBeNull();
  });
});
