import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpus, totalmem } from 'node:os';
import { hnswBuilds } from './hnswlib-build.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The package root, whether this runs from benchmarks/lib or from dist/benchmarks/lib. */
export const PACKAGE_ROOT = HERE.includes(`${sep}dist${sep}`) ? join(HERE, '..', '..', '..') : join(HERE, '..', '..');
export const RESULTS_DIR = join(PACKAGE_ROOT, 'benchmarks', 'results');

export type Row = Record<string, string | number>;

/** Prints rows as an aligned text table. */
export function printTable(title: string, rows: readonly Row[]): void {
  const first = rows[0];
  if (!first) return;
  const columns = Object.keys(first);
  const cell = (value: string | number | undefined) =>
    typeof value === 'number' ? (Number.isInteger(value) ? String(value) : value.toFixed(value < 10 ? 3 : 1)) : (value ?? '');
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i] ?? 0)).join('  ');
  console.log(`\n${title}`);
  console.log(line(columns));
  console.log(line(widths.map((width) => '-'.repeat(width))));
  for (const row of rows) console.log(line(columns.map((column) => cell(row[column]))));
}

/** Writes the result JSON with the machine it ran on. Returns the path. */
export function writeResult(name: string, result: Record<string, unknown>): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.json`);
  const machine = {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    ...hnswBuilds(),
  };
  writeFileSync(path, `${JSON.stringify({ benchmark: name, date: new Date().toISOString(), machine, ...result }, null, 2)}\n`);
  console.log(`\nwrote ${path}`);
  return path;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

export function latencySummary(samplesMs: readonly number[]): { p50: number; p99: number; mean: number } {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), mean };
}

/** Parses `--name value` flags. */
export function flags(argv: readonly string[]): Map<string, string> {
  const result = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) continue;
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      result.set(arg.slice(2), next);
      i++;
    } else result.set(arg.slice(2), 'true');
  }
  return result;
}
