import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, GraphLoadError, type GraphProblem } from '../../graphs/loader.ts';
import { MAX_ASSET_DEPTH } from '../../graphs/loader/problems.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import type { ParameterValue } from '../../runtime/node/parameters.ts';
import { cpuMs } from '../support/cpu-time.ts';

/**
 * Property-based fuzzing of what an asset is built from, beside tests/graphs/fuzz.test.ts (which
 * mutates whole example assets): glTF files with random node hierarchies, transforms, skins and
 * animations (then hostile edits to their JSON); state machines with random states, conduits,
 * nesting, transitions and rules; and random graphs of built-in nodes with hostile nesting. Each
 * case must give a typed result (a graph, or problems each with a path, a code and a message:
 * never another exception), within a time bound (a guard against a hang, far above what a case
 * takes), and whatever loads must give finite poses whose rotations are unit quaternions, local
 * and component, over a few frames of hostile delta times and parameter values. The seed is fixed
 * (FUZZ_SEED to change it, FUZZ_SCALE to run more), so a failure reproduces and fast-check prints
 * the shrunk case.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
/** CPU milliseconds a case may take, load and frames: a hang guard, not a benchmark. */
const CASE_BOUND_MS = 3000;

// ------------------------------------------------------------------------------------------
// Checking a case.

/** The problems of a failed check, each checked to be well formed. */
function expectTypedProblems(problems: readonly GraphProblem[]): void {
  expect(problems.length).toBeGreaterThan(0);
  for (const p of problems) {
    expect(p.path).toMatch(/^\$/);
    expect(p.code).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(typeof p.message === 'string' && p.message.length > 0).toBe(true);
  }
}

/**
 * Checks `asset` with `files` as the resolver's answers: the graph, or null once the problems are
 * checked to be typed. Any exception but a GraphLoadError from the resolver-less throw fails.
 */
function check(asset: unknown, files: Record<string, string> = {}): AnimGraph | null {
  let result;
  try {
    result = checkGraphAsset(asset, {
      resolveSync: (path) => {
        if (!Object.hasOwn(files, path)) throw new Error(`no file ${path}`);
        return files[path];
      },
    });
  } catch (e) {
    throw new Error(`checkGraphAsset threw instead of returning problems: ${(e as Error)?.stack ?? String(e)}`);
  }
  if (result.ok) return result.graph;
  expectTypedProblems(result.problems);
  if (process.env.FUZZ_DEBUG) console.log(JSON.stringify(result.problems.slice(0, 2)));
  // As loadGraphAsset would throw them.
  expect(new GraphLoadError('fuzzed', result.problems).code).toBe('load-failed');
  return null;
}

/** A frame's delta time and the parameter values set before it. */
interface Frame { dt: number; sets: { index: number; numbers: [number, number, number] }[] }

const frames: fc.Arbitrary<Frame[]> = fc.array(fc.record({
  dt: fc.oneof(
    { weight: 4, arbitrary: fc.double({ min: 0, max: 0.5, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 1 / 60, 1e-9, 1, 100, 1e6, 1e300, -1, Number.NaN, Number.POSITIVE_INFINITY) },
  ),
  sets: fc.array(fc.record({
    index: fc.nat(),
    numbers: fc.tuple(...[0, 1, 2].map(() => fc.oneof(
      { weight: 4, arbitrary: fc.double({ min: -300, max: 300, noNaN: true }) },
      { weight: 1, arbitrary: fc.constantFrom(0, -0, 1, 2, -1, 1e6, -1e300, 1e300, 2 ** 31 - 1, -(2 ** 31)) },
    ))) as fc.Arbitrary<[number, number, number]>,
  }), { maxLength: 3 }),
}), { minLength: 1, maxLength: 5 });

function parameterValue(type: string, [x, y, z]: [number, number, number]): ParameterValue {
  switch (type) {
    case 'bool': return x > 0;
    case 'int': return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(x)));
    case 'vec3': return [x, y, z];
    default: return x;
  }
}

