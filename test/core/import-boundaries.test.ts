import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Native, optional or heavy packages the core must not load (adapters bring them). */
const NATIVE_OR_OPTIONAL = ['better-sqlite3', 'node-gyp-build', 'hnswlib-node', 'openai', 'pg', 'officeparser', '@langchain'];
/** The composition points allowed to wire several adapters together. */
const WIRING = ['adapters/node.ts', 'adapters/backup.ts', 'adapters/cli/'];
/**
 * Core folders an adapter may use: contracts, errors and dependency-free helpers. The tokenizer is
 * shared so that an adapter counting tokens itself (OpenAI-compatible servers that report no usage)
 * counts exactly as the core's budgets do. The metadata filter grammar and its reference evaluator
 * (`src/filters/`) are part of the store contract: a store without a query language evaluates it.
 */
const SHARED_CORE = ['src/ports/', 'src/errors.ts', 'src/text/', 'src/util/', 'src/ingest/tokenizer.ts', 'src/filters/'];
/**
 * The adapter kit: helpers only adapters use (worker pool, option checks, shared row mapping). Any
 * adapter may import it; it imports only the shared core and Node, never another adapter.
 */
const KIT = 'adapters/kit/';
/** The bm25 engine, shared by the stores that search chunk text in memory. */
const BM25 = 'adapters/bm25/';
const SHARED_FOR_ADAPTERS = [...SHARED_CORE, KIT];
/**
 * Adapters that sit on top of the whole library rather than under one port (the HTTP adapter serves
 * it): they may use its public barrel, exactly what a user of `ragdesk` imports, and nothing deeper.
 */
const PUBLIC_API_CONSUMERS: Record<string, string[]> = { 'adapters/http/': ['src/index.ts'], 'adapters/langchain/': ['src/index.ts'] };
/**
 * Modules one adapter shares with another. Web pages are read by the HTML extractor of the file
 * loaders, so an uploaded page and a fetched one give the same text; the web adapter imports that
 * folder and nothing else of `adapters/loaders/`. The SQLite store's text search runs on the bm25
 * engine, which is a folder of its own so that it can be measured and tested apart from SQLite.
 */
const SHARED_BETWEEN_ADAPTERS: Record<string, string[]> = {
  'adapters/web/': ['adapters/loaders/html/'],
  // The bm25 engine: the SQLite store feeds it its rows and keeps its snapshots; the memory store
  // searches with its index. It knows no database (see the test below).
  'adapters/sqlite/': [BM25],
  'adapters/memory/': [BM25],
};

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)];
  return specifiers.map((match) => (match[1] ?? match[2]) as string);
}

function resolveLocal(file: string, specifier: string): string {
  return relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts');
}

describe('import boundaries (docs/architecture.md, "Import rules")', () => {
  it('the core imports no adapter and no native or optional package', () => {
    const violations: string[] = [];
    for (const file of sourceFiles('src')) {
      for (const specifier of importsOf(file)) {
        const isTesting = file.startsWith('src/testing/') && specifier === 'vitest';
        if (specifier.startsWith('.')) {
          if (resolveLocal(file, specifier).startsWith('adapters/')) violations.push(`${file} -> ${specifier}`);
        } else if (NATIVE_OR_OPTIONAL.includes(specifier.split('/')[0] ?? '') && !isTesting) {
          violations.push(`${file} -> ${specifier}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('adapters import only ports, errors, helpers and their own packages', () => {
    const violations: string[] = [];
    for (const file of sourceFiles('adapters')) {
      if (WIRING.some((allowed) => file.startsWith(allowed))) continue;
      const own = file.split('/').slice(0, 2).join('/');
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = resolveLocal(file, specifier);
        const publicApi = Object.entries(PUBLIC_API_CONSUMERS).some(
          ([folder, allowed]) => file.startsWith(folder) && allowed.includes(target),
        );
        const shared = Object.entries(SHARED_BETWEEN_ADAPTERS).some(
          ([folder, allowed]) => file.startsWith(folder) && allowed.some((prefix) => target.startsWith(prefix)),
        );
        const ok = target.startsWith(`${own}/`) || SHARED_FOR_ADAPTERS.some((prefix) => target.startsWith(prefix)) || publicApi || shared;
        if (!ok) violations.push(`${file} -> ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('the adapter kit imports only the shared core, itself and Node built-ins', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(KIT)) {
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) {
          if (!specifier.startsWith('node:')) violations.push(`${file} -> ${specifier}`);
          continue;
        }
        const target = resolveLocal(file, specifier);
        if (!target.startsWith(KIT) && !SHARED_CORE.some((shared) => target.startsWith(shared))) violations.push(`${file} -> ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('the bm25 engine imports no database: neither better-sqlite3 nor a store adapter', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(BM25)) {
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) {
          if (NATIVE_OR_OPTIONAL.includes(specifier.split('/')[0] ?? '')) violations.push(`${file} -> ${specifier}`);
          continue;
        }
        const target = resolveLocal(file, specifier);
        if (target.startsWith('adapters/') && !target.startsWith(BM25) && !target.startsWith(KIT)) violations.push(`${file} -> ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('benchmarks import no test module, and the shared fixtures neither tests nor benchmarks', () => {
    // Tests run benchmark harnesses; benchmarks and tests share fixtures/. A benchmark importing a
    // test module would make the two folders one cycle, and the build emit tests into dist/.
    const violations: string[] = [];
    const check = (folder: string, forbidden: string[]) => {
      for (const file of sourceFiles(folder)) {
        for (const specifier of importsOf(file)) {
          if (!specifier.startsWith('.')) continue;
          const target = resolveLocal(file, specifier);
          if (forbidden.some((prefix) => target.startsWith(prefix))) violations.push(`${file} -> ${target}`);
        }
      }
    };
    check('benchmarks', ['test/']);
    check('fixtures', ['test/', 'benchmarks/']);
    expect(violations).toEqual([]);
  });

  it('finds the files it checks', () => {
    expect(sourceFiles('src').length).toBeGreaterThan(10);
    expect(sourceFiles('adapters').length).toBeGreaterThan(5);
    expect(sourceFiles(KIT).length).toBeGreaterThan(5);
    expect(sourceFiles(BM25).length).toBeGreaterThan(3);
    expect(sourceFiles('benchmarks').length).toBeGreaterThan(10);
    expect(sourceFiles('fixtures').length).toBeGreaterThan(3);
  });
});
