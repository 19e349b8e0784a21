/**
 * Bytes allocated per call of `frame` once warm, for probes run in a plain Node process with
 * --expose-gc (see allocation-probe.ts for why not inside vitest). An allocation in the frame loop
 * shows in every window and one-off noise does not, so the smallest window is the steady state.
 */
export function bytesPerFrame(frame: () => void, { warmup = 5000, windows = 3, frames = 20000 } = {}): { perFrame: number; windows: number[] } {
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
