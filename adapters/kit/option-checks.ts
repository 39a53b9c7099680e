import { RagdeskError } from '../../src/errors.js';

/**
 * Adapter options checked at construction, refused with `invalid_request` naming the option as the
 * caller wrote it (`webLoader option timeoutMs ...`), so a bad setting fails before any work. Every
 * adapter refuses a bad option this way.
 */

/** The refusal of option `name`: what it `must` be, and what it was. */
export function optionError(owner: string, name: string, must: string, value: unknown): RagdeskError {
  return new RagdeskError('invalid_request', `${owner} option ${name} ${must}, got ${String(value)}`, {
    details: { issues: [{ path: name, message: must }] },
  });
}

/** `value`, or `fallback` when it is undefined; an integer below `min` (or above `max`) is refused. */
export function integerOption(
  owner: string,
  name: string,
  value: number | undefined,
  fallback: number,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    const must = max === Number.MAX_SAFE_INTEGER ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${max}`;
    throw optionError(owner, name, must, value);
  }
  return value;
}

/**
 * `value`, or `fallback` when it is undefined; a number below `min` (at or below it when
 * `exclusive`), NaN, or Infinity unless `infinite`, is refused.
 */
export function numberOption<Fallback extends number | undefined>(
  owner: string,
  name: string,
  value: number | undefined,
  fallback: Fallback,
  { min = 0, exclusive = false, infinite = false }: { min?: number; exclusive?: boolean; infinite?: boolean } = {},
): number | Fallback {
  if (value === undefined) return fallback;
  const tooSmall = exclusive ? !(value > min) : !(value >= min);
  if (typeof value !== 'number' || tooSmall || (!infinite && !Number.isFinite(value))) {
    const bound = `${exclusive ? '>' : '>='} ${min}`;
    throw optionError(owner, name, `must be a ${infinite ? '' : 'finite '}number ${bound}`, value);
  }
  return value;
}

/** `value`, or `fallback` when it is undefined; anything but one of `choices` is refused. */
export function choiceOption<T extends string>(
  owner: string,
  name: string,
  value: string | undefined,
  choices: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if ((choices as readonly string[]).includes(value)) return value as T;
  const listed = choices.map((choice) => `'${choice}'`).join(' or ');
  throw optionError(owner, name, `must be ${listed}`, value);
}