/** The first number of `values` (rotations when `quaternions`) that is not finite or not of unit length. */
function badValue(name: string, values: Float64Array, quaternions: boolean): string | null {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i])) return `${name}[${i}] = ${values[i]}`;
  if (!quaternions) return null;
  for (let q = 0; q < values.length; q += 4) {
    const length = Math.hypot(values[q], values[q + 1], values[q + 2], values[q + 3]);
    if (!(Math.abs(length - 1) <= 1e-6)) return `${name} of bone ${q / 4} has length ${length}`;
  }
  return null;
}

/** Runs `script` on an instance of `graph`: null, or what first went wrong. */
function runScript(graph: AnimGraph, script: readonly Frame[]): string | null {
  const instance = graph.createInstance();
  // Not those a curve sets: setParameter refuses them.
  const names = Object.keys(graph.parameterDefinitions).filter((name) => graph.parameterDefinitions[name].curve === undefined);
  for (let f = 0; f <= script.length; f++) {
    const frame = f === 0 ? { dt: 0, sets: [] } : script[f - 1];
    for (const set of frame.sets) {
      if (names.length === 0) break;
      const name = names[set.index % names.length];
      instance.setParameter(name, parameterValue(graph.parameterDefinitions[name].type, set.numbers));
    }
    instance.update(frame.dt);
    const local = instance.evaluate();
    const component = instance.componentPose();
    const bad = badValue('local rotation', local.rotations, true) ?? badValue('local translation', local.translations, false)
      ?? badValue('local scale', local.scales, false) ?? badValue('component rotation', component.rotations, true)
      ?? badValue('component translation', component.translations, false) ?? badValue('root motion', instance.rootMotion, false);
    if (bad !== null) return `frame ${f} (dt ${frame.dt}): ${bad}`;
  }
  return null;
}

/** Checks a case (typed result; finite unit poses for what loads), within the time bound; whether it loaded. */
function runCase(asset: unknown, files: Record<string, string>, script: readonly Frame[]): boolean {
  const start = cpuMs();
  const graph = check(asset, files);
  if (graph) expect(runScript(graph, script)).toBeNull();
  expect(cpuMs() - start).toBeLessThan(CASE_BOUND_MS);
  return graph !== null;
}

// ------------------------------------------------------------------------------------------
// Hostile edits of JSON values (a glTF file's, an asset's).

const HOSTILE: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 31, 2 ** 53, '', 'x', '0', '__proto__', [], {}, [0, 0, 0], [0, 0, 0, 0],
  [1e308, 1e308, 1e308], [Number.MAX_VALUE, 0, 0, 1], { param: 'f' }, [[[]]], { '*': {} },
];

interface Edit { at: number; op: 'delete' | 'replace' | 'nest'; value: number }
const edits: fc.Arbitrary<Edit[]> = fc.array(fc.record({ at: fc.nat(), op: fc.constantFrom('delete' as const, 'replace' as const, 'nest' as const), value: fc.nat() }), { maxLength: 3 });

/** Every (container, key) of a JSON value, in pre-order. */
function slots(root: unknown): { container: Record<string, unknown> | unknown[]; key: string | number }[] {
  const out: { container: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) value.forEach((item, i) => { out.push({ container: value, key: i }); stack.push(item); });
    else if (typeof value === 'object' && value !== null) for (const [k, item] of Object.entries(value)) { out.push({ container: value as Record<string, unknown>, key: k }); stack.push(item); }
  }
  return out;
}

/**
 * `value` after the edits: a slot deleted, replaced by a hostile value, or wrapped in arrays or
 * objects nested around MAX_ASSET_DEPTH (just under, or past it; once per case, as JSON.stringify,
 * which writes the case out, recurses per level itself).
 */
