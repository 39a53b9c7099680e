/**
 * bench:parse — the real documents of corpus/docs in the data sets folder (RAGDESK_DATASETS_DIR) parsed on the main thread and on a
 * parser thread (`fileLoading({ parser })`), in one run: time per format and the longest
 * event-loop stall while each file is parsed. The main thread is the reference.
 *
 *   npm run bench:parse -- [--corpus <folder>] [--rounds 3]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileLoading } from '../adapters/loaders/index.js';
import type { FileLoading } from '../src/ports/loader.js';
import { datasetLabel, datasetPath } from '../fixtures/datasets.js';
import { flags, printTable, writeResult, type Row } from './lib/report.js';

const args = flags(process.argv.slice(2));
const CORPUS = args.get('corpus') ?? datasetPath('corpus', 'docs');
const ROUNDS = Number(args.get('rounds') ?? 3);
const PLACEMENTS = ['main', 'worker'] as const;
type Placement = (typeof PLACEMENTS)[number];

interface Sample {
  file: string;
  format: string;
  bytes: number;
  ms: number;
  /** Longest gap between ticks of a 1 ms interval while the file was parsed. */
  stallMs: number;
  error?: string;
}

/** Parses one file while a 1 ms interval measures how long the event loop went without a turn. */
async function measure(files: FileLoading, path: string, bytes: Uint8Array): Promise<Omit<Sample, 'file' | 'format'>> {
  let last = performance.now();
  let stallMs = 0;
  const probe = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 1);
  const started = performance.now();
  let error: string | undefined;
  try {
    await files.load({ bytes, fileName: path });
  } catch (failure) {
    error = (failure as { code?: string }).code ?? String(failure);
  }
  const ms = performance.now() - started;
  // One more turn so a block that ended with the parse is counted.
  await new Promise((resolve) => setTimeout(resolve, 2));
  clearInterval(probe);
  return { bytes: bytes.byteLength, ms, stallMs, ...(error ? { error } : {}) };
}

async function main(): Promise<void> {
  if (!existsSync(CORPUS)) {
    console.log(`bench:parse skipped: no corpus at ${CORPUS} (RAGDESK_DATASETS_DIR names the folder holding corpus/)`);
    return;
  }
  const paths = readdirSync(CORPUS, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.tsv'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  const documents = paths.map((path) => ({ path, file: relative(CORPUS, path), bytes: new Uint8Array(readFileSync(path)) }));
  console.log(`bench:parse — ${documents.length} documents from ${CORPUS}, ${ROUNDS} rounds per placement (plus one warm-up)`);

  // One large file, generated: the corpus files are small (the largest is 385 KB).
  const largeHtml = new TextEncoder().encode(
    `<html><head><title>Large</title></head><body>${Array.from({ length: 40_000 }, (_, i) => `<p>Paragraph ${i} about <b>topic ${i % 97}</b>.</p>`).join('\n')}</body></html>`,
  );
  const large = new Map<Placement, Omit<Sample, 'file' | 'format'>>();
  const best = new Map<Placement, Map<string, Sample>>();
  const cold = new Map<Placement, Sample[]>();
  for (const placement of PLACEMENTS) {
    const files = fileLoading({ parser: placement });
    const byFile = new Map<string, Sample>();
    const first: Sample[] = [];
    for (let round = -1; round < ROUNDS; round++) {
      for (const document of documents) {
        const sample = await measure(files, document.file, document.bytes);
        const format = extname(document.file).slice(1).toLowerCase() || 'none';
        // The first pass is cold: parser modules loaded and compiled, the thread started.
        if (round < 0) {
          first.push({ file: document.file, format, ...sample });
          continue;
        }
        const previous = byFile.get(document.file);
        // Per file, the round with the shortest parse: the least disturbed by the rest of the machine.
        if (!previous || sample.ms < previous.ms) byFile.set(document.file, { file: document.file, format, ...sample });
      }
    }
    large.set(placement, await measure(files, 'large.html', largeHtml));
    await files.close?.();
    best.set(placement, byFile);
    cold.set(placement, first);
  }

  const main = [...(best.get('main') as Map<string, Sample>).values()];
  const worker = best.get('worker') as Map<string, Sample>;
  const mismatched = main.filter((sample) => sample.error !== worker.get(sample.file)?.error).map((sample) => sample.file);
  const formats = [...new Set(main.map((sample) => sample.format))].sort();
  const rows: Row[] = [];
  for (const format of [...formats, 'all']) {
    const inFormat = main.filter((sample) => format === 'all' || sample.format === format);
    const onThread = inFormat.map((sample) => worker.get(sample.file) as Sample);
    const sum = (samples: Sample[], key: 'ms' | 'bytes') => samples.reduce((total, sample) => total + sample[key], 0);
    const longest = (samples: Sample[]) => Math.max(...samples.map((sample) => sample.stallMs));
    rows.push({
      format,
      files: inFormat.length,
      KB: Math.round(sum(inFormat, 'bytes') / 1024),
      'main ms': sum(inFormat, 'ms'),
      'worker ms': sum(onThread, 'ms'),
      'worker / main time': sum(onThread, 'ms') / sum(inFormat, 'ms'),
      'main longest stall ms': longest(inFormat),
      'worker longest stall ms': longest(onThread),
    });
  }
  printTable('Parse time and longest event-loop stall, per format (best of the rounds per file)', rows);
  const coldRows = PLACEMENTS.map((placement) => {
    const samples = cold.get(placement) as Sample[];
    const longest = [...samples].sort((a, b) => b.stallMs - a.stallMs)[0] as Sample;
    return {
      placement,
      'first pass ms': samples.reduce((total, sample) => total + sample.ms, 0),
      'longest stall ms': longest.stallMs,
      during: longest.file,
    };
  });
  printTable(
    `A generated ${(largeHtml.byteLength / 2 ** 20).toFixed(1)} MB HTML file (40,000 paragraphs), warm`,
    PLACEMENTS.map((placement) => ({
      placement,
      'parse ms': large.get(placement)?.ms ?? NaN,
      'longest stall ms': large.get(placement)?.stallMs ?? NaN,
    })),
  );
  printTable('First (cold) pass: module loading, compilation and thread start included', coldRows);
  const worst = [...main].sort((a, b) => b.stallMs - a.stallMs).slice(0, 8);
  printTable(
    'Longest main-thread stalls, and the same files on a parser thread',
    worst.map((sample) => ({
      file: sample.file,
      KB: Math.round(sample.bytes / 1024),
      'main stall ms': sample.stallMs,
      'worker stall ms': (worker.get(sample.file) as Sample).stallMs,
      'worker ms': (worker.get(sample.file) as Sample).ms,
    })),
  );
  console.log(
    mismatched.length === 0
      ? '\nSame outcome (parsed / error code) for every file on both placements.'
      : `\nDifferent outcomes: ${mismatched.join(', ')}`,
  );
  writeResult('parse', {
    corpus: datasetLabel(CORPUS),
    documents: documents.length,
    rounds: ROUNDS,
    goal: 'worker longest stall < 50 ms (the ingestion stall goal)',
    formats: rows,
    coldPass: coldRows,
    largeHtml: { bytes: largeHtml.byteLength, main: large.get('main'), worker: large.get('worker') },
    longestMainStalls: worst,
    mismatched,
    samples: { main, worker: [...worker.values()] },
  });
}

await main();
