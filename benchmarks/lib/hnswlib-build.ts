import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { nativeGraph } from '../../adapters/hnsw/binding/native-graph.js';

/** The installed hnswlib-node package's folder. */
export function hnswlibRoot(): string {
  return dirname(createRequire(import.meta.url).resolve('hnswlib-node/package.json'));
}

/**
 * How the installed hnswlib-node addon (the benchmarks' raw reference) was compiled, recorded with
 * every result: a graph builds in ~0.7x the time when the addon is compiled for the CPU
 * (`-march=native` turns on hnswlib's AVX / AVX-512 distance functions; bench:native-hnswlib), so a
 * reference figure means little without it. Read from
 * the dependency file node-gyp leaves beside the object, which holds the compiler's command line.
 */
function hnswlibBuild(): string {
  try {
    const command =
      readFileSync(join(hnswlibRoot(), 'build/Release/.deps/Release/obj.target/addon/src/addon.o.d'), 'utf8').split('\n')[0] ?? '';
    const flags = command.split(/\s+/).filter((flag) => /^-(march|mtune|mavx|msse|mfma)/.test(flag));
    return flags.length ? flags.join(' ') : 'default flags (SSE only)';
  } catch {
    return 'unknown';
  }
}

/**
 * What every result records about the HNSW code it ran: how the raw references' addon
 * (hnswlib-node) was compiled, and the distance kernel ragdesk's own binding chose for this CPU.
 */
export function hnswBuilds(): { hnswlibBuild: string; ragdeskHnswKernel: string } {
  return { hnswlibBuild: hnswlibBuild(), ragdeskHnswKernel: nativeGraph().kernel() };
}
