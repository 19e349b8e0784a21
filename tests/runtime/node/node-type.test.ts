import { describe, expect, it } from 'vitest';
import { loadGraphAsset, NodeRegistry } from '../../../graphs/loader.ts';
import { AnimGraph } from '../../../runtime/graph/graph.ts';
import { BlendTwo } from '../../../nodes/BlendTwo.ts';
import { CopyBone } from '../../../nodes/CopyBone.ts';
import { builtInNodeTypes, OutputType } from '../../../nodes/index.ts';
import { SequencePlayer, SequencePlayerType } from '../../../nodes/SequencePlayer.ts';
import type { ClipBinding } from '../../../runtime/core/clip.ts';
import { AnimGraphError } from '../../../runtime/core/errors.ts';
import type { ScalarProperty, Vec3Property } from '../../../runtime/node/node.ts';
import {
  defineNodeType, nodeTypeProblems, NodeTypeError, typedProperties, type NodeType, type PropertySpec, type PropertySpecs, type ResolvedProperties,
} from '../../../runtime/node/node-type.ts';

// Custom node types' typing. The compile-time half of this file is checked by `npx tsc --noEmit`: every
// `@ts-expect-error` below must meet an error, or tsc reports the directive as unused.

const BLEND = {
  alpha: { kind: 'float', default: 0.5, min: 0, max: 1 },
  mode: { kind: 'enum', options: ['crossfade', 'inertial'], default: 'crossfade' },
  iterations: { kind: 'int', default: 3, bindable: false },
  warp: { kind: 'bool', default: true, bindable: false },
  active: { kind: 'bool', default: true },
  axis: { kind: 'direction', default: [1, 0, 0] },
  clip: { kind: 'clip' },
  clips: { kind: 'clipList' },
  bone: { kind: 'bone', optional: true },
  target: { kind: 'vec3', default: [0, 0, 0] },
  items: { kind: 'list', item: { source: { kind: 'bone' }, weight: { kind: 'float', default: 1 } } },
} as const satisfies PropertySpecs;

export const TypedBlendType: NodeType = defineNodeType({
  type: 'TypedBlend',
  space: 'local',
  properties: BLEND,
  inputs: [
    { name: 'A', kind: 'pose', space: 'local' },
    { name: 'B', kind: 'pose', space: 'local' },
    { name: 'control', kind: 'pose', space: 'component' },
    { name: 'more', kind: 'poseList', space: 'local' },
  ],
  create: ({ id, properties: p, inputs }) => {
    const alpha: ScalarProperty = p.alpha;
    const active: ScalarProperty = p.active;
    const mode: 'crossfade' | 'inertial' = p.mode;
    const iterations: number = p.iterations;
    const warp: boolean = p.warp;
    const axis: Float64Array = p.axis;
    const clip: ClipBinding = p.clip;
    const clips: readonly { name: string; binding: ClipBinding }[] = p.clips;
    const bone: string = p.bone;
    const target: Vec3Property = p.target;
    const weight: ScalarProperty = p.items[0].weight;
    void [alpha, active, mode, iterations, warp, axis, clip, clips, bone, target, weight];
    // @ts-expect-error: a misspelt property
    void p.alphaa;
    // @ts-expect-error: an enum is the union of its options
    const wrongMode: 'crossfade' = p.mode;
    // @ts-expect-error: a bindable bool is read every frame, not a literal
    const literal: boolean = p.active;
    // @ts-expect-error: a literal-only int is a number, not a property to read per frame
    const bound: ScalarProperty = p.iterations;
    // @ts-expect-error: a misspelt field of a list item
    void p.items[0].sourc;
    // @ts-expect-error: a misspelt input
    void inputs.C;
    // @ts-expect-error: a component-space input is not a local-space link
    void new BlendTwo(id, inputs.A, inputs.control, alpha);
    // @ts-expect-error: a pose list is not one link
    void new BlendTwo(id, inputs.A, inputs.more, alpha);
    void [wrongMode, literal, bound];
    return new BlendTwo(id, inputs.A, inputs.more[0], alpha);
  },
});

