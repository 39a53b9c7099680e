import { parseHTML } from 'linkedom';
import type { LoadInput, LoadedDocument, Loader } from '../../src/ports/loader.js';
import { DEFAULT_MARKUP_LIMITS, measureMarkup } from '../kit/markup-shape.js';
import { payloadTooLarge } from './loader-errors.js';
import { MIME } from './mime-types.js';
import { removeBoilerplate } from './html-boilerplate.js';
import { visibleText } from './html-text.js';
import { readText } from './text-loaders.js';

/**
 * The main text of an HTML page: scripts, styles, navigation, headers, footers, asides and hidden
 * elements removed; `<main>` (or the only `<article>`) preferred over the whole body when present.
 */
export function htmlLoader(): Loader {
  return {
    name: 'html',
    specificationVersion: 'v1',
    mimeTypes: [MIME.html],
    async load(input: LoadInput): Promise<LoadedDocument> {
      const { title, text } = extractHtml(readText(input));
      return {
        mimeType: input.mimeType,
        sections: text === '' ? [] : [{ text }],
        ...(title ? { title } : {}),
      };
    },
  };
}

export function extractHtml(html: string): { title: string | undefined; text: string } {
  // linkedom needs a full document to build <body>; fragments are wrapped.
  const source = /<html[\s>]/i.test(html.slice(0, 4096)) ? html : `<html><head></head><body>${html}</body></html>`;
  assertParsableMarkup(source);
  /* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument --
     linkedom types its document with the DOM lib, which this project does not load, so type-aware lint
     sees it unresolved; the compiler checks these lines against linkedom's own declarations. */
  const { document } = parseHTML(source);
  const title = document.querySelector('title')?.textContent?.replace(/\s+/g, ' ').trim() || undefined;
  const body = document.body ?? document.documentElement;
  if (body === null || body === undefined) return { title, text: '' };
  removeBoilerplate(body);
  const articles = body.querySelectorAll('article');
  const main = body.querySelector('main, [role="main"]') ?? (articles.length === 1 ? articles[0] : null) ?? body;
  return { title, text: visibleText(main) };
  /* eslint-enable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument */
}

/**
 * Refuses markup that would nest deeper or build more nodes than linkedom handles safely (its parser
 * is quadratic in depth; each node costs ~350 bytes of heap): see `adapters/kit/markup-shape.ts`.
 */
function assertParsableMarkup(source: string): void {
  const { maxDepth, maxNodes } = DEFAULT_MARKUP_LIMITS;
  const shape = measureMarkup(source, { maxDepth, maxNodes });
  if (shape.exceeded === 'depth') {
    throw payloadTooLarge(`the HTML nests elements more than ${maxDepth} levels deep`, { reason: 'html_too_deep', maxDepth });
  }
  if (shape.exceeded === 'nodes') {
    throw payloadTooLarge(`the HTML has more than ${maxNodes} nodes`, { reason: 'html_too_many_nodes', maxNodes });
  }
}
