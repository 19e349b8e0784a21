import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GraphLoadError } from '../../graphs/loader.ts';
import { loadGraphAsset } from '../../host/files.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import type { DebugNode } from '../../runtime/node/node.ts';
import type { ParameterValue } from '../../runtime/node/parameters.ts';
import { describeWithData } from '../support/shared-data.ts';
import { stress } from '../support/stress.ts';
import { INT_PARAMETER_MAX, INT_PARAMETER_MIN } from '../../runtime/node/parameters.ts';

/**
 * Property-based fuzzing of graph assets: mutations of the example graphs and of a
 * graph using every node type either load or fail with a GraphLoadError whose problems all have
 * a path and a code; the assets that load, run with random delta times and parameter values,
 * give finite poses, root motion and debug numbers. The seed is fixed, so a failure reproduces
 * (fast-check prints the shrunk counterexample); the budget keeps the file within a few seconds.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_130_013);
/**
 * Runs scale with FUZZ_SCALE (e.g. 20 for a long local search with random FUZZ_SEEDs); unset, 1 with
 * ANIMGRAPH_STRESS=1 (CI) and a quarter in a plain `npm test`: the same seed's first runs.
 */
const SCALE = Number(process.env.FUZZ_SCALE ?? stress(0.25, 1));

const examplesDir = new URL('../../graphs/examples/', import.meta.url).pathname;
const examples = readdirSync(examplesDir).filter((f) => /^sample-.*\.json$/.test(f))
  .map((f) => [f, JSON.parse(readFileSync(join(examplesDir, f), 'utf8'))] as const);

/** Every node type, bound to parameters wherever a property can be, on the built-in biped. */
const ALL_NODES = {
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  helperBones: [{ name: 'pad_l', parent: 'clavicle_l', translation: [12, 1, 0] }],
  clips: {
    idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run', interpolation: 'nlerp' },
    walkRm: { source: 'builtin:walk', frames: [0, -1], rootMotion: { bone: 'pelvis' } },
  },
  parameters: {
    speed: { type: 'float', default: 1 }, gait: { type: 'int', default: 1 }, running: { type: 'bool', default: false },
    alpha: { type: 'float', default: 0.5 }, target: { type: 'vec3', default: [10, 20, 30] }, time: { type: 'float', default: 0.3 },
    scale: { type: 'float', default: 1.2 }, dir: { type: 'vec3', default: [0, 0, 1] }, roll: { type: 'float', default: 0.25 },
    bt: { type: 'float', default: 0.2 },
  },
  nodes: {
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'speed' } } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: { param: 'speed' }, startTime: 0.1, loop: { param: 'running' } } },
    rm: { type: 'SequencePlayer', properties: { clip: 'walkRm', playRate: { param: 'speed' } } },
    eval: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: { param: 'time' }, loop: true } },
    list: { type: 'BlendList', inputs: { poses: ['idle', 'walk', 'run'] }, properties: { activeIndex: { param: 'gait' }, blendTimes: [0.2, 0.3, 0.25] } },
    two: { type: 'BlendTwo', inputs: { A: 'list', B: 'eval' }, properties: { alpha: { param: 'alpha' } } },
    ib: { type: 'InertialBlend', inputs: { A: 'two', B: 'rm' }, properties: { useA: { param: 'running' }, blendTime: { param: 'bt' } } },
    ps: { type: 'PoseSearchBlend', properties: { clips: ['walk', 'run'], motion: { param: 'gait' }, blendTime: { param: 'bt' } } },
    bb: {
      type: 'BlendByBool', inputs: { True: 'ib', False: 'ps' },
      properties: { active: { param: 'running' }, blendMode: 'inertial', trueBlendTime: { param: 'bt' }, falseBlendTime: 0.3 },
    },
    inert: { type: 'Inertialization', inputs: { pose: 'bb' } },
    copy: { type: 'CopyBone', inputs: { pose: 'inert' }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r', copyTranslation: true, alpha: { param: 'alpha' } } },
    ik: {
      type: 'TwoBoneIK', inputs: { pose: 'copy' },
      properties: {
        endBone: 'foot_l', target: { param: 'target' }, hintMode: 'position', hint: { param: 'dir' },
        allowStretch: true, startStretchRatio: { param: 'alpha' }, maxStretchScale: { param: 'scale' },
      },
    },
    handIk: { type: 'TwoBoneIK', inputs: { pose: 'ik' }, properties: { endBone: 'hand_r', targetMode: 'bone', targetBone: 'head', target: { param: 'target' } } },
    bend: { type: 'BendRollHelper', inputs: { pose: 'handIk' }, properties: { helpers: [{ source: 'upperarm_l', target: 'pad_l', axis: [0, -1, 0], rollWeight: { param: 'roll' } }] } },
    look: {
      type: 'LookAt', inputs: { pose: 'bend' },
      properties: { bone: 'head', target: { param: 'target' }, clampAngle: { param: 'scale' }, interpolationTime: { param: 'bt' }, interpolationTriggerThreshold: { param: 'roll' } },
    },
    fab: { type: 'FABRIK', inputs: { pose: 'look' }, properties: { rootBone: 'spine_01', tipBone: 'hand_l', target: { param: 'target' }, precision: { param: 'roll' }, maxIterations: { param: 'gait' } } },
    ccd: {
      type: 'CCDIK', inputs: { pose: 'fab' },
      properties: { rootBone: 'clavicle_r', tipBone: 'hand_r', targetMode: 'bone', targetBone: 'head', target: { param: 'dir' }, enableRotationLimits: { param: 'running' }, jointLimits: [{ bone: 'upperarm_r', limit: 20 }] },
    },
    mod: {
      type: 'ModifyBone', inputs: { pose: 'ccd' },
      properties: { bone: 'calf_r', rotation: { param: 'target' }, rotationMode: 'additive', rotationSpace: 'bone', scale: { param: 'dir' }, scaleMode: 'replace', scaleSpace: 'parent', alpha: { param: 'alpha' } },
    },
    snap: { type: 'PoseSnapshot', properties: { snapshotName: 'held' } },
    held: { type: 'BlendTwo', inputs: { A: 'mod', B: 'snap' }, properties: { alpha: { param: 'roll' } } },
    warp: {
      type: 'StrideWarping', inputs: { pose: 'held' },
      properties: {
        strideScale: { param: 'scale' }, strideDirection: { param: 'dir' }, pelvisStiffness: 200, scaleSmoothingTime: 0.2,
        pelvisBone: 'pelvis', leftThigh: 'thigh_l', leftCalf: 'calf_l', leftFoot: 'foot_l', rightThigh: 'thigh_r', rightCalf: 'calf_r', rightFoot: 'foot_r',
      },
    },
  },
  output: 'warp',
};

