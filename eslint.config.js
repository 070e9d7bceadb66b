// @ts-check
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const ioModules = ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'better-sqlite3', 'mongodb',
  '@eventstore/db-client', 'kafkajs', 'tesseract.js', 'express', 'net', 'node:net', 'http', 'node:http'];

const webOverHttp = { group: ['@paperlink/*'], message: 'the web app talks to the server over HTTP only.' };

// Research stays out of the product (lab/README.md): experiments, training and what benches,
// scripts and tests share live in lab/, benchmarks in bench/; no package imports either, and
// tests, scripts and lab/ import nothing from bench/. Every block below that sets
// no-restricted-imports on product files repeats `researchOut` (a later block's options replace
// an earlier one's).
const research = '^(\\.\\./)+(lab|bench)(/|$)';
const researchOut = { regex: research, message: 'the product never imports lab/ or bench/ (lab/README.md).' };
const researchOutLazily = { selector: `ImportExpression > Literal[value=/${research.replaceAll('/', '\\/')}/]`, message: 'the product never imports lab/ or bench/, lazily either (lab/README.md).' };
const bench = '^(\\.\\./)+bench(/|$)';
const productFiles = ['{domain,command-api,projections,query-api,infra}/**/*.{ts,mts,js,mjs}', 'web/src/**/*.{ts,tsx}'];

// Server state in the web app goes through TanStack Query (ADR 0012): an effect that calls the
// API client, an endpoint module (`xxxApi`), axios or fetch is a hand-rolled query.
const inEffect = 'CallExpression[callee.name=/^use(Layout)?Effect$/]';
const noFetchInEffects = [
  { selector: `${inEffect} CallExpression[callee.object.name=/^(api|axios|[a-zA-Z]+Api)$/]`, message: 'no fetching in effects: read and write through a TanStack Query hook (the feature\'s api/queries.ts).' },
  { selector: `${inEffect} CallExpression[callee.name='fetch']`, message: 'no fetching in effects: read and write through a TanStack Query hook (the feature\'s api/queries.ts).' },
];

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
  // A package is imported by its entry (its index, or a light entry beside src/ such as
  // @paperlink/command-api/stage), never by a path into its src/: a package's insides may move.
  // Its own rule name, so the blocks below that set no-restricted-imports do not replace it.
  {
    files: ['**/*.{ts,tsx,mts,js,mjs}'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ regex: '^@paperlink/[^/]+/src(/|$)', message: "import another package by its entry, never a path into its src/." }] }],
    },
  },
  {
    files: productFiles,
    rules: {
      'no-restricted-imports': ['error', { patterns: [researchOut] }],
      'no-restricted-syntax': ['error', researchOutLazily],
    },
  },
  {
    files: ['test/**/*.{ts,mts,js,mjs}', 'scripts/**/*.{ts,mts,js,mjs}', 'lab/**/*.{ts,mts,js,mjs}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: bench, message: 'tests, scripts and lab/ do not import bench/: move what they share to lab/.' }] }],
      'no-restricted-syntax': ['error', {
        selector: `ImportExpression > Literal[value=/${bench.replaceAll('/', '\\/')}/]`,
        message: 'tests, scripts and lab/ do not import bench/, lazily either: move what they share to lab/.',
      }],
    },
  },
  // Dependencies point inward (DESIGN.md): the domain is pure and imports nothing of ours.
  {
    files: ['domain/src/**/*.ts'],
    ignores: ['domain/src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ioModules.map((name) => ({ name, message: 'domain/ has no I/O: pass data in with the command.' })),
        patterns: [{ group: ['@paperlink/*'], message: 'domain/ imports nothing of ours.' }, researchOut],
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
          { group: ['@paperlink/web', '@paperlink/web/*'], message: 'the server never imports the web app.' }, researchOut],
      }],
    },
  },
  // The two APIs do not import each other, so either can run as its own process: what both need (request scoping,
  // id params, ETags, the shape of an operation) lives in domain/http/, which imports only the
  // domain, express types and zod.
  {
    files: ['query-api/src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['better-sqlite3', 'mongodb', '@eventstore/db-client', 'kafkajs', 'tesseract.js']
          .map((name) => ({ name, message: 'only infra/ knows the adapters; use a port.' })),
        patterns: [{ group: ['@paperlink/infra', '@paperlink/infra/*'], message: 'infra depends on us, not the other way.' },
          { group: ['@paperlink/web', '@paperlink/web/*'], message: 'the server never imports the web app.' },
          { group: ['@paperlink/command-api', '@paperlink/command-api/*', '**/command-api/**'], message: 'the query API does not import the command API: move what both need to domain/http/.' }, researchOut],
      }],
    },
  },
  {
    files: ['domain/http/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ioModules.filter((name) => name !== 'express').map((name) => ({ name, message: 'domain/http/ is request scoping only: no I/O.' })),
        patterns: [{ group: ['@paperlink/*', '!@paperlink/domain', '!@paperlink/domain/http/*'], message: 'domain/http/ imports only the domain (both APIs import it).' }, researchOut],
      }],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [webOverHttp, researchOut],
      }],
    },
  },
  // The rules of hooks and React's own recommended checks (exhaustive deps, no state set in an
  // effect, no ref read in render...) over the web app; `make lint` runs with zero warnings.
  { ...reactHooks.configs.flat.recommended, files: ['web/src/**/*.{ts,tsx}'] },
  // Features do not import each other (bulletproof-react's boundaries, STYLE.md 14): a file in
  // web/src/features/<name>/ imports from its own feature, components, lib and app only; shared
  // pieces move to components/ or lib/, and the app composes features. One block per folder depth,
  // since the rule sees the import as written: from depth d, d+1 `../` reach features/<other>/.
  ...[0, 1, 2, 3, 4].map((depth) => ({
    files: [`web/src/features/*/${'*/'.repeat(depth)}*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [webOverHttp,
          { regex: `^(\\.\\./){${depth + 1}}(?!\\.\\./)`, message: 'a feature does not import another feature: move the shared piece to web/src/lib or web/src/components.' },
          { regex: `^(\\.\\./){${depth + 2}}(?!(components|lib|app)/)`, message: 'a feature imports only from itself, web/src/components, web/src/lib and web/src/app.' }, researchOut],
      }],
      // The same for import(): no-restricted-imports sees static imports only.
      'no-restricted-syntax': ['error', {
        selector: `ImportExpression > Literal[value=/^(\\.\\.\\/){${depth + 1}}(?!\\.\\.\\/)|^(\\.\\.\\/){${depth + 2}}(?!(components|lib|app)\\/)/]`,
        message: 'a feature does not import another feature, lazily either: move the shared piece to web/src/lib or web/src/components.',
      }, researchOutLazily, ...noFetchInEffects],
    },
  })),
  // Shared code never depends on a feature.
  {
    files: ['web/src/{components,lib}/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [webOverHttp, { regex: '^(\\.\\./)+features/', message: 'components/ and lib/ are shared: they import no feature.' }, researchOut],
      }],
    },
  },
);
