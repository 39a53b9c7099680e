import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTHING_FOUND } from '../../adapters/local/extractive-answerer.js';
import {
  corpusMissing,
  readDataset,
  scoreAnswer,
  startKnownAnswerServer,
  summarise,
  type KnownAnswer,
  type KnownAnswerServer,
  type ScoredAnswer,
} from '../../benchmarks/lib/known-answers.js';
import { tempDir } from '../helpers/setups.js';

/**
 * The tuned part of the known-answer set (`npm run bench:answers` runs all of it, held-out part
 * included) on a smaller corpus: the files of the forms, invoices, tables and prose below, without
 * the large Wikipedia pages. The bounds are the figures measured on this subset; the held-out
 * part never runs here, so nothing is tuned against it.
 */
const FILES = [
  'markitdown/RECEIPT-2024-TXN-98765_retail_purchase.pdf',
  'markitdown/REPAIR-2022-INV-001_multipage.pdf',
  'markitdown/SPARSE-2024-INV-1234_borderless_table.pdf',
  'markitdown/movie-theater-booking-2024.pdf',
  'docling/pdf/sources/multi_page.pdf',
  'docling/md/sources/wiki.md',
  'docling/md/sources/ending_with_table.md',
  'docling/csv/sources/csv-comma.csv',
  'docling/docx/sources/word_sample.docx',
  'docling/html/sources/html_rich_table_cells.html',
];
/**
 * Measured on this subset with the offline defaults: all 89 tuned questions hold the answer and
 * cite a passage that does (the answerer before word families, rule lines and lines stating a rule
 * held 84); the bounds leave 2 of margin.
 */
const MIN_HOLDING = 87;
const MIN_CITED = 87;
/** Measured: 10 of the 13 tuned questions the documents do not answer get "nothing found". */
const MIN_NOTHING_FOUND = 10;

const dataset = readDataset();
const questions: KnownAnswer[] = dataset.questions.filter(
  (question) => question.split === 'tuned' && (question.file === null || FILES.includes(question.file)),
);
const missing = corpusMissing(FILES);
if (missing) console.log(`[skip] known answers on real documents: ${missing}`);

describe.skipIf(missing !== null)('offline answers to known questions over real documents (tuned part, smaller corpus)', () => {
  const temp = tempDir('ragdesk-known-answers-');
  let server: KnownAnswerServer;
  const scored: ScoredAnswer[] = [];

  beforeAll(async () => {
    server = await startKnownAnswerServer(temp.dir, FILES);
    for (const question of questions) {
      scored.push(scoreAnswer(question, await server.ask(question.question), (answer) => answer.trim() === NOTHING_FOUND));
    }
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    temp.remove();
  });

  it('holds the known answer, in the passage it cites, at the measured floor', () => {
    const summary = summarise(scored);
    const missed = scored.filter((answer) => answer.expected !== null && !answer.holdsAnswer).map((answer) => answer.id);
    expect(summary.questions).toBe(89);
    console.log(
      `known answers (tuned, smaller corpus): ${summary.holdsAnswer}/${summary.questions} hold the answer, ${summary.citedHoldsAnswer} in the cited passage; missed: ${missed.join(', ')}; nothing found for ${summary.unanswerableNothingFound}/${summary.unanswerable} unanswerable`,
    );
    expect(summary.holdsAnswer, `missed: ${missed.join(', ')}`).toBeGreaterThanOrEqual(MIN_HOLDING);
    expect(summary.citedHoldsAnswer).toBeGreaterThanOrEqual(MIN_CITED);
  });

  it('every citation resolves to the entry holding the sentence it follows', () => {
    const summary = summarise(scored);
    expect(summary.citations).toBeGreaterThan(summary.questions);
    expect(summary.citationsResolving).toBe(summary.citations);
  });

  it('questions the documents do not answer get "nothing found", without citations', () => {
    const summary = summarise(scored);
    expect(summary.unanswerable).toBe(13);
    expect(summary.unanswerableNothingFound).toBeGreaterThanOrEqual(MIN_NOTHING_FOUND);
  });
});
