import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectMimeType, fileLoaders, isSupportedMimeType, loadFile } from '../../adapters/loaders/index.js';
import { datasetPath } from '../../fixtures/datasets.js';
import { normaliseForMatch } from '../../fixtures/normalise.js';

const DOCS = datasetPath('corpus', 'docs');
const present = existsSync(join(DOCS, 'markitdown/expected_strings.json'));
if (!present) console.warn(`[corpus] skipped: ${DOCS} does not exist (RAGDESK_DATASETS_DIR names the folder holding corpus/)`);

interface Expectation {
  file: string;
  must_include: string[];
  must_not_include: string[];
}

/**
 * markitdown renders images as truncated `data:` URIs; that placeholder is its output format, not text
 * of the document, so no text extractor can contain it.
 */
const isRenderingArtifact = (needle: string): boolean => needle.startsWith('data:image/');

const loaders = fileLoaders();

function mimeOf(path: string): string {
  return detectMimeType(readFileSync(path), { fileName: path });
}

const pdfTiming = { pages: 0, milliseconds: 0 };

async function extract(path: string): Promise<string> {
  const started = performance.now();
  const document = await loadFile(loaders, { bytes: readFileSync(path), fileName: path });
  if (document.mimeType === 'application/pdf') {
    pdfTiming.pages += document.totalPages ?? 0;
    pdfTiming.milliseconds += performance.now() - started;
  }
  return document.sections.map((section) => section.text).join('\n\n');
}

function allFiles(): string[] {
  return readdirSync(DOCS, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(DOCS, join(entry.parentPath, entry.name)))
    .sort();
}

describe.skipIf(!present)('real documents (corpus/docs of the data sets folder)', () => {
  const expectations: Expectation[] = present
    ? (JSON.parse(readFileSync(join(DOCS, 'markitdown/expected_strings.json'), 'utf8')) as Expectation[])
    : [];
  const files = present ? allFiles() : [];
  const unsupported = files.filter((file) => !isSupportedMimeType(mimeOf(join(DOCS, file))));
  if (present) {
    console.info(
      `[corpus] ${files.length - unsupported.length} supported files; skipped by mime type: ` +
        unsupported.map((file) => `${file} (${mimeOf(join(DOCS, file))})`).join(', '),
    );
  }

  for (const expectation of expectations) {
    const path = join(DOCS, expectation.file);
    const supported = isSupportedMimeType(mimeOf(path));
    it.skipIf(!supported)(`${expectation.file}: expected strings`, async () => {
      const text = normaliseForMatch(await extract(path));
      const missing = expectation.must_include
        .filter((needle) => !isRenderingArtifact(needle))
        .filter((needle) => !text.includes(normaliseForMatch(needle)));
      const unwanted = expectation.must_not_include.filter((needle) => text.includes(normaliseForMatch(needle)));
      expect({ missing, unwanted }).toEqual({ missing: [], unwanted: [] });
    });
  }

  afterAll(() => {
    const rate = (pdfTiming.pages / pdfTiming.milliseconds) * 1000;
    console.info(`[corpus] PDF: ${pdfTiming.pages} pages in ${Math.round(pdfTiming.milliseconds)} ms (${rate.toFixed(1)} pages/s)`);
  });

  const listed = new Set(expectations.map((expectation) => expectation.file));
  for (const file of files.filter((candidate) => !listed.has(candidate) && !unsupported.includes(candidate))) {
    // An empty source file (markitdown's expected output for a scan it cannot read) has no text to find.
    const empty = readFileSync(join(DOCS, file)).toString('utf8').trim() === '';
    it.skipIf(empty)(`${file}: extracts non-empty text${empty ? ' (skipped: the file is empty)' : ''}`, async () => {
      const text = await extract(join(DOCS, file));
      expect(text.trim().length).toBeGreaterThan(0);
    });
  }
});
