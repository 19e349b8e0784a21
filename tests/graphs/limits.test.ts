import { AnimGraphError } from '../../runtime/core/errors.ts';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset, type GraphProblem } from '../../graphs/loader.ts';
import { MAX_BONES } from '../../runtime/core/skeleton.ts';
import { compileStateMachine, MAX_STATES, MAX_TRANSITIONS } from '../../nodes/StateMachine.ts';
import { MAX_GRAPH_NODES, MAX_PROBLEMS } from '../../graphs/loader/problems.ts';
import { GltfError, gltfRig, readGltf } from '../../runtime/import/gltf.ts';
import { MAX_GLTF_NODES } from '../../runtime/import/gltf-container.ts';
import { chainShape, fanShape, gltfGraph, gltfText, type GltfShape } from '../support/gltf-json.ts';
import { hasNaN } from '../support/graphs.ts';
import { withinCpu } from '../support/cpu-time.ts';

/**
 * The loader's limits (docs/reliability.md, "Assets and limits"): assets over them are refused with
 * a typed problem at their JSON path, at once; big assets under them load in time linear in their
 * size. Work is counted where it can be; CPU times are generous bounds against a hang only.
 */

function problems(json: unknown, files: Record<string, string> = {}): [string, string, string][] {
  const result = checkGraphAsset(json, { resolveSync: (path) => files[path] });
  if (result.ok) throw new Error('expected the asset to be rejected');
  return result.problems.map((p: GraphProblem) => [p.path, p.code, p.message]);
}

/** Runs `run`, failing if it uses more than `ms` of CPU (a guard against hangs, not a benchmark). */
const within = withinCpu;

