import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { compiledWorkers } from './test/helpers/compiled-workers.js';

export default defineConfig({
  plugins: [compiledWorkers(dirname(fileURLToPath(import.meta.url)))],
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // expect.poll waits for something to happen: its default (1 s) is a bound on the machine's
    // speed, which a loaded machine can miss. A wait ends as soon as its condition holds.
    expect: { poll: { timeout: 30_000 } },
  },
});
