import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Files that run in a process of their own, as vitest runs every file by default: those that mock
 * a module (vi.mock of node:fs) or change the process's working directory, and the CLI's, whose
 * modules keep per-process state about stdout. Every other file shares its worker's module cache
 * with the files run before it in that worker (isolate: false below): a file costs its own tests,
 * not a fresh import of the runtime, the loaders and zod, which was most of a small file's time.
 * Spies are restored between files either way (vitest calls vi.restoreAllMocks after each file).
 */
const ISOLATED = ['tests/graphs/gltf.test.ts', 'tests/cli/**/*.test.ts', 'tests/docs/code-blocks.test.ts'];

const common = {
  // A worker per core: vitest's default leaves one core to its main process, which is idle while
  // tests run, so on 2 cores it ran every file one after another. A test blocked on an allocation
  // probe leaves its core to the probe's process. (Both projects the same: vitest schedules them
  // in one pool of this many workers.)
  maxWorkers: Math.max(2, availableParallelism()),
  // A child process per worker (vitest's default pool, named here): the crowd tests start worker
  // threads, and the allocation probes child processes, of their own.
  pool: 'forks' as const,
  // Bounds for a test or hook that hangs, not time budgets: nothing here races a clock. The
  // allocation probes count bytes over fixed numbers of frames, and each probe's process has its
  // own bound (PROBE_HANG_MS in tests/support/allocation.ts, 10 minutes), shorter than this.
  // A test that runs several probes has no vitest timeout at all (PROBES_TEST_TIMEOUT).
  testTimeout: 15 * 60_000,
  hookTimeout: 15 * 60_000,
};

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // One Chromium and one viewer bundle for the run's browser tests, instead of one per file.
    globalSetup: ['tests/support/global-setup.ts'],
    projects: [
      { test: { ...common, name: 'isolated', include: ISOLATED } },
      { test: { ...common, name: 'shared', include: ['tests/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
    ],
  },
});
