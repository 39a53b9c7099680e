/** A copy of `array` with room for `capacity` elements (the first `array.length` kept). */
export function grow<T extends Int32Array | Uint32Array>(array: T, capacity: number): T {
  const next = new (array.constructor as new (length: number) => T)(capacity);
  next.set(array);
  return next;
}
