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
  },
});
