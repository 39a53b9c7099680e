import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { OfficeParser } from 'officeparser';

export interface OfficeParserModule {
  OfficeParser: typeof OfficeParser;
}

/**
 * officeparser's DOCX/PPTX/XLSX code, bundled into the published package at build time
 * (scripts/bundle-officeparser.mjs writes dist/vendor/officeparser.cjs). Depending on officeparser
 * would install its PDF and OCR stack with every ragdesk (pdf.js with a 34 MB canvas addon,
 * tesseract.js with 45 MB of WASM, and file-type, which asks for Node 22) although ragdesk never
 * runs it: PDFs go through pdf-text.ts and OCR is off. In the repository, where the bundle has not
 * been built next to the sources, the devDependency is imported as it is.
 */
const BUNDLED = fileURLToPath(new URL('../../vendor/officeparser.cjs', import.meta.url));

export async function loadOfficeParser(): Promise<OfficeParserModule> {
  if (existsSync(BUNDLED)) return createRequire(import.meta.url)(BUNDLED) as OfficeParserModule;
  return import('officeparser');
}