defineNodeType({
  type: 'Control', space: 'component',
  properties: { alpha: { kind: 'float', default: 1 }, sourceBone: { kind: 'bone' } },
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  create: ({ id, properties: p, inputs }) =>
    // @ts-expect-error: CopyBone reads a component-space link; this type declares its input local
    new CopyBone(id, inputs.pose, p.alpha, p.sourceBone, p.sourceBone, p.alpha, p.alpha, p.alpha),
});

defineNodeType({
  type: 'Shared', space: 'local',
  properties: { clip: { kind: 'clip' } },
  inputs: [],
  prepare: () => ({ table: new Float64Array(4) }),
  create: ({ id, properties: p, shared }) => {
    // Typed from what prepare returns, and undefined when prepare did not run.
    // @ts-expect-error: possibly undefined
    void shared.table;
    const table: Float64Array | undefined = shared?.table;
    void table;
    return new SequencePlayer(id, p.clip, { slot: -1, constant: 1 }, { slot: -1, constant: 1 }, { slot: -1, constant: 0 });
  },
});

/** What TypedPrepare's prepare saw, and what its create got. */
const prepared: { prepare?: Record<string, unknown>; create?: Record<string, unknown> } = {};

export const TypedPrepareType: NodeType = defineNodeType({
  type: 'TypedPrepare', space: 'local',
  properties: {
    alpha: { kind: 'float', default: 0.5 },
    clip: { kind: 'clip' },
    cache: { kind: 'node', nodeType: 'SaveCachedPose' },
    items: { kind: 'list', item: { weight: { kind: 'float', default: 1 }, cache: { kind: 'node', nodeType: 'SaveCachedPose' } } },
  },
  inputs: [],
  prepare: ({ properties: p }) => {
    // Typed from the specs, as create's; a node property is the id it names (nothing is built yet).
    const alpha: ScalarProperty = p.alpha;
    const cache: string = p.cache;
    const itemCache: string = p.items[0].cache;
    // @ts-expect-error: a misspelt property
    void p.alphaa;
    prepared.prepare = { alpha, cache, itemCache, weight: p.items[0].weight };
    return alpha.slot;
  },
  create: ({ id, properties: p, shared }) => {
    prepared.create = { alpha: p.alpha, weight: p.items[0].weight, shared };
    return new SequencePlayer(id, p.clip, { slot: -1, constant: 1 }, { slot: -1, constant: 1 }, { slot: -1, constant: 0 });
  },
});

