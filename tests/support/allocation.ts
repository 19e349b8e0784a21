import { execFileSync } from 'node:child_process';
import { measureAllocation } from '../../host/allocation.ts';

/**
 * Bytes allocated per call of `frame` once warm, for probes run in a plain Node process with
 * --expose-gc (see allocation-probe.ts for why not inside vitest): the package's own
 * measureAllocation (host/allocation.ts) over each run of frames. An allocation in the frame loop
 * shows in every window and one-off noise does not, so the smallest window is the steady state.
 */
export function bytesPerFrame(frame: () => void, { warmup = 20000, windows = 5, frames = 20000 } = {}): { perFrame: number; windows: number[] } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < warmup; i++) frame();
  const measured = Array.from({ length: windows }, () => {
    gc();
    return measureAllocation(frames, frame);
  });
  return { perFrame: Math.min(...measured), windows: measured };
}

/**
 * Runs the probe tests/support/`name` in a plain Node process (`--expose-gc`, then `flags`; `args`
 * after the script) and returns the JSON it printed on its last line.
 */
export function runProbe<T = Record<string, any>>(name: string, flags: readonly string[] = [], args: readonly string[] = []): T {
  const probe = new URL(`./${name}`, import.meta.url).pathname;
  const out = execFileSync(process.execPath, ['--expose-gc', ...flags, '--import', 'tsx', probe, ...args], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as T;
}
