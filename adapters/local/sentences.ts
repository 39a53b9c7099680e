/** Longest sentence the answerer quotes; longer lines (tables, run-on text) are cut at a word. */
const MAX_SENTENCE_CHARS = 400;

// A sentence ends at . ! ? followed by space and a capitalised word, a quote or a bracket. This
// keeps "e.g. this" and "3.5 mm" together, and an identifier or number after a colon-like "!" or
// "." stays with the words that introduce it ("the id is below. 314b0a30-..."), at the cost of
// splitting after a few abbreviations.
const SENTENCE_END = /(?<=[.!?])\s+(?=\p{Lu}\p{Ll}|["'“([])/u;

/** Sentences of a passage, in order. Lines are boundaries too: tables and lists have no full stops. */
export function splitSentences(text: string): string[] {
  const sentences: string[] = [];
  for (const line of text.split(/\n+/)) {
    for (const part of line.split(SENTENCE_END)) {
      const sentence = part.replace(/\s+/g, ' ').trim();
      if (sentence.length < 2) continue;
      sentences.push(cut(sentence));
    }
  }
  return sentences;
}

function cut(sentence: string): string {
  if (sentence.length <= MAX_SENTENCE_CHARS) return sentence;
  const space = sentence.lastIndexOf(' ', MAX_SENTENCE_CHARS);
  return `${sentence.slice(0, space > MAX_SENTENCE_CHARS / 2 ? space : MAX_SENTENCE_CHARS)} …`;
}
