// @ts-check
import tseslint from 'typescript-eslint';

const ioModules = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'better-sqlite3', 'mongodb',
  '@eventstore/db-client', 'kafkajs', 'tesseract.js', 'express', 'net', 'node:net', 'http', 'node:http'];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '.artifacts/**', 'web/dist/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['warn', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'warn',
      'no-console': 'off',
    },
  },
  // Dependencies point inward (DESIGN.md): the domain is pure and imports nothing of ours.
  {
    files: ['domain/src/**/*.ts'],
    ignores: ['domain/src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ioModules.map((name) => ({ name, message: 'domain/ has no I/O: pass data in with the command.' })),
        patterns: [{ group: ['@paperlink/*'], message: 'domain/ imports nothing of ours.' }],
      }],
    },
  },
  {
    files: ['command-api/src/**/*.ts', 'projections/src/**/*.ts', 'query-api/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['better-sqlite3', 'mongodb', '@eventstore/db-client', 'kafkajs', 'tesseract.js']
          .map((name) => ({ name, message: 'only infra/ knows the adapters; use a port.' })),
        patterns: [{ group: ['@paperlink/infra', '@paperlink/infra/*'], message: 'infra depends on us, not the other way.' },
          { group: ['@paperlink/web', '@paperlink/web/*'], message: 'the server never imports the web app.' }],
      }],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['@paperlink/*'], message: 'the web app talks to the server over HTTP only.' }],
      }],
    },
  },
);
