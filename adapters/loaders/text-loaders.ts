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
/**
 * The text of the first `# ` heading, without closing `#`s. Each line is read once: the former
 * `^#\s+(.+?)\s*#*\s*$` tried every split of a run of spaces between its three quantifiers, cubic
 * in the run (`# a` and 500 spaces before a letter took over 30 s).
 */
function markdownTitle(text: string): string | undefined {
  for (const match of text.matchAll(/^#[ \t]+(.*)$/gm)) {
    let line = match[1]!;
    let end = line.length;
    while (end > 0 && /\s/.test(line[end - 1]!)) end--;
    while (end > 0 && line[end - 1] === '#') end--;
    line = line.slice(0, end).trim();
    if (line !== '') return line;
  }
  return undefined;
}

export function plainTextLoader(): Loader {
  return {
    name: 'text',
    specificationVersion: 'v1',
    mimeTypes: [MIME.text, MIME.markdown],
    async load(input: LoadInput): Promise<LoadedDocument> {
      const text = readText(input);
      const title = input.mimeType === MIME.markdown ? markdownTitle(text) : undefined;
      return {
        mimeType: input.mimeType,
        sections: text.trim() === '' ? [] : [{ text }],
        ...(title === undefined ? {} : { title }),
      };
    },
  };
}
