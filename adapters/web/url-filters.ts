/** URL identity and the include / exclude patterns of a site crawl. */
import { RagdeskError } from '../../src/errors.js';

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
 * `/source/` is a regular expression searched anywhere in the URL; anything else is a glob where
 * `*` matches any run of characters, matched against the whole URL when it has a scheme
 * (`https://example.com/docs/*`), else against path and query (`/docs/*`, `*.html`).
 */
function compilePattern(pattern: string, field = 'pattern'): UrlMatcher {
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern.slice(1, -1));
    } catch (error) {
      throw new RagdeskError('invalid_request', `${field} is not a valid regular expression: ${pattern}`, {
        cause: error,
        details: { issues: [{ path: field, message: 'invalid regular expression' }] },
      });
    }
    return (url) => regex.test(url);
  }
  const glob = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  const wholeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(pattern);
  return (url) => {
    if (wholeUrl) return glob.test(url);
    const parsed = new URL(url);
    return glob.test(`${parsed.pathname}${parsed.search}`);
  };
}

/** True when `url` passes the include list (if any) and matches no exclude pattern. */
export function urlFilter(include: readonly string[] = [], exclude: readonly string[] = []): UrlMatcher {
  const includes = include.map((pattern, index) => compilePattern(pattern, `include.${index}`));
  const excludes = exclude.map((pattern, index) => compilePattern(pattern, `exclude.${index}`));
  return (url) => (includes.length === 0 || includes.some((matches) => matches(url))) && !excludes.some((matches) => matches(url));
}