/** Every built-in node type, on the built-in biped, with non-default and bound properties. */
const ASSET = {
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: {
    idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' },
    lean: { source: 'builtin:run', frames: [3, 3], additive: { reference: { clip: 'walk', frame: 0 }, space: 'mesh' } },
    bend: { source: 'builtin:walk', frames: [9, 9], additive: { reference: { clip: 'walk', frame: 0 }, space: 'mesh' } },
  },
  parameters: {
    rate: { type: 'float', default: 1.5 },
    t: { type: 'float', default: 0.2 },
    motion: { type: 'int', default: 1 },
    alpha: { type: 'float', default: 0.3 },
    flag: { type: 'bool', default: false },
    dir: { type: 'vec3', default: [1, 0, 0] },
  },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'rate' }, loop: false, startTime: 0.25 } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    walk2: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run2: { type: 'SequencePlayer', properties: { clip: 'run' } },
    idle: { type: 'SequenceEvaluator', properties: { clip: 'idle', explicitTime: { param: 't' }, loop: true } },
    ps: {
      type: 'PoseSearchBlend',
      properties: {
        clips: ['run', 'idle', 'walk'], motion: { param: 'motion' }, blendTime: 0.3, loop: false,
        features: { rotations: { weight: 1 }, positions: { weight: 2, bones: ['foot_l', 'foot_r'] } },
      },
    },
    two: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'alpha' } } },
    bs1: { type: 'BlendSpace1D', properties: { samples: [{ clip: 'run', x: 3 }, { clip: 'idle', x: 0 }], x: { param: 'alpha' }, smoothingTime: 0.2, syncGroup: 'g' } },
    bs2: {
      type: 'BlendSpace2D',
      properties: { samples: [{ clip: 'run', x: 0, y: 0 }, { clip: 'idle', x: 1, y: 0 }, { clip: 'walk', x: 0, y: 1 }], y: { param: 't' }, xSmoothingTime: 0.1, loop: false },
    },
    sm: {
      type: 'StateMachine',
      properties: {
        entry: 'a', states: { a: { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'idle' } } }, output: 'p' }, b: { conduit: true } },
        transitions: [{ from: 'a', to: 'b', rule: { param: 'flag' }, duration: 0.1 }, { from: 'b', to: 'a', rule: true, allowReentry: true }],
      },
    },
    list: { type: 'BlendList', inputs: { poses: ['two', 'idle', 'ps', 'bs1', 'bs2', 'sm'] }, properties: { activeIndex: 1, blendTimes: [0.1, 0.2, 0.35, 0.1, 0.1, 0.2], blendMode: 'inertial' } },
    ib: { type: 'InertialBlend', inputs: { A: 'walk2', B: 'run2' }, properties: { useA: { param: 'flag' }, blendTime: 0.4 } },
    bool: { type: 'BlendByBool', inputs: { True: 'list', False: 'ib' }, properties: { active: false, falseBlendTime: 0.5 } },
    inert: { type: 'Inertialization', inputs: { pose: 'bool' } },
    copy: { type: 'CopyBone', inputs: { pose: 'inert' }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r', copyTranslation: true, alpha: 0.75 } },
    ik: {
      type: 'TwoBoneIK', inputs: { pose: 'copy' },
      properties: { endBone: 'hand_l', targetMode: 'bone', targetBone: 'head', hintMode: 'direction', hint: [0, 0, 1], target: { param: 'dir' }, allowStretch: true },
    },
    sw: {
      type: 'StrideWarping', inputs: { pose: 'ik' },
      properties: {
        mode: 'fromRootMotion', strideDirection: { param: 'dir' }, minScale: 0.25, warpFeet: false, pelvisIterations: 5, solveIk: false,
        pelvisBone: 'pelvis', leftThigh: 'thigh_l', leftCalf: 'calf_l', leftFoot: 'foot_l', rightThigh: 'thigh_r', rightCalf: 'calf_r', rightFoot: 'foot_r',
      },
    },
    helpers: {
      type: 'BendRollHelper', inputs: { pose: 'sw' },
      properties: {
        helpers: [
          { source: 'upperarm_l', target: 'clavicle_r', axis: [0, 2, 0], bendWeight: { param: 'alpha' }, order: 'bendRoll' },
          { source: 'thigh_l', target: 'ball_r' },
        ],
        alpha: 0.9,
      },
    },
    idle3: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    delta: { type: 'MakeAdditive', inputs: { pose: 'idle3' }, properties: { reference: { clip: 'walk', frame: 2 }, space: 'mesh' } },
    additive: { type: 'ApplyAdditive', inputs: { base: 'helpers', additive: 'delta' }, properties: { alpha: { param: 'alpha' }, space: 'mesh' } },
    run3: { type: 'SequencePlayer', properties: { clip: 'run' } },
    layered: {
      type: 'LayeredBlendPerBone', inputs: { base: 'additive', layers: ['run3'] },
      properties: { layers: [{ filters: [{ bone: 'spine_01', depth: 2 }], weight: { param: 'alpha' } }], meshSpaceRotationBlend: true },
    },
    look: {
      type: 'LookAt', inputs: { pose: 'layered' },
      properties: { bone: 'head', target: { param: 'dir' }, lookAxis: [0, 0, 2], useUpAxis: true, clampAngle: 40, interpolation: 'cubic', interpolationTime: 0.2 },
    },
    fab: { type: 'FABRIK', inputs: { pose: 'look' }, properties: { rootBone: 'clavicle_l', tipBone: 'hand_l', targetMode: 'bone', targetBone: 'head', tipRotation: 'copyTarget', maxIterations: 4 } },
    ccd: {
      type: 'CCDIK', inputs: { pose: 'fab' },
      properties: { rootBone: 'spine_01', tipBone: 'hand_r', target: { param: 'dir' }, rotationLimit: 25, jointLimits: [{ bone: 'upperarm_r', limit: 10 }], startFromTail: { param: 'flag' } },
    },
    mod: { type: 'ModifyBone', inputs: { pose: 'ccd' }, properties: { bone: 'head', rotation: { param: 'dir' }, rotationMode: 'additive', rotationSpace: 'bone', alpha: { param: 'alpha' } } },
    snap: { type: 'PoseSnapshot', properties: { snapshotName: 'held' } },
    snapmix: { type: 'BlendTwo', inputs: { A: 'mod', B: 'snap' }, properties: { alpha: 0.25 } },
    cache: { type: 'SaveCachedPose', inputs: { pose: 'snapmix' } },
    use: { type: 'UseCachedPose', properties: { cache: 'cache' } },
    slot: { type: 'Slot', inputs: { source: 'use' }, properties: { name: 'upperBody', filterBone: 'spine_01', filterDepth: 2 } },
    aim1: { type: 'AimOffset1D', inputs: { base: 'slot' }, properties: { samples: [{ clip: 'lean', x: 0 }, { clip: 'bend', x: 1 }], x: { param: 'alpha' }, smoothingTime: 0.1 } },
    aim2: {
      type: 'AimOffset', inputs: { base: 'aim1' },
      properties: { samples: [{ clip: 'lean', x: 0, y: 0 }, { clip: 'bend', x: 1, y: 0 }, { clip: 'lean', x: 0, y: 1 }], y: { param: 't' }, alpha: 0.5, loop: false },
    },
    lookAim: {
      type: 'AimOffsetLookAt', inputs: { base: 'aim2' },
      properties: { samples: [{ clip: 'lean', x: 0, y: 0 }, { clip: 'bend', x: 1, y: 0 }, { clip: 'lean', x: 0, y: 1 }], target: { param: 'dir' }, sourceBone: 'head', socketOffset: [0, 5, 8], sourceAxis: [0, 0, 2], up: 'z' },
    },
    mirror: { type: 'Mirror', inputs: { pose: 'lookAim' }, properties: { mirror: { param: 'flag' } } },
  },
  output: 'mirror',
};

