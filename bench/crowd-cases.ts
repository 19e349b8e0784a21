/**
 * Inputs of the crowd benchmark, deterministic and built in code (no files): a 65-bone
 * humanoid-like skeleton, two 2-second 30 fps clips with one rotation and one translation track
 * per bone (seeded PRNG, no Math.random), and the two graphs the bench times:
 *
 * - 'player':   Output <- SequencePlayer(clipA)
 * - 'blend':    Output <- BlendTwo(alpha 0.5) <- SequencePlayer(clipA), SequencePlayer(clipB)
 * - 'inertial': Output <- InertialBlend(useA, blend time 1e6 s) <- the two players
 * - 'stride':   Output <- StrideWarping(manual, scale 1.3 along +z, both legs, IK) <- SequencePlayer(clipA)
 * - 'posesearch': Output <- PoseSearchBlend(clips [clipA, clipB], motion bound to the 'motion'
 *               parameter, inertial blend 0.2 s; features: rotations, hand and foot positions, foot
 *               velocities); the bench flips 'motion' every 10 frames per character (a search each time)
 * - 'bendroll': Output <- BendRollHelper(four helpers: each upper arm's roll, half of it, onto its
 *               upper-arm twist bone; each hand's roll, half of it, onto its lower-arm twist bone) <- SequencePlayer(clipA)
 * - 'statemachine': Output <- StateMachine(states walk = SequencePlayer(clipA), run = SequencePlayer(clipB);
 *               walk -> run when 'motion' == 1, run -> walk when 'motion' == 0, 0.2 s crossfades); the bench
 *               flips 'motion' every CROWD_STATE_EVERY frames per character (a transition each time)
 * - 'layered':  Output <- LayeredBlendPerBone(base SequencePlayer(clipA), layer SequencePlayer(clipB) on
 *               the branch from spine_01 up: clipB's upper body over clipA's legs)
 * - 'controls': Output <- FABRIK(clavicle_l .. hand_l reaching a point in front of the chest) <- LookAt(head
 *               at a point ahead and to the left, clamped to 60 degrees) <- SequencePlayer(clipA)
 *
 * - 'montage':  Output <- AimOffset(four mesh-space additive poses: clipB's frames 10, 20 and 30 against
 *               its frame 0, at yaw 0, ±60 and pitch 40; yaw 20) <- Slot('upper', from spine_01) <- the
 *               'statemachine' case's StateMachine; montage 'swing' plays clipB in the slot, sections
 *               start (0), loop (0.5, linked to itself: a section change every second) and end (1.5)
 *
 * Every SequencePlayer's start time is bound to a float parameter (phaseA / phaseB), so one shared
 * AnimGraph serves a crowd whose characters each start at their own phase (see createCrowd).
 */
import { InertialBlendType } from '../nodes/InertialBlend.ts';
import { BlendTwoType } from '../nodes/BlendTwo.ts';
import { builtInNodeTypes, OutputType } from '../nodes/index.ts';
import { SequencePlayerType } from '../nodes/SequencePlayer.ts';
import { StrideWarpingType } from '../nodes/StrideWarping.ts';
import { Clip, ClipBinding, type TrackLayout } from '../runtime/core/clip.ts';
import { additiveClip, AdditiveReferencePose, clipFramePose } from '../runtime/core/additive.ts';
import { Pose } from '../runtime/core/pose.ts';
import { AnimGraph } from '../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../runtime/graph/instance.ts';
import type { CompiledNode } from '../runtime/graph/definition.ts';
import type { InstanceBatch } from '../runtime/graph/instance-batch.ts';
import type { KernelPrecision } from '../runtime/kernel/sampling-kernel.ts';
import type { NodeType } from '../runtime/node/node.ts';
import type { ParameterDefinition } from '../runtime/node/parameters.ts';
import { Skeleton, type BoneDefinition } from '../runtime/core/skeleton.ts';