function edited<T>(value: T, list: readonly Edit[]): T {
  const root = { value: structuredClone(value) as unknown };
  let nested = false;
  for (const e of list) {
    if (e.op === 'nest' && nested) continue;
    const all = slots(root);
    const { container, key } = all[e.at % all.length];
    const set = (v: unknown) => {
      if (Array.isArray(container)) container[key as number] = v;
      else Object.defineProperty(container, key, { value: v, enumerable: true, writable: true, configurable: true });
    };
    if (e.op === 'delete') {
      if (Array.isArray(container)) container.splice(key as number, 1);
      else if (container !== root) delete container[key as string];
    } else if (e.op === 'replace') set(structuredClone(HOSTILE[e.value % HOSTILE.length]));
    else {
      nested = true;
      let v = (container as Record<string | number, unknown>)[key];
      const levels = MAX_ASSET_DEPTH - 20 + (e.value % 40);
      for (let i = 0; i < levels; i++) v = e.value % 2 === 0 ? [v] : { a: v };
      set(v);
    }
  }
  return root.value as T;
}

// ------------------------------------------------------------------------------------------
// glTF files.

interface GltfCase {
  /** Each node's parent among the nodes before it, or -1; the nodes then listed in `order`. */
  parents: number[];
  order: number[];
  transforms: ({ translation?: number[]; rotation?: number[]; scale?: number[]; matrix?: number[] } | null)[];
  joints: number[];
  channels: { node: number; path: string; interpolation: string; times: number[]; values: number[] }[];
  sampleRate: number | null;
}

const component = fc.oneof(
  { weight: 60, arbitrary: fc.double({ min: -3, max: 3, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(0, -0, 1, -1, 1e-20, 1e6, -1e6, 1e14, 1e16, 1e300, -1e300) },
);

/** A rotation: mostly some unit quaternion, sometimes any four numbers (a zero one is refused). */
const rotation = fc.oneof(
  { weight: 30, arbitrary: fc.tuple(fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })).map(([x, y, z]) => [x * 0.5, y * 0.5, z * 0.5, 1]) },
  { weight: 1, arbitrary: fc.array(component, { minLength: 4, maxLength: 4 }) },
);

const transform = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  {
    weight: 4,
    arbitrary: fc.record({
      translation: fc.option(fc.array(component, { minLength: 3, maxLength: 3 }), { nil: undefined }),
      rotation: fc.option(rotation, { nil: undefined }),
      scale: fc.option(fc.array(component, { minLength: 3, maxLength: 3 }), { nil: undefined }),
    }, { requiredKeys: [] }),
  },
  { weight: 1, arbitrary: fc.record({ matrix: fc.array(component, { minLength: 16, maxLength: 16 }) }) },
);

const gltfCase: fc.Arbitrary<GltfCase> = fc.integer({ min: 1, max: 12 }).chain((count) => fc.record({
  // Mostly one tree (a second root now and then, often joints with no common ancestor).
  parents: fc.tuple(...Array.from({ length: count }, (_, i) => (i === 0 ? fc.constant(-1)
    : fc.oneof({ weight: 60, arbitrary: fc.integer({ min: 0, max: i - 1 }) }, { weight: 1, arbitrary: fc.constant(-1) })))),
  order: fc.shuffledSubarray(Array.from({ length: count }, (_, i) => i), { minLength: count, maxLength: count }),
  transforms: fc.array(transform, { minLength: count, maxLength: count }),
  joints: fc.uniqueArray(fc.integer({ min: 0, max: count - 1 }), { minLength: 1, maxLength: count }),
  channels: fc.array(fc.record({
    node: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: count - 1 }) }, { weight: 1, arbitrary: fc.constant(count) }),
    path: fc.constantFrom('translation', 'rotation', 'scale', 'rotation', 'weights'),
    interpolation: fc.constantFrom('LINEAR', 'STEP', 'CUBICSPLINE', 'LINEAR'),
    times: fc.oneof(
      { weight: 6, arbitrary: fc.array(fc.double({ min: 0.01, max: 3, noNaN: true }), { minLength: 1, maxLength: 4 }).map((t) => [0, ...t.sort((a, b) => a - b)]) },
      { weight: 1, arbitrary: fc.array(fc.double({ min: -1, max: 3, noNaN: true }), { minLength: 1, maxLength: 4 }) },
      // Not [0, 1e5]: 2.4 million frames at 24 Hz, within MAX_CLIP_FRAME_TRACKS, take seconds to sample.
      { weight: 1, arbitrary: fc.constantFrom<number[]>([0], [0, 1 / 24, 2 / 24], [0, 1e-7], [0, 100]).map((t) => [...t]) },
    ),
    values: fc.array(fc.oneof({ weight: 30, arbitrary: fc.double({ min: -3, max: 3, noNaN: true }) }, { weight: 1, arbitrary: component }), { minLength: 60, maxLength: 60 }),
  }), { minLength: 1, maxLength: 3 }),
  sampleRate: fc.option(fc.constantFrom(1, 24, 30, 1000, 0.5), { nil: null }),
}));

