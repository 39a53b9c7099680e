// Builds the web console and the chat widget into dist/ui (run by `npm run build`).
// Two Vite builds: the console as an ES module with hashed names (served as immutable), and
// widget.js as one self-contained classic script with its CSS inlined (sites embed it by name).
// dist/ui/manifest.json tells the HTTP adapter which files exist and which the page loads.
import { readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, '../dist/ui');
const jsx = { oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } } };
const quiet = { logLevel: 'warn', configFile: false, publicDir: false };

rmSync(outDir, { recursive: true, force: true });

await build({
  ...quiet,
  ...jsx,
  root: here,
  build: {
    outDir,
    emptyOutDir: false,
    manifest: 'vite-manifest.json',
    target: 'es2022',
    modulePreload: false,
    rollupOptions: {
      input: { console: join(here, 'src/console/main.tsx') },
      output: {
        entryFileNames: 'assets/[name]-[hash].js',
        chunkFileNames: 'assets/[name]-[hash].js',
        assetFileNames: 'assets/[name]-[hash][extname]',
      },
    },
  },
});

await build({
  ...quiet,
  ...jsx,
  root: here,
  build: {
    outDir,
    emptyOutDir: false,
    target: 'es2020',
    lib: { entry: join(here, 'src/widget/widget.tsx'), formats: ['iife'], name: 'ragdeskWidget', fileName: () => 'widget.js' },
  },
});

const viteManifest = JSON.parse(readFileSync(join(outDir, 'vite-manifest.json'), 'utf8'));
rmSync(join(outDir, 'vite-manifest.json'));
const entry = Object.values(viteManifest).find((chunk) => chunk.isEntry);
const files = readdirSync(outDir, { recursive: true, withFileTypes: true })
  .filter((file) => file.isFile())
  .map((file) => relative(outDir, join(file.parentPath, file.name)).split('\\').join('/'))
  .sort();
writeFileSync(join(outDir, 'manifest.json'), `${JSON.stringify({ script: entry.file, styles: entry.css ?? [], files }, null, 2)}\n`);

const sizes = files.map((file) => [file, gzipSync(readFileSync(join(outDir, file)), { level: 9 }).length]);
const total = sizes.reduce((sum, [, size]) => sum + size, 0);
console.log(
  `ui: ${files.length} files in dist/ui, ${(total / 1024).toFixed(1)} KB gzipped (${sizes.map(([f, s]) => `${f} ${(s / 1024).toFixed(1)} KB`).join(', ')})`,
);
