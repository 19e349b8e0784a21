import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // One Chromium and one viewer bundle for the run's browser tests, instead of one per file.
    globalSetup: ['tests/support/global-setup.ts'],
    // A test file per child process (vitest's default pool, named here): the crowd tests start
    // worker threads, and the allocation probes child processes, of their own.
    pool: 'forks',
    // A worker per core: vitest's default leaves one core to its main process, which is idle while
    // tests run, so on 2 cores it ran every file one after another. A test blocked on an allocation
    // probe leaves its core to the probe's process.
    maxWorkers: Math.max(2, availableParallelism()),
    // Bounds for a test or hook that hangs, not time budgets: nothing here races a clock. The
    // allocation probes count bytes over fixed numbers of frames, and each probe's process has its
    // own bound (PROBE_HANG_MS in tests/support/allocation.ts, 10 minutes), shorter than this.
    // A test that runs several probes has no vitest timeout at all (PROBES_TEST_TIMEOUT).
    testTimeout: 15 * 60_000,
    hookTimeout: 15 * 60_000,
  },
});