const SEEDS: readonly (readonly [string, unknown])[] = [...examples, ['all-nodes', ALL_NODES]];

// ------------------------------------------------------------------------------------------
// Hostile values and names.

const HOSTILE_NAMES = ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf', '', ' ', '0', 'a b', 'output', 'Output'];

/** Every string in the seeds (ids, clip, parameter and bone names, types, enum values): relinking to one is the likeliest way to make a subtly wrong graph. */
const NAME_POOL = [...new Set([...HOSTILE_NAMES, ...SEEDS.flatMap(([, seed]) => strings(seed)), 'pad_l', 'foot_l', 'root'])];

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) { out.push(k); strings(v, out); }
  return out;
}

const EXTREME_NUMBERS = [
  0, -0, 1, -1, 0.5, 2, 3, 7, 1e-6, 1e-90, 1e-151, 5e-324, 1e6, 1e6 + 1, 1e9, 2e9, 1e155, 1e300, Number.MAX_VALUE, -Number.MAX_VALUE,
  Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2 ** 31, 2 ** 53, -(2 ** 53), 0.1 + 0.2,
];

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...EXTREME_NUMBERS),
  fc.constantFrom<unknown>(null, true, false, [], {}, [0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [1e308, 1e308, 1e308], [1e-320, 0, 0],
    { param: 'speed' }, { param: 'gait' }, { param: 'running' }, { param: 'target' }, { param: 'toString' }, { param: '__proto__' },
    'builtin:walk', 'builtin:biped', 'builtin:nothing', 'nlerp', 'inertial', 'crossfade', 'fromRootMotion', 'bone', 'position'),
  fc.constantFrom(...NAME_POOL),
  fc.double({ noNaN: true }),
  fc.integer({ min: -3, max: 40 }),
  fc.array(fc.constantFrom(...NAME_POOL), { maxLength: 4 }),
  fc.jsonValue({ maxDepth: 2 }),
);

