/**
 * The syntax of a site crawl's `include` / `exclude` patterns, read into one `*`-wildcard form that
 * the web loader matches in linear time. A glob (`/docs/*`, `*.pdf`, `https://site/docs/*`) is
 * matched against the whole URL when it has a scheme, else against path and query, anchored at
 * both ends. `/source/` is a regular expression searched in the full URL, accepted only when it
 * is a wildcard in disguise: literal characters (escaped punctuation included), `.*`, a leading
 * `^` and a trailing `$`. Groups, classes, alternation and other quantifiers are refused: run by
 * a backtracking engine they are exponential on hostile URLs (`/(a+)+$/` against one link froze
 * the server for 15 s), and a linear engine (RE2 ported to JavaScript) costs tens of ms per URL and pattern.
 */

export interface UrlPatternForm {
  /** The pattern with `*` as its only special character. */
  wildcard: string;
  /** What it is matched against: the whole URL, or path and query. */
  scope: 'url' | 'path';
  anchoredStart: boolean;
  anchoredEnd: boolean;
}

export interface RefusedUrlPattern {
  refused: string;
}

const URL_PATTERN_HINT = 'use a glob where * matches any characters (e.g. */docs/*, *.pdf), or list several patterns';

const REGEX_SPECIALS = new Set(['*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '^', '$', '.']);

function isRegexPattern(pattern: string): boolean {
  return pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/');
}

function refused(why: string): RefusedUrlPattern {
  return { refused: `regular expression ${why}; ${URL_PATTERN_HINT}` };
}

/** `/source/` as a wildcard, or why it cannot be one. */
function regexAsWildcard(body: string): UrlPatternForm | RefusedUrlPattern {
  let wildcard = '';
  let anchoredStart = false;
  let anchoredEnd = false;
  let i = 0;
  if (body.startsWith('^')) {
    anchoredStart = true;
    i = 1;
  }
  while (i < body.length) {
    const character = body[i]!;
    if (character === '\\') {
      const escaped = body[i + 1] ?? '';
      // `\.` `\/` `\?` are literal; `\d` `\w` `\b` `\1` are classes, anchors and back-references.
      if (escaped === '' || escaped === '*' || /\w/.test(escaped)) return refused(`escape \\${escaped} is not supported`);
      wildcard += escaped;
      i += 2;
    } else if (character === '.' && body[i + 1] === '*') {
      wildcard += '*';
      i += 2;
    } else if (character === '$' && i === body.length - 1) {
      anchoredEnd = true;
      i++;
    } else if (REGEX_SPECIALS.has(character)) {
      return refused(`feature ${JSON.stringify(character)} is not supported (only literal text, .*, ^ and $)`);
    } else {
      wildcard += character;
      i++;
    }
  }
  return { wildcard, scope: 'url', anchoredStart, anchoredEnd };
}

/** Reads one include/exclude pattern; `refused` says why it cannot be matched. */
export function readUrlPattern(pattern: string): UrlPatternForm | RefusedUrlPattern {
  if (isRegexPattern(pattern)) return regexAsWildcard(pattern.slice(1, -1));
  const scope = /^[a-z][a-z0-9+.-]*:\/\//i.test(pattern) ? 'url' : 'path';
  return { wildcard: pattern, scope, anchoredStart: true, anchoredEnd: true };
}
