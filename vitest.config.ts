import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.js';

// Four projects, one run (`npm test`), one global setup (one build, one migrated template database):
// - unit: `*.unit.test.ts`, pure code (no Postgres, Redis or processes), in worker threads;
// - isolated: tests that kill or restart Redis or Postgres, or measure the test process's own
//   memory: each file in a fresh process, so nothing of theirs outlives them;
// - process: tests that spawn and kill gateway processes (APIs, workers, `npm start`, the CLI, the
//   clients, Chromium);
// - integration: everything else, against real Postgres, Redis and S3.
// Each file has its own cloned database and Redis prefix. Outside `isolated`, files share their
// worker processes (`isolate: false`): the gateway's modules load once per worker instead of once
// per file (2-5 s each on two cores; ten short files took 28 s isolated, 14 s shared), so a file
// closes what it starts.
// A new test file lands in integration unless its name or folder says otherwise (docs/reference/testing.md).
const ISOLATED_TESTS = [
  'test/lifecycle/fresh-start.test.ts',
  'test/limits/redis-outage.test.ts',
  'test/tasks/redis-restart.test.ts',
  'test/tasks/redis-loss.test.ts',
  'test/operations/redis-sentinel.test.ts',
  // Measure the RSS growth of the test process: a fresh one, not one that ran other files first.
  'test/storage/s3-memory.test.ts',
  'test/upstream-sim/result-files.test.ts',
  'test/batches/bounded-lines-memory.test.ts',
];
const PROCESS_TESTS = [
  'test/lifecycle/**/*.test.ts',
  'test/clients/**/*.test.ts',
  'test/limits/crash.test.ts',
  'test/limits/fitting-reservations.test.ts',
  'test/limits/grants.test.ts',
  'test/gateway/durability.test.ts',
  'test/gateway/invalidation.test.ts',
  'test/tasks/worker-sigkill.test.ts',
  'test/tasks/workers-side-by-side.test.ts',
  // Spawns an API that trusts the https image host's certificate (NODE_EXTRA_CA_CERTS).
  'test/tasks/video-references.test.ts',
  'test/webhooks/worker-kill.test.ts',
  'test/batches/worker-kill.test.ts',
  'test/routing/breaker.test.ts',
  'test/private/durability.test.ts',
  'test/usage/usage-lookup-page.test.ts',
  'test/cli/**/*.test.ts',
  'test/db/**/*.test.ts',
  'test/security/demo-bind.test.ts',
  'test/console-site/sign-in.test.ts',
  'test/console-site/keys-usage.test.ts',
  'test/console-site/passkey-sign-up.test.ts',
  'test/console-site/oidc.test.ts',
  'test/operations/**/*.test.ts',
  'test/cache-response/metrics-port.test.ts',
];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Two cores: two test files at a time, the longest first (test/support/slow-first-sequencer.ts).
    maxWorkers: 2,
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { test: { name: 'unit', include: ['test/**/*.unit.test.ts'], pool: 'threads', testTimeout: 30_000 } },
      {
        test: { name: 'isolated', include: ISOLATED_TESTS, pool: 'forks', testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        test: {
          name: 'process',
          include: PROCESS_TESTS,
          exclude: ['test/**/*.unit.test.ts', ...ISOLATED_TESTS, '**/node_modules/**'],
          pool: 'forks',
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts', ...ISOLATED_TESTS, ...PROCESS_TESTS, '**/node_modules/**'],
          pool: 'forks',
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
