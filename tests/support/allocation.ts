import { execFileSync } from 'node:child_process';
import { measureAllocation } from '../../host/allocation.ts';
import { nodeArgs } from './compiled-sources.ts';
import { stress } from './stress.ts';

/**
 * What a measuring window costs itself (its heap statistics and garbage-collection profiler), at
 * most, in bytes: 2.4 to 2.65 KB measured over windows of 1000 to 20,000 frames. A window that
 * measures no more than this saw nothing allocated but the measurement.
 */
export const WINDOW_FLOOR_BYTES = 3072;

/**
 * Bytes allocated per call of `frame` once warm, for probes run in a plain Node process with
 * --expose-gc (see allocation-probe.ts for why not inside vitest): the package's own
 * measureAllocation (host/allocation.ts) over each run of frames. An allocation in the frame loop
 * shows in every window and one-off noise does not, so the smallest window is the steady state.
 *
 * `untilFloor`: stop after the first window at the floor (WINDOW_FLOOR_BYTES in all, what a window
 * costs itself): a later window could only measure that floor again, so a bound above
 * WINDOW_FLOOR_BYTES / `frames` passes or fails as it would over every window, at a fraction of the
 * frames. Code still warming (windows above the floor) gets every window, as without. Only for a
 * probe whose other results do not depend on how many frames ran: `frames` in the result counts
 * them (the warm-up included). Such a probe warms up over 5000 frames rather than 20,000 in the
 * quick variant (`npm test`; the long one, ANIMGRAPH_STRESS=1, keeps 20,000): code still cold after
 * them is measured over further windows, up to five, the smallest counting as before.
 */
export function bytesPerFrame(
  frame: () => void,
  { untilFloor = false, warmup = untilFloor ? stress(5000, 20000) : 20000, windows = 5, frames = 20000 }: { untilFloor?: boolean; warmup?: number; windows?: number; frames?: number } = {},
): { perFrame: number; windows: number[]; frames: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < warmup; i++) frame();
  const measured: number[] = [];
  while (measured.length < windows) {
    gc();
    const perFrame = measureAllocation(frames, frame);
    measured.push(perFrame);
    if (untilFloor && perFrame * frames <= WINDOW_FLOOR_BYTES) break;
  }
  return { perFrame: Math.min(...measured), windows: measured, frames: warmup + measured.length * frames };
}

/**
 * How long a probe's process may run before it is taken to be hung and killed: not a time budget.
 * A probe counts bytes over a number of frames, never against a clock, and takes seconds of CPU;
 * this bound only ends a child that would otherwise block its test forever (a synchronous call
 * that vitest's own test timeout cannot interrupt), on however busy a machine.
 */
export const PROBE_HANG_MS = 10 * 60_000;

/**
 * The vitest timeout of a test that runs several probes: none (0). Each probe's process is bounded
 * by PROBE_HANG_MS instead, so that a busy machine slows such a test down but cannot fail it. A test
 * running a single probe keeps the suite's testTimeout (vitest.config.ts), which is longer.
 */
export const PROBES_TEST_TIMEOUT = 0;

/**
 * Runs the probe tests/support/`name` in a plain Node process (`--expose-gc`, then `flags`; `args`
 * after the script) and returns the JSON it printed on its last line. A probe still running after
 * PROBE_HANG_MS is killed and reported as hung.
 */
export function runProbe<T = Record<string, any>>(name: string, flags: readonly string[] = [], args: readonly string[] = []): T {
  return JSON.parse(runNodeProbe(new URL(`./${name}`, import.meta.url).pathname, flags, args).trim().split('\n').at(-1)!) as T;
}

/**
 * What the probe script at `path` printed, run as runProbe runs one (bounded by PROBE_HANG_MS):
 * compiled when the run compiled it (compiled-sources.ts), with source maps for its stack traces;
 * else through tsx.
 */
export function runNodeProbe(path: string, flags: readonly string[] = [], args: readonly string[] = []): string {
  const script = nodeArgs(path);
  try {
    return execFileSync(process.execPath, ['--expose-gc', ...flags, ...script, ...args], { encoding: 'utf8', timeout: PROBE_HANG_MS, killSignal: 'SIGKILL' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
      throw new Error(`allocation probe ${[path, ...args].join(' ')} still ran after ${PROBE_HANG_MS / 60_000} minutes: killed as hung`);
    }
    throw e;
  }
}
