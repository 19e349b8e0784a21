/**
 * One case of the crowd bench on one crowd size: set-up, warm-up, animgraph against the peer (and
 * the Crowd), allocation, then animgraph against three.js; and the figures it yields.
 */
import { performance } from 'node:perf_hooks';
import type * as THREE from 'three';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import { createCrowd, createCrowdBatch, crowdPhases, CROWD_LEGS, CROWD_STRIDE_SCALE, type CrowdGraphKind } from '../crowd-cases.ts';
import { ThreeCrowd } from '../three-crowd.ts';
import { crowdDifference, instancesDifference, maxDifference, threeDifference } from './checks.ts';
import { gc, interleave, measureAllocation, median, type AllocationResult, type Side } from './measure.ts';
import { DT, type CaseDefinition } from './options.ts';
import { PeerCrowd } from './peer.ts';
import { GraphCrowd, ThreadedCrowd, type Runner } from './runners.ts';

export interface SideResult {
  msPerFrame: number;
  mbonesPerSecond: number;
  bytesPerFrame: number;
  /** Median over window pairs of animgraph time / this side's time (per frame). */
  ratio: number;
  framesPerWindow: number;
  windowsMs: number[];
  allocation: AllocationResult;
  /** Largest difference between animgraph's poses and this side's (see the columns). */
  maxDifference: number;
}

export interface CaseResult {
  case: string;
  characters: number;
  bones: number;
  framesPerWindow: number;
  windows: number;
  animgraphMsPerFrame: number;
  animgraphMbonesPerSecond: number;
  animgraphBytesPerFrame: number;
  animgraphWindowsMs: number[];
  /** The hand-written peer (or, for a fullRate case, the same crowd at full update rate); null for cases it does not do. */
  peer: SideResult | null;
  /** What `peer` is. */
  peerKind: 'hand-written' | 'full rate';
  /** three.js; null with --no-three. `animgraphWindowsMs`: animgraph's windows interleaved with it. */
  three: (SideResult & { sameWork: boolean; reference: string; animgraphWindowsMs: number[] }) | null;
  allocation: { animgraph: AllocationResult };
  /**
   * The same crowd as one Crowd on the calling thread and `workers` worker threads; null with
   * --workers 0. ratio: its ms/frame over the instances' (single thread); threeRatio: over three.js's,
   * in the three.js phase; bytesPerFrame: the calling thread's; workersBytesPerFrame: the most any
   * worker thread allocated per frame (Crowd.measureAllocation).
   */
  threaded: {
    workers: number; msPerFrame: number; ratio: number; bytesPerFrame: number; workersBytesPerFrame: number; maxDifference: number;
    windowsMs: number[]; threeRatio: number | null; threeWindowsMs: number[];
  } | null;
  /** When animgraph allocates: bytes per frame of each phase of the frame measured alone. */
  animgraphBreakdown?: Record<string, number>;
  /** The bench's own time per step of the case (setup, warm-up, windows, ...), seconds. */
  stepSeconds?: Record<string, number>;
  /** cacheProbe() right before and right after the case (ns per dependent load over 4 MB). */
  cacheProbeNs?: { before: number; after: number };
}

export interface Budget {
  warmupMs: number;
  windowMs: number;
  /** Window pairs (or rounds) of animgraph against the peer. */
  windows: number;
  /** Window pairs of animgraph against three.js. */
  threeWindows: number;
  allocWindows: number;
}

