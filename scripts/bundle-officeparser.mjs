// Bundles officeparser (a devDependency) into dist/vendor/officeparser.cjs with its licence, leaving
// out what ragdesk never runs: its PDF (pdf.js), OCR (tesseract.js) and type-sniffing (file-type)
// paths are loaded by officeparser on demand and stay unresolved imports. Its XML and ZIP libraries
// stay external too: they are ragdesk dependencies, shared with the app. See
// adapters/loaders/officeparser-module.ts for why.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);
const root = join(dirname(require.resolve('officeparser')), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outDir = new URL('../dist/vendor/', import.meta.url);
mkdirSync(outDir, { recursive: true });

await build({
  entryPoints: [join(root, 'dist/index.js')],
  outfile: new URL('officeparser.cjs', outDir).pathname,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['pdfjs-dist', 'pdfjs-dist/*', 'tesseract.js', 'file-type', '@xmldom/xmldom', 'fflate', 'puppeteer'],
  banner: { js: `// officeparser ${version} (MIT, see officeparser.LICENSE), bundled by ragdesk's build.` },
  logLevel: 'warning',
});
copyFileSync(join(root, 'LICENSE'), new URL('officeparser.LICENSE', outDir));
