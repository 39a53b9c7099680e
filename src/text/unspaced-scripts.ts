/**
 * Scripts written without spaces between words. A run of them is not one word: Chinese, Japanese
 * and Korean runs are indexed as their characters plus each overlapping pair of characters (the
 * usual CJK retrieval units, as the local embedder splits them), Thai, Lao, Khmer and Myanmar runs
 * as overlapping pairs (a single character of those scripts says little). Every lexical search
 * applies the same split to documents and queries, so a query matches inside a longer run.
 */

/** Han, Hiragana, Katakana and Hangul (with the marks they share, such as the prolonged sound ー). */
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u;
/** Southeast Asian scripts without word spaces. */
const PAIRED = /[\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]/u;
const ANY_UNSPACED = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}]/u;

/** Whether `word` has a character of a script written without spaces. */
export function hasUnspacedScript(word: string): boolean {
  return ANY_UNSPACED.test(word);
}

type Kind = 'cjk' | 'paired' | 'other';

function kindOf(character: string): Kind {
  return CJK.test(character) ? 'cjk' : PAIRED.test(character) ? 'paired' : 'other';
}

/**
 * Calls `visit` with the terms of one word (letters and numbers only): the word itself when it has
 * no unspaced script; else each run of such a script split as above, and the other runs (Latin
 * letters, digits) whole, in order.
 */
export function segmentWord(word: string, visit: (term: string) => void): void {
  if (!ANY_UNSPACED.test(word)) {
    visit(word);
    return;
  }
  const characters = Array.from(word);
  let start = 0;
  while (start < characters.length) {
    const kind = kindOf(characters[start]!);
    let end = start + 1;
    while (end < characters.length && kindOf(characters[end]!) === kind) end++;
    if (kind === 'other') {
      visit(characters.slice(start, end).join(''));
    } else if (kind === 'paired' && end - start === 1) {
      visit(characters[start]!);
    } else {
      for (let i = start; i < end; i++) {
        if (kind === 'cjk') visit(characters[i]!);
        if (i + 1 < end) visit(characters[i]! + characters[i + 1]!);
      }
    }
    start = end;
  }
}
