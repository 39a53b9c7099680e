#!/usr/bin/env node
// The package as a stranger gets it: `npm pack`, then a new app in a temporary folder outside the
// repository installs the tarball with the registry's defaults (no lockfile or overrides of ours)
// and uses it: every subpath export imported from ESM, the main API type-checked under
// moduleResolution node16 and bundler, the CLI's help, ingest of a PDF and a DOCX, and query.
// Prints the installed size of node_modules and fails past the budget. Run after `npm run build`:
//   node test/consumer/run.mjs [--keep]
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const BUDGET_MIB = 150;
const keep = process.argv.includes('--keep');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const env = { ...process.env };
// This machine compiles native addons from source; node-gyp finds Node's headers there instead of
// downloading them. A property of the machine, not of the package.
if (!env.npm_config_nodedir && existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';
// Registry defaults: nothing from the repository's own npm configuration leaks into the app.
for (const key of Object.keys(env)) if (key.startsWith('npm_package_') || key === 'npm_config_userconfig') delete env[key];

let passed = 0;
let failed = 0;
function check(name, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
}
function run(command, args, cwd, options = {}) {
  return execFileSync(command, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...options });
}
function attempt(name, fn) {
  try {
    const detail = fn();
    check(name, true, typeof detail === 'string' ? detail : '');
  } catch (error) {
    const output = [error.stdout, error.stderr].filter(Boolean).join('\n').trim();
    check(name, false, (output || String(error)).slice(-3000));
  }
}

const work = mkdtempSync(join(tmpdir(), 'ragdesk-consumer-'));
const app = join(work, 'app');
mkdirSync(app);
console.log(`consumer test in ${work}`);

// --- pack ------------------------------------------------------------------------------------
const packed = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', work], ROOT))[0];
const tarball = join(work, packed.filename);
const files = packed.files.map((file) => file.path);
check(
  'the tarball has no docs/STATUS.md, tests or benchmarks',
  !files.some((path) => path === 'docs/STATUS.md' || path.startsWith('dist/test/') || path.startsWith('dist/benchmarks/')),
);
check(
  'the tarball has the officeparser bundle and its licence',
  files.includes('dist/vendor/officeparser.cjs') && files.includes('dist/vendor/officeparser.LICENSE'),
);
const prebuild = `prebuilds/${process.platform}-${process.arch}/ragdesk_hnsw.napi${process.platform === 'linux' ? '.glibc' : ''}.node`;
check(`the tarball has the HNSW binding prebuilt for this platform (${prebuild})`, files.includes(prebuild));
check(
  "the tarball has hnswlib's headers and licence for builds from source",
  files.includes('dist/vendor/hnswlib/hnswlib/hnswlib.h') && files.includes('dist/vendor/hnswlib/hnswlib/LICENSE'),
);
console.log(
  `     tarball ${packed.filename}: ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024 / 1024).toFixed(1)} MiB unpacked, ${files.length} files`,
);

// --- install ---------------------------------------------------------------------------------
writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer-app', private: true, type: 'module' }, null, 2));
const started = Date.now();
const install = spawnSync(npm, ['install', '--no-audit', '--no-fund', '--loglevel=warn', tarball], { cwd: app, env, encoding: 'utf8' });
const installLog = `${install.stdout}\n${install.stderr}`;
if (install.status !== 0) {
  console.log(installLog.slice(-4000));
  check('npm install of the tarball', false, 'see the log above');
  finish();
}
check('npm install of the tarball', true, `${((Date.now() - started) / 1000).toFixed(0)} s`);
const manifest = JSON.parse(readFileSync(join(app, 'node_modules/ragdesk/package.json'), 'utf8'));

