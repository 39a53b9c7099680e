#!/usr/bin/env node
// Copies hnswlib's headers (and their licence) from the hnswlib-node dev dependency into
// dist/vendor/hnswlib/hnswlib/, which the package ships: binding.gyp compiles against them where no
// prebuilt binary fits, so an install never needs hnswlib-node itself. Run by `npm run build`.
import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(dirname(createRequire(import.meta.url).resolve('hnswlib-node/package.json')), 'src', 'hnswlib');
const target = join(root, 'dist', 'vendor', 'hnswlib', 'hnswlib');
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
const copied = readdirSync(source).filter((name) => name.endsWith('.h') || name === 'LICENSE');
if (!copied.includes('LICENSE') || !copied.includes('hnswlib.h')) throw new Error(`hnswlib headers or licence missing in ${source}`);
for (const name of copied) copyFileSync(join(source, name), join(target, name));
console.log(`vendor-hnswlib: ${copied.length} files in dist/vendor/hnswlib/hnswlib`);
