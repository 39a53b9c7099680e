/** Parser process (or thread) of `fileLoading({ parser: 'worker' })`: the built-in loaders, off the main thread. */
import { serveWorkerTasks, workerInput } from '../../src/util/worker-tasks.js';
import { fileLoaders, type FileLoaderOptions } from './file-loaders.js';
import { loaderFor } from './load-file.js';

export interface ParseFileMessage {
  id: number;
  bytes: Uint8Array;
  mimeType: string;
  fileName?: string;
}

const loaders = fileLoaders(workerInput() as FileLoaderOptions);

// Size and type were checked on the calling thread (`checkFile`): the type is not sniffed again.
serveWorkerTasks<ParseFileMessage>(async (message) =>
  loaderFor(loaders, message.mimeType, message.fileName).load({
    bytes: message.bytes,
    mimeType: message.mimeType,
    ...(message.fileName === undefined ? {} : { fileName: message.fileName }),
  }),
);
