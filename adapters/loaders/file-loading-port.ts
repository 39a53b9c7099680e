import { mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize } from 'node:v8';
import type { FileLoading, LoadedDocument } from '../../src/ports/loader.js';
import { choiceOption, integerOption } from '../kit/option-checks.js';
import { DEFAULT_WORKER_HEAP_MB, workerEntry, workerPool, type WorkerPoolOptions } from '../kit/worker-pool.js';
import { fileLoaders, type FileLoaderOptions } from './builtin-loaders.js';
import { checkFile, loadFile } from './load-by-type.js';
import type { ParseFileMessage } from './parse-worker.js';

/** Default `parseTimeoutMs`: see docs/security.md for the measurement it comes from. */
const DEFAULT_PARSE_TIMEOUT_MS = 60_000;
/** Default `parserMaxMemoryMb`. */
const DEFAULT_PARSER_MEMORY_MB = 512;

export interface FileLoadingOptions extends FileLoaderOptions {
  /**
   * `'worker'` (default) parses on a worker thread: the parsers are synchronous, and on the main
   * thread a 1.7 MB HTML file held the event loop for 2.1 s and ordinary DOCX and PDF files for
   * 40-60 ms (200+ ms on the first parse), stalling every answer being streamed (bench:parse). A
   * thread can also be stopped: abort, `parseTimeoutMs` and `parserMaxHeapMb` end it. `'main'`
   * parses on the calling thread (scripts that do nothing else).
   */
  parser?: 'worker' | 'main';
  /**
   * Where `parser: 'worker'` runs: `'process'` (default), a child process per parser, or
   * `'thread'`, a worker thread. A thread that runs out of memory can take the whole process down
   * (a large allocation past its heap limit aborts V8 for every thread; a PDF with a deflate bomb
   * did so in 2 of 4 uploads), and its heap limit does not count buffers; a child process only
   * ends itself, and `parserMaxMemoryMb` caps all of its memory.
   */
  parserIsolation?: 'process' | 'thread';
  /** Parsers running at once (default: half the machine's cores, from 1 to 4). Queued parses are taken round-robin across owners. */
  parserThreads?: WorkerPoolOptions['threads'];
  /** A parse taking longer fails with `invalid_request`, reason `parse_timeout` (default 60,000). */
  parseTimeoutMs?: WorkerPoolOptions['timeoutMs'];
  /** Heap limit of a parser; a parse needing more fails with reason `parser_out_of_memory` (default 2,048). */
  parserMaxHeapMb?: WorkerPoolOptions['maxHeapMb'];
  /**
   * Resident memory of a parser process (heap, buffers, native allocations; Linux), checked every
   * 50 ms; a parse holding more is stopped with reason `parser_out_of_memory` (default 512).
   */
  parserMaxMemoryMb?: number;
}

/** Half the cores, at least one parser and at most four: parsing must leave a core to queries. */
function defaultParserThreads(): number {
  return Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2)));
}

/** The `FileLoading` port over `fileLoaders`: what `createRagdesk({ files })` takes. */
export function fileLoading(options: FileLoadingOptions = {}): FileLoading {
  const { parser, parserIsolation, parserThreads, parseTimeoutMs, parserMaxHeapMb, parserMaxMemoryMb, ...loaderOptions } = options;
  const loaders = fileLoaders(loaderOptions);
  const inspect: FileLoading['inspect'] = (file) => ({ mimeType: checkFile(loaders, file).mimeType });
  if (choiceOption('fileLoading', 'parser', parser, ['worker', 'main'], 'worker') === 'main') {
    return { specificationVersion: 'v1', inspect, load: (file) => loadFile(loaders, file) };
  }
  // Checked under the names the caller used; the pool's own names would point at nothing they wrote.
  const isolation = choiceOption<'process' | 'thread'>('fileLoading', 'parserIsolation', parserIsolation, ['process', 'thread'], 'process');
  const pool = workerPool({
    entry: workerEntry(new URL('./parse-worker.js', import.meta.url)),
    workerData: loaderOptions,
    isolation,
    threads: integerOption('fileLoading', 'parserThreads', parserThreads, defaultParserThreads()),
    timeoutMs: integerOption('fileLoading', 'parseTimeoutMs', parseTimeoutMs, DEFAULT_PARSE_TIMEOUT_MS),
    maxHeapMb: integerOption('fileLoading', 'parserMaxHeapMb', parserMaxHeapMb, DEFAULT_WORKER_HEAP_MB),
    maxMemoryMb: integerOption('fileLoading', 'parserMaxMemoryMb', parserMaxMemoryMb, DEFAULT_PARSER_MEMORY_MB),
  });
  return {
    specificationVersion: 'v1',
    inspect,
    load: async (file) => {
      // Size and type are checked here, so a refused file never reaches a thread.
      const { mimeType } = checkFile(loaders, file);
      const spooled = isolation === 'process' && file.bytes.byteLength >= SPOOL_BYTES ? await spool(file.bytes) : undefined;
      const message: Omit<ParseFileMessage, 'id'> = {
        ...(spooled ? { bytesPath: spooled.bytesPath, resultPath: spooled.resultPath } : { bytes: file.bytes }),
        mimeType,
        ...(file.fileName === undefined ? {} : { fileName: file.fileName }),
        ...(file.maxChars === undefined ? {} : { maxChars: file.maxChars }),
      };
      const subject = file.fileName === undefined ? `the ${mimeType} file` : JSON.stringify(file.fileName);
      try {
        const answer = await pool.run({
          message,
          subject,
          mimeType,
          ...(file.signal ? { signal: file.signal } : {}),
          ...(file.owner === undefined ? {} : { owner: file.owner }),
          ...(file.yieldToOwner === true ? { yieldsToOwner: true } : {}),
        });
        const writtenTo = (answer as { writtenTo?: string }).writtenTo;
        return (writtenTo === undefined ? answer : deserialize(await readFile(writtenTo))) as LoadedDocument;
      } finally {
        if (spooled) await Promise.all([rm(spooled.bytesPath, { force: true }), rm(spooled.resultPath, { force: true })]);
      }
    },
    close: () => pool.close(),
  };
}

/**
 * Files from this size on go to a parser process through a temporary file, and the document comes
 * back the same way: serializing 49 MB into the process channel took 330 ms of the main thread, and
 * the channel reassembles a large answer on it too. File writes and reads run on libuv's threads.
 */
const SPOOL_BYTES = 1 << 20;
let spoolDir: string | undefined;
let spoolCounter = 0;

async function spool(bytes: Uint8Array): Promise<{ bytesPath: string; resultPath: string }> {
  spoolDir ??= mkdtempSync(join(tmpdir(), 'ragdesk-parse-'));
  const base = join(spoolDir, `${process.pid}-${spoolCounter++}`);
  await writeFile(`${base}.in`, bytes, { mode: 0o600 });
  return { bytesPath: `${base}.in`, resultPath: `${base}.out` };
}