export type CrowdGraphKind = 'player' | 'blend' | 'inertial' | 'stride' | 'posesearch' | 'bendroll' | 'statemachine' | 'layered' | 'controls' | 'montage';

export const CROWD_BONE_COUNT = 65;
export const CROWD_FRAME_RATE = 30;
/** 61 keys over 2 s at 30 fps. */
export const CROWD_FRAME_COUNT = 61;
export const CROWD_SEED = 0x5eed_c0de;

/** mulberry32: a small, fast, seeded 32-bit PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type V3 = [number, number, number];

/**
 * The 65 bones, parents before children, in centimetres (Y up, facing +Z, left is +X):
 * root, pelvis, 3 spine, 2 neck, head, jaw (9); per arm clavicle, upper arm + twist, lower arm +
 * twist, hand and five three-bone fingers (21 x 2); per leg thigh + twist, calf + twist, foot,
 * ball, toe (7 x 2).
 */
export function humanoid65Definitions(): BoneDefinition[] {
  const bones: BoneDefinition[] = [];
  const add = (name: string, parent: string | null, translation: V3): void => {
    bones.push({ name, parent, translation });
  };
  add('root', null, [0, 0, 0]);
  add('pelvis', 'root', [0, 95, 0]);
  add('spine_01', 'pelvis', [0, 10, 0]);
  add('spine_02', 'spine_01', [0, 12, 0]);
  add('spine_03', 'spine_02', [0, 12, 0]);
  add('neck_01', 'spine_03', [0, 14, 0]);
  add('neck_02', 'neck_01', [0, 5, 0]);
  add('head', 'neck_02', [0, 6, 0]);
  add('jaw', 'head', [0, 2, 6]);
  for (const [side, sx] of [['l', 1], ['r', -1]] as const) {
    add(`clavicle_${side}`, 'spine_03', [5 * sx, 10, 0]);
    add(`upperarm_${side}`, `clavicle_${side}`, [12 * sx, 0, 0]);
    add(`upperarm_twist_${side}`, `upperarm_${side}`, [14 * sx, 0, 0]);
    add(`lowerarm_${side}`, `upperarm_${side}`, [28 * sx, 0, 0]);
    add(`lowerarm_twist_${side}`, `lowerarm_${side}`, [12 * sx, 0, 0]);
    add(`hand_${side}`, `lowerarm_${side}`, [25 * sx, 0, 0]);
    const fingers: [string, V3][] = [
      ['thumb', [2 * sx, -1, 3]], ['index', [9 * sx, 0, 2.5]], ['middle', [9.5 * sx, 0, 0.5]],
      ['ring', [9 * sx, 0, -1.5]], ['pinky', [8 * sx, 0, -3]],
    ];
    for (const [finger, base] of fingers) {
      add(`${finger}_01_${side}`, `hand_${side}`, base);
      add(`${finger}_02_${side}`, `${finger}_01_${side}`, [3.5 * sx, 0, 0]);
      add(`${finger}_03_${side}`, `${finger}_02_${side}`, [2.5 * sx, 0, 0]);
    }
  }
  for (const [side, sx] of [['l', 1], ['r', -1]] as const) {
    add(`thigh_${side}`, 'pelvis', [9 * sx, -5, 0]);
    add(`thigh_twist_${side}`, `thigh_${side}`, [0, -20, 0]);
    add(`calf_${side}`, `thigh_${side}`, [0, -43, 0]);
    add(`calf_twist_${side}`, `calf_${side}`, [0, -20, 0]);
    add(`foot_${side}`, `calf_${side}`, [0, -42, 0]);
    add(`ball_${side}`, `foot_${side}`, [0, -7, 12]);
    add(`toe_${side}`, `ball_${side}`, [0, 0, 5]);
  }
  if (bones.length !== CROWD_BONE_COUNT) throw new Error(`humanoid65Definitions built ${bones.length} bones`);
  return bones;
}

export function makeHumanoid65(): Skeleton {
  return Skeleton.fromDefinitions(humanoid65Definitions());
}

