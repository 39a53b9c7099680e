import type { LoadInput, LoadedDocument, Loader } from '../../src/ports/loader.js';
import { couldNotParse } from './loader-errors.js';
import { MIME } from './mime-types.js';
import { decodeText } from './text-decode.js';

/** Decoded text of a text file (UTF-8, UTF-16 with BOM, Shift_JIS, Windows-1252), line ends as `\n`. */
export function readText(input: LoadInput): string {
  const text = decodeText(input.bytes);
  if (text === undefined) {
    throw couldNotParse(describe(input), input.mimeType, new Error('the bytes are not text'));
  }
  return text.replace(/\r\n?/g, '\n');
}

export function describe(input: LoadInput): string {
  return `${input.mimeType} file${input.fileName ? ` ${JSON.stringify(input.fileName)}` : ''}`;
}

/** Plain text and Markdown, kept as written (Markdown syntax helps the model read structure). */
export function plainTextLoader(): Loader {
  return {
    name: 'text',
    specificationVersion: 'v1',
    mimeTypes: [MIME.text, MIME.markdown],
    async load(input: LoadInput): Promise<LoadedDocument> {
      const text = readText(input);
      const title = input.mimeType === MIME.markdown ? /^#\s+(.+?)\s*#*\s*$/m.exec(text)?.[1] : undefined;
      return {
        mimeType: input.mimeType,
        sections: text.trim() === '' ? [] : [{ text }],
        ...(title === undefined ? {} : { title }),
      };
    },
  };
}