export async function runCase(
  def: CaseDefinition, count: number, budget: Budget, graphs: Map<CrowdGraphKind, AnimGraph>,
  threeClips: Map<CrowdGraphKind, readonly [THREE.AnimationClip, THREE.AnimationClip]> | null, threeDiffs: Map<string, number>,
  workers: number,
): Promise<{ result: CaseResult; crowd: GraphCrowd }> {
  // Where the bench's own time goes, for the JSON (seconds per step of this case).
  const steps: Record<string, number> = {};
  let stepStart = performance.now();
  const step = (name: string): void => {
    const now = performance.now();
    steps[name] = (now - stepStart) / 1000;
    stepStart = now;
  };
  const graph = graphs.get(def.kind)!;
  const clipA = graph.clipBindings.get('clipA')!.clip;
  const clipB = graph.clipBindings.get('clipB')!.clip;
  const phases = crowdPhases(count, clipA.duration);
  const crowd = new GraphCrowd(createCrowdBatch(graph, count, phases, def.component, def.precision), def.component, def.switchEvery);
  def.start?.(crowd.instances);
  const handPeer = def.peer ? new PeerCrowd(graph.skeleton, clipA, clipB, count, phases, def.kind === 'blend', def.component) : null;
  // A fullRate case's reference: the same characters, every one updated every frame.
  const fullRate = def.fullRate ? new GraphCrowd(createCrowdBatch(graph, count, phases), def.component, def.switchEvery) : null;
  const peer: Runner | null = handPeer ?? fullRate;
  const threaded = workers > 0 ? await ThreadedCrowd.create(def, count, phases, workers) : null;
  const bones = count * graph.skeleton.boneCount;
  gc();
  step('setup');

  // Warm-up (and calibration): animgraph runs for warmupMs; the peer then runs as many frames, so
  // both stay on the same frame and their poses can be compared at the end.
  let warmFrames = 0;
  const warmStart = performance.now();
  const minWarmFrames = Math.max(3, (def.switchEvery ?? 0) + 2);
  while (performance.now() - warmStart < budget.warmupMs || warmFrames < minWarmFrames) {
    crowd.frames(1);
    warmFrames++;
  }
  const warmMsPerFrame = (performance.now() - warmStart) / warmFrames;
  def.check?.(crowd.instances[0]);
  peer?.frames(warmFrames);
  threaded?.frames(warmFrames);
  if (threaded) def.check?.(threaded.crowd.instanceOf(0)!);
  const framesPerWindow = Math.max(1, Math.round(budget.windowMs / warmMsPerFrame));
  step('warm-up');

  // Phase 1, before any three.js object exists: animgraph (and the peer) in interleaved windows.
  // three.js makes megabytes of garbage per frame; its GC work (concurrent marking, sweeping) and
  // its heap would otherwise slow whatever runs after its windows by up to a half.
  const ag: Side = { runner: crowd, frames: framesPerWindow, ms: [] };
  const peerSide: Side | null = peer ? { runner: peer, frames: framesPerWindow, ms: [] } : null;
  const threadedSide: Side | null = threaded ? { runner: threaded, frames: framesPerWindow, ms: [] } : null;
  interleave([ag, ...(peerSide ? [peerSide] : []), ...(threadedSide ? [threadedSide] : [])], budget.windows);
  step('windows');
  const side = (s: Side, reference: Side, allocation: AllocationResult, difference: number): SideResult => {
    const msPerFrame = median(s.ms);
    return {
      msPerFrame, mbonesPerSecond: bones / msPerFrame / 1000, bytesPerFrame: allocation.bytesPerFrame,
      ratio: median(reference.ms.map((g, w) => g / s.ms[w])), framesPerWindow: s.frames, windowsMs: s.ms, allocation, maxDifference: difference,
    };
  };

  // animgraph and the peer have run the same frames: their poses must agree (the peer does the same
  // work). Compared before the allocation windows below run more frames on each side.
  const peerDifference = handPeer ? maxDifference(crowd, handPeer, def.component) : fullRate ? instancesDifference(crowd, fullRate, def.component) : Number.NaN;
  const threadedDifference = threaded ? crowdDifference(crowd, threaded, def.component) : Number.NaN;
  // Enough frames that a byte per character per frame shows, few enough to keep the run short.
  const allocFrames = Math.max(4, Math.min(framesPerWindow, 30, Math.round(8000 / count)));
  // Fewer pairs for big crowds: each window starts with two full GCs of a heap that is then large.
  const allocWindows = count >= 500 ? Math.min(3, budget.allocWindows) : budget.allocWindows;
  const graphAlloc = measureAllocation(crowd, allocFrames, allocWindows);
  step('allocation');
  let peerResult: SideResult | null = null;
  if (peer && peerSide) peerResult = side(peerSide, ag, measureAllocation(peer, allocFrames, allocWindows), peerDifference);
  step('peer allocation');
  const threadedAlloc = threaded ? measureAllocation(threaded, allocFrames, allocWindows) : null;
  const workersAlloc = threaded ? workersBytesPerFrame(threaded, allocFrames, allocWindows) : Number.NaN;
  step('Crowd allocation');
  let breakdown: Record<string, number> | undefined;
  if (!(graphAlloc.bytesPerFrame < 1)) breakdown = allocationBreakdown(crowd, allocFrames, Math.min(3, budget.allocWindows), def, graphAlloc.bytesPerFrame);
  step('allocation breakdown');

  // Phase 2: the three.js crowd, warmed up and calibrated on its own, in windows interleaved with
  // animgraph's again; ag/three is the median of those per-window ratios. animgraph runs those
  // windows among three.js's garbage, so the ratio errs in three.js's favour.
  let threeResult: CaseResult['three'] = null;
  const threadedAgain: Side | null = threaded ? { runner: threaded, frames: framesPerWindow, ms: [] } : null;
  const clips = threeClips?.get(def.kind);
  if (clips) {
    let three: ThreeCrowd | null = new ThreeCrowd(graph.skeleton, clips[0], clips[1], count, phases, DT, { ...def.three, strideScale: CROWD_STRIDE_SCALE, legs: CROWD_LEGS });
    step('three setup');
    let frames = 0;
    const start = performance.now();
    while (performance.now() - start < budget.warmupMs || frames < 2) {
      three.frames(1);
      frames++;
    }
    const threeSide: Side = { runner: three, frames: Math.max(1, Math.round(budget.windowMs / ((performance.now() - start) / frames))), ms: [] };
    step('three warm-up');
    const agAgain: Side = { runner: crowd, frames: framesPerWindow, ms: [] };
    interleave([agAgain, threeSide, ...(threadedAgain ? [threadedAgain] : [])], budget.threeWindows);
    step('three windows');
    // three.js allocates enough per frame for GCs to run inside any window: counted across them.
    const allocation = measureAllocation(three, Math.max(1, Math.min(threeSide.frames, 4)), 2, true);
    threeSide.runner = { frames() {} };
    three = null; // let it go before the next case's gc() calls
    step('three allocation');
    let difference = Number.NaN;
    if (def.three.same) {
      difference = threeDiffs.get(def.name) ?? threeDifference(def, graph, clips);
      threeDiffs.set(def.name, difference);
    }
    threeResult = { ...side(threeSide, agAgain, allocation, difference), sameWork: def.three.same, reference: def.three.note, animgraphWindowsMs: agAgain.ms };
    step('three difference');
  }

  const animgraphMsPerFrame = median(ag.ms);
  let threadedResult: CaseResult['threaded'] = null;
  if (threaded && threadedSide && threadedAlloc) {
    const three = threeResult as { windowsMs: number[] } | null;
    threadedResult = {
      workers, msPerFrame: median(threadedSide.ms), ratio: median(threadedSide.ms.map((t, w) => t / ag.ms[w])),
      bytesPerFrame: threadedAlloc.bytesPerFrame, workersBytesPerFrame: workersAlloc, maxDifference: threadedDifference, windowsMs: threadedSide.ms,
      threeRatio: three && threadedAgain ? median(threadedAgain.ms.map((t, w) => t / three.windowsMs[w])) : null,
      threeWindowsMs: threadedAgain?.ms ?? [],
    };
    await threaded.crowd.close();
  }
  const result: CaseResult = {
    case: def.name,
    characters: count,
    bones,
    framesPerWindow,
    windows: budget.windows,
    animgraphMsPerFrame,
    animgraphMbonesPerSecond: bones / animgraphMsPerFrame / 1000,
    animgraphBytesPerFrame: graphAlloc.bytesPerFrame,
    animgraphWindowsMs: ag.ms,
    peer: peerResult,
    peerKind: fullRate ? 'full rate' : 'hand-written',
    three: threeResult,
    threaded: threadedResult,
    allocation: { animgraph: graphAlloc },
  };
  if (breakdown) result.animgraphBreakdown = breakdown;
  result.stepSeconds = steps;
  return { result, crowd };
}

