import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // The allocation probes run a graph for thousands of frames in a child process: about 12 s of
    // CPU, and more than 30 s of wall time on a busy 2-core machine.
    testTimeout: 120_000,
  },
});
