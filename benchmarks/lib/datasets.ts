import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = HERE.includes(`${sep}dist${sep}`) ? join(HERE, '..', '..', '..') : join(HERE, '..', '..');

/**
 * The folder that holds the data sets (`datasets/`: SciFact, MNIST) and the real documents
 * (`corpus/docs/`) used by the quality tests and the benchmarks. They are never copied into the
 * repository: `RAGDESK_DATASETS_DIR` names the folder, and without it a `shared` folder beside the
 * checkout is used. This is the one place that knows where that is.
 */
export function datasetsDir(): string {
  const configured = process.env.RAGDESK_DATASETS_DIR;
  return configured ? resolve(configured) : resolve(REPO_ROOT, '..', 'shared');
}

/** A path inside the data sets folder, e.g. `datasetPath('datasets', 'scifact')`. */
export function datasetPath(...parts: string[]): string {
  return join(datasetsDir(), ...parts);
}

/**
 * How a result file names a data set: its path inside the data sets folder (`datasets/scifact`), or
 * its folder name when it lies elsewhere, never a path of the machine that ran it.
 */
export function datasetLabel(path: string): string {
  const inside = relative(datasetsDir(), resolve(path));
  if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) return inside.split(sep).join('/');
  return basename(resolve(path));
}

/** Why a benchmark or test skips when `path` is absent, or null when it is there. */
export function missingDataset(path: string): string | null {
  return existsSync(path) ? null : `${path} is absent (RAGDESK_DATASETS_DIR names the folder holding datasets/ and corpus/)`;
}
