import type { FileLoading } from '../../src/ports/loader.js';
import { fileLoaders, type FileLoaderOptions } from './file-loaders.js';
import { checkFile, loadFile } from './load-file.js';

/** The `FileLoading` port over `fileLoaders`: what `createRagdesk({ files })` takes. */
export function fileLoading(options: FileLoaderOptions = {}): FileLoading {
  const loaders = fileLoaders(options);
  return {
    inspect: (file) => ({ mimeType: checkFile(loaders, file).mimeType }),
    load: (file) => loadFile(loaders, file),
  };
}