/**
 * A clip with one translation and one rotation track per skeleton bone (no scale tracks), 61
 * keys at 30 fps. Each key's rotation is an independent random rotation of up to `maxAngle`
 * radians about a random axis (normalised); each key's translation is the bone's reference offset
 * plus up to ±`jitter` cm per axis. Consecutive keys are therefore up to 2 x maxAngle apart, so
 * slerp takes its full acos/sin path (not the nlerp fallback for near-identical keys).
 */
export function makeRandomClip(name: string, skeleton: Skeleton, seed: number, maxAngle = 0.3, jitter = 0.5): Clip {
  const random = mulberry32(seed);
  const n = skeleton.boneCount;
  const frames = CROWD_FRAME_COUNT;
  const tracks: TrackLayout[] = skeleton.boneNames.map((bone) => ({ bone, translation: true, rotation: true, scale: false }));
  const translations = new Float64Array(frames * n * 3);
  const rotations = new Float64Array(frames * n * 4);
  const ref = skeleton.referencePose.translations;
  for (let f = 0; f < frames; f++) {
    for (let b = 0; b < n; b++) {
      const t = (f * n + b) * 3;
      for (let k = 0; k < 3; k++) translations[t + k] = ref[b * 3 + k] + (random() * 2 - 1) * jitter;
      let ax = random() * 2 - 1, ay = random() * 2 - 1, az = random() * 2 - 1;
      let len = Math.hypot(ax, ay, az);
      if (len < 1e-6) { ax = 0; ay = 1; az = 0; len = 1; }
      const half = (random() * 2 - 1) * maxAngle * 0.5;
      const s = Math.sin(half) / len;
      const r = (f * n + b) * 4;
      let x = ax * s, y = ay * s, z = az * s, w = Math.cos(half);
      const q = 1 / Math.hypot(x, y, z, w);
      x *= q; y *= q; z *= q; w *= q;
      rotations[r] = x; rotations[r + 1] = y; rotations[r + 2] = z; rotations[r + 3] = w;
    }
  }
  return new Clip({ name, frameRate: CROWD_FRAME_RATE, frameCount: frames, tracks, translations, rotations, interpolation: 'slerp' });
}

/** The two clips of the bench, clipA and clipB, from fixed seeds. */
export function makeCrowdClips(skeleton: Skeleton): Map<string, Clip> {
  return new Map([
    ['clipA', makeRandomClip('clipA', skeleton, CROWD_SEED)],
    ['clipB', makeRandomClip('clipB', skeleton, CROWD_SEED ^ 0x9e3779b9)],
  ]);
}

export const CROWD_PARAMETERS: Readonly<Record<string, ParameterDefinition>> = {
  phaseA: { type: 'float', default: 0 },
  phaseB: { type: 'float', default: 0 },
  useA: { type: 'bool', default: true },
  motion: { type: 'int', default: 0 },
};

/** Frames between two switches of one character's 'motion' parameter in the 'posesearch' case. */
export const CROWD_SEARCH_EVERY = 10;

/**
 * Frames between two switches of one character's 'motion' parameter in the 'statemachine' case:
 * half a second at 60 fps, so each 0.2 s crossfade ends and the state left has no weight when it is
 * entered again (it restarts), as in locomotion.
 */
export const CROWD_STATE_EVERY = 30;

/**
 * A node type registered in nodes/index.ts, by name. Nodes that other people are still writing
 * (PoseSearchBlend, BendRollHelper) are looked up here rather than imported, so that the bench can
 * say which one is missing instead of failing to load.
 */
