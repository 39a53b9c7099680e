import type { LoadInput, LoadedDocument, Loader } from '../../src/ports/loader.js';
import { couldNotParse } from './loader-errors.js';
import { MIME } from './mime-types.js';
import { describe, readText } from './text-loaders.js';

/**
 * JSON as indented `key: value` lines (YAML-like): every key and value is kept, strings appear
 * unquoted and unescaped so their words match queries, nesting is shown by indentation.
 */
export function jsonLoader(): Loader {
  return {
    name: 'json',
    mimeTypes: [MIME.json],
    async load(input: LoadInput): Promise<LoadedDocument> {
      let value: unknown;
      try {
        value = JSON.parse(readText(input).replace(/^\uFEFF/, ''));
      } catch (error) {
        throw couldNotParse(describe(input), input.mimeType, error);
      }
      const text = renderJson(value, '').join('\n');
      return { mimeType: input.mimeType, sections: text.trim() === '' ? [] : [{ text }] };
    },
  };
}

export function renderJson(value: unknown, indent: string): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item) => {
      if (item === null || typeof item !== 'object' || Object.keys(item).length === 0) {
        return entry(`${indent}-`, item, `${indent}  `);
      }
      // YAML style: the first line of a nested block goes on the dash line.
      const [first = '', ...rest] = renderJson(item, `${indent}  `);
      return [`${indent}- ${first.slice(indent.length + 2)}`, ...rest];
    });
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return [`${indent}{}`];
    return keys.flatMap((key) => entry(`${indent}${key}:`, (value as Record<string, unknown>)[key], `${indent}  `));
  }
  return [`${indent}${scalar(value, indent)}`];
}

function entry(prefix: string, value: unknown, childIndent: string): string[] {
  const isContainer = value !== null && typeof value === 'object';
  const isEmpty = isContainer && Object.keys(value).length === 0;
  if (isContainer && !isEmpty) return [prefix, ...renderJson(value, childIndent)];
  return [`${prefix} ${isEmpty ? (Array.isArray(value) ? '[]' : '{}') : scalar(value, childIndent)}`];
}

function scalar(value: unknown, indent: string): string {
  if (typeof value !== 'string') return String(value);
  return value.replace(/\r?\n/g, `\n${indent}`);
}
