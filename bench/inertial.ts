/**
 * Inertialization against crossfading, in one run: 1000 characters on the 65-bone bench skeleton,
 * each either in an InertialBlend transition (one input updated and evaluated, plus the decaying
 * offset) or in a BlendTwo crossfade of the same two clips at alpha 0.5 (both inputs evaluated).
 * Windows alternate between the two so machine noise hits both; prints ms per frame and the ratio.
 * Exits 1 when inertialization is not the cheaper of the two (issue 3 requires it to be), so
 * `npm run bench` fails on a regression instead of printing it.
 *
 *   node --expose-gc --import tsx bench/inertial.ts [--count N] [--quick]
 */
import { performance } from 'node:perf_hooks';
import type { AnimGraphInstance } from '../runtime/graph.ts';
import { buildCrowdGraph, createCrowd, crowdPhases } from './crowd-cases.ts';

const args = process.argv.slice(2);
const count = Number(args[args.indexOf('--count') + 1]) > 0 && args.includes('--count') ? Number(args[args.indexOf('--count') + 1]) : 1000;
const windows = args.includes('--quick') ? 6 : 20;
const framesPerWindow = 30;
const dt = 1 / 60;

const phases = crowdPhases(count, 2);
const inertial = createCrowd(buildCrowdGraph('inertial'), count, phases);
const crossfade = createCrowd(buildCrowdGraph('blend'), count, phases);
for (const c of inertial) {
  c.update(dt);
  c.evaluate();
  c.setParameter('useA', false); // the transition starts on the next frame and never ends
}

function frame(crowd: AnimGraphInstance[]): void {
  for (let i = 0; i < crowd.length; i++) {
    crowd[i].update(dt);
    crowd[i].evaluate();
  }
}

function window(crowd: AnimGraphInstance[]): number {
  const start = performance.now();
  for (let f = 0; f < framesPerWindow; f++) frame(crowd);
  return (performance.now() - start) / framesPerWindow;
}

for (let i = 0; i < 60; i++) { frame(inertial); frame(crossfade); } // warm-up
const active = inertial[0].gatherDebug().children[0].values?.active;
if (active !== true) throw new Error('the inertial crowd is not in a transition');

const a: number[] = [], b: number[] = [], ratios: number[] = [];
for (let w = 0; w < windows; w++) {
  // ABBA order within each pair of windows.
  const first = w % 2 === 0;
  const ti = first ? window(inertial) : 0;
  const tc = window(crossfade);
  const ti2 = first ? ti : window(inertial);
  a.push(ti2);
  b.push(tc);
  ratios.push(ti2 / tc);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

const gc = (globalThis as { gc?: () => void }).gc;
let bytes = NaN;
if (gc) {
  // The smallest of three windows: an allocation per frame shows in all of them, one-off noise does not.
  bytes = Infinity;
  for (let w = 0; w < 3; w++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let f = 0; f < 200; f++) frame(inertial);
    bytes = Math.min(bytes, (process.memoryUsage().heapUsed - before) / 200 / count);
  }
}

console.log(`${count} characters, 65 bones, during a transition (median of ${windows} windows of ${framesPerWindow} frames)`);
console.log(`  InertialBlend  ${median(a).toFixed(3)} ms/frame${Number.isNaN(bytes) ? '' : `, ${bytes.toFixed(2)} B/frame per character`}`);
console.log(`  BlendTwo       ${median(b).toFixed(3)} ms/frame (crossfade: both clips sampled and blended)`);
console.log(`  ratio inertial/crossfade ${median(ratios).toFixed(2)}x`);
const ratio = median(ratios);
if (!(ratio < 1)) {
  console.error(`FAIL: InertialBlend is not cheaper than the BlendTwo crossfade during a transition (ratio ${ratio.toFixed(2)}x, must be below 1)`);
  process.exitCode = 1;
}