/** Node 'locomotion': a StateMachine of walk (playerA) and run (playerB) states, switched by `motion` with 0.2 s crossfades. */
function walkRunMachine() {
  const state = (output: string) => ({ nodes: {}, output });
  return {
    id: 'locomotion',
    nodeType: registeredNodeType('StateMachine'),
    properties: {
      entry: 'walk',
      states: { walk: state('playerA'), run: state('playerB') },
      transitions: [
        { from: 'walk', to: 'run', rule: { param: 'motion', op: '==', value: 1 }, duration: 0.2 },
        { from: 'run', to: 'walk', rule: { param: 'motion', op: '==', value: 0 }, duration: 0.2 },
      ],
    },
    inputs: {},
    subGraphs: { walk: 'playerA', run: 'playerB' },
  };
}

export function registeredNodeType(name: string): NodeType {
  const type = builtInNodeTypes.find((t) => t.type === name);
  if (!type) throw new Error(`node type ${name} is not registered in nodes/index.ts`);
  return type;
}

/**
 * The 'lod' case's update rates (AnimGraphInstance.setUpdateRate): a quarter of the crowd at 1, a
 * quarter at 2 and half at 4 (characters 4j, 4j + 1 and 4j + 2, 4j + 3), each group's phases
 * counting up so that every frame evaluates the same share of it.
 */
export function crowdLodRate(character: number): { rate: number; phase: number } {
  const j = character >> 2, r = character & 3;
  if (r === 0) return { rate: 1, phase: 0 };
  if (r === 1) return { rate: 2, phase: j };
  return { rate: 4, phase: 2 * j + (r - 2) };
}

/** The stride scale of the 'stride' graph (feet 30% further along +z from their scale origins). */
export const CROWD_STRIDE_SCALE = 1.3;

/** The legs of the 65-bone skeleton as [thigh, calf, foot]; the pelvis is 'pelvis'. */
export const CROWD_LEGS: readonly (readonly [string, string, string])[] = [
  ['thigh_l', 'calf_l', 'foot_l'],
  ['thigh_r', 'calf_r', 'foot_r'],
];

