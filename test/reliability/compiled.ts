import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The compiled tree child processes run (Node 20 cannot run TypeScript and there is no tsx):
 * `dist/` after `npm run build` (CI builds before testing), or `RAGDESK_TEST_DIST` to point at
 * another build (`npx tsc -p tsconfig.build.json --outDir <dir>`).
 */
export const DIST = process.env.RAGDESK_TEST_DIST ? resolve(process.env.RAGDESK_TEST_DIST) : join(ROOT, 'dist');

function newestSource(folder: string): { path: string; mtimeMs: number } {
  let newest = { path: '', mtimeMs: 0 };
  for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    const { mtimeMs } = statSync(path);
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  }
  return newest;
}

/**
 * Why the compiled files cannot be trusted, or null when they are usable: missing, or older than a
 * source they were built from (a child running old code would test something else).
 */
export function staleBuildReason(compiled: readonly string[], dist = DIST): string | null {
  const paths = compiled.map((file) => join(dist, file));
  const missing = paths.find((path) => !existsSync(path));
  if (missing) return `${relative(ROOT, missing)} is missing: run \`npm run build\` first`;
  const built = Math.min(...paths.map((path) => statSync(path).mtimeMs));
  const newest = ['src', 'adapters', 'benchmarks'].map(newestSource).reduce((a, b) => (b.mtimeMs > a.mtimeMs ? b : a));
  if (newest.mtimeMs > built) {
    return `${relative(ROOT, dist)} is older than ${relative(ROOT, newest.path)}: run \`npm run build\` first`;
  }
  return null;
}
