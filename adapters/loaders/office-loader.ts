import type { OfficeParser as OfficeParserClass, OfficeParserAST, OfficeParserConfig, SupportedFileType } from 'officeparser';
import type { LoadInput, LoadedDocument, Loader } from '../../src/ports/loader.js';
import { checkArchiveSize } from './archive-limits.js';
import { couldNotParse, payloadTooLarge } from './loader-errors.js';
import { MIME } from './mime-types.js';
import { officeSections } from './office-sections.js';
import { loadOfficeParser } from './officeparser-module.js';
import { countPdfPages, countPptxSlides } from './page-count.js';
import { loadPdf } from './pdf-text.js';

export interface OfficeLoaderLimits {
  /** Cap on the bytes a DOCX/PPTX/XLSX may inflate to, declared and actual. */
  maxUncompressedBytes: number;
  /** Documents with more pages or slides are refused (checked before and after parsing); `undefined` for no limit. */
  maxPages?: number;
  /** Sheets with more columns are refused (default 1,000). */
  maxTableColumns?: number;
}

const FILE_TYPES: Readonly<Record<string, SupportedFileType>> = {
  [MIME.pdf]: 'pdf',
  [MIME.docx]: 'docx',
  [MIME.pptx]: 'pptx',
  [MIME.xlsx]: 'xlsx',
};

// Loaded on first use: the XML stack is heavy and most callers never parse an office file.
let officeparser: Promise<{ OfficeParser: typeof OfficeParserClass }> | undefined;

/** PDF (pages, through pdf.js) and DOCX, PPTX, XLSX (slides and sheets, through officeparser's AST). */
export function officeLoader(limits: OfficeLoaderLimits): Loader {
  return {
    name: 'officeparser',
    specificationVersion: 'v1',
    mimeTypes: [MIME.pdf, MIME.docx, MIME.pptx, MIME.xlsx],
    async load(input: LoadInput): Promise<LoadedDocument> {
      const fileType = FILE_TYPES[input.mimeType];
      if (fileType === undefined) throw new TypeError(`officeLoader cannot read ${input.mimeType}`);
      if (fileType !== 'pdf') await checkArchiveSize(input.bytes, limits.maxUncompressedBytes);
      // Counted from the raw file first, so a huge document is refused before it is parsed.
      if (limits.maxPages !== undefined) {
        const declared = fileType === 'pdf' ? await countPdfPages(input.bytes) : fileType === 'pptx' ? countPptxSlides(input.bytes) : 0;
        assertPages(declared, limits.maxPages);
      }
      const document =
        fileType === 'pdf'
          ? await loadPdf(input)
          : officeSections(await parse(input, fileType, limits), input.mimeType, limits.maxTableColumns);
      if (limits.maxPages !== undefined) assertPages(document.totalPages ?? 0, limits.maxPages);
      return document;
    },
  };
}

function assertPages(pages: number, maxPages: number): void {
  if (pages > maxPages) {
    throw payloadTooLarge(`the document has ${pages} pages, more than the limit of ${maxPages}`, { pages, maxPages });
  }
}

async function parse(input: LoadInput, fileType: SupportedFileType, limits: OfficeLoaderLimits): Promise<OfficeParserAST> {
  officeparser ??= loadOfficeParser();
  const { OfficeParser } = await officeparser;
  const config: OfficeParserConfig = {
    fileType,
    abortSignal: input.signal ?? null,
    // Chart titles and data live in attachments; PDF image extraction is slow and yields no text.
    extractAttachments: fileType !== 'pdf',
    ocr: false,
    ignoreHeadersAndFooters: true,
    ignoreComments: true,
    decompressionLimits: { maxUncompressedBytes: limits.maxUncompressedBytes },
    onWarning: () => {},
  };
  try {
    // A copy: pdfjs transfers (detaches) the buffer it is given, and the caller may still need it.
    return await OfficeParser.parseOffice(Buffer.from(input.bytes), config);
  } catch (error) {
    if (input.signal?.aborted) throw input.signal.reason;
    const code = (error as { officeIssue?: { code?: string } }).officeIssue?.code;
    if (code === 'ZIP_SIZE_LIMIT_EXCEEDED' || code === 'ZIP_ENTRY_COUNT_LIMIT_EXCEEDED') {
      throw payloadTooLarge(`the archive inflates past the limit of ${limits.maxUncompressedBytes} bytes`, {
        maxUncompressedBytes: limits.maxUncompressedBytes,
      });
    }
    throw couldNotParse(
      `${fileType.toUpperCase()} file${input.fileName ? ` ${JSON.stringify(input.fileName)}` : ''}`,
      input.mimeType,
      error,
    );
  }
}