/** The .gltf text of a case: its nodes (listed in `order`), skin, and one animation with a buffer as a data: URI. */
function gltfJson(c: GltfCase): Record<string, unknown> {
  const count = c.parents.length;
  // Node i of the case is listed at position place[i].
  const place: number[] = [];
  c.order.forEach((node, at) => { place[node] = at; });
  const nodes: Record<string, unknown>[] = Array.from({ length: count }, () => ({}));
  for (let i = 0; i < count; i++) {
    const node = nodes[place[i]];
    node.name = i % 3 === 2 ? `n${i - 1}` : `n${i}`; // some names repeat
    Object.assign(node, c.transforms[i] ?? {});
    if (c.parents[i] >= 0) {
      const parent = nodes[place[c.parents[i]]];
      parent.children = [...(parent.children as number[] ?? []), place[i]];
    }
  }
  const floats: number[] = [];
  const accessors: Record<string, unknown>[] = [];
  const bufferViews: Record<string, unknown>[] = [];
  const accessor = (values: number[], type: string): number => {
    bufferViews.push({ buffer: 0, byteOffset: floats.length * 4, byteLength: values.length * 4 });
    floats.push(...values);
    accessors.push({ bufferView: bufferViews.length - 1, componentType: 5126, count: values.length / ({ SCALAR: 1, VEC3: 3, VEC4: 4 }[type]!), type });
    return accessors.length - 1;
  };
  const samplers: Record<string, unknown>[] = [];
  const channels: Record<string, unknown>[] = [];
  for (const ch of c.channels) {
    const width = ch.path === 'rotation' ? 4 : 3;
    const keys = ch.times.length * (ch.interpolation === 'CUBICSPLINE' ? 3 : 1);
    const input = accessor(ch.times, 'SCALAR');
    const output = accessor(ch.values.slice(0, keys * width).concat(Array(Math.max(0, keys * width - ch.values.length)).fill(0)), width === 4 ? 'VEC4' : 'VEC3');
    samplers.push({ input, output, interpolation: ch.interpolation });
    // Mostly a joint's node: a channel on a node that is not a bone is not imported.
    const node = ch.node >= count ? ch.node : ch.node % 4 !== 3 ? c.joints[ch.node % c.joints.length] : ch.node;
    channels.push({ sampler: samplers.length - 1, target: { node: node < count ? place[node] : node, path: ch.path } });
  }
  const bytes = new Uint8Array(new Float32Array(floats).buffer);
  return {
    asset: { version: '2.0' },
    scenes: [{ nodes: Array.from({ length: count }, (_, i) => i).filter((i) => c.parents[c.order[i]] < 0) }],
    nodes,
    skins: [{ joints: c.joints.map((j) => place[j]) }],
    ...(floats.length > 0 ? {
      buffers: [{ uri: `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`, byteLength: bytes.length }],
      bufferViews, accessors,
    } : {}),
    animations: [{ name: 'take', channels, samplers }],
  };
}

