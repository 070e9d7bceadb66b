import { defineConfig } from 'vitest/config';

// Tests are tiered by file suffix (see STYLE.md):
//   *.unit.spec.ts  pure, fast, no I/O beyond temp files
//   *.int.spec.ts   real adapters (SQLite, in-memory store, HTTP server in process,
//                   external servers when their URLs are set)
//   *.e2e.spec.ts   the real server process and a real browser
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{domain,command-api,projections,query-api,infra}/src/**/*.unit.spec.ts'],
          environment: 'node',
        },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['{domain,command-api,projections,query-api,infra}/src/**/*.int.spec.ts', 'test/**/*.int.spec.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          root: 'web',
          include: ['src/**/*.unit.spec.{ts,tsx}'],
          environment: 'jsdom',
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.e2e.spec.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
