import { execFileSync } from 'node:child_process';
import v8 from 'node:v8';

/**
 * Where the frame loop's garbage would be allocated: V8 puts new objects (a boxed double, a
 * closure, an array) in the young generation, or the large-object spaces when big. Old and code
 * space are left out: they grow when V8 compiles or re-tiers a function, which a loaded test run
 * can make happen in any window (seen as 10-17 bytes a frame in whole windows when measured with
 * heapUsed). V8 pretenures into old space only allocation sites whose objects survive, which
 * per-frame garbage does not.
 */
const ALLOCATION_SPACES = new Set(['new_space', 'new_large_object_space', 'large_object_space']);

function used(spaces: readonly { spaceName?: string; space_name?: string; spaceUsedSize?: number; space_used_size?: number }[]): number {
  let bytes = 0;
  for (const s of spaces) if (ALLOCATION_SPACES.has((s.spaceName ?? s.space_name)!)) bytes += (s.spaceUsedSize ?? s.space_used_size)!;
  return bytes;
}

/**
 * Bytes allocated per call of `frame` once warm, for probes run in a plain Node process with
 * --expose-gc (see allocation-probe.ts for why not inside vitest): the growth of the allocation
 * spaces over a window of frames, adding back what each GC inside the window collected (a
 * v8.GCProfiler lists them). An allocation in the frame loop shows in every window and one-off
 * noise does not, so the smallest window is the steady state.
 */
export function bytesPerFrame(frame: () => void, { warmup = 20000, windows = 5, frames = 20000 } = {}): { perFrame: number; windows: number[] } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < warmup; i++) frame();
  const measured = Array.from({ length: windows }, () => {
    gc();
    const profiler = new v8.GCProfiler();
    profiler.start();
    const before = used(v8.getHeapSpaceStatistics());
    for (let i = 0; i < frames; i++) frame();
    const after = used(v8.getHeapSpaceStatistics());
    let bytes = after - before;
    for (const stat of profiler.stop()?.statistics ?? []) bytes += used(stat.beforeGC.heapSpaceStatistics) - used(stat.afterGC.heapSpaceStatistics);
    return bytes / frames;
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