function gltfGraphAsset(c: GltfCase): Record<string, unknown> {
  return {
    format: 'animgraph/1', skeleton: { gltf: 'f.gltf' },
    clips: { take: { source: 'f.gltf', animation: 'take', ...(c.sampleRate !== null ? { sampleRate: c.sampleRate } : {}) } },
    parameters: { f: { type: 'float', default: 0.5 }, time: { type: 'float', default: 0.2 } },
    nodes: {
      play: { type: 'SequencePlayer', properties: { clip: 'take', playRate: { param: 'f' } } },
      at: { type: 'SequenceEvaluator', properties: { clip: 'take', explicitTime: { param: 'time' } } },
      mix: { type: 'BlendTwo', inputs: { A: 'play', B: 'at' }, properties: { alpha: { param: 'f' } } },
    },
    output: 'mix',
  };
}

describe('glTF fuzzing', () => {
  it('random hierarchies, transforms, skins and animations load or give typed problems; what loads poses finite unit rotations', () => {
    let loaded = 0;
    fc.assert(fc.property(gltfCase, edits, frames, fc.nat({ max: 9 }), (c, list, script, kind) => {
      const json = gltfJson(c);
      // A fifth of the files edited with hostile values, a tenth cut short (not JSON).
      const text = kind < 2 ? JSON.stringify(edited(json, list)) : kind === 2 ? JSON.stringify(json).slice(0, 10 + (list.length * 37) % 200) : JSON.stringify(json);
      if (runCase(gltfGraphAsset(c), { 'f.gltf': text }, script)) loaded++;
    }), { seed: SEED, numRuns: Math.round(250 * SCALE) });
    if (process.env.FUZZ_SCALE) console.log(`glTF fuzz: ${loaded} of ${Math.round(250 * SCALE)} loaded`);
    // Not every case is refused: the runtime runs on a good share of them.
    expect(loaded).toBeGreaterThan(50 * SCALE);
  });
});

// ------------------------------------------------------------------------------------------
// State machines.

/** State names: mostly plain, now and then hostile ('*' is any state in a transition, '' and '__proto__' refused). */
const STATE_NAMES = ['a', 'b', 'c', 'd', '*', 'toString', '__proto__', '', 'e f', 'constructor'];
const stateNames = (hostile: boolean) => (hostile
  ? fc.oneof({ weight: 8, arbitrary: fc.constantFrom('a', 'b', 'c', 'd') }, { weight: 1, arbitrary: fc.constantFrom(...STATE_NAMES) })
  : fc.constantFrom('a', 'b', 'c', 'd'));
const PARAMETERS = ['f', 'i', 'b', 'v', 'missing'];
const parameterName = fc.oneof({ weight: 10, arbitrary: fc.constantFrom('f', 'i', 'b') }, { weight: 1, arbitrary: fc.constantFrom(...PARAMETERS) });

const rules = (hostile: boolean): fc.Arbitrary<unknown> => fc.letrec<{ rule: unknown }>((tie) => ({
  rule: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom<unknown>(true, false, 'atEnd', { timeRemaining: 0.1 }, { timeRemaining: 0 }) },
      { weight: hostile ? 1 : 0, arbitrary: fc.constantFrom<unknown>('sometimes', null, 3, { timeRemaining: -1 }, { timeRemaining: 1e308 }, {}) },
    ),
    fc.oneof(
      { weight: 6, arbitrary: fc.record({ param: fc.constant('f'), op: fc.constantFrom('<', '>', '<=', '>='), value: fc.double({ min: -2, max: 2, noNaN: true }) }) },
      { weight: 3, arbitrary: fc.record({ param: fc.constant('i'), op: fc.constantFrom('==', '!='), value: fc.integer({ min: -1, max: 3 }) }) },
      { weight: 3, arbitrary: fc.record({ param: fc.constant('b'), value: fc.boolean() }, { requiredKeys: ['param'] }) },
      {
        weight: hostile ? 1 : 0,
        arbitrary: fc.record({
          param: parameterName,
          op: fc.constantFrom('==', '!=', '<', '<=', '>', '>=', '=>', undefined),
          value: fc.oneof(fc.double({ min: -300, max: 300, noNaN: true }), fc.boolean(), fc.constantFrom(undefined, 'x', 1e308)),
        }, { requiredKeys: ['param'] }),
      },
    ),
    fc.record({ and: fc.array(tie('rule'), { minLength: hostile ? 0 : 1, maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('rule'), { minLength: hostile ? 0 : 1, maxLength: 3 }) }),
    fc.record({ not: tie('rule') }),
  ),
})).rule;

