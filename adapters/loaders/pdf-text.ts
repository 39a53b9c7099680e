import type { LoadInput, LoadedDocument, LoadedSection } from '../../src/ports/loader.js';
import { couldNotParse } from './loader-errors.js';

type PdfJs = typeof import('unpdf/pdfjs');

// Loaded on first use: pdf.js is ~2 MB of JavaScript and most callers never parse a PDF.
let pdfjs: Promise<PdfJs> | undefined;

/**
 * One section per PDF page, numbered from 1, through pdf.js as unpdf packages it: a build for
 * servers with no canvas and no worker file, so PDF text needs no native addon and runs on Node 20
 * (the pdfjs-dist releases that read PDFs best ask for Node 22 and pull a 34 MB canvas addon).
 */
export async function loadPdf(input: LoadInput): Promise<LoadedDocument> {
  pdfjs ??= import('unpdf/pdfjs');
  const { getDocument } = await pdfjs;
  const task = getDocument({
    // A copy: pdf.js transfers (detaches) the buffer it is given, and the caller may still need it.
    data: new Uint8Array(input.bytes),
    // Untrusted input: no code generated from font programs, no system fonts, errors only.
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
  });
  try {
    const document = await task.promise;
    const info = ((await document.getMetadata().catch(() => undefined))?.info ?? {}) as Record<string, unknown>;
    const sections: LoadedSection[] = [];
    for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber++) {
      input.signal?.throwIfAborted();
      const page = await document.getPage(pageNumber);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue; // marked-content boundaries carry no text
        text += item.str;
        if (item.hasEOL) text += '\n';
      }
      page.cleanup();
      if (text.trim() !== '') sections.push({ text: text.trim(), pageNumber });
    }
    const title = stringOf(info['Title']);
    const author = stringOf(info['Author']);
    return {
      mimeType: input.mimeType,
      sections,
      totalPages: document.numPages,
      ...(title ? { title } : {}),
      metadata: author ? { author } : {},
    };
  } catch (error) {
    if (input.signal?.aborted) throw input.signal.reason;
    throw couldNotParse(`PDF file${input.fileName ? ` ${JSON.stringify(input.fileName)}` : ''}`, input.mimeType, error);
  } finally {
    await task.destroy();
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