/** What create() read before defineNodeType, by spec kind: the ResolvedProperties call for it. */
function readByName(spec: PropertySpec, name: string, p: ResolvedProperties): unknown {
  switch (spec.kind) {
    case 'float': case 'int': case 'bool':
      return spec.bindable === false ? (spec.kind === 'bool' ? p.scalar(name).constant !== 0 : p.scalar(name).constant) : p.scalar(name);
    case 'vec3': return spec.bindable === false ? p.vec3(name).constant : p.vec3(name);
    case 'direction': return p.vec3(name).constant;
    case 'enum': return p.enumValue(name);
    case 'clip': return p.clip(name);
    case 'bone': return p.bone(name);
    case 'floatList': return p.floatList(name);
    case 'clipList': return p.clipList(name).map((binding, i) => ({ name: (p.literal(name) as string[])[i], binding }));
    case 'file': case 'object': return p.literal(name);
    case 'list': return p.list(name).map((item) => Object.fromEntries(Object.entries(spec.item).map(([k, s]) => [k, readByName(s, k, item)])));
    case 'node': return p.node(name);
    case 'blendProfile': return p.blendProfile(name);
  }
}

describe('defineNodeType', () => {
  // Each built-in type wrapped to keep what the graph handed its create.
  const seen = new Map<string, { type: NodeType; resolved: ResolvedProperties; typed: unknown }>();
  const spied = builtInNodeTypes.map((type): NodeType => ({
    ...type,
    create: (build) => {
      seen.set(build.id, { type, resolved: build.properties, typed: typedProperties(type.properties, build.properties) });
      return type.create(build);
    },
  }));
  const graph = loadGraphAsset(ASSET, { nodeTypes: new NodeRegistry(spied) });
  graph.createInstance();

  it('gives create every property as the string-keyed reads gave it', () => {
    expect(new Set([...seen.values()].map((s) => s.type.type))).toEqual(new Set(builtInNodeTypes.map((t) => t.type)));
    for (const { type, resolved, typed } of seen.values()) {
      const expected = Object.fromEntries(Object.entries(type.properties).map(([name, spec]) => [name, readByName(spec, name, resolved)]));
      expect(typed).toEqual(expected);
      expect(Object.keys(typed as object)).toEqual(Object.keys(type.properties));
    }
  });

  it('reads literals, bindings, defaults and lists with the values written in the asset', () => {
    const typed = (id: string) => seen.get(id)!.typed as Record<string, any>;
    const slot = (name: string) => graph.createInstance().parameters.slotOf(name);
    expect(typed('walk').playRate).toEqual({ slot: slot('rate'), constant: 1 });
    expect(typed('walk').loop).toEqual({ slot: -1, constant: 0 });
    expect(typed('walk').startTime).toEqual({ slot: -1, constant: 0.25 });
    expect(typed('walk').clip).toBe(graph.clipBindings.get('walk'));
    expect(typed('list').blendMode).toBe('inertial');
    expect(typed('list').blendTimes).toEqual([0.1, 0.2, 0.35, 0.1, 0.1, 0.2]);
    expect(typed('bool').blendMode).toBe('crossfade');
    expect(typed('ps').clips).toEqual([
      { name: 'run', binding: graph.clipBindings.get('run') },
      { name: 'idle', binding: graph.clipBindings.get('idle') },
      { name: 'walk', binding: graph.clipBindings.get('walk') },
    ]);
    expect(typed('ps').features).toEqual({ rotations: { weight: 1 }, positions: { weight: 2, bones: ['foot_l', 'foot_r'] } });
    expect(typed('ps').database).toBeUndefined();
    expect(typed('ik').targetBone).toBe('head');
    expect(typed('ik').target.slot).toBe(slot('dir'));
    expect(Array.from(typed('ik').hint.constant)).toEqual([0, 0, 1]);
    expect(typed('copy').targetBone).toBe('hand_r');
    expect(typed('sw').warpFeet).toBe(false);
    expect(typed('sw').adjustPelvis).toBe(true);
    expect(typed('sw').pelvisIterations).toBe(5);
    expect(typed('sw').mode).toBe('fromRootMotion');
    const [first, second] = typed('helpers').helpers;
    expect(Array.from(first.axis)).toEqual([0, 2, 0]);
    expect(first.bendWeight.slot).toBe(slot('alpha'));
    expect(first.order).toBe('bendRoll');
    expect(second).toMatchObject({ source: 'thigh_l', target: 'ball_r', rollWeight: { slot: -1, constant: 0 }, order: 'rollBend' });
    expect(Array.from(second.axis)).toEqual([1, 0, 0]);
    expect(typed('inert')).toEqual({});
    // A node property gives the node it names, as built.
    expect([typed('use').cache.id, typed('use').cache.type]).toEqual(['cache', 'SaveCachedPose']);
  });

  it('hands create the links of its pins, and refuses a definition with an unlinked pin at build', () => {
    const typedBlend = new NodeRegistry([...builtInNodeTypes, TypedBlendType]);
    const asset = (inputs: Record<string, unknown>) => ({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: {
        a: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        b: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        c: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        d: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        x: { type: 'TypedBlend', inputs, properties: { clip: 'walk', clips: ['walk'], items: [{ source: 'pelvis' }] } },
      },
      output: 'x',
    });
    const g = loadGraphAsset(asset({ A: 'a', B: 'b', control: 'c', more: ['d'] }), { nodeTypes: typedBlend }).createInstance();
    const x = g.nodes.get('x')!;
    expect(x).toBeInstanceOf(BlendTwo);
    expect(x.gatherDebug().children.map((c) => c.id)).toEqual(['a', 'd']);
    // The loader reports an unlinked input; a definition that skips it fails when the node is built.
    const loaded = loadGraphAsset(asset({ A: 'a', B: 'b', control: 'c', more: ['d'] }), { nodeTypes: typedBlend });
    const x2 = loaded.nodes.find((n) => n.id === 'x')!;
    (x2 as { inputs: unknown }).inputs = { A: 'a', B: 'b', more: ['d'] };
    expect(() => loaded.createInstance()).toThrow(/TypedBlend 'x': input 'control' is not linked/);
  });
});

