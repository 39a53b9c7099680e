/**
 * bench:answers — does the offline answer hold the known fact, does the passage it cites hold it,
 * and does every `[n]` lead to the source entry holding the sentence it follows? The known-answer
 * set (benchmarks/data/answers-known.json: questions over the real documents of the shared
 * corpus, a third held out of any tuning, plus questions the documents do not answer) is asked of
 * a real HTTP server with the offline defaults, once per `restrictKnowledge` setting.
 *
 *   npm run bench:answers -- [--label after] [--against before] [--only tuned|held_out]
 *
 * Writes benchmarks/results/answers-<label>.json and, when answers-<against>.json exists, prints
 * the two side by side. Each part is also scored per batch (the latest batch apart from the
 * earlier ones), as aggregates only.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NOTHING_FOUND } from '../adapters/local/extractive-answerer.js';
import {
  corpusMissing,
  readDataset,
  scoreAnswer,
  startKnownAnswerServer,
  summarise,
  type ScoredAnswer,
  type Split,
  type SplitScore,
} from './lib/known-answers.js';
import { flags, printTable, RESULTS_DIR, writeResult, type Row } from './lib/report.js';

const args = flags(process.argv.slice(2));
const LABEL = String(args.get('label') ?? 'after');
const AGAINST = String(args.get('against') ?? 'before');
const ONLY = args.get('only') as Split | undefined;
const SPLITS: Split[] = ['tuned', 'held_out'];
const nothingFound = (answer: string) => answer.trim() === NOTHING_FOUND;

/** Scores by part: `tuned`, `held_out`, and each of them per batch (`held_out, batch 4`). */
type Run = Record<string, SplitScore>;

async function main(): Promise<void> {
  const dataset = readDataset();
  const missing = corpusMissing(dataset.files);
  if (missing) {
    console.log(`bench:answers skipped: ${missing}`);
    return;
  }
  const questions = dataset.questions.filter((question) => !ONLY || question.split === ONLY);
  const dir = mkdtempSync(join(tmpdir(), 'ragdesk-bench-answers-'));
  console.log(`bench:answers — ${questions.length} questions over ${dataset.files.length} real documents, offline defaults, through HTTP`);
  const server = await startKnownAnswerServer(dir, dataset.files);
  const runs: Record<string, { scores: Run; answers: ScoredAnswer[] }> = {};
  try {
    for (const restrictKnowledge of [true, false]) {
      const answers: ScoredAnswer[] = [];
      for (const question of questions) {
        const response = await server.ask(question.question, { restrictKnowledge });
        answers.push(scoreAnswer(question, response, nothingFound));
      }
      const scores = scoreParts(answers);
      runs[`restrictKnowledge=${restrictKnowledge}`] = { scores, answers };
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const rows = (label: string, run: Run): Row[] =>
    Object.keys(run)
      .sort()
      .map((part) => ({ run: label, part, ...percentages(run[part]!) }));
  const main = runs['restrictKnowledge=true']!.scores;
  const loose = runs['restrictKnowledge=false']!.scores;
  printTable(`${LABEL} (restrictKnowledge true, the default)`, rows(LABEL, main));
  printTable('restrictKnowledge false', rows(`${LABEL}, restrictKnowledge false`, loose));
  const againstPath = join(RESULTS_DIR, `answers-${AGAINST}.json`);
  if (LABEL !== AGAINST && existsSync(againstPath)) {
    const against = JSON.parse(readFileSync(againstPath, 'utf8')) as { runs: Record<string, { scores: Run }> };
    const againstRun = against.runs['restrictKnowledge=true']?.scores;
    if (againstRun) printTable(`${AGAINST} → ${LABEL} (restrictKnowledge true)`, [...rows(AGAINST, againstRun), ...rows(LABEL, main)]);
  }
  const misses = runs['restrictKnowledge=true']!.answers.filter((a) => a.split === 'tuned' && !(a.holdsAnswer && a.citedHoldsAnswer));
  if (misses.length) {
    console.log('\nTuned questions missed (held-out ones are never printed, so they stay out of tuning):');
    for (const miss of misses)
      console.log(`- ${miss.id} ${miss.question}\n  want ${JSON.stringify(miss.expected)}\n  got  ${miss.answer.slice(0, 300)}`);
  }
  writeResult(`answers-${LABEL}`, {
    questions: questions.length,
    files: dataset.files.length,
    runs: Object.fromEntries(
      Object.entries(runs).map(([name, run]) => [name, { scores: run.scores, answers: run.answers.filter((a) => a.split === 'tuned') }]),
    ),
  });
}

/** Each split whole and per batch: the latest batch apart, so a new held-out third reads on its own. */
function scoreParts(answers: readonly ScoredAnswer[]): Run {
  const scores: Run = {};
  const batches = [...new Set(answers.map((a) => a.batch))];
  for (const split of SPLITS) {
    const inSplit = answers.filter((a) => a.split === split);
    scores[split] = summarise(inSplit);
    if (batches.length < 2) continue;
    for (const batch of batches) {
      const part = `${split}, ${batch === null ? 'earlier batches' : `batch ${batch}`}`;
      scores[part] = summarise(inSplit.filter((a) => a.batch === batch));
    }
  }
  return scores;
}

function percentages(score: SplitScore): Row {
  const share = (part: number, whole: number) => (whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`);
  return {
    questions: score.questions,
    'holds answer': share(score.holdsAnswer, score.questions),
    'cited passage holds it': share(score.citedHoldsAnswer, score.questions),
    'citations resolving': `${share(score.citationsResolving, score.citations)} of ${score.citations}`,
    'no-answer → nothing found': `${score.unanswerableNothingFound}/${score.unanswerable}`,
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