/** One of the usual values, or (in a hostile case, now and then) one of the hostile ones. */
const mostly = <T>(hostile: boolean, usual: readonly T[], bad: readonly T[]) => (hostile
  ? fc.oneof({ weight: 10, arbitrary: fc.constantFrom(...usual) }, { weight: 1, arbitrary: fc.constantFrom(...bad) })
  : fc.constantFrom(...usual));

const transitions = (hostile: boolean) => fc.record({
  from: fc.oneof({ weight: 4, arbitrary: stateNames(hostile) }, { weight: 1, arbitrary: fc.constant('*') }),
  to: stateNames(hostile),
  rule: rules(hostile),
  duration: mostly(hostile, [undefined, 0, 0.1, 0.3, 2], [1e6, -1, 1e300]),
  blend: mostly(hostile, [undefined, 'crossfade', 'inertial'], ['sideways']),
  curve: mostly(hostile, [undefined, 'linear', 'cubic'], ['bent']),
  blendProfile: mostly(hostile, [undefined, undefined, 'legs', 'weights'], ['mask', 'nope']),
  priority: mostly(hostile, [undefined, 0, -1, 2], [1.5]),
  allowReentry: fc.constantFrom(undefined, true, false),
}, { requiredKeys: ['from', 'to', 'rule'] });

interface MachineShape {
  states: { name: string; kind: 'player' | 'conduit' | 'machine' | 'broken'; clip: string }[];
  entry: string;
  transitions: { from: string; to: string }[];
  hostile: boolean;
}

const machineShape = (nested: boolean, hostile: boolean): fc.Arbitrary<MachineShape> => fc.record({
  states: fc.uniqueArray(fc.record({
    name: stateNames(hostile),
    kind: nested ? mostly(hostile, ['player', 'player', 'player', 'conduit', 'machine'] as const, ['broken'] as const) : mostly(hostile, ['player', 'player', 'conduit'] as const, ['broken'] as const),
    clip: fc.constantFrom('idle', 'walk', 'run', 'once'),
  }), { minLength: 1, maxLength: 6, selector: (s) => s.name }),
  entry: hostile ? fc.oneof({ weight: 10, arbitrary: fc.constant('a') }, { weight: 1, arbitrary: fc.constantFrom(...STATE_NAMES) }) : fc.constant('a'),
  transitions: fc.array(transitions(hostile), { maxLength: 8 }),
  hostile: fc.constant(hostile),
});

/** Two cases in three are well formed (so the runtime runs them), one in three hostile. */
const machineCase = fc.oneof(
  { weight: 2, arbitrary: fc.record({ outer: machineShape(true, false), inner: machineShape(false, false), wrap: fc.constantFrom('none', 'inertialization', 'inertialization', 'blend') }) },
  { weight: 1, arbitrary: fc.record({ outer: machineShape(true, true), inner: machineShape(false, true), wrap: fc.constantFrom('none', 'inertialization', 'blend') }) },
);

function machineProperties(shape: MachineShape, inner?: MachineShape): Record<string, unknown> {
  const states: Record<string, unknown> = {};
  for (const s of shape.states) {
    const state = s.kind === 'conduit' ? { conduit: true }
      : s.kind === 'broken' ? { nodes: { p: { type: 'SequencePlayer' } }, output: 'q' }
        : s.kind === 'machine' && inner ? { nodes: { m: { type: 'StateMachine', properties: machineProperties(inner) } }, output: 'm' }
          : { nodes: { p: { type: 'SequencePlayer', properties: { clip: s.clip, playRate: { param: 'f' } } } }, output: 'p' };
    Object.defineProperty(states, s.name, { value: state, enumerable: true, writable: true, configurable: true });
  }
  // The entry 'a' is the first state's name, whatever it drew: a machine with an unknown entry says no more.
  const entry = shape.entry === 'a' ? shape.states.find((s) => s.kind !== 'conduit')?.name ?? 'a' : shape.entry;
  // In a well-formed case, a transition's end that names no state names one that is there.
  const names = shape.states.map((s) => s.name);
  const there = (name: string, k: number) => (shape.hostile || name === '*' || names.includes(name) ? name : names[k % names.length]);
  const list = shape.transitions.map((t, k) => ({ ...JSON.parse(JSON.stringify(t)), from: there(t.from, k), to: there(t.to, k + 1) }));
  return { entry, states, transitions: list };
}

