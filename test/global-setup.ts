import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, staleBuildReason } from './reliability/compiled.js';

/**
 * Builds `dist/` when it is missing or older than a source. The parser threads run the compiled
 * worker (Node 20 cannot start a `.ts` worker), and so do the child-process tests; a stale build
 * would test old code. (Worker URLs in the sources point at `dist/`, even with `RAGDESK_TEST_DIST` set: see test/helpers/compiled-workers.ts.) CI builds before testing, so there this finds nothing to do.
 */
export default function setup(): void {
  const reason = staleBuildReason(['adapters/loaders/parse-worker.js'], join(ROOT, 'dist'));
  if (reason !== null) {
    console.log(`test setup: building dist/ (${reason})`);
    const tsc = join(createRequire(import.meta.url).resolve('typescript/package.json'), '../bin/tsc');
    execFileSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
  }
  // The web console's assets (served by `ragdesk serve` and `createHttpHandler({ ui })`).
  const uiReason = staleUiReason();
  if (uiReason !== null) {
    console.log(`test setup: building dist/ui (${uiReason})`);
    execFileSync(process.execPath, [join(ROOT, 'ui/build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  }
}

function staleUiReason(): string | null {
  const manifest = join(ROOT, 'dist/ui/manifest.json');
  if (!existsSync(manifest)) return 'dist/ui/manifest.json is missing';
  const built = statSync(manifest).mtimeMs;
  const sources = readdirSync(join(ROOT, 'ui'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const newer = sources.find((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs > built);
  return newer ? `${newer.name} changed` : null;
}
