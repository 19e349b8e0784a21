/**
 * Bytes allocated per call of `frame` once warm, for probes run in a plain Node process with
 * --expose-gc (see allocation-probe.ts for why not inside vitest). An allocation in the frame loop
 * shows in every window and one-off noise (a late recompilation while other test files load the
 * machine: heapUsed counts code and feedback too) does not, so the smallest window is the steady
 * state. Five windows, because under a loaded machine three were seen all hit by noise.
 */
export function bytesPerFrame(frame: () => void, { warmup = 20000, windows = 5, frames = 20000 } = {}): { perFrame: number; windows: number[] } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < warmup; i++) frame();
  const measured = Array.from({ length: windows }, () => {
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < frames; i++) frame();
    return (process.memoryUsage().heapUsed - before) / frames;
  });
  return { perFrame: Math.min(...measured), windows: measured };
}
