// Lint for src, adapters, test, benchmarks, fixtures and scripts: ESLint's recommended rules plus
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
      // Off: nearly every finding (105 on 2026-11-25) is a method implementing a Promise-returning
      // interface (Store, VectorIndex, Loader, ChatModel, peers, test fakes) with no await inside.
      // There `async` is deliberate: a synchronous throw becomes a rejection, which callers rely on;
      // dropping it would change behaviour and rewriting each as Promise.resolve adds only noise.
      '@typescript-eslint/require-await': 'off',
      // An abort reason (`any` in the DOM types) and a caught error (`unknown`) are passed on as they are.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none', varsIgnorePattern: '^_' }],
      // An adapter built against another copy of ragdesk throws that copy's RagdeskError, which
      // `instanceof` does not recognise (its conflict would answer 500); the marker check does.
      'no-restricted-syntax': [
        'error',
        {
          selector: "BinaryExpression[operator='instanceof'][right.name='RagdeskError']",
          message: 'Use RagdeskError.isInstance(value): instanceof misses RagdeskErrors of another copy of ragdesk.',
        },
        {
          selector: "BinaryExpression[operator='instanceof'][right.property.name='RagdeskError']",
          message: 'Use RagdeskError.isInstance(value): instanceof misses RagdeskErrors of another copy of ragdesk.',
        },
      ],
    },
  },
  {
    // vitest's asymmetric matchers (expect.any, expect.stringContaining, …) are typed `any`, and a
    // matcher placed inside an expected object is each time an "unsafe assignment".
    files: ['test/**/*.ts', 'src/testing/**/*.ts'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
  {
    // Browser tests: page.evaluate callbacks run in the page, and the project loads no DOM lib, so
    // their element types are unresolved to type-aware lint.
    files: ['test/ui/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain ESM scripts (build, consumer test, this file) are not in tsconfig: no type information.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    rules: { 'no-undef': 'off' },
  },
);