/**
 * The most any worker thread of `threaded` allocates per frame: Crowd.measureAllocation over f and
 * 2f frames, the difference per frame (what a window itself costs cancels), the median of `windows`
 * such pairs for each worker.
 */
function workersBytesPerFrame(threaded: ThreadedCrowd, frames: number, windows: number): number {
  const f = Math.max(1, frames), run = () => threaded.frames(1);
  const perWorker: number[][] = Array.from({ length: threaded.crowd.workerCount }, () => []);
  for (let w = 0; w < windows; w++) {
    const short = threaded.crowd.measureAllocation(f, run), long = threaded.crowd.measureAllocation(2 * f, run);
    perWorker.forEach((samples, k) => samples.push(Math.max(0, (long[k + 1] * 2 * f - short[k + 1] * f) / f)));
  }
  return Math.max(...perWorker.map((samples) => median(samples)));
}

/** Bytes per frame of update alone, evaluate alone and (by difference) componentPose alone. */
export function allocationBreakdown(crowd: GraphCrowd, frames: number, windows: number, def: CaseDefinition, total: number): Record<string, number> {
  const update = measureAllocation(crowd.phase('update'), frames, windows).bytesPerFrame;
  const evaluate = measureAllocation(crowd.phase('evaluate'), frames, windows).bytesPerFrame;
  const breakdown: Record<string, number> = { update, evaluate };
  if (def.component) {
    const both = measureAllocation(crowd.phase('evaluate+componentPose'), frames, windows).bytesPerFrame;
    breakdown.componentPose = Math.max(0, both - evaluate);
  }
  if (def.switchEvery) {
    // update and evaluate alone switch nothing; what a switch starts shows only in the whole frame.
    const set = measureAllocation(crowd.phase('setParameter'), frames, windows).bytesPerFrame;
    breakdown.setParameter = set;
    breakdown['what the switches start (frame - the rest)'] = Math.max(0, total - set - update - evaluate - (breakdown.componentPose ?? 0));
  }
  return breakdown;
}

