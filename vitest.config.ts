import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Bounds for a test or hook that hangs, not time budgets: nothing here races a clock. The
    // allocation probes count bytes over fixed numbers of frames, and each probe's process has its
    // own bound (PROBE_HANG_MS in tests/support/allocation.ts, 10 minutes), shorter than this.
    // A test that runs several probes has no vitest timeout at all (PROBES_TEST_TIMEOUT).
    testTimeout: 15 * 60_000,
    hookTimeout: 15 * 60_000,
  },
});
