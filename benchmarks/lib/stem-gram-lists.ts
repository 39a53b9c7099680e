/**
 * A bm25 list over the character 4-grams of the words index's stems, answered from per-stem
 * postings and a 4-gram → stems map, with no postings of its own: the form decision 022 names as
 * the one that could fit the memory goal. A chunk's tf of a 4-gram is the sum, over the stems
 * holding it, of the stem's tf times the times the 4-gram occurs in the marked stem (`<stem>`), so
 * its scores equal bm25 over each chunk's 4-grams of stems (gramCounts over its stems), here checked
 * by bench:scoring-cv. Term at a time: a sketch for timing, not the store's MaxScore.
 */
import { gramCounts } from './char-grams.js';

const GRAM = 4;
const K1 = 1.2;
const B = 0.75;

/** Best first: chunk numbers and their scores. */
export interface RankedChunks {
  chunks: number[];
  scores: number[];
}

export class StemGramLists {
  private readonly stemPostings: { chunks: Int32Array; tfs: Int32Array }[] = [];
  /** Per 4-gram: the stems holding it and how often it occurs in each marked stem. */
  private readonly holders = new Map<string, { stems: number[]; times: number[] }>();
  private readonly df = new Map<string, number>();
  private readonly lengths: Float64Array;
  private readonly average: number;
  private readonly tf: Int32Array;
  private readonly scores: Float64Array;

  /** `stems[i]`: chunk i's stems in order, repeats kept. */
  constructor(stems: readonly (readonly string[])[]) {
    const numbers = new Map<string, number>();
    const lists: { chunks: number[]; tfs: number[] }[] = [];
    this.lengths = new Float64Array(stems.length);
    let total = 0;
    stems.forEach((list, chunk) => {
      const counts = new Map<string, number>();
      for (const term of list) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let number = numbers.get(term);
        if (number === undefined) {
          number = lists.length;
          numbers.set(term, number);
          lists.push({ chunks: [], tfs: [] });
          const times = gramCounts([term], GRAM).counts;
          for (const [gram, count] of times) {
            let holder = this.holders.get(gram);
            if (holder === undefined) this.holders.set(gram, (holder = { stems: [], times: [] }));
            holder.stems.push(number);
            holder.times.push(count);
          }
        }
        lists[number]!.chunks.push(chunk);
        lists[number]!.tfs.push(tf);
      }
      const grams = gramCounts(list, GRAM);
      this.lengths[chunk] = grams.length;
      total += grams.length;
      for (const gram of grams.counts.keys()) this.df.set(gram, (this.df.get(gram) ?? 0) + 1);
    });
    for (const list of lists) this.stemPostings.push({ chunks: Int32Array.from(list.chunks), tfs: Int32Array.from(list.tfs) });
    this.average = total / Math.max(1, stems.length);
    this.tf = new Int32Array(stems.length);
    this.scores = new Float64Array(stems.length);
  }

  /** The top `depth` chunks for the query's stems, reading only its 4-grams in at most `maxShare` of the chunks. */
  search(queryStems: readonly string[], depth: number, maxShare: number): RankedChunks {
    const count = this.lengths.length;
    const weights = gramCounts(queryStems, GRAM).counts;
    const touched: number[] = [];
    const { tf, scores } = this;
    for (const [gram, weight] of weights) {
      const holder = this.holders.get(gram);
      const df = this.df.get(gram) ?? 0;
      if (holder === undefined || df === 0 || df > maxShare * count) continue;
      // The operations of bench:scoring-cv's exhaustive bm25, in its order, so scores match to the bit.
      const idf = weight * Math.log(1 + (count - df + 0.5) / (df + 0.5));
      const chunks: number[] = [];
      holder.stems.forEach((stem, s) => {
        const postings = this.stemPostings[stem]!;
        const times = holder.times[s]!;
        for (let p = 0; p < postings.chunks.length; p++) {
          const chunk = postings.chunks[p]!;
          if (tf[chunk] === 0) chunks.push(chunk);
          tf[chunk]! += postings.tfs[p]! * times;
        }
      });
      for (const chunk of chunks) {
        const f = tf[chunk]!;
        tf[chunk] = 0;
        if (scores[chunk] === 0) touched.push(chunk);
        const norm = 1 - B + (B * this.lengths[chunk]!) / this.average;
        scores[chunk]! += idf * ((f * (K1 + 1)) / (f + K1 * norm));
      }
    }
    touched.sort((a, b) => scores[b]! - scores[a]! || a - b);
    const top = touched.slice(0, depth);
    const ranked = { chunks: top, scores: top.map((chunk) => scores[chunk]!) };
    for (const chunk of touched) scores[chunk] = 0;
    return ranked;
  }
}
