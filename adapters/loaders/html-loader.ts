import type { LoadInput, LoadedDocument, Loader } from '../../src/ports/loader.js';
import { extractHtml } from './html/extract-html.js';
import { MIME } from './mime-types.js';
import { readText } from './text-loaders.js';

/** HTML files: the main text by the rules of `html/rules.ts`, the same the web loader applies to pages. */
export function htmlLoader(): Loader {
  return {
    name: 'html',
    specificationVersion: 'v1',
    mimeTypes: [MIME.html],
    async load(input: LoadInput): Promise<LoadedDocument> {
      const { title, description, text } = extractHtml(readText(input));
      return {
        mimeType: input.mimeType,
        sections: text === '' ? [] : [{ text }],
        ...(title ? { title } : {}),
        ...(description ? { metadata: { description } } : {}),
      };
    },
  };
}
