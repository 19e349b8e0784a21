/**
 * The median of timed windows. A module of its own so that a bench that only times (bench/crowd-step.ts,
 * bench/cache-state.ts) does not need measure.ts, which needs --expose-gc.
 */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}
