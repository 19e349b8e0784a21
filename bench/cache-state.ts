/**
 * Why the same crowd bench gives different times on this VM: window by window, a crowd's ms per
 * frame next to cacheProbe() (ns per dependent load over 4 MB, bench/crowd/cache-probe.ts), in one
 * process, so the code, its JIT state and its memory layout stay the same and only the machine moves.
 *
 *   node --import tsx bench/cache-state.ts [--case blend] [--count 1000] [--windows 60]
 *
 * Prints one line per window ("ms/frame probe-ns") and then, by probe reading, the crowd's median
 * ms per frame: below PROBE_CACHED ns (the 4 MB fit in the last-level cache), above PROBE_SPILLED
 * ns (they do not), and in between. A run on a quiet machine prints only the first group. It reports;
 * it asserts nothing (the machine decides what it shows).
 */
import { performance } from 'node:perf_hooks';
import { buildCrowdGraph, createCrowdBatch, crowdPhases, type CrowdGraphKind } from './crowd-cases.ts';
import { cacheProbe } from './crowd/cache-probe.ts';
import { median } from './crowd/median.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = args.indexOf(name);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
};
const kind = option('--case', 'blend') as CrowdGraphKind;
const count = Number(option('--count', '1000'));
const windows = Number(option('--windows', '60'));
if (!Number.isInteger(count) || count < 1 || !Number.isInteger(windows) || windows < 1) {
  console.error('--count and --windows take whole numbers above 0');
  process.exit(2);
}
const FRAMES_PER_WINDOW = 60;
/** Probe readings at or below this are the 4 MB in cache; at or above PROBE_SPILLED, in memory. */
const PROBE_CACHED = 70, PROBE_SPILLED = 100;

const batch = createCrowdBatch(buildCrowdGraph(kind), count, crowdPhases(count, 2), false);
for (let i = 0; i < 300; i++) batch.update(1 / 60);
cacheProbe();

const rows: { ms: number; ns: number }[] = [];
for (let w = 0; w < windows; w++) {
  const start = performance.now();
  for (let i = 0; i < FRAMES_PER_WINDOW; i++) batch.update(1 / 60);
  const ms = (performance.now() - start) / FRAMES_PER_WINDOW;
  rows.push({ ms, ns: cacheProbe() });
}
console.log(`${kind}, ${count} characters, ${FRAMES_PER_WINDOW} frames a window: ms/frame, then the 4 MB probe's ns per load`);
for (let i = 0; i < rows.length; i += 6) {
  console.log(rows.slice(i, i + 6).map((r) => `${r.ms.toFixed(2).padStart(6)} ${r.ns.toFixed(0).padStart(4)}`).join('   '));
}
const groups: [string, (ns: number) => boolean][] = [
  [`probe <= ${PROBE_CACHED} ns (cached)`, (ns) => ns <= PROBE_CACHED],
  [`probe in between`, (ns) => ns > PROBE_CACHED && ns < PROBE_SPILLED],
  [`probe >= ${PROBE_SPILLED} ns (spilled)`, (ns) => ns >= PROBE_SPILLED],
];
for (const [label, test] of groups) {
  const ms = rows.filter((r) => test(r.ns)).map((r) => r.ms);
  console.log(`${label.padEnd(28)} ${String(ms.length).padStart(3)} windows${ms.length > 0 ? `, median ${median(ms).toFixed(3)} ms/frame` : ''}`);
}
