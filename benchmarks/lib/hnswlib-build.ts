import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * How the installed hnswlib-node addon was compiled, recorded with every result: the same code is
 * 1.5-1.7x faster to build a graph when the addon is compiled for the CPU (`-march=native` turns on
 * hnswlib's AVX / AVX-512 distance functions), so a figure means little without it. Read from the
 * dependency file node-gyp leaves beside the object, which holds the compiler's command line.
 */
export function hnswlibBuild(): string {
  try {
    const root = dirname(createRequire(import.meta.url).resolve('hnswlib-node/package.json'));
    const command = readFileSync(join(root, 'build/Release/.deps/Release/obj.target/addon/src/addon.o.d'), 'utf8').split('\n')[0] ?? '';
    const flags = command.split(/\s+/).filter((flag) => /^-(march|mtune|mavx|msse|mfma)/.test(flag));
    return flags.length ? flags.join(' ') : 'default flags (SSE only)';
  } catch {
    return 'unknown';
  }
}