describe('a typed prepare', () => {
  const asset = (clip: string) => ({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } }, parameters: { a: { type: 'float', default: 0 } },
    nodes: {
      w: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      cache: { type: 'SaveCachedPose', inputs: { pose: 'w' } },
      x: { type: 'TypedPrepare', properties: { alpha: { param: 'a' }, clip, cache: 'cache', items: [{ cache: 'cache', weight: 0.5 }] } },
    },
    output: 'x',
  });

  it('reads each property as create does, the same objects, and a node property as its id', () => {
    const graph = loadGraphAsset(asset('walk'), { nodeTypes: new NodeRegistry([...builtInNodeTypes, TypedPrepareType]) });
    graph.createInstance();
    const slot = graph.createInstance().parameters.slotOf('a');
    expect(prepared.prepare).toEqual({ alpha: { slot, constant: 0.5 }, cache: 'cache', itemCache: 'cache', weight: { slot: -1, constant: 0.5 } });
    expect(prepared.create!.alpha).toBe(prepared.prepare!.alpha);
    expect(prepared.create!.weight).toBe(prepared.prepare!.weight);
    expect(prepared.create!.shared).toBe(slot);
  });

  it('resolves a property when it is read: one it does not read fails where it did before, in create', () => {
    const graph = loadGraphAsset(asset('walk'), { nodeTypes: new NodeRegistry([...builtInNodeTypes, TypedPrepareType]) });
    const x = graph.nodes.find((n) => n.id === 'x')!;
    (x as { properties: unknown }).properties = { ...x.properties, clip: 'nowhere' };
    const again = new AnimGraph({ name: 'code', skeleton: graph.skeleton, parameters: graph.parameterDefinitions, clips: new Map([...graph.clipBindings].map(([n, b]) => [n, b.clip])), nodes: graph.nodes });
    expect(() => again.createInstance()).toThrow(/TypedPrepare 'x': create threw AnimGraphError: node 'x': no clip named "nowhere"/);
  });
});

