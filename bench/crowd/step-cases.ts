/**
 * The player crowd's frame taken apart, as bench/crowd-step.ts times it and bench/crowd-misses.ts
 * counts its cache misses: each maker builds `count` characters and returns one frame of them.
 *
 *   graph        the crowd bench's player case (an InstanceBatch: the characters' objects, their
 *                update, the kernel sampling each into its own rows of the batch's arrays);
 *   objects      the same characters, but every one evaluating into the same pose rows, which stay
 *                in cache: the characters' objects alone, their pose writes taken out;
 *   kernel       the kernel sampling each character's rows with no graph (one Pose per character,
 *                the same keys): the pose writes with the least around them;
 *   kernel+reads the same, each character also reading ten cache lines of its own 1.9 KB of a
 *                typed array, in order (as many lines as its objects, laid out as they are, but
 *                no objects);
 *   copy         Float64Array.set of each character's 5.2 KB of pose from a small array in cache:
 *                the writes alone, with none of the sampling's arithmetic between them;
 *   hand loop    the crowd bench's hand-written peer (bench/crowd/peer.ts).
 */
import { buildCrowdGraph, createCrowdBatch, crowdPhases, startAtPhases } from '../crowd-cases.ts';
import { GAITS, LocomotionCrowd, SWITCH_EVERY, locomotionGraph } from './locomotion.ts';
import { PeerCrowd } from './peer.ts';
import { ALL_CASES, DT } from './options.ts';
import { GraphCrowd } from './runners.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { FRAME_NUMBERS_ARRAY, characterOutput, kernelArrays, kernelPoseLengths, kernelPosePool, runCharacterFrame } from '../../runtime/graph/instance-batch.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { SamplingKernel } from '../../runtime/kernel/sampling-kernel.ts';

export const graph = buildCrowdGraph('player');
const n = graph.skeleton.boneCount;
const binding = graph.clipBindings.get('clipA')!;
const clip = binding.clip;

/** Runs one frame of `count` characters. */
export type Frame = () => void;

/** The crowd bench's case names (bench/crowd/options.ts) and the locomotion example's crowd, which graphCase runs. */
export const GRAPH_CASES: readonly string[] = [...ALL_CASES.map((c) => c.name), 'locomotion'];

/** Bones per character of graphCase(count, name)'s crowd. */
export function graphCaseBones(name: string): number {
  return name === 'locomotion' ? locomotionGraph().skeleton.boneCount : n;
}

/**
 * The crowd bench's case `name` (the player unless another is named; 'locomotion': the locomotion
 * example's crowd, as bench/locomotion-crowd.ts runs it) as an InstanceBatch, run as the bench runs it: its graph, with or without the batch's component pass, brought into its state
 * by the case's `start` (an inertial transition running, update rates set) and switching 'motion'
 * every `switchEvery` frames (state-machine transitions, pose searches).
 */
export function graphCase(count: number, name = 'player'): Frame {
  if (name === 'locomotion') {
    // As bench/locomotion-crowd.ts runs it, its gait switches under way.
    const crowd = new LocomotionCrowd(locomotionGraph().createInstances(count));
    crowd.frames(2 * SWITCH_EVERY * GAITS.length);
    return () => crowd.frames(1);
  }
  const def = ALL_CASES.find((c) => c.name === name);
  if (def === undefined) throw new RangeError(`no crowd bench case '${name}': one of ${GRAPH_CASES.join(', ')}`);
  const batch = createCrowdBatch(def.kind === 'player' ? graph : buildCrowdGraph(def.kind), count, crowdPhases(count, clip.duration), def.component);
  def.start?.(batch.instances);
  const crowd = new GraphCrowd(batch, def.component, def.switchEvery ?? 0);
  return () => crowd.frames(1);
}