function machineAsset(c: { outer: MachineShape; inner: MachineShape; wrap: string }): Record<string, unknown> {
  const nodes: Record<string, unknown> = { sm: { type: 'StateMachine', properties: machineProperties(c.outer, c.inner) } };
  let output = 'sm';
  if (c.wrap === 'inertialization') {
    nodes.inert = { type: 'Inertialization', inputs: { pose: 'sm' } };
    output = 'inert';
  } else if (c.wrap === 'blend') {
    nodes.idle = { type: 'SequencePlayer', properties: { clip: 'idle' } };
    nodes.mix = { type: 'BlendTwo', inputs: { A: 'sm', B: 'idle' }, properties: { alpha: { param: 'f' } } };
    output = 'mix';
  }
  return {
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' }, once: { source: 'builtin:run', frames: [0, 5] } },
    blendProfiles: {
      legs: { mode: 'timeFactor', branches: [{ bone: 'pelvis', scale: 0.5 }] },
      weights: { mode: 'weightFactor', bones: { head: 2, spine_01: 0.5 } },
      mask: { mode: 'blendMask', branches: [{ bone: 'spine_01', scale: 1 }] },
    },
    parameters: { f: { type: 'float', default: 1 }, i: { type: 'int', default: 0 }, b: { type: 'bool' }, v: { type: 'vec3' } },
    nodes, output,
  };
}

describe('state machine fuzzing', () => {
  it('random states, conduits, nesting, transitions and rules load or give typed problems; what loads poses finite unit rotations', () => {
    let loaded = 0;
    fc.assert(fc.property(machineCase, frames, (c, script) => {
      if (runCase(machineAsset(c), {}, script)) loaded++;
    }), { seed: SEED, numRuns: Math.round(250 * SCALE) });
    if (process.env.FUZZ_SCALE) console.log(`state machine fuzz: ${loaded} of ${Math.round(250 * SCALE)} loaded`);
    expect(loaded).toBeGreaterThan(50 * SCALE);
  });
});

// ------------------------------------------------------------------------------------------
// Graphs of built-in nodes, linked at random.

/** Node templates: a type, its properties, and its pose pins (single, or a list of so many). */
const TEMPLATES: readonly { type: string; properties: Record<string, unknown>; pins: readonly (string | [string, number])[] }[] = [
  { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'f' } }, pins: [] },
  { type: 'SequencePlayer', properties: { clip: 'run', loop: false }, pins: [] },
  { type: 'SequenceEvaluator', properties: { clip: 'idle', explicitTime: { param: 'f' } }, pins: [] },
  { type: 'BlendTwo', properties: { alpha: { param: 'f' } }, pins: ['A', 'B'] },
  { type: 'BlendList', properties: { activeIndex: { param: 'i' }, blendTimes: [0.2, 0.1, 0] }, pins: [['poses', 3]] },
  { type: 'BlendByBool', properties: { active: { param: 'b' } }, pins: ['True', 'False'] },
  { type: 'CopyBone', properties: { sourceBone: 'hand_l', targetBone: 'head', alpha: { param: 'f' } }, pins: ['pose'] },
  { type: 'TwoBoneIK', properties: { endBone: 'foot_l', target: { param: 'v' } }, pins: ['pose'] },
  { type: 'LayeredBlendPerBone', properties: { layers: [{ filters: [{ bone: 'spine_01', depth: 2 }], weight: { param: 'f' } }] }, pins: ['base', ['layers', 1]] },
  { type: 'Inertialization', properties: {}, pins: ['pose'] },
  { type: 'InertialBlend', properties: { useA: { param: 'b' } }, pins: ['A', 'B'] },
];

