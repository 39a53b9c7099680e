/**
 * Normalisation shared by the extracted text and the expected strings of the corpus, so that
 * Markdown rendering choices (markitdown writes `# Title`, `**bold**`, `| a | b |`, `[x](url)`) do not
 * decide a match. Case is kept: the planted ids and phrases are compared case-sensitively.
 */
export function normaliseForMatch(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images: alt text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links: link text
    .replace(/[[\]]/g, '') // what is left of links cut before their target, `[x]`
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1') // Markdown escapes
    .replace(/^[ \t]*(#{1,6}|>|[*+-]|\d+[.)])[ \t]+/gm, '') // headings, quotes, list markers
    .replace(/`+/g, ' ') // code spans and fences
    .replace(/\*+/g, '') // emphasis
    .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1') // underscore emphasis, not snake_case
    .replace(/:?-{3,}:?/g, ' ') // table separator rows and rules
    .replace(/\|/g, ' ') // table pipes
    .replace(/\s+/g, ' ')
    .trim();
}
