import { RagdeskError } from '../../src/errors.js';

/**
 * Adapter options checked at construction, refused with `invalid_request` naming the option as the
 * caller wrote it (`webLoader option timeoutMs ...`), so a bad setting fails before any work.
 */

/** `value`, or `fallback` when it is undefined; an integer below `min` is refused. */
export function integerOption(owner: string, name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new RagdeskError('invalid_request', `${owner} option ${name} must be an integer >= ${min}, got ${String(value)}`, {
      details: { issues: [{ path: name, message: `must be an integer >= ${min}` }] },
    });
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
  throw new RagdeskError('invalid_request', `${owner} option ${name} must be ${listed}, got ${String(value)}`, {
    details: { issues: [{ path: name, message: `must be ${listed}` }] },
  });
}
