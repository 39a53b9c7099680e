#!/usr/bin/env node
// Puts the compiled HNSW binding (build/Release, made by `npm ci` / `npm rebuild`) into
// prebuilds/<platform>-<arch>/ under the name node-gyp-build looks for (N-API, so one binary serves
// every Node version; tagged with the C library on Linux). Run before `npm pack` / `npm publish`
// (prepack), so installs on this platform load it instead of compiling.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'build', 'Release', 'ragdesk_hnsw.node');
if (!existsSync(built)) throw new Error(`prebuild: ${built} is missing; run npm ci or npm rebuild first`);
// Only glibc is built here; a musl system (Alpine) finds no match and compiles from source.
const libc = process.platform === 'linux' ? (process.report.getReport().header.glibcVersionRuntime ? '.glibc' : '.musl') : '';
const folder = join(root, 'prebuilds', `${process.platform}-${process.arch}`);
rmSync(join(root, 'prebuilds'), { recursive: true, force: true });
mkdirSync(folder, { recursive: true });
const target = join(folder, `ragdesk_hnsw.napi${libc}.node`);
copyFileSync(built, target);
if (process.platform === 'linux') execFileSync('strip', ['--strip-unneeded', target]);
// stderr: `npm pack --json` prints its report on stdout.
console.error(`prebuild: ${target.slice(root.length + 1)}`);