/**
 * A first pass over every case on a small crowd, so that the first case measured does not also
 * pay for the JIT's first tiering (code running before it is optimised boxes numbers and allocates).
 */
export function warmUpCases(
  cases: readonly CaseDefinition[], budget: Budget, graphs: Map<CrowdGraphKind, AnimGraph>,
  threeClips: Map<CrowdGraphKind, readonly [THREE.AnimationClip, THREE.AnimationClip]> | null,
): void {
  for (const def of cases) {
    const graph = graphs.get(def.kind)!;
    const phases = crowdPhases(50, 2, 7);
    const warm = new GraphCrowd(createCrowdBatch(graph, 50, phases, def.component, def.precision), def.component, def.switchEvery);
    def.start?.(warm.instances);
    const clipA = graph.clipBindings.get('clipA')!.clip, clipB = graph.clipBindings.get('clipB')!.clip;
    const peer = def.peer ? new PeerCrowd(graph.skeleton, clipA, clipB, 50, phases, def.kind === 'blend', def.component) : null;
    const clips = threeClips?.get(def.kind);
    const three = clips ? new ThreeCrowd(graph.skeleton, clips[0], clips[1], 50, phases, DT, { ...def.three, strideScale: CROWD_STRIDE_SCALE, legs: CROWD_LEGS }) : null;
    const until = performance.now() + budget.warmupMs / 2;
    while (performance.now() < until) {
      warm.frames(5);
      peer?.frames(5);
      three?.frames(1);
    }
  }
}
