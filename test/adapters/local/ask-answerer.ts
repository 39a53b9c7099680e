import { localAnswerer } from '../../../adapters/local/extractive-answerer.js';
import { stemOf } from '../../../adapters/local/stems.js';
import type { GroundingPassage } from '../../../src/ports/chat-model.js';
import { splitWords } from '../../../src/text/query-terms.js';

/** The offline answerer's text for `query` over these passages. */
export async function answer(query: string, passages: GroundingPassage[]): Promise<string> {
  const result = await localAnswerer().generate({
    messages: [{ role: 'user', content: query }],
    model: 'local',
    grounding: { query, passages },
  });
  return result.text;
}

/** The stems of a question's words, as the answerer compares them. */
export const stems = (question: string) => new Set(splitWords(question).map((word) => stemOf(word)));
