import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that run in a process of their own, as vitest runs every file by default: those that mock
 * a module (vi.mock of node:fs) or change the process's working directory, and the CLI's, whose
 * modules keep per-process state about stdout. Every other file shares its worker's module cache
 * with the files run before it in that worker (isolate: false below): a file costs its own tests,
 * not a fresh import of the runtime, the loaders and zod, which was most of a small file's time.
 * Spies are restored between files either way (vitest calls vi.restoreAllMocks after each file).
 */
const ISOLATED = ['tests/graphs/gltf.test.ts', 'tests/cli/**/*.test.ts', 'tests/docs/code-blocks.test.ts'];

/**
 * The files that take longest (20 s to 100 s each on 2 cores, most of it Chromium, allocation
 * probes and crowd worker threads), longest first. They start first, whatever their project, and the
 * short files fill in around them: started last, one of them alone would keep one core busy while
 * the other had nothing left to run. vitest's own order (the durations it cached at the last run of
 * each file, else file sizes) put the editor page, 100 s, last when a run of that file alone had
 * failed early. Only the order: a file missing here runs after these, in vitest's order.
 */
const SLOW_FIRST = [
  'tests/editor/page.test.ts',
  'tests/runtime/graph/graph-allocation.test.ts',
  'tests/runtime/graph/graph-allocation-examples.test.ts',
  'tests/view/retarget.test.ts',
  'tests/view/viewer.test.ts',
  'tests/host/crowd.test.ts',
  'tests/docs/code-blocks.test.ts',
  'tests/host/crowd-failures.test.ts',
  'tests/view/parameters.test.ts',
  'tests/runtime/graph/update-rate.test.ts',
  'tests/three/crowd-page.test.ts',
  'tests/nodes/InertialBlend.test.ts',
  'tests/nodes/Slot.test.ts',
  'tests/view/server.test.ts',
  'tests/cli/cli.test.ts',
  'tests/cli/outputs.test.ts',
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = SLOW_FIRST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return at < 0 ? SLOW_FIRST.length : at;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

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
    sequence: { sequencer: SlowFirst },
    projects: [
      { test: { ...common, name: 'isolated', include: ISOLATED } },
      { test: { ...common, name: 'shared', include: ['tests/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
    ],
  },
});
