/** Parser thread of `fileLoading({ parser: 'worker' })`: the built-in loaders, off the main thread. */
import { workerData } from 'node:worker_threads';
import { serveWorkerTasks } from '../../src/util/worker-tasks.js';
import { fileLoaders, type FileLoaderOptions } from './file-loaders.js';
import { loaderFor } from './load-file.js';

export interface ParseFileMessage {
  id: number;
  bytes: Uint8Array;
  mimeType: string;
  fileName?: string;
}

const loaders = fileLoaders(workerData as FileLoaderOptions);

// Size and type were checked on the calling thread (`checkFile`): the type is not sniffed again.
serveWorkerTasks<ParseFileMessage>(async (message) =>
  loaderFor(loaders, message.mimeType, message.fileName).load({
    bytes: message.bytes,
    mimeType: message.mimeType,
    ...(message.fileName === undefined ? {} : { fileName: message.fileName }),
  }),
);