const hostileKey = fc.oneof(fc.constantFrom(...NAME_POOL), fc.string({ maxLength: 3 }));

type Mutation =
  | { op: 'delete' | 'swapType'; at: number }
  /** A number replaced by another (often extreme) number, a string by another name, a bool flipped: the asset often still loads. */
  | { op: 'retype'; at: number; number: number; name: string }
  | { op: 'replace'; at: number; value: unknown }
  | { op: 'insert'; at: number; key: string; value: unknown }
  | { op: 'rename'; at: number; key: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('retype' as const), at: fc.nat(),
      number: fc.oneof(fc.constantFrom(...EXTREME_NUMBERS), fc.double({ noNaN: true }), fc.integer({ min: -2, max: 5 })),
      name: fc.constantFrom(...NAME_POOL),
    }),
  },
  fc.record({ op: fc.constantFrom('delete' as const, 'swapType' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: hostileValue }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), key: hostileKey, value: hostileValue }),
  fc.record({ op: fc.constant('rename' as const), at: fc.nat(), key: hostileKey }),
);

/** Sets an own property, as JSON.parse does, even for `__proto__` (an assignment would set the prototype). */
function setOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Every (container, key) slot of the tree, in pre-order. */
function slots(root: unknown): { container: Record<string, unknown> | unknown[]; key: string | number }[] {
  const out: { container: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) value.forEach((item, i) => { out.push({ container: value, key: i }); stack.push(item); });
    else if (typeof value === 'object' && value !== null) {
      for (const [k, item] of Object.entries(value)) { out.push({ container: value as Record<string, unknown>, key: k }); stack.push(item); }
    }
  }
  return out;
}

function swapType(value: unknown): unknown {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.length;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (Array.isArray(value)) return Object.fromEntries(value.map((v, i) => [String(i), v]));
  if (typeof value === 'object' && value !== null) return Object.values(value);
  return {};
}

/** Applies the mutations to a copy of `seed`. */
function mutate(seed: unknown, mutations: readonly Mutation[]): unknown {
  const root = { asset: structuredClone(seed) as unknown };
  for (const m of mutations) {
    const all = slots(root);
    const { container, key } = all[m.at % all.length];
    const value = (container as Record<string | number, unknown>)[key];
    switch (m.op) {
      case 'retype': {
        const next = typeof value === 'number' ? m.number : typeof value === 'string' ? m.name : typeof value === 'boolean' ? !value : value;
        if (Array.isArray(container)) container[key as number] = next;
        else setOwn(container, key as string, next);
        break;
      }
      case 'delete':
        if (Array.isArray(container)) container.splice(key as number, 1);
        else if (container !== root) delete (container as Record<string, unknown>)[key];
        break;
      case 'replace':
        if (Array.isArray(container)) container[key as number] = structuredClone(m.value);
        else setOwn(container, key as string, structuredClone(m.value));
        break;
      case 'swapType':
        if (Array.isArray(container)) container[key as number] = swapType(value);
        else setOwn(container, key as string, swapType(value));
        break;
      case 'insert':
        if (Array.isArray(value)) value.push(structuredClone(m.value));
        else if (typeof value === 'object' && value !== null) setOwn(value, m.key, structuredClone(m.value));
        else if (Array.isArray(container)) container.push(structuredClone(m.value));
        else setOwn(container, m.key, structuredClone(m.value));
        break;
      case 'rename':
        if (!Array.isArray(container) && container !== root) {
          delete (container as Record<string, unknown>)[key];
          setOwn(container, m.key, value);
        }
        break;
    }
  }
  return root.asset;
}

// ------------------------------------------------------------------------------------------
// Running what loads.

/** Delta times a caller may pass: ordinary frames, long and tiny ones, and invalid ones (treated as 0). */
const deltaTime = fc.oneof(
  { weight: 4, arbitrary: fc.double({ min: 0, max: 0.5, noNaN: true }) },
  { weight: 2, arbitrary: fc.constantFrom(0, 1 / 30, 1 / 60, 1e-90, 5e-324, 1e-9, 1, 100, 1e6, 1e300, Number.MAX_VALUE, -1 / 30, Number.NaN, Number.POSITIVE_INFINITY) },
  { weight: 1, arbitrary: fc.double({ min: 0, noNaN: true, noDefaultInfinity: true }) },
);