// Installed size: the apparent size of every file, as `du --apparent-size` counts it.
const sizes = new Map();
function sizeOf(path) {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) total += sizeOf(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}
const modules = join(app, 'node_modules');
for (const entry of readdirSync(modules)) {
  if (entry.startsWith('.')) continue;
  const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`) : [entry];
  for (const name of names) sizes.set(name, sizeOf(join(modules, name)));
}
const total = [...sizes.values()].reduce((sum, size) => sum + size, 0) / 1024 / 1024;
const largest = [...sizes]
  .sort((a, b) => b[1] - a[1])
  .slice(0, 8)
  .map(([name, size]) => `${name} ${(size / 1024 / 1024).toFixed(1)}`);
console.log(`     node_modules: ${total.toFixed(1)} MiB in ${sizes.size} packages; largest (MiB): ${largest.join(', ')}`);
check(`installed size within ${BUDGET_MIB} MiB`, total <= BUDGET_MIB, `${total.toFixed(1)} MiB`);
for (const heavy of [
  'hnswlib-node',
  'tesseract.js',
  'tesseract.js-core',
  '@napi-rs/canvas',
  'pdfjs-dist',
  'js-tiktoken',
  'pg',
  'officeparser',
]) {
  check(`${heavy} is not installed by default`, !sizes.has(heavy));
}
// The prebuilt binding loaded during install: nothing of ragdesk's was compiled.
check(
  'the HNSW binding is the prebuilt one (no build/ folder in the installed package)',
  !existsSync(join(app, 'node_modules/ragdesk/build')),
);
const engineWarnings = installLog.split('\n').filter((line) => /EBADENGINE/.test(line));
check('no EBADENGINE during install', engineWarnings.length === 0, engineWarnings.join(' | '));

// --- every subpath export from ESM -------------------------------------------------------------
const subpaths = Object.keys(manifest.exports).filter((key) => key !== './package.json');
const importer = `
const results = {};
for (const subpath of ${JSON.stringify(subpaths)}) {
  const specifier = subpath === '.' ? 'ragdesk' : 'ragdesk/' + subpath.slice(2);
  try {
    const module = await import(specifier);
    results[specifier] = { ok: true, exports: Object.keys(module).length };
  } catch (error) {
    results[specifier] = { ok: false, code: error.code, message: error.message };
  }
}
const json = (await import('ragdesk/package.json', { with: { type: 'json' } })).default;
results['ragdesk/package.json'] = { ok: json.name === 'ragdesk', exports: 1 };
console.log(JSON.stringify(results));
`;
writeFileSync(join(app, 'imports.mjs'), importer);
const imported = JSON.parse(run(process.execPath, ['imports.mjs'], app));
for (const [specifier, result] of Object.entries(imported)) {
  if (specifier === 'ragdesk/testing') {
    // The conformance suites run on vitest, an optional peer that adapter authors install.
    check(
      `import ${specifier} without vitest names the package`,
      result.ok || /'vitest'/.test(result.message),
      result.ok ? 'vitest found' : result.message,
    );
  } else if (specifier === 'ragdesk/langchain') {
    // @langchain/core is an optional peer: without it the import fails naming that package.
    check(
      `import ${specifier} without @langchain/core names the package`,
      !result.ok && /@langchain\/core/.test(result.message),
      result.message,
    );
  } else if (specifier === 'ragdesk/postgres') {
    // pg is an optional peer: without it the adapter must say which package to install.
    check(
      `import ${specifier} without pg names the package`,
      !result.ok && result.code === 'invalid_adapter' && /'pg'/.test(result.message),
      result.message,
    );
  } else {
    check(
      `import ${specifier}`,
      result.ok && result.exports > 0,
      result.ok ? `${result.exports} exports` : `${result.code}: ${result.message}`,
    );
  }
}

// --- types: the main API under node16 and bundler resolution ---------------------------------------
// Any Node app type-checks against @types/node; installed after the size was measured.
attempt('npm install -D typescript @types/node', () => {
  const pinned = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies;
  run(
    npm,
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '-D',
      `typescript@${pinned.typescript}`,
      `@types/node@${pinned['@types/node']}`,
    ],
    app,
  );
});
writeFileSync(
  join(app, 'main.ts'),
  `
import { createRagdesk, isRagdeskError, RagdeskError, type Ragdesk } from 'ragdesk';
import { openRagdesk } from 'ragdesk/node';
import { fileLoaders, loadFile, MIME } from 'ragdesk/loaders';
import { memoryStores } from 'ragdesk/memory';
import { localEmbeddings } from 'ragdesk/local';

export async function main(dataDir: string): Promise<number> {
  const opened = openRagdesk({ dataDir });
  const ragdesk: Ragdesk = opened;
  try {
    const datastore = await ragdesk.datastores.create({ name: 'notes' });
    const { ids } = await datastore.upsert([{ text: 'Refunds take 14 days.', name: 'refunds', metadata: { author: 'support' } }]);
    await opened.indexed();
    const results = await datastore.query({ query: 'refunds', topK: 3, filters: { datasource_ids: ids } });
    const first: string | undefined = results[0]?.text;
    const page: number | null | undefined = results[0]?.page_number;
    void page;
    const document = await loadFile(fileLoaders(), { bytes: new TextEncoder().encode('# hi'), mimeType: MIME.markdown });
    return (first?.length ?? 0) + document.sections.length;
  } catch (error) {
    if (isRagdeskError(error)) return error.status;
    throw RagdeskError.isInstance(error) ? error : new Error(String(error));
  } finally {
    await ragdesk.close();
  }
}
export const unused = [createRagdesk, memoryStores, localEmbeddings];
`,
);
for (const resolution of ['node16', 'bundler']) {
  const module = resolution === 'node16' ? 'node16' : 'esnext';
  const config = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: 'es2022',
      module,
      moduleResolution: resolution,
      types: ['node'],
    },
    files: ['main.ts'],
  };
  writeFileSync(join(app, `tsconfig.${resolution}.json`), JSON.stringify(config, null, 2));
  attempt(`tsc --noEmit with moduleResolution ${resolution} (skipLibCheck false)`, () =>
    run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', `tsconfig.${resolution}.json`], app),
  );
}

// --- the CLI --------------------------------------------------------------------------------
const fixtures = join(ROOT, 'dist/fixtures');
const documents = join(work, 'documents');
mkdirSync(documents);
const { makePdf } = await import(join(fixtures, 'pdf-writer.js'));
const { makeDocx } = await import(join(fixtures, 'ooxml.js'));
writeFileSync(
  join(documents, 'handbook.pdf'),
  makePdf([['Chapter one: the kettle is in the kitchen.'], ['Chapter two: the lighthouse keeper counts 4711 gulls.']], 'Handbook'),
);
writeFileSync(join(documents, 'memo.docx'), makeDocx(['Memo', 'The quarterly budget for the orchard is 9,250 crowns.']));
const dataDir = join(work, 'data');
attempt('npx ragdesk help', () => {
  const out = run(npm, ['exec', '--', 'ragdesk', 'help'], app);
  if (!/ragdesk <command>/.test(out)) throw new Error(`unexpected help output: ${out.slice(0, 300)}`);
});
for (const file of ['handbook.pdf', 'memo.docx']) {
  attempt(`ragdesk ingest ${file}`, () =>
    run(npm, ['exec', '--', 'ragdesk', 'ingest', join(documents, file), '--datastore', 'docs', '--data-dir', dataDir], app)
      .trim()
      .split('\n')
      .pop(),
  );
}
attempt('ragdesk query finds the PDF page', () => {
  const out = run(
    npm,
    [
      'exec',
      '--',
      'ragdesk',
      'query',
      'how many gulls does the lighthouse keeper count',
      '--datastore',
      'docs',
      '--json',
      '--data-dir',
      dataDir,
    ],
    app,
  );
  if (!out.includes('4711')) throw new Error(`the answer's page is missing: ${out.slice(0, 600)}`);
  const page = /"page_number":\s*2\b/.test(out);
  if (!page) throw new Error(`page 2 is not cited: ${out.slice(0, 600)}`);
  return 'page 2 cited';
});
attempt('ragdesk query finds the DOCX text (bundled officeparser)', () => {
  const out = run(
    npm,
    ['exec', '--', 'ragdesk', 'query', 'orchard budget crowns', '--datastore', 'docs', '--json', '--data-dir', dataDir],
    app,
  );
  if (!out.includes('9,250')) throw new Error(out.slice(0, 600));
});
// Where no prebuilt binary fits, the install compiles the binding: against the hnswlib headers the
// package ships, without hnswlib-node. Forced here, then the same query runs on the compiled one.
attempt('builds the HNSW binding from source when asked, with the shipped headers', () => {
  run(npm, ['rebuild', 'ragdesk', '--foreground-scripts'], app, { env: { ...env, npm_config_build_from_source: 'true' } });
  if (!existsSync(join(app, 'node_modules/ragdesk/build/Release/ragdesk_hnsw.node'))) throw new Error('no build/Release/ragdesk_hnsw.node');
  const out = run(
    npm,
    ['exec', '--', 'ragdesk', 'query', 'orchard budget crowns', '--datastore', 'docs', '--json', '--data-dir', dataDir],
    app,
  );
  if (!out.includes('9,250')) throw new Error(out.slice(0, 600));
  return 'compiled and queried';
});

