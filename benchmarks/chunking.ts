/**
 * Tokenizer and chunker throughput on ~5 MB of English (SciFact abstracts): gpt-tokenizer against
 * js-tiktoken (same cl100k_base ids, checked here), and `chunkSections` at the default settings.
 *
 *   npx tsc -p tsconfig.build.json && node dist/benchmarks/chunking.js [--data DIR] [--megabytes 5]
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Tiktoken } from 'js-tiktoken/lite';
import { chunkSections, cl100kTokenizer } from '../src/ingest/index.js';
import { datasetPath } from '../fixtures/datasets.js';
import { flags, printTable, writeResult, type Row } from './lib/report.js';

const require = createRequire(import.meta.url);

function sample(folder: string, megabytes: number): string[] {
  const lines = gunzipSync(readFileSync(join(folder, 'corpus.jsonl.gz')))
    .toString('utf8')
    .split('\n');
  const texts: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (line.trim() === '' || bytes >= megabytes * 1e6) continue;
    const row = JSON.parse(line) as { title: string; text: string };
    const text = `${row.title}\n\n${row.text}`;
    texts.push(text);
    bytes += Buffer.byteLength(text) + 2;
  }
  return texts;
}

/** Best of three runs, in MB/s; the first run includes warming the BPE merge caches. */
function throughput(bytes: number, run: () => void): { cold: number; warm: number } {
  const speeds: number[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    const started = performance.now();
    run();
    speeds.push(bytes / 1e6 / ((performance.now() - started) / 1000));
  }
  return { cold: speeds[0]!, warm: Math.max(...speeds) };
}

function main(): void {
  const args = flags(process.argv.slice(2));
  const folder = args.get('data') ?? datasetPath('datasets', 'scifact');
  if (!existsSync(join(folder, 'corpus.jsonl.gz'))) {
    console.log(`skipped: no corpus.jsonl.gz in ${folder} (pass --data DIR)`);
    return;
  }
  const texts = sample(folder, Number(args.get('megabytes') ?? 5));
  const joined = texts.join('\n\n');
  const bytes = Buffer.byteLength(joined);
  const ours = cl100kTokenizer();
  const ranks = require('js-tiktoken/ranks/cl100k_base') as
    ConstructorParameters<typeof Tiktoken>[0] | { default: ConstructorParameters<typeof Tiktoken>[0] };
  const tiktoken = new Tiktoken('default' in ranks ? ranks.default : ranks);

  let mismatches = 0;
  for (const text of texts.slice(0, 1000)) {
    const a = ours.encode(text);
    const b = tiktoken.encode(text, [], []);
    if (a.length !== b.length || a.some((token, index) => token !== b[index])) mismatches++;
  }
  const rows: Row[] = [];
  let gptTokens = 0;
  const gpt = throughput(bytes, () => {
    gptTokens = texts.reduce((sum, text) => sum + ours.count(text), 0);
  });
  let tikTokens = 0;
  const tik = throughput(bytes, () => {
    tikTokens = texts.reduce((sum, text) => sum + tiktoken.encode(text, [], []).length, 0);
  });
  rows.push({ task: 'gpt-tokenizer count', 'MB/s first': gpt.cold, 'MB/s best': gpt.warm, tokens: gptTokens });
  rows.push({ task: 'js-tiktoken encode', 'MB/s first': tik.cold, 'MB/s best': tik.warm, tokens: tikTokens });
  let chunks = 0;
  const whole = throughput(bytes, () => {
    chunks = chunkSections(joined).length;
  });
  rows.push({ task: 'chunkSections, one 5 MB text', 'MB/s first': whole.cold, 'MB/s best': whole.warm, tokens: chunks });
  const pages = texts.map((text, index) => ({ text, pageNumber: index + 1 }));
  const paged = throughput(bytes, () => {
    chunks = chunkSections(pages).length;
  });
  rows.push({ task: 'chunkSections, one page per abstract', 'MB/s first': paged.cold, 'MB/s best': paged.warm, tokens: chunks });
  printTable(
    `Tokenizers and chunker on ${(bytes / 1e6).toFixed(1)} MB (token ids differ on ${mismatches} of 1000 texts; last column: tokens, or chunks)`,
    rows,
  );
  writeResult('chunking', { megabytes: bytes / 1e6, mismatchedTexts: mismatches, rows });
}

main();
