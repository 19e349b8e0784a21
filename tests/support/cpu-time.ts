import { expect } from 'vitest';

/**
 * Milliseconds of CPU this process has used (user and system). A bound on it guards against a hang
 * or a quadratic blow-up without racing the clock: other processes on a loaded machine stretch the
 * wall time of a run many times over, but not the CPU time the run itself takes.
 */
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Runs `run`, failing if it used more than `ms` milliseconds of CPU (a guard, not a benchmark). */
export function withinCpu<T>(ms: number, run: () => T): T {
  const start = cpuMs();
  const value = run();
  expect(cpuMs() - start).toBeLessThan(ms);
  return value;
}