describe('checking node types (defineNodeType, NodeRegistry.register)', () => {
  const noop = ({ id }: { id: string }) => new SequencePlayer(id, undefined as never, { slot: -1, constant: 1 }, { slot: -1, constant: 1 }, { slot: -1, constant: 0 });
  /** The problems checkNodeType finds in a type of these properties and inputs, as `path: message` lines. */
  const problemsOf = (properties: unknown, inputs: unknown = []): string[] =>
    nodeTypeProblems({ type: 'T', space: 'local', properties, inputs, create: noop }).map((p) => `${p.path}: ${p.message}`);

  it('passes every built-in type and the output (defineBuiltInNodeType checks none of them when the package is imported)', () => {
    for (const type of [...builtInNodeTypes, OutputType]) expect(nodeTypeProblems(type), type.type).toEqual([]);
  });

  it('refuses a definition, listing every problem with its field, in one NodeTypeError', () => {
    let error: unknown;
    try {
      defineNodeType({
        type: 'Bad', space: 'world' as 'local',
        properties: { rate: { kind: 'float', default: 'x' as unknown as number, min: 1, max: 0 }, count: { kind: 'int', default: 0.5 } },
        inputs: [{ name: 'A', kind: 'pose', space: 'local' }, { name: 'A', kind: 'poses' as 'pose', space: 'local' }],
        create: noop,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NodeTypeError);
    expect(error).toBeInstanceOf(AnimGraphError);
    expect(error).toMatchObject({ code: 'node-type', name: 'NodeTypeError', typeName: 'Bad' });
    expect((error as Error).message).toBe([
      "node type 'Bad': 5 problems",
      "  space: expected 'local' or 'component', got \"world\"",
      "  inputs[1].name: 'A' names inputs[0] already",
      "  inputs[1].kind: expected 'pose' or 'poseList', got \"poses\"",
      '  properties.rate: min 1 is above max 0: no value would be allowed',
      '  properties.count.default: expected a whole number, got 0.5',
    ].join('\n'));
  });

  it('refuses defaults the frame loop would turn into NaN or its range refuses, and specs the loader would misread', () => {
    // Each of these loaded: a NaN pose, 5 used where the literal's range is [0, 1], a TypeError at load...
    const cases: [unknown, string][] = [
      [{ kind: 'float', default: 'x' }, 'properties.a.default: expected a finite number, got "x"'],
      [{ kind: 'float', default: Number.NaN }, 'properties.a.default: expected a finite number, got NaN'],
      [{ kind: 'float', default: Number.POSITIVE_INFINITY }, 'properties.a.default: expected a finite number, got Infinity'],
      [{ kind: 'float', default: 5, min: 0, max: 1 }, 'properties.a.default: 5 is above max 1'],
      [{ kind: 'float', default: -1, min: 0 }, 'properties.a.default: -1 is below min 0'],
      [{ kind: 'float', default: 0, max: Number.NaN }, 'properties.a.max: expected a finite number or nothing, got NaN'],
      [{ kind: 'int', default: 0.5 }, 'properties.a.default: expected a whole number, got 0.5'],
      [{ kind: 'int', default: 1, min: 0.5 }, 'properties.a.min: expected a whole number or nothing, got 0.5'],
      [{ kind: 'float', default: 1, mni: 0 }, 'properties.a.mni: unknown field for a float property (its fields: default, min, max, bindable)'],
      [{ kind: 'float', default: 1, bindable: 'no' }, 'properties.a.bindable: expected false (literal only) or nothing, got "no"'],
      [{ kind: 'bool', default: 1 }, 'properties.a.default: expected true or false, got 1'],
      [{ kind: 'vec3', default: [0, 0] }, 'properties.a.default: expected 3 finite numbers, got [0,0]'],
      [{ kind: 'direction', default: [0, 0, 0] }, 'properties.a.default: expected a direction, not [0, 0, 0]'],
      [{ kind: 'enum', options: ['x', 'y'], default: 'z' }, "properties.a.default: expected one of the options ('x', 'y'), got \"z\""],
      [{ kind: 'enum', options: [], default: 'z' }, 'properties.a.options: expected a non-empty list of distinct strings, got []'],
      [{ kind: 'floot', default: 1 }, 'properties.a.kind: expected one of float, int, bool, vec3, enum, clip, bone, floatList, clipList, file, object, direction, list, node, blendProfile, got "floot"'],
      [{ default: 1 }, 'properties.a.kind: expected one of float, int, bool, vec3, enum, clip, bone, floatList, clipList, file, object, direction, list, node, blendProfile, got undefined'],
      [1, 'properties.a: expected a property spec (an object with a kind), got 1'],
      [{ kind: 'bone', optional: 'yes' }, 'properties.a.optional: expected true, false or nothing, got "yes"'],
      [{ kind: 'clipList', minCount: -1 }, 'properties.a.minCount: expected a whole number from 0, got -1'],
      [{ kind: 'object', schema: {} }, 'properties.a.schema: expected a zod schema, got {}'],
      [{ kind: 'floatList', default: 0, perInput: 'nope' }, 'properties.a.perInput: expected the name of one of this type\'s poseList inputs, got "nope"'],
      [{ kind: 'list', item: { w: { kind: 'float', default: 2, max: 1 } } }, 'properties.a.item.w.default: 2 is above max 1'],
      [{ kind: 'node' }, 'properties.a.nodeType: expected the name of a node type, got undefined'],
      [{ kind: 'blendProfile', modes: ['mask'] }, 'properties.a.modes: expected a non-empty list of timeFactor, weightFactor, blendMask, got ["mask"]'],
    ];
    for (const [spec, problem] of cases) expect(problemsOf({ a: spec }), JSON.stringify(spec)).toEqual([problem]);
    expect(problemsOf(JSON.parse('{ "__proto__": { "kind": "float", "default": 1 } }'))).toEqual([
      "properties.__proto__: '__proto__' cannot name a property: expected a non-empty name other than '__proto__' (JavaScript objects treat it specially)",
    ]);
    expect(problemsOf(undefined)).toEqual(['properties: expected an object of property specs by name, {} for none, got undefined']);
    // A poseList named by perInput is accepted.
    expect(problemsOf({ a: { kind: 'floatList', default: 0, perInput: 'poses' } }, [{ name: 'poses', kind: 'poseList', space: 'local' }])).toEqual([]);
  });

  it('refuses inputs that are not a list of distinct, well-formed pins, and a type without create', () => {
    expect(nodeTypeProblems({ type: 'T', space: 'local', properties: {}, create: noop })).toEqual([
      { path: 'inputs', message: 'expected a list of input specs ({ name, kind, space }), [] for none, got undefined' },
    ]);
    expect(problemsOf({}, [
      { name: '', kind: 'pose', space: 'local' },
      { name: 'B', kind: 'pose', space: 'world' },
      { name: 'C', kind: 'pose', space: 'local', minCount: 1 },
      { name: 'D', kind: 'poseList', space: 'local', minCount: 0.5, accepts: [] },
      { name: 'E', kind: 'pose', space: 'local', acepts: ['local'] },
    ])).toEqual([
      "inputs[0].name: expected a non-empty name other than '__proto__', got \"\"",
      'inputs[1].space: expected \'local\' or \'component\', got "world"',
      'inputs[2].minCount: only a poseList input takes minCount',
      'inputs[3].minCount: expected a whole number from 0, got 0.5',
      "inputs[3].accepts: expected a non-empty list of 'local' and 'component', got []",
      "inputs[4].acepts: unknown field (an input's are name, kind, space, minCount, accepts)",
    ]);
    const type = { type: 'T', space: 'local', properties: {}, inputs: [], check: 1 } as unknown as NodeType;
    expect(() => new NodeRegistry().register(type)).toThrow(new NodeTypeError('T', [
      { path: 'create', message: 'expected a function building the node, got undefined' },
      { path: 'check', message: 'expected a function or nothing, got 1' },
    ]));
    expect(nodeTypeProblems({ ...type, type: 'two words', create: noop, check: undefined })).toEqual([{ path: 'type', message: 'expected a non-empty name without spaces or control characters, got "two words"' }]);
  });

  it('refuses a name registered already unless told to replace it: a built-in replaced silently broke the assets using it', () => {
    const clash = { ...SequencePlayerType, properties: {} };
    expect(() => new NodeRegistry().register(clash)).toThrow(
      "node type 'SequencePlayer': 1 problem\n  type: 'SequencePlayer' names the built-in type registered already; register(type, { replace: true }) replaces it",
    );
    expect(() => new NodeRegistry([...builtInNodeTypes, TypedBlendType, TypedBlendType])).toThrow(
      "node type 'TypedBlend': 1 problem\n  type: 'TypedBlend' names a type registered already; register(type, { replace: true }) replaces it",
    );
    expect(() => new NodeRegistry([])).not.toThrow();
    expect(() => new NodeRegistry([]).register({ ...clash, type: 'Output' })).toThrow("  type: 'Output' is reserved for the graph output");
    const replaced = new NodeRegistry().register(clash, { replace: true });
    expect(replaced.get('SequencePlayer')).toBe(clash);
    expect(replaced.list()).toHaveLength(builtInNodeTypes.length);
  });
});
