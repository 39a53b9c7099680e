/** URL identity and the include / exclude patterns of a site crawl. */
import { readUrlPattern } from '../../src/text/url-patterns.js';
import { RagdeskError } from '../../src/errors.js';
import { compileWildcard, matchWildcard, type StepCounter, type WildcardPattern } from './wildcard-match.js';

/** The form URLs are deduplicated by: no fragment, default port dropped, lower-case host (WHATWG). */
export function normalizeUrl(input: string): string | undefined {
  try {
    const url = new URL(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

export type UrlMatcher = (url: string) => boolean;

/**
 * Character comparisons allowed for one URL against all include and exclude patterns (at most 100
 * of each, 500 characters long): a URL that needs more is skipped, as if excluded. Ordinary
 * patterns on ordinary URLs take hundreds of steps.
 */
const URL_FILTER_STEP_LIMIT = 1_000_000;

interface CompiledPattern {
  pattern: WildcardPattern;
  scope: 'url' | 'path';
}

/** See `readUrlPattern` for the syntax; a refused pattern is an `invalid_request` naming `field`. */
function compilePattern(source: string, field: string): CompiledPattern {
  const form = readUrlPattern(source);
  if ('refused' in form) {
    throw new RagdeskError('invalid_request', `${field}: ${form.refused}`, {
      details: { issues: [{ path: field, message: form.refused }] },
    });
  }
  return {
    pattern: compileWildcard(form.wildcard, { start: form.anchoredStart, end: form.anchoredEnd }),
    scope: form.scope,
  };
}

/** Any of `patterns` matching; `undefined` once `counter` is past its limit. */
function anyMatches(patterns: readonly CompiledPattern[], url: string, path: () => string, counter: StepCounter): boolean | undefined {
  for (const { pattern, scope } of patterns) {
    const matched = matchWildcard(pattern, scope === 'url' ? url : path(), counter);
    if (matched !== false) return matched;
  }
  return false;
}

/**
 * True when `url` passes the include list (if any) and matches no exclude pattern. `counter`
 * (tests) receives the steps spent; past its limit the URL is refused.
 */
export function urlFilter(
  include: readonly string[] = [],
  exclude: readonly string[] = [],
  stepLimit = URL_FILTER_STEP_LIMIT,
): (url: string, counter?: StepCounter) => boolean {
  const includes = include.map((pattern, index) => compilePattern(pattern, `include.${index}`));
  const excludes = exclude.map((pattern, index) => compilePattern(pattern, `exclude.${index}`));
  return (url, counter = { steps: 0, limit: stepLimit }) => {
    let pathAndQuery: string | undefined;
    const path = (): string => {
      if (pathAndQuery === undefined) {
        const parsed = new URL(url);
        pathAndQuery = `${parsed.pathname}${parsed.search}`;
      }
      return pathAndQuery;
    };
    if (includes.length > 0 && anyMatches(includes, url, path, counter) !== true) return false;
    return anyMatches(excludes, url, path, counter) === false;
  };
}
