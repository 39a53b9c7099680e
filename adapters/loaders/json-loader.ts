import type { LoadInput, LoadedDocument, Loader } from '../../src/ports/loader.js';
import { couldNotParse, payloadTooLarge } from './loader-errors.js';
import { MIME } from './mime-types.js';
import { describe, readText } from './text-loaders.js';

/**
 * JSON as indented `key: value` lines (YAML-like): every key and value is kept, strings appear
 * unquoted and unescaped so their words match queries, nesting is shown by indentation.
 */
export function jsonLoader(): Loader {
  return {
    name: 'json',
    specificationVersion: 'v1',
    mimeTypes: [MIME.json],
    async load(input: LoadInput): Promise<LoadedDocument> {
      let value: unknown;
      try {
        value = JSON.parse(readText(input).replace(/^\uFEFF/, ''));
      } catch (error) {
        throw couldNotParse(describe(input), input.mimeType, error);
      }
      const text = renderJson(value, Math.max(MIN_RENDER_BUDGET, MAX_EXPANSION * input.bytes.byteLength));
      return { mimeType: input.mimeType, sections: text.trim() === '' ? [] : [{ text }] };
    },
  };
}

/** Indentation stops growing here: deeper levels keep their text at this indentation. */
export const MAX_JSON_INDENT_LEVELS = 16;
/** Rendered text may reach this many times the file's length (or 4 Mi characters) before it is refused. */
const MAX_EXPANSION = 8;
const MIN_RENDER_BUDGET = 4 * 1024 * 1024;

interface Frame {
  container: Record<string, unknown> | unknown[];
  keys: string[] | undefined;
  next: number;
  depth: number;
}

/**
 * Renders parsed JSON as YAML-like lines without recursion, so a document nested 100,000 deep is
 * just long, not a stack overflow. Indentation is capped at {@link MAX_JSON_INDENT_LEVELS} (deep
 * nesting would otherwise make the text quadratic in depth), and the text is refused with
 * `payload_too_large` once it passes `maxChars`, before it is built.
 */
export function renderJson(value: unknown, maxChars = Infinity): string {
  const lines: string[] = [];
  let total = 0;
  /** A `- ` prefix waiting for the first line of a nested block (YAML puts it on the dash line). */
  let pending: string | undefined;
  const emit = (depth: number, content: string): void => {
    const line = (pending ?? indentOf(depth)) + content;
    pending = undefined;
    total += line.length + 1;
    if (total > maxChars) {
      throw payloadTooLarge(`the JSON renders to more than ${maxChars} characters of text`, { reason: 'json_too_expansive', maxChars });
    }
    lines.push(line);
  };
  const stack: Frame[] = [];
  const open = (container: Record<string, unknown> | unknown[], depth: number): void => {
    stack.push({ container, keys: Array.isArray(container) ? undefined : Object.keys(container), next: 0, depth });
  };
  if (isNonEmptyContainer(value)) open(value, 0);
  else emit(0, leaf(value, 0));
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const { container, keys, depth } = frame;
    const size = keys === undefined ? (container as unknown[]).length : keys.length;
    if (frame.next >= size) {
      stack.pop();
      continue;
    }
    const index = frame.next++;
    if (keys === undefined) {
      const item = (container as unknown[])[index];
      if (!isNonEmptyContainer(item)) {
        emit(depth, `- ${leaf(item, depth + 1)}`);
        continue;
      }
      pending = `${pending ?? indentOf(depth)}- `;
      open(item, depth + 1);
    } else {
      const key = keys[index] as string;
      const item = (container as Record<string, unknown>)[key];
      if (!isNonEmptyContainer(item)) {
        emit(depth, `${key}: ${leaf(item, depth + 1)}`);
        continue;
      }
      emit(depth, `${key}:`);
      open(item, depth + 1);
    }
  }
  return lines.join('\n');
}

function indentOf(depth: number): string {
  return '  '.repeat(Math.min(depth, MAX_JSON_INDENT_LEVELS));
}

function isNonEmptyContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  if (value === null || typeof value !== 'object') return false;
  return Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0;
}

/** A scalar or an empty container; a string's line breaks continue at the next level's indentation. */
function leaf(value: unknown, continuationDepth: number): string {
  if (Array.isArray(value)) return '[]';
  if (value !== null && typeof value === 'object') return '{}';
  if (typeof value !== 'string') return String(value);
  return value.replace(/\r?\n/g, `\n${indentOf(continuationDepth)}`);
}
