import type { FileLoading, LoadedDocument } from '../../src/ports/loader.js';
import { choiceOption, integerOption } from '../../src/util/option-checks.js';
import {
  compiledWorkerEntry,
  DEFAULT_TASK_TIMEOUT_MS,
  DEFAULT_WORKER_HEAP_MB,
  workerPool,
  type WorkerPoolOptions,
} from '../../src/util/worker-pool.js';
import { fileLoaders, type FileLoaderOptions } from './file-loaders.js';
import { checkFile, loadFile } from './load-file.js';
import type { ParseFileMessage } from './parse-worker.js';

export interface FileLoadingOptions extends FileLoaderOptions {
  /**
   * `'worker'` (default) parses on a worker thread: the parsers are synchronous, and on the main
   * thread a 1.7 MB HTML file held the event loop for 2.1 s and ordinary DOCX and PDF files for
   * 40-60 ms (200+ ms on the first parse), stalling every answer being streamed (bench:parse). A
   * thread can also be stopped: abort, `parseTimeoutMs` and `parserMaxHeapMb` end it. `'main'`
   * parses on the calling thread (scripts that do nothing else).
   */
  parser?: 'worker' | 'main';
  /** Parser threads (default 1). */
  parserThreads?: WorkerPoolOptions['threads'];
  /** A parse taking longer fails with `invalid_request`, reason `parse_timeout` (default 300,000). */
  parseTimeoutMs?: WorkerPoolOptions['timeoutMs'];
  /** Heap limit of a parser thread; a parse needing more fails with reason `parser_out_of_memory` (default 2,048). */
  parserMaxHeapMb?: WorkerPoolOptions['maxHeapMb'];
}

/** The `FileLoading` port over `fileLoaders`: what `createRagdesk({ files })` takes. */
export function fileLoading(options: FileLoadingOptions = {}): FileLoading {
  const { parser, parserThreads, parseTimeoutMs, parserMaxHeapMb, ...loaderOptions } = options;
  const loaders = fileLoaders(loaderOptions);
  const inspect: FileLoading['inspect'] = (file) => ({ mimeType: checkFile(loaders, file).mimeType });
  if (choiceOption('fileLoading', 'parser', parser, ['worker', 'main'], 'worker') === 'main') {
    return { inspect, load: (file) => loadFile(loaders, file) };
  }
  // Checked under the names the caller used; the pool's own names would point at nothing they wrote.
  const pool = workerPool({
    entry: compiledWorkerEntry(import.meta.url, 'parse-worker.js'),
    workerData: loaderOptions,
    threads: integerOption('fileLoading', 'parserThreads', parserThreads, 1),
    timeoutMs: integerOption('fileLoading', 'parseTimeoutMs', parseTimeoutMs, DEFAULT_TASK_TIMEOUT_MS),
    maxHeapMb: integerOption('fileLoading', 'parserMaxHeapMb', parserMaxHeapMb, DEFAULT_WORKER_HEAP_MB),
  });
  return {
    inspect,
    load: async (file) => {
      // Size and type are checked here, so a refused file never reaches a thread.
      const { mimeType } = checkFile(loaders, file);
      const message: Omit<ParseFileMessage, 'id'> = {
        bytes: file.bytes,
        mimeType,
        ...(file.fileName === undefined ? {} : { fileName: file.fileName }),
      };
      const subject = file.fileName === undefined ? `the ${mimeType} file` : JSON.stringify(file.fileName);
      return (await pool.run({ message, subject, mimeType, ...(file.signal ? { signal: file.signal } : {}) })) as LoadedDocument;
    },
    close: () => pool.close(),
  };
}
