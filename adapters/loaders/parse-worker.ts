/** Parser process (or thread) of `fileLoading({ parser: 'worker' })`: the built-in loaders, off the main thread. */
import { readFileSync, writeFileSync } from 'node:fs';
import { serialize } from 'node:v8';
import { RagdeskError } from '../../src/errors.js';
import { serveWorkerTasks, workerInput } from '../kit/worker-tasks.js';
import { fileLoaders, type FileLoaderOptions } from './builtin-loaders.js';
import { loaderFor } from './load-by-type.js';

export interface ParseFileMessage {
  id: number;
  /** The file, or `bytesPath`: a file to read it from (large files skip the channel, see file-loading-port.ts). */
  bytes?: Uint8Array;
  bytesPath?: string;
  /** When set, the document is written here (V8-serialized) and the answer is `{ writtenTo }`. */
  resultPath?: string;
  mimeType: string;
  fileName?: string;
  /** More characters of text than this fail here, before they cross back to the main thread. */
  maxChars?: number;
}

const loaders = fileLoaders(workerInput() as FileLoaderOptions);

// Size and type were checked on the calling thread (`checkFile`): the type is not sniffed again.
serveWorkerTasks<ParseFileMessage>(async (message) => {
  const bytes = message.bytes ?? new Uint8Array(readFileSync(message.bytesPath as string));
  const document = await loaderFor(loaders, message.mimeType, message.fileName).load({
    bytes,
    mimeType: message.mimeType,
    ...(message.fileName === undefined ? {} : { fileName: message.fileName }),
  });
  if (message.maxChars !== undefined) {
    let characters = 0;
    for (const section of document.sections) characters += section.text.length;
    if (characters > message.maxChars) {
      throw new RagdeskError(
        'payload_too_large',
        `the document has ${characters} characters of text, more than the limit of ${message.maxChars} (usage.maxExtractedChars)`,
        { details: { reason: 'too_much_text', characters, limit: message.maxChars } },
      );
    }
  }
  if (message.resultPath === undefined) return document;
  writeFileSync(message.resultPath, serialize(document));
  return { writtenTo: message.resultPath };
});
