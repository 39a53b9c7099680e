import { invalidRequest } from '../../src/errors.js';
import type { IndexCollection, IndexEntry } from '../../src/ports/index.js';
import { nextTurn } from '../../src/util/next-turn.js';

/**
 * What a `VectorIndex` is given, checked the same way by every index (HNSW, pgvector, the exact
 * in-memory one): a bad call fails with `invalid_request` naming the field, whichever index runs.
 */

/** Checked before anything is applied, so a bad batch leaves the collection untouched. */
export function checkEntries(entries: readonly IndexEntry[], dimensions: number, firstIndex = 0): void {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- `as unknown` keeps Array.isArray from narrowing the readonly array to any[] for the rest of the function
  if (!Array.isArray(entries as unknown)) throw invalidRequest('entries must be an array', [{ path: 'entries', message: 'not an array' }]);
  entries.forEach((entry, at) => {
    const i = firstIndex + at;
    if (typeof entry?.id !== 'string' || entry.id === '') {
      throw invalidRequest('entry id must be a non-empty string', [{ path: `entries.${i}.id`, message: 'required' }]);
    }
    if (typeof entry.datasourceId !== 'string') {
      throw invalidRequest('entry datasourceId must be a string', [{ path: `entries.${i}.datasourceId`, message: 'required' }]);
    }
    if (entry.customId !== null && typeof entry.customId !== 'string') {
      throw invalidRequest('entry customId must be a string or null', [{ path: `entries.${i}.customId`, message: 'invalid' }]);
    }
    checkVector(entry.vector, dimensions, `entries.${i}.vector`);
  });
}

/** Entries checked between two yields of {@link checkEntriesYielding}: ~2 ms at 384 dimensions. */
const CHECK_SLICE = 1024;

/**
 * {@link checkEntries} handing the event loop back every {@link CHECK_SLICE} entries: the 16,000
 * vectors of one large document were one 50-85 ms turn. Still checked whole before anything is
 * applied.
 */
export async function checkEntriesYielding(entries: readonly IndexEntry[], dimensions: number): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- see checkEntries
  if (!Array.isArray(entries as unknown) || entries.length <= CHECK_SLICE) return checkEntries(entries, dimensions);
  for (let start = 0; start < entries.length; start += CHECK_SLICE) {
    checkEntries(entries.slice(start, start + CHECK_SLICE), dimensions, start);
    await nextTurn();
  }
}

/**
 * A `Float32Array` of the collection's length (what the port promises; pgvector's text form and
 * hnswlib's copy rely on it). NaN or Infinity would poison every distance computed against the
 * point, so they are refused.
 */
export function checkVector(vector: Float32Array | undefined, dimensions: number, path: string): void {
  if (!(vector instanceof Float32Array)) {
    throw invalidRequest('vector must be a Float32Array', [{ path, message: `expected a Float32Array, got ${typeof vector}` }]);
  }
  const length = vector.length;
  if (length !== dimensions) {
    throw invalidRequest(`vector has ${length} dimensions, the collection has ${dimensions}`, [
      { path, message: `expected ${dimensions} dimensions, got ${length}` },
    ]);
  }
  for (let i = 0; i < dimensions; i++) {
    if (!Number.isFinite(vector[i])) {
      throw invalidRequest('vector components must be finite numbers', [{ path: `${path}.${i}`, message: 'not finite' }]);
    }
  }
}

export function checkTopK(topK: number): void {
  if (!Number.isInteger(topK) || topK < 0) {
    throw invalidRequest('topK must be a non-negative integer', [{ path: 'topK', message: String(topK) }]);
  }
}

export function checkSequence(sequence: number): void {
  if (!Number.isSafeInteger(sequence)) {
    throw invalidRequest('sequence must be an integer', [{ path: 'sequence', message: String(sequence) }]);
  }
}

export function checkCollection(collection: IndexCollection): void {
  if (typeof collection?.datastoreId !== 'string' || collection.datastoreId === '') {
    throw invalidRequest('collection datastoreId is required', [{ path: 'datastoreId', message: 'required' }]);
  }
  if (typeof collection.model !== 'string') {
    throw invalidRequest('collection model must be a string', [{ path: 'model', message: 'required' }]);
  }
  if (!Number.isInteger(collection.dimensions) || collection.dimensions < 1) {
    throw invalidRequest('collection dimensions must be a positive integer', [
      { path: 'dimensions', message: String(collection.dimensions) },
    ]);
  }
}

export function checkIds(ids: readonly string[]): void {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) {
    throw invalidRequest('ids must be an array of strings', [{ path: 'ids', message: 'invalid' }]);
  }
}