// --- ragdesk/langchain once the app has @langchain/core --------------------------------------------
attempt('ragdesk/langchain retrieves in a LangChain app (npm install @langchain/core)', () => {
  const pinned = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies['@langchain/core'];
  run(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error', `@langchain/core@${pinned}`], app);
  writeFileSync(
    join(app, 'langchain.mjs'),
    `
import { RagdeskRetriever } from 'ragdesk/langchain';
import { createRagdesk } from 'ragdesk';
import { memoryStores, exactIndex } from 'ragdesk/memory';
import { localEmbeddings } from 'ragdesk/local';
const ragdesk = createRagdesk({ ...memoryStores(), index: exactIndex(), embeddings: localEmbeddings() });
const datastore = await ragdesk.datastores.create({ name: 'notes' });
await datastore.upsert([{ name: 'kettle', text: 'The kettle is in the left cupboard.' }]);
const documents = await new RagdeskRetriever({ datastore, topK: 1 }).invoke('where is the kettle');
await ragdesk.close();
console.log(documents[0].pageContent);
`,
  );
  const out = run(process.execPath, ['langchain.mjs'], app);
  if (!out.includes('left cupboard')) throw new Error(out.slice(0, 600));
});

finish();

function finish() {
  if (!keep) rmSync(work, { recursive: true, force: true });
  else console.log(`kept ${work}`);
  console.log(`consumer: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}