/** The shared graph for a crowd of one of the kinds listed at the top of this file. */
export function buildCrowdGraph(kind: CrowdGraphKind): AnimGraph {
  const skeleton = makeHumanoid65();
  const clips = makeCrowdClips(skeleton);
  const playerA: CompiledNode = {
    id: 'playerA',
    nodeType: SequencePlayerType,
    properties: { clip: 'clipA', playRate: 1, loop: true, startTime: { param: 'phaseA' } },
    inputs: {},
  };
  const nodes: CompiledNode[] = [playerA];
  if (kind === 'player') {
    nodes.push({ id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'playerA' } });
  } else if (kind === 'stride') {
    // StrideWarping with every step on (pelvis adjustment, thigh correction, leg clamp, two-bone IK).
    const [[leftThigh, leftCalf, leftFoot], [rightThigh, rightCalf, rightFoot]] = CROWD_LEGS;
    nodes.push(
      {
        id: 'warp',
        nodeType: StrideWarpingType,
        properties: {
          mode: 'manual', strideScale: CROWD_STRIDE_SCALE, strideDirection: [0, 0, 1], pelvisBone: 'pelvis',
          leftThigh, leftCalf, leftFoot, rightThigh, rightCalf, rightFoot,
        },
        inputs: { pose: 'playerA' },
      },
      { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'warp' } },
    );
  } else if (kind === 'posesearch') {
    nodes.length = 0; // the node samples its clips itself
    nodes.push(
      {
        id: 'search',
        nodeType: registeredNodeType('PoseSearchBlend'),
        properties: {
          clips: ['clipA', 'clipB'], motion: { param: 'motion' }, blendTime: 0.2, blendMode: 'inertial', loop: true,
          features: {
            rotations: { weight: 1 },
            positions: { weight: 1, bones: ['hand_l', 'hand_r', 'foot_l', 'foot_r'] },
            velocities: { weight: 1, bones: ['foot_l', 'foot_r'] },
          },
        },
        inputs: {},
      },
      { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'search' } },
    );
  } else if (kind === 'bendroll') {
    const helper = (source: string, target: string) => ({ source, target, axis: [1, 0, 0], bendWeight: 0, rollWeight: 0.5 });
    nodes.push(
      {
        id: 'helpers',
        nodeType: registeredNodeType('BendRollHelper'),
        properties: {
          helpers: [
            helper('upperarm_l', 'upperarm_twist_l'), helper('upperarm_r', 'upperarm_twist_r'),
            helper('hand_l', 'lowerarm_twist_l'), helper('hand_r', 'lowerarm_twist_r'),
          ],
        },
        inputs: { pose: 'playerA' },
      },
      { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'helpers' } },
    );
  } else if (kind === 'controls') {
    nodes.push(
      {
        id: 'look',
        nodeType: registeredNodeType('LookAt'),
        properties: { bone: 'head', target: [40, 170, 100], clampAngle: 60 },
        inputs: { pose: 'playerA' },
      },
      {
        id: 'reach',
        nodeType: registeredNodeType('FABRIK'),
        properties: { rootBone: 'clavicle_l', tipBone: 'hand_l', target: [25, 135, 35], precision: 0.1, maxIterations: 10 },
        inputs: { pose: 'look' },
      },
      { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'reach' } },
    );
  } else if (kind === 'montage') {
    return montageGraph(skeleton, clips, nodes);
  } else if (kind === 'statemachine' || kind === 'layered') {
    nodes.push({
      id: 'playerB',
      nodeType: SequencePlayerType,
      properties: { clip: 'clipB', playRate: 1, loop: true, startTime: { param: 'phaseB' } },
      inputs: {},
    });
    if (kind === 'statemachine') {
      nodes.push(walkRunMachine());
    } else {
      nodes.push({
        id: 'layered',
        nodeType: registeredNodeType('LayeredBlendPerBone'),
        properties: { layers: [{ filters: [{ bone: 'spine_01', depth: 0 }] }] },
        inputs: { base: 'playerA', layers: ['playerB'] },
      });
    }
    nodes.push({ id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: kind === 'statemachine' ? 'locomotion' : 'layered' } });
  } else if (kind === 'inertial') {
    // A transition that never ends (switch useA once): the steady cost of inertializing.
    nodes.push(
      {
        id: 'playerB',
        nodeType: SequencePlayerType,
        properties: { clip: 'clipB', playRate: 1, loop: true, startTime: { param: 'phaseB' } },
        inputs: {},
      },
      { id: 'switch', nodeType: InertialBlendType, properties: { useA: { param: 'useA' }, blendTime: 1e6 }, inputs: { A: 'playerA', B: 'playerB' } },
      { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'switch' } },
    );
  } else {
    nodes.push(
      {
        id: 'playerB',
        nodeType: SequencePlayerType,
        properties: { clip: 'clipB', playRate: 1, loop: true, startTime: { param: 'phaseB' } },
        inputs: {},
      },
      { id: 'blend', nodeType: BlendTwoType, properties: { alpha: 0.5 }, inputs: { A: 'playerA', B: 'playerB' } },
      { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'blend' } },
    );
  }
  return new AnimGraph({ name: `crowd-${kind}`, skeleton, parameters: CROWD_PARAMETERS, clips, nodes });
}

/**
 * The 'montage' case's graph: the 'statemachine' case's machine under an upper-body Slot, under an
 * AimOffset; `nodes` holds playerA.
 */
