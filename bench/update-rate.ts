/**
 * Update-rate level of detail (AnimGraphInstance.setUpdateRate): what a skipped frame costs next to
 * a full evaluation, and what the crowd bench's mixed rates save, as ratios of CPU time measured in
 * one process, windows interleaved.
 *
 *   node --import tsx bench/update-rate.ts [--counts 100,1000] [--windows 12] [--frames 24] [--precisions double,single] [--graphs blend,montage,statemachine]
 *
 * Every crowd is an InstanceBatch of one of the crowd bench's graphs (65 bones, sampled in the
 * WebAssembly kernel), each character at its own start phase, 1/60 s a frame, in each precision
 * asked for (the batch's `precision`; a single-precision batch samples in float32 and blends,
 * interpolations included, in double). The graphs, from the cheapest evaluation to the dearest:
 *   statemachine  the crowd bench's state machine resting in its walk state: one clip a frame;
 *   blend         BlendTwo of two SequencePlayers at 0.5: two clips and a blend;
 *   montage       the crowd bench's `montage` graph (that state machine under an upper-body Slot
 *                 and an AimOffset), every fourth character playing its montage, no gait switches.
 * The crowds of one graph:
 *   full      every character at rate 1: the reference;
 *   rate 4    every character at rate 4, one phase: one frame in four evaluates the whole crowd,
 *             the three others evaluate nobody (two interpolate, one shows the target as it is);
 *   mixed     the crowd bench's `lod` rates: a quarter at 1, a quarter at 2, half at 4, phases
 *             spread so that every frame evaluates the same share; interpolated, then held
 *             ({ interpolate: false }).
 * Columns: skipped/full, a rate-4 frame that evaluates nobody over a full-rate frame (the cost of an
 * interpolated frame against a full evaluation); evaluating/full, the rate-4 frame that evaluates
 * everyone (the evaluation, then the first interpolation); mixed/full and held/full, the saving
 * (1 - ratio). Each is the median over windows of the ratio of CPU time per frame
 * (process.cpuUsage, user + system), each window running every crowd in turn.
 */
import { buildCrowdGraph, createCrowdBatch, CROWD_MONTAGE_EVERY, crowdLodRate, crowdPhases, type CrowdGraphKind } from './crowd-cases.ts';
import { median } from './crowd/median.ts';
import { DT } from './crowd/options.ts';
import type { InstanceBatch } from '../runtime/graph/instance-batch.ts';
import type { KernelPrecision } from '../runtime/kernel/sampling-kernel.ts';

const args = process.argv.slice(2);
function option(name: string, fallback: string): string {
  const at = args.indexOf(name);
  return at >= 0 && at + 1 < args.length ? args[at + 1] : fallback;
}
const counts = option('--counts', '100,1000').split(',').map(Number);
const windows = Number(option('--windows', '12'));
/** Frames per window and crowd: a multiple of 4, so that the rate-4 crowd runs whole intervals. */
const frames = Math.max(4, Math.round(Number(option('--frames', '24')) / 4) * 4);
const precisions = option('--precisions', 'double,single').split(',') as KernelPrecision[];
/** The graphs this bench runs, cheapest evaluation first (see above). */
const GRAPHS: readonly CrowdGraphKind[] = ['statemachine', 'blend', 'montage'];
const graphs = option('--graphs', GRAPHS.join(',')).split(',') as CrowdGraphKind[];
for (const kind of graphs) if (!GRAPHS.includes(kind)) throw new Error(`--graphs: ${kind} is not one of ${GRAPHS.join(', ')}`);

/** CPU time of this process so far, microseconds. */
function cpuMicros(): number {
  const used = process.cpuUsage();
  return used.user + used.system;
}

function run(batch: InstanceBatch, n: number): number {
  const start = cpuMicros();
  for (let f = 0; f < n; f++) batch.update(DT);
  return (cpuMicros() - start) / n;
}

