/**
 * A crowd of the shipped locomotion example (graphs/examples/sample-locomotion.json: idle, walk and
 * run in a BlendList under a CopyBone, 22 bones) on one thread, as an InstanceBatch (in the
 * sampling kernel where the engine has WebAssembly SIMD), at 100, 1000 and 10,000 characters:
 * how long the crowd takes to create, how much memory a character holds, ms per frame, and bytes
 * allocated per frame. Every character walks, runs or idles by its own schedule (its gait set
 * every 30 frames, staggered: bench/crowd/locomotion.ts) at its own speed.
 *
 *   node --expose-gc --import tsx bench/locomotion-crowd.ts [--quick] [--counts 100,1000,10000]
 *
 * The peer it is measured against, in the same run: the same graph at the smallest count, per
 * character. "per character vs N0" is the ratio of the per-character frame cost at a count to the
 * one at the smallest count (1.00 = no step as the crowd outgrows the caches); windows of the
 * counts are interleaved (ABC CBA ...) so that machine noise hits every count alike.
 *
 * Memory per character is the growth of V8's used heap plus array buffers (poses are typed arrays)
 * over creating the batch, after full GCs, plus the batch's WebAssembly memory (its poses, the
 * characters' interpolation poses, reserved but untouched until a character goes below full rate,
 * and its copy of the clips), divided by the count: what a character holds of its own (the graph,
 * its clips and skeleton are shared and were built before).
 */
import { performance } from 'node:perf_hooks';
import type { AnimGraph } from '../runtime/graph/graph.ts';
import { cacheProbe } from './crowd/cache-probe.ts';
import { GAITS, LocomotionCrowd, SWITCH_EVERY, locomotionGraph } from './crowd/locomotion.ts';
import { gc, interleave, measureAllocation, median, type Side } from './crowd/measure.ts';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const countsArg = args.indexOf('--counts');
const counts = countsArg >= 0 ? args[countsArg + 1].split(',').map(Number) : [100, 1000, 10000];
if (counts.some((c) => !Number.isInteger(c) || c < 1)) {
  console.error('--counts takes whole numbers above 0, e.g. --counts 100,1000,10000');
  process.exit(2);
}

function heapBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

interface CountResult {
  count: number;
  createMs: number;
  bytesPerCharacter: number;
  kernelBytesPerCharacter: number;
  side: Side;
  bytesPerFrame: number;
}

function build(graph: AnimGraph, count: number): { crowd: LocomotionCrowd; createMs: number; bytesPerCharacter: number; kernelBytesPerCharacter: number } {
  gc();
  gc();
  const before = heapBytes();
  const start = performance.now();
  const batch = graph.createInstances(count);
  const createMs = performance.now() - start;
  gc();
  gc();
  // The sampling kernel's WebAssembly memory (the batch's poses, its interpolation poses and its
  // copy of the clips) is not in V8's heap figures.
  const bytesPerCharacter = (heapBytes() - before + batch.wasmMemoryBytes) / count;
  return { crowd: new LocomotionCrowd(batch), createMs, bytesPerCharacter, kernelBytesPerCharacter: batch.wasmMemoryBytes / count };
}

function main(): void {
  const graph = locomotionGraph();
  console.log(`${graph.name}: ${graph.skeleton.boneCount} bones, ${graph.nodes.length} nodes; Node ${process.version}, ${process.arch}`);
  // Time to create is measured on a warm graph: the first instance also compiles the code.
  build(graph, Math.min(...counts));
  const results: CountResult[] = [];
  for (const count of counts) {
    const { crowd, createMs, bytesPerCharacter, kernelBytesPerCharacter } = build(graph, count);
    // The same work per window at every count: frames scaled so that a window is ~10,000 character-frames.
    const frames = Math.max(1, Math.round((quick ? 5000 : 20000) / count));
    // Warm-up: every character through every gait twice. A character's first switches allocate,
    // once (V8 moving its players' and fades' number fields from small-integer to double storage,
    // for objects built before any such field held a double); B/frame is the steady state after.
    crowd.frames(2 * SWITCH_EVERY * GAITS.length);
    const allocation = measureAllocation(crowd, Math.max(4, frames), quick ? 2 : 3);
    results.push({ count, createMs, bytesPerCharacter, kernelBytesPerCharacter, bytesPerFrame: allocation.bytesPerFrame, side: { runner: crowd, frames, ms: [] } });
  }
  const probeBefore = cacheProbe();
  interleave(results.map((r) => r.side), quick ? 6 : 15);
  const probeAfter = cacheProbe();
  const base = results[0];
  const perCharacter = (r: CountResult, w: number) => r.side.ms[w] / r.count;
  console.log('\n| characters | create (ms) | create per character (µs) | memory per character (KB) | of which kernel memory (KB) | ms/frame | µs per character | per character vs ' + base.count + ' | B/frame |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const ms = median(r.side.ms);
    const ratio = median(r.side.ms.map((_, w) => perCharacter(r, w) / perCharacter(base, w)));
    console.log(`| ${r.count} | ${r.createMs.toFixed(1)} | ${(r.createMs * 1000 / r.count).toFixed(1)} | ${(r.bytesPerCharacter / 1024).toFixed(1)} | ${(r.kernelBytesPerCharacter / 1024).toFixed(1)} | ${ms.toFixed(2)} | ${(ms * 1000 / r.count).toFixed(2)} | ${ratio.toFixed(2)}× | ${r.bytesPerFrame.toFixed(1)} |`);
  }
  console.log(`\nCache probe (bench/crowd/cache-probe.ts: ns per dependent load over 4 MB) before and after the timed windows: ${Math.round(probeBefore)} / ${Math.round(probeAfter)}`);
  console.log('(20-70: this process had the last-level cache for it; 100-150: it did not, and the larger counts run slower)');
}

main();