/** A finite number for a parameter: ordinary values often, any finite double sometimes. */
const parameterNumber = fc.oneof(
  { weight: 3, arbitrary: fc.double({ min: -10, max: 10, noNaN: true }) },
  { weight: 2, arbitrary: fc.constantFrom(0, -0, 1, -1, 2, 1e-300, 1e6, -1e6, 1e155, 1e300, -1e300, Number.MAX_VALUE, -Number.MAX_VALUE, 5e-324) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/** An update rate set before a frame (AnimGraphInstance.setUpdateRate): now and then, mostly none. */
interface Rate { rate: number; phase: number; interpolate: boolean }
interface Frame { dt: number; sets: { index: number; numbers: [number, number, number] }[]; rate: Rate | null }
const frames: fc.Arbitrary<Frame[]> = fc.array(fc.record({
  dt: deltaTime,
  sets: fc.array(fc.record({ index: fc.nat(), numbers: fc.tuple(parameterNumber, parameterNumber, parameterNumber) }), { maxLength: 3 }),
  rate: fc.option(fc.record({ rate: fc.integer({ min: 1, max: 4 }), phase: fc.integer({ min: -2, max: 5 }), interpolate: fc.boolean() }), { freq: 4 }),
}), { minLength: 1, maxLength: 6 });

/** A value of the parameter's type from three finite numbers. */
function parameterValue(type: string, [x, y, z]: [number, number, number]): ParameterValue {
  switch (type) {
    case 'bool': return x > 0;
    // An int takes -2^31 to 2^31 - 1 (a value outside is refused: tests/host/parameter-arguments.test.ts).
    case 'int': return Math.min(Math.max(Math.trunc(x), INT_PARAMETER_MIN), INT_PARAMETER_MAX);
    case 'vec3': return [x, y, z];
    default: return x;
  }
}

/** The first non-finite number of the instance's output (pose, component pose, root motion, debug values), or null. */
function nonFinite(instance: AnimGraphInstance): string | null {
  const pose = instance.evaluate();
  const cs = instance.componentPose();
  const arrays = {
    'local translations': pose.translations, 'local rotations': pose.rotations, 'local scales': pose.scales,
    'component translations': cs.translations, 'component rotations': cs.rotations, 'component scales': cs.scales,
    'root motion': instance.rootMotion,
  };
  for (const [name, values] of Object.entries(arrays)) {
    const i = values.findIndex((v) => !Number.isFinite(v));
    if (i >= 0) return `${name}[${i}] = ${values[i]}`;
  }
  const stack: DebugNode[] = [instance.gatherDebug()];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!Number.isFinite(node.weight) || (node.alpha !== undefined && !Number.isFinite(node.alpha))) return `debug weight/alpha of ${node.id}`;
    for (const [key, v] of Object.entries(node.values ?? {})) {
      const numbers = typeof v === 'number' ? [v] : Array.isArray(v) ? v : [];
      if (numbers.some((n) => !Number.isFinite(n))) return `debug value ${node.id}.${key} = ${JSON.stringify(v, (_k, n) => (typeof n === 'number' ? String(n) : n))}`;
    }
    stack.push(...node.children);
  }
  return null;
}

/** Where two instances' poses first differ in their bits, or null. */
function firstDifference(a: AnimGraphInstance, b: AnimGraphInstance): string | null {
  const pa = a.evaluate(), pb = b.evaluate();
  for (const key of ['translations', 'rotations', 'scales'] as const) {
    const i = pa[key].findIndex((v, k) => !Object.is(v, pb[key][k]));
    if (i >= 0) return `${key}[${i}]: ${pa[key][i]} against ${pb[key][i]}`;
  }
  const i = a.rootMotion.findIndex((v, k) => !Object.is(v, b.rootMotion[k]));
  return i >= 0 ? `root motion[${i}]: ${a.rootMotion[i]} against ${b.rootMotion[i]}` : null;
}

/**
 * Runs `script` on a new instance of `graph`; returns a description of the first non-finite output,
 * or null. A second instance runs the same script, evaluating three times a frame (the first,
 * twice) and never reading its component pose or debug tree: its poses must be the first's, bit
 * for bit (determinism, however often a frame is evaluated). So must the poses of a batch's
 * character (InstanceBatch: in the WebAssembly kernel's memory, sampled and blended there).
 */
