/**
 * Where the player crowd's step in cost per character from 1000 to 10,000 characters comes from:
 * in one process, windows interleaved, µs per character at both
 * counts for each case of bench/crowd/step-cases.ts (the crowd, its objects alone, the kernel alone,
 * the kernel with reads of per-character state, a plain copy, the hand loop), and the ratio
 * 10,000 / 1000 of each. The probe line says whether the process had its share of the cache (see
 * docs/performance.md, "Reading these figures"). It reports; it asserts nothing.
 * bench/crowd-misses.ts counts the same cases' cache misses, which do not move with the machine.
 *
 *   node --import tsx bench/crowd-step.ts [--windows 12]
 */
import { performance } from 'node:perf_hooks';
import { cacheProbe } from './crowd/cache-probe.ts';
import { median } from './crowd/median.ts';
import { STEP_CASES, graph } from './crowd/step-cases.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--windows');
const windows = at >= 0 ? Number(args[at + 1]) : 12;
if (!Number.isInteger(windows) || windows < 1) {
  console.error('--windows takes a whole number above 0');
  process.exit(2);
}
const COUNTS = [1000, 10_000] as const;

const cases = STEP_CASES.flatMap(([name, make]) => COUNTS.map((count) => ({ name, count, frame: make(count), us: [] as number[] })));
for (const c of cases) for (let i = 0; i < 3_000_000 / c.count; i++) c.frame();
const probeBefore = cacheProbe();
for (let w = 0; w < windows; w++) {
  for (const c of w % 2 === 0 ? cases : [...cases].reverse()) {
    const frames = 100_000 / c.count;
    const start = performance.now();
    for (let i = 0; i < frames; i++) c.frame();
    c.us.push((performance.now() - start) * 1000 / frames / c.count);
  }
}
const probeAfter = cacheProbe();

console.log(`player crowd, ${graph.skeleton.boneCount} bones, ${windows} windows interleaved: µs per character (median), and 10,000 / 1000`);
console.log(`4 MB probe ${probeBefore.toFixed(0)} ns before, ${probeAfter.toFixed(0)} after (100 or more: measured short of cache)`);
for (const [name] of STEP_CASES) {
  const [small, large] = COUNTS.map((count) => median(cases.find((c) => c.name === name && c.count === count)!.us));
  console.log(`${name.padEnd(12)} ${small.toFixed(3).padStart(7)} ${large.toFixed(3).padStart(7)}   ${(large / small).toFixed(2)}x`);
}
