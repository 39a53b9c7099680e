// Lint for src, adapters, test, benchmarks and scripts: ESLint's recommended rules plus
// typescript-eslint's type-aware set, which catches what the compiler lets through in async code
// (a promise nobody awaits, a promise passed where a callback's result is ignored).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', '.tmp/**', 'coverage/**', 'benchmarks/results/**'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `_`-prefixed parameters and caught errors are deliberately unused (callback shapes).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Plain ESM scripts (build, consumer test, this file) are not in tsconfig: no type information.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    rules: { 'no-undef': 'off' },
  },
);