function runScript(graph: AnimGraph, script: readonly Frame[]): string | null {
  const instance = graph.createInstance(), twin = graph.createInstance();
  const batch = graph.createInstances(1), member = batch.instances[0];
  // Not those a curve sets: setParameter refuses them.
  const names = Object.keys(graph.parameterDefinitions).filter((name) => graph.parameterDefinitions[name].curve === undefined);
  instance.update(0);
  twin.update(0);
  twin.evaluate();
  twin.evaluate();
  batch.update(0);
  const first = nonFinite(instance) ?? firstDifference(instance, twin) ?? firstDifference(instance, member);
  if (first) return `frame 0: ${first}`;
  for (let f = 0; f < script.length; f++) {
    const { dt, sets, rate } = script[f];
    if (rate !== null) for (const each of [instance, twin, member]) each.setUpdateRate(rate.rate, rate.phase, { interpolate: rate.interpolate });
    for (const set of sets) {
      if (names.length === 0) break;
      const name = names[set.index % names.length];
      const value = parameterValue(graph.parameterDefinitions[name].type, set.numbers);
      instance.setParameter(name, value);
      twin.setParameter(name, value);
      member.setParameter(name, value);
    }
    instance.update(dt);
    twin.update(dt);
    twin.evaluate();
    twin.evaluate();
    batch.update(dt);
    const bad = nonFinite(instance) ?? firstDifference(instance, twin) ?? firstDifference(instance, member);
    if (bad) return `frame ${f + 1} (dt ${dt}): ${bad}`;
  }
  return null;
}

/** Loads `asset`: the graph, or null after checking the failure is a GraphLoadError with well-formed problems. */
function load(asset: unknown): AnimGraph | null {
  try {
    return loadGraphAsset(asset, { baseDir: examplesDir, source: 'fuzzed' });
  } catch (e) {
    if (!(e instanceof GraphLoadError)) throw new Error(`not a GraphLoadError: ${(e as Error)?.stack ?? String(e)}`);
    expect(e.problems.length).toBeGreaterThan(0);
    for (const p of e.problems) {
      expect(p.path).toMatch(/^\$/);
      expect(p.code).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(typeof p.message === 'string' && p.message.length > 0).toBe(true);
    }
    return null;
  }
}

describe('graph asset fuzzing', () => {
  it('mutated assets load or fail with a typed GraphLoadError; those that load run finite', () => {
    let loaded = 0;
    fc.assert(fc.property(
      fc.nat({ max: SEEDS.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), frames,
      (seedIndex, mutations, script) => {
        const graph = load(mutate(SEEDS[seedIndex][1], mutations));
        if (!graph) return;
        loaded++;
        expect(runScript(graph, script)).toBeNull();
      },
    ), { seed: SEED, numRuns: Math.round(300 * SCALE) });
    if (process.env.FUZZ_SCALE) console.log(`fuzz: ${loaded} of ${Math.round(300 * SCALE)} mutated assets loaded`);
    // The mutations are not all fatal: a good share of the runs exercise the runtime too.
    expect(loaded).toBeGreaterThan(30 * SCALE);
  });

  it.each(SEEDS.map(([name]) => name))('%s runs finite for any delta times and finite parameter values', (name) => {
    const graph = loadGraphAsset(structuredClone(SEEDS.find(([n]) => n === name)![1]), { baseDir: examplesDir });
    fc.assert(fc.property(frames, (script) => {
      expect(runScript(graph, script)).toBeNull();
    }), { seed: SEED, numRuns: Math.round(150 * SCALE) });
  });
});

// The examples on motion capture and the robot's glTF (../shared/data): real skeletons, pose-search
// databases and stride warping on real feet, under the same hostile delta times and parameters.
describeWithData('graph asset fuzzing on real data', () => {
  const onData = readdirSync(examplesDir).filter((f) => /^(cmu|robot)-.*\.json$/.test(f));
  it.each(onData)('%s runs finite for any delta times and finite parameter values', (file) => {
    const graph = loadGraphAsset(JSON.parse(readFileSync(join(examplesDir, file), 'utf8')), { baseDir: examplesDir });
    fc.assert(fc.property(frames, (script) => {
      expect(runScript(graph, script)).toBeNull();
    }), { seed: SEED, numRuns: Math.round(100 * SCALE) });
  });
});
