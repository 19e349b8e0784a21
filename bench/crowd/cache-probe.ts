/**
 * How much of the last-level cache this process has right now, measured as the latency of
 * dependent loads: the crowd benches print it next to their figures (see cacheProbe).
 */
import { performance } from 'node:perf_hooks';
import { mulberry32 } from '../crowd-cases.ts';

/**
 * The probe's working set: 4 MB, the size that tells this VM's two states apart (8 MB spills in both;
 * a 1000-character crossfade crowd writes 5.2 MB of poses a frame besides its objects).
 */
const PROBE_BYTES = 4 << 20;
const PROBE_LOADS = 200_000;
let probeChain: Int32Array | null = null;

/**
 * Nanoseconds per dependent load over a random cycle through PROBE_BYTES of cache lines: how much
 * of the last-level cache this process has right now. On the 2-core VM the figures here come from
 * it is 20-70 ns while the 4 MB fit and 100-150 ns while they do not; which of the two a run sees
 * changes over minutes (other tenants' share of the host's L3), and a crowd of 1000 crossfading
 * characters then takes up to twice as long (docs/performance.md, "Reading these figures"). The
 * bench prints it around each case so that a row measured short of cache says so.
 */
export function cacheProbe(): number {
  if (probeChain === null) {
    const lines = PROBE_BYTES / 64, stride = 16;
    const order = new Int32Array(lines);
    for (let i = 0; i < lines; i++) order[i] = i;
    // A fixed shuffle, so that every run probes the same cycle (one cycle through every line).
    const random = mulberry32(7);
    for (let i = lines - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1)), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    probeChain = new Int32Array(lines * stride);
    for (let i = 0; i < lines; i++) probeChain[order[i] * stride] = order[(i + 1) % lines] * stride;
  }
  const chain = probeChain;
  let at = 0;
  // One pass over the cycle first, so that what is measured is what stays cached, not a cold start.
  for (let i = 0; i < PROBE_BYTES / 64; i++) at = chain[at];
  const start = performance.now();
  for (let i = 0; i < PROBE_LOADS; i++) at = chain[at];
  const ns = ((performance.now() - start) * 1e6) / PROBE_LOADS;
  // `at` is used, so the loop is not dropped.
  return at < 0 ? Number.NaN : ns;
}
