import { defineConfig } from 'vitest/config';

// Tests are tiered by file suffix (see STYLE.md):
//   *.unit.spec.ts  pure, fast, no I/O beyond temp files
//   *.int.spec.ts   real adapters (SQLite, in-memory store, HTTP server in process,
//                   external servers when their URLs are set)
//   *.e2e.spec.ts   the real server process and a real browser
/**
 * Int files that measure time (event-loop delay, upload budgets, kill -9 recovery) run alone,
 * one after another, after the others: a neighbour's CPU would be measured as theirs.
 */
const INT = ['{domain,command-api,projections,query-api,infra}/src/**/*.int.spec.ts', 'test/**/*.int.spec.ts'];

/**
 * Suites that need the distributed profile's servers (Kafka, a MongoDB wire-protocol server):
 * `make test-distributed` starts them (test/distributed/global-setup.ts) and runs these alone.
 */
const DISTRIBUTED = [
  'infra/src/jobs/{kafka,kafka-client,kafka-reactor,dead-letters,worker-role}.int.spec.ts',
  'infra/src/system/job-failures.int.spec.ts',
  'infra/src/readstore/mongo*.int.spec.ts', 'infra/src/projector/lease*.int.spec.ts', 'infra/src/blobs/gridfs.int.spec.ts', 'infra/src/limits/mongo.int.spec.ts', '{domain,command-api,projections,query-api,infra,test}/**/*.dist.spec.ts',
  // The fault test (processes and a broker of its own killed under load; about 3-5 minutes): only
  // with PAPERLINK_FAULTS=1 (`make test-faults`): its takeover limit is still missed on a loaded
  // 2-core machine (ADR 0032), so it is not yet part of CI.
  ...(process.env.PAPERLINK_FAULTS === '1' ? ['test/distributed/*.slow.spec.ts'] : [])];

const SERIAL = [
  'test/security/event-loop.int.spec.ts',
  'test/security/pdf-bomb.int.spec.ts',
  'test/security/headers.int.spec.ts',
  'test/api/noisy-neighbour.int.spec.ts',
  'test/crash/*.int.spec.ts',
  'infra/src/readstore/embedded.int.spec.ts',
  'infra/src/reports/run.int.spec.ts',
  'infra/src/workers/pool.int.spec.ts',
  'infra/src/llm/chain.int.spec.ts',
];

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['{domain,command-api,projections,query-api,infra}/src/**/*.unit.spec.ts', 'lab/**/*.unit.spec.ts', 'test/architecture/*.unit.spec.ts'],
          environment: 'node',
          // Two files at a time (vitest's default on 2 cores is one): `make test` stays under 15 minutes.
          maxWorkers: 2,
        },
      },
      {
        // Every int file, for running one or a few by path (`--project int <file>`).
        extends: true,
        test: { name: 'int', include: INT, environment: 'node', testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        // `make test-int`, first part: the files that do not measure time, two at a time. Most
        // wait on servers, child processes and worker threads, so two keep both cores busy
        // (vitest's default on 2 cores is one file at a time). Not isolated: each worker imports
        // the product once instead of once per file (import time 85 s -> 11 s, the tier 249 ->
        // 189 s); a file that fakes timers or spies restores them itself.
        extends: true,
        test: { name: 'int-par', include: INT, exclude: [...SERIAL, ...DISTRIBUTED], environment: 'node', testTimeout: 60_000, hookTimeout: 60_000, maxWorkers: 2, isolate: false },
      },
      {
        // `make test-int`, second part: the files that measure time, alone.
        extends: true,
        test: { name: 'int-serial', include: SERIAL, environment: 'node', testTimeout: 60_000, hookTimeout: 60_000, maxWorkers: 1 },
      },
      {
        // `make test-distributed`: against a real Kafka broker and FerretDB, one file at a time
        // (the fault test kills servers and processes).
        extends: true,
        test: {
          name: 'distributed',
          include: DISTRIBUTED,
          globalSetup: ['test/distributed/global-setup.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'web',
          root: 'web',
          include: ['src/**/*.unit.spec.{ts,tsx}'],
          environment: 'jsdom',
          setupFiles: ['src/test-setup.ts'],
          maxWorkers: 2,
          // A page rendered in jsdom with its queries answered takes 1-2 s on a quiet machine and
          // over 5 s (vitest's default limit) on a busy one: the limit is for hangs, not speed.
          testTimeout: 20_000,
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
