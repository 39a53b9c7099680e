/**
 * Headers on every answer of the HTTP adapter (JSON, errors, empty answers, event streams): a
 * browser must not guess another type than the one declared (a JSON error quoting a document
 * title must never be sniffed as HTML).
 */
export const NOSNIFF: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff' };