interface Row { kind: CrowdGraphKind; count: number; precision: KernelPrecision; fullUs: number; skipped: number; evaluating: number; mixed: number; held: number }

function measure(kind: CrowdGraphKind, count: number, precision: KernelPrecision): Row {
  const graph = buildCrowdGraph(kind);
  const phases = crowdPhases(count, graph.clipBindings.get('clipA')!.clip.duration);
  const crowd = (): InstanceBatch => {
    const batch = createCrowdBatch(graph, count, phases, false, precision);
    if (kind === 'montage') for (let i = 0; i < count; i += CROWD_MONTAGE_EVERY) batch.instances[i].playMontage('swing');
    return batch;
  };
  const full = crowd();
  const rate4 = crowd();
  for (const instance of rate4.instances) instance.setUpdateRate(4, 0);
  const mixed = crowd();
  const held = crowd();
  for (let i = 0; i < count; i++) {
    const { rate, phase } = crowdLodRate(i);
    mixed.instances[i].setUpdateRate(rate, phase);
    held.instances[i].setUpdateRate(rate, phase, { interpolate: false });
  }
  const crowds = [full, rate4, mixed, held];
  // Warm-up: V8 optimises the frame's functions, the interpolation poses' pages are committed.
  for (let f = 0; f < 400; f++) for (const crowd of crowds) crowd.update(DT);
  const probe = rate4.instances[0];
  const fullUs: number[] = [], skipped: number[] = [], evaluating: number[] = [], mixedR: number[] = [], heldR: number[] = [];
  for (let w = 0; w < windows; w++) {
    const before = run(full, frames);
    // The rate-4 crowd frame by frame: its graph updates (updateCounter) tell the evaluation frames.
    let skippedUs = 0, skippedFrames = 0, evaluatingUs = 0, evaluatingFrames = 0;
    for (let f = 0; f < frames; f++) {
      const counter = probe.updateCounter, start = cpuMicros();
      rate4.update(DT);
      const us = cpuMicros() - start;
      if (probe.updateCounter !== counter) { evaluatingUs += us; evaluatingFrames++; } else { skippedUs += us; skippedFrames++; }
    }
    const mixedUs = run(mixed, frames), heldUs = run(held, frames);
    const after = run(full, frames);
    const reference = (before + after) / 2;
    fullUs.push(reference);
    skipped.push(skippedUs / skippedFrames / reference);
    evaluating.push(evaluatingUs / evaluatingFrames / reference);
    mixedR.push(mixedUs / reference);
    heldR.push(heldUs / reference);
  }
  return { kind, count, precision, fullUs: median(fullUs), skipped: median(skipped), evaluating: median(evaluating), mixed: median(mixedR), held: median(heldR) };
}

console.log(`update-rate bench: the crowd bench's graphs (65 bones, WebAssembly kernel), dt 1/60 s; ${windows} windows of ${frames} frames per crowd, CPU time`);
console.log('graph         precision  chars  full ms/frame  skipped/full  evaluating/full  mixed 1/2/4/full  held/full');
for (const kind of graphs) for (const precision of precisions) {
  for (const count of counts) {
    const r = measure(kind, count, precision);
    console.log(`${r.kind.padEnd(12)}  ${r.precision.padEnd(9)}  ${String(r.count).padStart(5)}  ${(r.fullUs / 1000).toFixed(3).padStart(13)}  ${r.skipped.toFixed(2).padStart(12)}  ${r.evaluating.toFixed(2).padStart(15)}  ${r.mixed.toFixed(2).padStart(16)}  ${r.held.toFixed(2).padStart(9)}`);
  }
}
console.log('skipped/full: a rate-4 frame that evaluates nobody (interpolating, or showing the target) over a full-rate frame;');
console.log('evaluating/full: the rate-4 frame that evaluates everyone; mixed, held: a quarter at 1, a quarter at 2, half at 4');
console.log('(interpolated, held) over full rate: the saving is 1 - ratio. Medians of per-window ratios.');