/** How many times the skin import reads a node's parent, for a file of this shape. */
function parentReads(shape: GltfShape): number {
  const doc = readGltf(new TextEncoder().encode(gltfText(shape)));
  const parents = doc.nodeParents;
  let reads = 0;
  const counting = new Proxy(parents, {
    get(target, key) {
      if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  Object.defineProperty(doc, 'nodeParents', { value: counting });
  try {
    gltfRig(doc);
  } catch (e) {
    if (!(e instanceof GltfError)) throw e;
  }
  return reads;
}

describe('glTF skins', () => {
  it('a chain of 10,000 joints (MAX_BONES) loads and runs, one descendant entry per bone', () => {
    expect(MAX_BONES).toBe(10_000);
    const text = gltfText(chainShape(MAX_BONES));
    // It took 22.8 s, most of it listing every bone's descendants (50 million entries).
    const graph = within(5000, () => loadGraphAsset(gltfGraph(), { resolveSync: () => text }));
    expect(graph.skeleton.boneCount).toBe(MAX_BONES);
    expect(graph.skeleton.descendants.length).toBe(MAX_BONES);
    const instance = graph.createInstance();
    instance.update(0.5);
    expect(hasNaN(instance.evaluate().rotations)).toBe(false);
    expect(hasNaN(instance.componentPose().translations)).toBe(false);
  });

  it.each([
    ['below a joint at the top of the chain', true],
    ['as top joints meeting at the chain\'s end', false],
  ])('joints hanging off a long chain of nodes, %s: each node\'s parent read a bounded number of times', (_, rootJoint) => {
    // 4,000 joints under 4,000 nodes: each joint walked the whole chain (16 million reads, 12 s at 8,000 nodes).
    const shape = fanShape(4000, 4000, rootJoint);
    const reads = parentReads(shape);
    expect(reads).toBeLessThan(10 * shape.children.length);
    const graph = loadGraphAsset(gltfGraph(), { resolveSync: () => gltfText(shape) });
    // The chain is in the skeleton below a joint; above top joints, only from their meeting point.
    expect(graph.skeleton.boneCount).toBe(rootJoint ? 8000 : 4001);
  });

  it('joints with no common ancestor are still named, found in linear time', () => {
    const shape = fanShape(3000, 3000, false);
    shape.children.push([]);
    shape.joints.push(6000); // a lone scene root
    expect(parentReads(shape)).toBeLessThan(10 * shape.children.length);
    const [[path, code, message]] = problems(gltfGraph(), { 'rig.gltf': gltfText(shape) });
    expect([path, code]).toEqual(['$.skeleton.skin', 'skeleton']);
    expect(message).toContain("joints 'b3000' (node 3000) and 'b6000' (node 6000) have no common ancestor node");
  });

  it('more joints than MAX_BONES: too-large at the skin, before the bones are built', () => {
    const text = gltfText(chainShape(MAX_BONES + 1));
    const p = within(2000, () => problems(gltfGraph(), { 'rig.gltf': text }));
    expect(p).toEqual([[
      '$.skeleton.skin', 'too-large',
      'rig.gltf: skins[0] has 10,001 joints, more than the 10,000 bones a skeleton may have (MAX_BONES)',
    ]]);
  });

  it('joints and the nodes between them over MAX_BONES: too-large at the skin', () => {
    // 2 joints, 10,000 nodes between them.
    const shape = chainShape(MAX_BONES + 1, 'last');
    shape.joints.unshift(0);
    const p = within(2000, () => problems(gltfGraph(), { 'rig.gltf': gltfText(shape) }));
    expect(p).toEqual([[
      '$.skeleton.skin', 'too-large',
      'rig.gltf: skins[0]: its joints and the nodes between them make 10,001 bones, more than the 10,000 a skeleton may have (MAX_BONES)',
    ]]);
  });

  it('a file of more than MAX_GLTF_NODES nodes: too-large at the file, skeleton and clip alike', () => {
    expect(MAX_GLTF_NODES).toBe(1_000_000);
    const text = `{"asset":{"version":"2.0"},"nodes":[${'{},'.repeat(MAX_GLTF_NODES)}{}]}`;
    const p = within(3000, () => problems(gltfGraph(), { 'rig.gltf': text }));
    const message = 'rig.gltf: the file has 1,000,001 nodes, more than the 1,000,000 an import reads (MAX_GLTF_NODES)';
    expect(p).toEqual([['$.skeleton.gltf', 'too-large', message], ['$.clips.turn.source', 'too-large', message]]);
  });
});

describe('other skeleton sources', () => {
  it('a BVH of more than MAX_BONES joints: too-large at the file, read no further', () => {
    const open = Array.from({ length: MAX_BONES + 1 }, (_, i) => `${i === 0 ? 'ROOT' : 'JOINT'} j${i}\n{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Yrotation Xrotation\n`).join('');
    const text = `HIERARCHY\n${open}${'}\n'.repeat(MAX_BONES + 1)}MOTION\nFrames: 1\nFrame Time: 0.1\n${'0 0 0 '.repeat(MAX_BONES + 1)}\n`;
    const asset = { format: 'animgraph/1', skeleton: { bvh: 'big.bvh' }, nodes: { p: { type: 'SequencePlayer', properties: { clip: 'c' } } }, output: 'p', clips: { c: { source: 'big.bvh' } } };
    const p = within(2000, () => problems(asset, { 'big.bvh': text }));
    const message = `BVH big.bvh line ${2 + 4 * MAX_BONES}: more than 10,000 joints, the most bones a skeleton may have (MAX_BONES)`;
    expect(p).toEqual([['$.skeleton.bvh', 'too-large', message], ['$.clips.c.source', 'too-large', message]]);
  });

  it('a skeleton file of more than MAX_BONES bones: too-large at the file', () => {
    const bones = Array.from({ length: MAX_BONES + 1 }, (_, i) => ({ name: `b${i}`, ...(i > 0 ? { parent: `b${i - 1}` } : {}) }));
    const asset = { format: 'animgraph/1', skeleton: { file: 'big.json' }, nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p', clips: { walk: { source: 'builtin:walk' } } };
    expect(problems(asset, { 'big.json': JSON.stringify({ bones }) })).toEqual([
      ['$.skeleton.file', 'too-large', 'big.json: 10,001 bones, more than the 10,000 a skeleton may have (MAX_BONES)'],
    ]);
  });

  it('helper bones taking the skeleton over MAX_BONES: too-large at helperBones', () => {
    const helperBones = Array.from({ length: MAX_BONES - 21 }, (_, i) => ({ name: `h${i}`, parent: 'pelvis' }));
    const asset = {
      format: 'animgraph/1', skeleton: 'builtin:biped', helperBones, clips: { walk: { source: 'builtin:walk' } },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p',
    };
    expect(problems(asset)).toEqual([[
      '$.helperBones', 'too-large', "the skeleton's 22 bones and 9,979 helper bones make 10,001 bones, more than the 10,000 a skeleton may have (MAX_BONES)",
    ]]);
    // One fewer fits.
    expect(loadGraphAsset({ ...asset, helperBones: helperBones.slice(1) }).skeleton.boneCount).toBe(MAX_BONES);
  });
});

/** A machine of `stateCount` states (each a player), entry s0, with these transitions. */
function machineAsset(stateCount: number, transitions: unknown[], extraStates: Record<string, unknown> = {}): Record<string, unknown> {
  const states: Record<string, unknown> = {};
  for (let i = 0; i < stateCount; i++) states[`s${i}`] = { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p' };
  return {
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } }, parameters: { g: { type: 'int' } },
    nodes: { sm: { type: 'StateMachine', properties: { entry: 's0', states: { ...states, ...extraStates }, transitions } } }, output: 'sm',
  };
}

describe('state machines', () => {
  it('compiles each any-state transition once, not once per state (1,000 states x 2,000: 2 million)', () => {
    const transitions = Array.from({ length: 2000 }, (_, i) => ({ from: '*', to: `s${i % 1000}`, rule: { param: 'g', op: '==', value: i + 1 } }));
    transitions.push({ from: 's0', to: 's1', rule: { param: 'g', op: '==', value: -1 } });
    const table = compileStateMachine('sm', Array.from({ length: 1000 }, (_, i) => ({ name: `s${i}`, hasPose: true })), 's0', transitions as never, () => 0);
    expect(table.anyState).toHaveLength(2000);
    expect(table.states.reduce((sum, s) => sum + s.transitions.length, 0)).toBe(1);
    // Through the loader (16.7 s before), and the machine takes them: g = 1500 enters s499.
    const graph = within(5000, () => loadGraphAsset(machineAsset(1000, transitions)));
    const instance = graph.createInstance();
    instance.update(1 / 30);
    instance.setParameter('g', 1500);
    instance.update(1 / 30);
    expect((instance.gatherDebug().children[0].values as { activeState: string }).activeState).toBe('s499');
  });

  it('more states than MAX_STATES: too-large at the states, their sub-graphs left unchecked', () => {
    expect(MAX_STATES).toBe(1000);
    // A malformed node in every state: not reported, as the machine is refused as a whole.
    const broken = Object.fromEntries(Array.from({ length: MAX_STATES + 1 }, (_, i) => [`x${i}`, { nodes: { p: { type: 'Nope' } }, output: 'p' }]));
    expect(within(2000, () => problems(machineAsset(0, [], { s0: broken.x0, ...broken })))).toEqual([[
      '$.nodes.sm.properties.states', 'too-large', 'the machine has 1,002 states, more than the 1,000 a machine may have (MAX_STATES)',
    ]]);
    // At the limit it loads.
    expect(loadGraphAsset(machineAsset(MAX_STATES, [])).nodes.length).toBe(MAX_STATES + 2);
  });

  it('more transitions than MAX_TRANSITIONS: too-large at the transitions', () => {
    expect(MAX_TRANSITIONS).toBe(10_000);
    const transitions = Array.from({ length: MAX_TRANSITIONS + 1 }, (_, i) => ({ from: 's0', to: 's1', rule: { param: 'g', op: '==' as const, value: i } }));
    expect(within(2000, () => problems(machineAsset(2, transitions)))).toEqual([[
      '$.nodes.sm.properties.transitions', 'too-large', 'the machine has 10,001 transitions, more than the 10,000 a machine may have (MAX_TRANSITIONS)',
    ]]);
    expect(() => compileStateMachine('sm', [{ name: 'a', hasPose: true }], 'a', transitions.map((t) => ({ ...t, from: 'a', to: 'a' })), () => 0))
      .toThrow(new AnimGraphError('out-of-range', "StateMachine 'sm': 10,001 transitions, more than the 10,000 a machine may have (MAX_TRANSITIONS)"));
    expect(loadGraphAsset(machineAsset(2, transitions.slice(1))).nodes.length).toBe(4);
  });

  it('refuses a state named "*", which transitions read as any state', () => {
    const star = { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p' };
    const p = problems(machineAsset(2, [{ from: '*', to: 's1', rule: true }, { from: 's1', to: '*', rule: true }], { '*': star }));
    expect(p).toEqual([
      ['$.nodes.sm.properties.states["*"]', 'schema', "a state cannot be named '*': a transition's from '*' means any state, so it could never leave this one by name"],
    ]);
  });
});

describe('graph size', () => {
  it('more nodes than MAX_GRAPH_NODES, counting every state\'s: too-large at $.nodes, before they are checked', () => {
    expect(MAX_GRAPH_NODES).toBe(50_000);
    const player = { type: 'SequencePlayer', properties: { clip: 'nope' } };
    // 30,001 at the top and 20,000 in a state: 50,001 in all, none of them checked (each names an unknown clip).
    const top: Record<string, unknown> = Object.fromEntries(Array.from({ length: 30_000 }, (_, i) => [`t${i}`, player]));
    const state = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`s${i}`, player]));
    top.sm = { type: 'StateMachine', properties: { entry: 'a', states: { a: { nodes: state, output: 's0' } }, transitions: [] } };
    const asset = { format: 'animgraph/1', skeleton: 'builtin:biped', clips: {}, nodes: top, output: 'sm' };
    expect(within(2000, () => problems(asset))).toEqual([[
      '$.nodes', 'too-large', 'the graph has 50,001 nodes, counting those in state machines\' states; at most 50,000 are allowed (MAX_GRAPH_NODES)',
    ]]);
  });
});

describe('problem count', () => {
  it('reports at most MAX_PROBLEMS problems, then one counting the rest, however deep they lie', () => {
    expect(MAX_PROBLEMS).toBe(1000);
    // 100,000 objects with a __proto__ key, 900 levels deep: 100,000 paths of 4,500 characters.
    const deep = `${'{"a":'.repeat(900)}[${'{"__proto__":1},'.repeat(99_999)}{"__proto__":1}]${'}'.repeat(900)}`;
    const text = `{"format":"animgraph/1","skeleton":"builtin:biped","nodes":{},"output":"x","description":${deep}}`;
    const result = within(5000, () => checkGraphAsset(text));
    if (result.ok) throw new Error('expected problems');
    expect(result.problems).toHaveLength(MAX_PROBLEMS + 1);
    expect(result.problems[0].path).toBe(`$.description${'.a'.repeat(900)}[0].__proto__`);
    expect(result.problems.at(-1)).toEqual({ path: '$', code: 'too-large', message: '99,002 more problems not listed: a check reports at most 1,000 (MAX_PROBLEMS)' });
    // (99,000 more __proto__ keys, then the description that is no string and the output naming no node.)
  });

  it('reports at most MAX_PROBLEMS repeated keys of a JSON text (10,000 at 900 levels took 7 s and 700 MB)', () => {
    const deep = `${'{"a":'.repeat(900)}{${'"b":1,'.repeat(400_000)}"b":1}${'}'.repeat(900)}`;
    const text = `{"format":"animgraph/1","skeleton":"builtin:biped","nodes":{},"output":"x","description":${deep}}`;
    const result = within(5000, () => checkGraphAsset(text));
    if (result.ok) throw new Error('expected problems');
    expect(result.problems).toHaveLength(MAX_PROBLEMS + 1);
    expect(result.problems[0]).toMatchObject({ path: `$.description${'.a'.repeat(900)}.b`, code: 'duplicate-key' });
    expect(result.problems.at(-1)).toEqual({ path: '$', code: 'too-large', message: 'more problems not listed: a check reports at most 1,000 (MAX_PROBLEMS)' });
  });
});