/** createCrowdBatch's characters, each with its own per-frame numbers but all evaluating into row 0. */
function objectsCase(g: AnimGraph, count: number): Frame {
  const k = g.frameNumberCount;
  const lengths = kernelPoseLengths(n, 1, false, false, k, 1);
  lengths[FRAME_NUMBERS_ARRAY] = count * k; // a row of per-frame numbers for each character, one pose row for all
  const kernel = SamplingKernel.create(g.skeleton, [...g.clipBindings.values()], lengths)!;
  const rows = kernelArrays(kernel, 0), numbers = kernel.poseArrays[FRAME_NUMBERS_ARRAY];
  const pool = kernelPosePool(kernel, n, 0);
  const phases = crowdPhases(count, clip.duration);
  const instances: AnimGraphInstance[] = [];
  for (let i = 0; i < count; i++) {
    const instance = g.createInstance({ ...characterOutput(rows, n, 0, false), posePool: pool, frameNumbers: numbers.subarray(i * k, (i + 1) * k) });
    startAtPhases(instance, phases, i);
    instances.push(instance);
  }
  const dt = new Float64Array([DT]), rootMotion = new Float64Array(count * 4);
  return () => {
    for (let i = 0; i < count; i++) runCharacterFrame(instances[i], dt, false, rootMotion, i);
  };
}

/** Cache lines kernelCase(count, reads) reads per character, and the bytes each character's lines span (its objects' share of the heap). */
const STATE_LINES = 10, STATE_BYTES = 1920;

/**
 * The kernel alone: each character's rows sampled between consecutive keys, its key moving on each
 * frame; with `reads`, after reading STATE_LINES lines of its STATE_BYTES of a typed array.
 */
export function kernelCase(count: number, reads = false): Frame {
  const kernel = SamplingKernel.create(graph.skeleton, [binding], kernelPoseLengths(n, count, false, false, 0, 0))!;
  const rows = kernelArrays(kernel, 0);
  const poses = Array.from({ length: count }, (_, i) => new Pose(n, characterOutput(rows, n, i, false).local));
  const tracks = clip.tracks.length, keys = clip.frameCount - 1;
  const key = new Int32Array(count).map((_, i) => (i * 7) % keys);
  const numbers = kernel.numbers;
  const state = new Float64Array(reads ? count * STATE_BYTES / 8 : 0), lines = reads ? STATE_LINES : 0;
  return () => {
    for (let i = 0; i < count; i++) {
      // What the character's state holds feeds its key, as an object's fields feed its frame.
      let read = 0;
      for (let l = 0, at = i * (STATE_BYTES / 8); l < lines; l++, at += 8) read += state[at];
      const f = key[i] + read;
      key[i] = f + 1 < keys ? f + 1 : 0;
      numbers[0] = 0.37;
      numbers[1] = 1;
      numbers[2] = 0;
      kernel.sample(poses[i], binding, f * tracks, (f + 1) * tracks, false, false);
    }
  };
}

/** Each character's translations, rotations and scales copied from one of 64 poses in cache. */
function copyCase(count: number): Frame {
  const t = new Float64Array(count * n * 3), r = new Float64Array(count * n * 4), s = new Float64Array(count * n * 3);
  const source = (width: number): Float64Array => new Float64Array(64 * n * width).map((_, i) => i);
  const st = source(3), sr = source(4), ss = source(3);
  return () => {
    for (let i = 0; i < count; i++) {
      const p = i & 63;
      t.set(st.subarray(p * n * 3, (p + 1) * n * 3), i * n * 3);
      r.set(sr.subarray(p * n * 4, (p + 1) * n * 4), i * n * 4);
      s.set(ss.subarray(p * n * 3, (p + 1) * n * 3), i * n * 3);
    }
  };
}

export function handLoopCase(count: number): Frame {
  const peer = new PeerCrowd(graph.skeleton, clip, graph.clipBindings.get('clipB')!.clip, count, crowdPhases(count, clip.duration), false, false);
  return () => peer.frames(1);
}

/** Every case, by the name the benches print. */
export const STEP_CASES: readonly (readonly [string, (count: number) => Frame])[] = [
  ['graph', graphCase], ['objects', (count) => objectsCase(graph, count)], ['kernel', (count) => kernelCase(count)],
  ['kernel+reads', (count) => kernelCase(count, true)], ['copy', copyCase], ['hand loop', handLoopCase],
];