function montageGraph(skeleton: Skeleton, clips: Map<string, Clip>, nodes: CompiledNode[]): AnimGraph {
  const clipB = clips.get('clipB')!, bindingB = new ClipBinding(clipB, skeleton);
  const reference = new AdditiveReferencePose(clipFramePose(new Pose(skeleton.boneCount), bindingB, 0), skeleton);
  const aimPose = (frame: number): Clip => {
    const n = clipB.tracks.length;
    const one = new Clip({ name: `aim${frame}`, frameRate: CROWD_FRAME_RATE, frameCount: 1, tracks: clipB.tracks, interpolation: 'slerp' });
    one.translations.set(clipB.translations.subarray(frame * n * 3, (frame + 1) * n * 3));
    one.rotations.set(clipB.rotations.subarray(frame * n * 4, (frame + 1) * n * 4));
    const additive = additiveClip(new ClipBinding(one, skeleton), reference, 'mesh');
    return additive;
  };
  const aims = [0, 10, 20, 30].map(aimPose);
  aims.forEach((clip, i) => clips.set(`aim${i}`, clip));
  nodes.push(
    { id: 'playerB', nodeType: SequencePlayerType, properties: { clip: 'clipB', playRate: 1, loop: true, startTime: { param: 'phaseB' } }, inputs: {} },
    walkRunMachine(),
    { id: 'upper', nodeType: registeredNodeType('Slot'), properties: { name: 'upper', filterBone: 'spine_01' }, inputs: { source: 'locomotion' } },
    {
      id: 'aim',
      nodeType: registeredNodeType('AimOffset'),
      properties: {
        x: 20, y: 0,
        samples: [{ clip: 'aim0', x: 0, y: 0 }, { clip: 'aim1', x: 60, y: 0 }, { clip: 'aim2', x: -60, y: 0 }, { clip: 'aim3', x: 0, y: 40 }],
      },
      inputs: { base: 'upper' },
    },
    { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'aim' } },
  );
  return new AnimGraph({
    name: 'crowd-montage', skeleton, parameters: CROWD_PARAMETERS, clips, nodes,
    montages: {
      swing: {
        clip: 'clipB', slot: 'upper', blendIn: { time: 0.2, curve: 'cubic' },
        sections: [{ name: 'start', start: 0 }, { name: 'loop', start: 0.5, next: 'loop' }, { name: 'end', start: 1.5 }],
        notifies: [{ name: 'hit', time: 0.75, branchingPoint: true }],
      },
    },
  });
}

/** Every CROWD_MONTAGE_EVERY-th character of the 'montage' case plays its montage. */
export const CROWD_MONTAGE_EVERY = 4;

/** Start phases (seconds, in [0, duration)) for `count` characters, two per character (A and B). */
export function crowdPhases(count: number, duration: number, seed = CROWD_SEED + 1): Float64Array {
  const random = mulberry32(seed);
  const phases = new Float64Array(count * 2);
  for (let i = 0; i < phases.length; i++) phases[i] = random() * duration;
  return phases;
}

/**
 * `count` characters of one shared graph as an InstanceBatch (graph.createInstances: their poses in
 * one array per attribute, in the sampling kernel's memory where the engine has WebAssembly SIMD),
 * character i starting its players at phases[2i] (A) and phases[2i + 1] (B), via the phase
 * parameters and a reset (which re-reads the start times), sampling in `precision`
 * (InstanceBatchOptions.precision). `batch.update(dt)` runs a crowd's frame as it is meant to be run.
 */
export function createCrowdBatch(graph: AnimGraph, count: number, phases: Float64Array, componentSpace = false, precision: KernelPrecision = 'double'): InstanceBatch {
  const batch = graph.createInstances(count, { componentSpace, precision });
  for (let i = 0; i < count; i++) startAtPhases(batch.instances[i], phases, i);
  return batch;
}

/** Starts character `character` at its phases in `phases` (crowdPhases: two per character), as createCrowdBatch does. */
export function startAtPhases(instance: AnimGraphInstance, phases: Float64Array, character: number): void {
  instance.setParameter('phaseA', phases[character * 2]);
  instance.setParameter('phaseB', phases[character * 2 + 1]);
  instance.reset();
}

/** createCrowdBatch's characters, as instances (each run by update, evaluate and componentPose). */
export function createCrowd(graph: AnimGraph, count: number, phases: Float64Array, componentSpace = false, precision: KernelPrecision = 'double'): AnimGraphInstance[] {
  return [...createCrowdBatch(graph, count, phases, componentSpace, precision).instances];
}