interface GraphCase { templates: number[]; relinks: { node: number; pin: number; to: number }[]; edits: Edit[] }

const graphCase: fc.Arbitrary<GraphCase> = fc.record({
  templates: fc.array(fc.nat({ max: TEMPLATES.length - 1 }), { minLength: 1, maxLength: 12 }),
  // Now and then a link moved to another node (a cycle, a node feeding two inputs) or to none.
  relinks: fc.oneof({ weight: 3, arbitrary: fc.constant<GraphCase['relinks']>([]) }, { weight: 1, arbitrary: fc.array(fc.record({ node: fc.nat(), pin: fc.nat(), to: fc.nat({ max: 30 }) }), { maxLength: 2 }) }),
  edits: fc.oneof({ weight: 3, arbitrary: fc.constant<Edit[]>([]) }, { weight: 1, arbitrary: edits }),
});

/**
 * A tree of the case's templates, breadth first from the output: each pin takes the next template
 * of the list, or a player once the list is used up (at most 24 nodes).
 */
function randomGraph(c: GraphCase): Record<string, unknown> {
  const nodes: Record<string, { type: string; properties: Record<string, unknown>; inputs?: Record<string, string | string[]> }> = {};
  const queue: number[] = [0];
  let next = 1;
  const templateOf = (k: number) => (k < c.templates.length ? c.templates[k] : 0);
  const links: { node: string; pin: string; index: number }[] = [];
  while (queue.length > 0) {
    const k = queue.shift()!;
    const t = TEMPLATES[next >= 24 && k >= c.templates.length ? 0 : templateOf(k)];
    const node: (typeof nodes)[string] = { type: t.type, properties: structuredClone(t.properties) };
    const take = () => {
      const child = next++;
      queue.push(child);
      return `n${child}`;
    };
    if (t.pins.length > 0 && next < 24) {
      node.inputs = {};
      for (const pin of t.pins) {
        if (typeof pin === 'string') {
          node.inputs[pin] = take();
          links.push({ node: `n${k}`, pin, index: -1 });
        } else {
          node.inputs[pin[0]] = Array.from({ length: pin[1] }, (_, i) => {
            links.push({ node: `n${k}`, pin: pin[0], index: i });
            return take();
          });
        }
      }
    } else if (t.pins.length > 0) Object.assign(node, { type: 'SequencePlayer', properties: { clip: 'walk' } });
    nodes[`n${k}`] = node;
  }
  for (const r of c.relinks) {
    if (links.length === 0) break;
    const { node, pin, index } = links[(r.node + r.pin) % links.length];
    const inputs = nodes[node].inputs!;
    const to = `n${r.to % (next + 2)}`; // sometimes past the last node: a dangling link
    if (index < 0) inputs[pin] = to;
    else (inputs[pin] as string[])[index] = to;
  }
  return {
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    parameters: { f: { type: 'float', default: 0.5 }, i: { type: 'int', default: 1 }, b: { type: 'bool' }, v: { type: 'vec3', default: [10, 20, 30] } },
    nodes, output: 'n0',
  };
}

describe('random graph fuzzing', () => {
  it('random graphs of built-in nodes, with hostile edits and nesting, load or give typed problems; what loads poses finite unit rotations', () => {
    let loaded = 0;
    fc.assert(fc.property(graphCase, frames, (c, script) => {
      if (runCase(edited(randomGraph(c), c.edits), {}, script)) loaded++;
    }), { seed: SEED, numRuns: Math.round(250 * SCALE) });
    if (process.env.FUZZ_SCALE) console.log(`graph fuzz: ${loaded} of ${Math.round(250 * SCALE)} loaded`);
    expect(loaded).toBeGreaterThan(50 * SCALE);
  });
});
