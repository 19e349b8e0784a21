import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset, NodeRegistry, type GraphProblem } from '../../graphs/loader.ts';
import { builtInNodeTypes } from '../../nodes/index.ts';
import { MAX_GRAPH_DEPTH } from '../../runtime/graph/definition.ts';
import {
  LocalPoseNode, type DebugNode, type Link, type NodeType, type PoseLink, type UpdateContext,
} from '../../runtime/node/node.ts';
import { defineNodeType } from '../../runtime/node/node-type.ts';
import type { Pose } from '../../runtime/core/pose.ts';
import { hasNaN } from '../support/graphs.ts';
import { runProbe } from '../support/allocation.ts';

/** Counts the updates (with their weights) and evaluations of the branch below it. */
class Spy extends LocalPoseNode {
  updates = 0;
  evaluations = 0;
  weights: number[] = [];
  private readonly inputLinks: readonly Link[];

  constructor(id: string, private readonly input: PoseLink) {
    super(id, 'Spy');
    this.inputLinks = [input];
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected onUpdate(ctx: UpdateContext): void {
    this.updates++;
    this.weights.push(ctx.weight);
    this.input.update(ctx.child());
  }

  protected onEvaluate(out: Pose): void {
    this.evaluations++;
    this.input.evaluate(out);
  }
}

const SpyType: NodeType = defineNodeType({
  type: 'Spy', space: 'local', properties: {}, inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  create: ({ id, inputs }) => new Spy(id, inputs.pose),
});
const nodeTypes = new NodeRegistry([...builtInNodeTypes, SpyType]);

function asset(nodes: Record<string, unknown>, output: string, parameters: Record<string, unknown> = {}, rootMotion = false): any {
  const rm = rootMotion ? { rootMotion: { bone: 'pelvis' } } : {};
  return {
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk', ...rm }, run: { source: 'builtin:run', ...rm } },
    parameters, nodes, output,
  };
}

const instance = (nodes: Record<string, unknown>, output: string, parameters: Record<string, unknown> = {}, rootMotion = false) =>
  loadGraphAsset(asset(nodes, output, parameters, rootMotion), { nodeTypes }).createInstance();

function problems(json: unknown): [string, string][] {
  const result = checkGraphAsset(json, { nodeTypes });
  if (result.ok) throw new Error('expected the asset to be rejected');
  return result.problems.map((p: GraphProblem) => [p.path, p.code]);
}

/** A walk cached behind a spy, read by two uses blended by `alpha` (u1 at 1 − alpha, u2 at alpha). */
const shared = {
  walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
  spy: { type: 'Spy', inputs: { pose: 'walk' } },
  loco: { type: 'SaveCachedPose', inputs: { pose: 'spy' } },
  u1: { type: 'UseCachedPose', properties: { cache: 'loco' } },
  u2: { type: 'UseCachedPose', properties: { cache: 'loco' } },
  mix: { type: 'BlendTwo', inputs: { A: 'u1', B: 'u2' }, properties: { alpha: { param: 'alpha' } } },
};
const alphaParam = { alpha: { type: 'float', default: 0.3 } };

function find(node: DebugNode, id: string): DebugNode[] {
  return [...(node.id === id ? [node] : []), ...node.children.flatMap((c) => find(c, id))];
}

describe('SaveCachedPose / UseCachedPose', () => {
  it('updates and evaluates the shared branch once per frame, at the largest weight a use asks for', () => {
    const g = instance(shared, 'mix', alphaParam);
    const spy = g.nodes.get('spy') as Spy;
    for (let f = 0; f < 3; f++) {
      g.update(0.1);
      g.evaluate();
    }
    expect([spy.updates, spy.evaluations]).toEqual([3, 3]);
    // u1 at 0.7, u2 at 0.3: the branch runs once at 0.7, not at 0.3 nor at 1.
    expect(spy.weights).toEqual([0.7, 0.7, 0.7]);
    g.setParameter('alpha', 0.8);
    g.update(0.1);
    g.evaluate();
    g.evaluate(); // a second evaluate in the same frame reuses the cached pose
    expect(spy.weights.at(-1)).toBeCloseTo(0.8, 15);
    expect([spy.updates, spy.evaluations]).toEqual([4, 4]);
    // The walk advanced 0.4 s once (not once per use), so the graph's pose is the walk at 0.4 s.
    const walkAlone = instance({ walk: shared.walk }, 'walk');
    for (let f = 0; f < 4; f++) walkAlone.update(0.1);
    const expected = walkAlone.evaluate(), out = g.evaluate();
    for (let i = 0; i < out.rotations.length; i++) expect(out.rotations[i]).toBeCloseTo(expected.rotations[i], 14);
    for (let i = 0; i < out.translations.length; i++) expect(out.translations[i]).toBeCloseTo(expected.translations[i], 12);
    expect(find(g.gatherDebug(), 'walk')[0].values?.time).toBeCloseTo(0.4, 12);
  });

  it('does not update or evaluate the branch for a use under a blend at zero weight', () => {
    const { mix: _, u2: __, ...oneUse } = shared;
    const g = instance({
      ...oneUse,
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      top: { type: 'BlendTwo', inputs: { A: 'idle', B: 'u1' }, properties: { alpha: { param: 'alpha' } } },
    }, 'top', { alpha: { type: 'float', default: 0 } });
    const spy = g.nodes.get('spy') as Spy;
    g.update(0.1);
    g.evaluate();
    expect([spy.updates, spy.evaluations]).toEqual([0, 0]);
    const cache = find(g.gatherDebug(), 'loco')[0];
    expect(cache.weight).toBe(0);
    expect(cache.values).toEqual({ uses: 'u1', useWeights: [0], useWeightSum: 0 });
    g.setParameter('alpha', 0.25);
    g.update(0.1);
    g.evaluate();
    expect([spy.updates, spy.evaluations, spy.weights[0]]).toEqual([1, 1, 0.25]);
  });

  it('takes the larger weight when a use is nested deeper, and a tie goes to the first use', () => {
    // u1 at 0.5 × 0.6 = 0.3 under a blend, u2 at 0.5 directly: the branch runs at 0.5.
    const g = instance({
      ...shared,
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      inner: { type: 'BlendTwo', inputs: { A: 'idle', B: 'u1' }, properties: { alpha: 0.6 } },
      mix: { type: 'BlendTwo', inputs: { A: 'inner', B: 'u2' }, properties: { alpha: 0.5 } },
    }, 'mix');
    g.update(0.1);
    expect((g.nodes.get('spy') as Spy).weights).toEqual([0.5]);
    const cache = find(g.gatherDebug(), 'loco')[0];
    expect(cache.weight).toBe(0.5);
    expect(cache.values).toEqual({ uses: 'u1, u2', useWeights: [0.3, 0.5], useWeightSum: 0.8 });
  });

  it('shows the cached branch once, under its first use, and lists its uses', () => {
    const g = instance(shared, 'mix', alphaParam);
    g.update(0.1);
    const tree = g.gatherDebug();
    expect(find(tree, 'loco')).toHaveLength(1);
    expect(find(tree, 'walk')).toHaveLength(1);
    const [u1, u2] = tree.children[0].children;
    expect([u1.id, u1.description, u1.children.map((c) => c.id)]).toEqual(['u1', 'Cache: loco', ['loco']]);
    expect([u2.id, u2.description, u2.children]).toEqual(['u2', 'Cache: loco (shown under u1)', []]);
    expect(u2.values).toEqual({ cache: 'loco' });
    expect([u1.weight, u2.weight]).toEqual([0.7, 0.3]);
    expect(u1.children[0].description).toBe('Uses: u1, u2');
  });

  it('counts the cached branch\'s root motion once per use at its weight: two halves make it whole', () => {
    const plain = instance({ walk: shared.walk }, 'walk', {}, true);
    const halves = instance(shared, 'mix', { alpha: { type: 'float', default: 0.5 } }, true);
    const { mix: _, ...withoutMix } = shared;
    const partial = instance({
      ...withoutMix,
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      top: { type: 'BlendTwo', inputs: { A: 'idle', B: 'u1' }, properties: { alpha: 0.3 } },
    }, 'top', {}, true);
    for (let f = 0; f < 5; f++) {
      for (const g of [plain, halves, partial]) g.update(1 / 30);
      expect(Math.abs(plain.rootMotion[3])).toBeGreaterThan(1e-4);
      for (let k = 0; k < 4; k++) {
        expect(halves.rootMotion[k]).toBeCloseTo(plain.rootMotion[k], 14);
        expect(partial.rootMotion[k]).toBeCloseTo(0.3 * plain.rootMotion[k], 14);
      }
    }
  });

  it('updates a cache used inside another cache\'s branch once per frame too', () => {
    const g = instance({
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      spy: { type: 'Spy', inputs: { pose: 'run' } },
      inner: { type: 'SaveCachedPose', inputs: { pose: 'spy' } },
      i1: { type: 'UseCachedPose', properties: { cache: 'inner' } },
      i2: { type: 'UseCachedPose', properties: { cache: 'inner' } },
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      gaits: { type: 'BlendTwo', inputs: { A: 'walk', B: 'i1' }, properties: { alpha: 0.4 } },
      outer: { type: 'SaveCachedPose', inputs: { pose: 'gaits' } },
      o1: { type: 'UseCachedPose', properties: { cache: 'outer' } },
      o2: { type: 'UseCachedPose', properties: { cache: 'outer' } },
      mix: { type: 'BlendTwo', inputs: { A: 'o1', B: 'o2' }, properties: { alpha: 0.5 } },
      top: { type: 'BlendTwo', inputs: { A: 'mix', B: 'i2' }, properties: { alpha: 0.1 } },
    }, 'top');
    const spy = g.nodes.get('spy') as Spy;
    g.update(0.1);
    g.evaluate();
    // i1: outer at 0.45 (o1 and o2 at 0.9 × 0.5) × 0.4 = 0.18; i2 at 0.1: the larger is 0.18.
    expect([spy.updates, spy.evaluations]).toEqual([1, 1]);
    expect(spy.weights[0]).toBeCloseTo(0.18, 15);
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
  });

  it('is deterministic, and resets with the instance', () => {
    const a = instance(shared, 'mix', alphaParam), b = instance(shared, 'mix', alphaParam);
    for (let f = 0; f < 4; f++) {
      a.update(0.07);
      b.update(0.07);
    }
    expect(Array.from(a.evaluate().rotations)).toEqual(Array.from(b.evaluate().rotations));
    a.reset();
    a.update(0.07);
    const fresh = instance(shared, 'mix', alphaParam);
    fresh.update(0.07);
    expect(Array.from(a.evaluate().rotations)).toEqual(Array.from(fresh.evaluate().rotations));
  });

  it('reports unknown caches, wrong types, links to a cache and cycles through caches, all at once', () => {
    expect(problems(asset({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      loco: { type: 'SaveCachedPose', inputs: { pose: 'walk' } },
      missing: { type: 'UseCachedPose', properties: { cache: 'nowhere' } },
      wrong: { type: 'UseCachedPose', properties: { cache: 'run' } },
      linked: { type: 'BlendTwo', inputs: { A: 'loco', B: 'missing' } },
      top: { type: 'BlendTwo', inputs: { A: 'linked', B: 'wrong' } },
    }, 'top'))).toEqual([
      ['$.nodes.linked.inputs.A', 'not-linkable'],
      ['$.nodes.missing.properties.cache', 'dangling-link'],
      ['$.nodes.wrong.properties.cache', 'wrong-node-type'],
    ]);
    // A use inside its own cache's branch: the cycle is reported at the use's `cache`.
    expect(problems(asset({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      self: { type: 'UseCachedPose', properties: { cache: 'loco' } },
      blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'self' } },
      loco: { type: 'SaveCachedPose', inputs: { pose: 'blend' } },
      use: { type: 'UseCachedPose', properties: { cache: 'loco' } },
    }, 'use'))).toEqual([['$.nodes.self.properties.cache', 'cycle']]);
    // Through two caches, each used in the other's branch.
    expect(problems(asset({
      a: { type: 'SaveCachedPose', inputs: { pose: 'useB' } },
      b: { type: 'SaveCachedPose', inputs: { pose: 'useA' } },
      useA: { type: 'UseCachedPose', properties: { cache: 'a' } },
      useB: { type: 'UseCachedPose', properties: { cache: 'b' } },
      out: { type: 'UseCachedPose', properties: { cache: 'a' } },
    }, 'out')).map(([, code]) => code)).toEqual(['cycle']);
    // The output may not name a cache either.
    expect(problems(asset({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      loco: { type: 'SaveCachedPose', inputs: { pose: 'walk' } },
    }, 'loco'))).toEqual([['$.output', 'not-linkable']]);
  });

  it('allows a SaveCachedPose nothing uses (checked, not built)', () => {
    const g = instance({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      unused: { type: 'SaveCachedPose', inputs: { pose: 'run' } },
    }, 'walk');
    expect(g.nodes.has('unused')).toBe(false);
    expect(problems(asset({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      unused: { type: 'SaveCachedPose', inputs: { pose: 'nothing' } },
    }, 'walk'))).toEqual([['$.nodes.unused.inputs.pose', 'dangling-link']]);
  });

  it('counts each cache below each use in the depth limit', () => {
    // A chain of CopyBones: `below` under the cache, `above` over the use. Output -> above ... -> use -> cache -> below ... -> walk.
    const chain = (below: number, above: number) => {
      const nodes: Record<string, unknown> = { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } };
      let last = 'walk';
      for (let i = 0; i < below; i++) {
        nodes[`b${i}`] = { type: 'CopyBone', inputs: { pose: last }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r' } };
        last = `b${i}`;
      }
      nodes.cache = { type: 'SaveCachedPose', inputs: { pose: last } };
      nodes.use = { type: 'UseCachedPose', properties: { cache: 'cache' } };
      last = 'use';
      for (let i = 0; i < above; i++) {
        nodes[`a${i}`] = { type: 'CopyBone', inputs: { pose: last }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r' } };
        last = `a${i}`;
      }
      return asset(nodes, last);
    };
    // Levels: above + use + cache + below + walk.
    const atLimit = chain(248, MAX_GRAPH_DEPTH - 248 - 3);
    const g = loadGraphAsset(atLimit, { nodeTypes }).createInstance();
    g.update(0.1);
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
    expect(problems(chain(249, MAX_GRAPH_DEPTH - 248 - 3))).toEqual([['$.nodes.b0.inputs.pose', 'too-deep']]);
    // The limit is crossed at the use's reference when the cache is the last level allowed.
    expect(problems(chain(0, MAX_GRAPH_DEPTH - 1))).toEqual([['$.nodes.use.properties.cache', 'too-deep']]);
  });

  it('needs an Inertialization below every use for an inertial blend inside the cached branch', () => {
    const nodes = (secondInertialized: boolean) => ({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      ib: { type: 'BlendByBool', inputs: { True: 'walk', False: 'run' }, properties: { active: { param: 'a' }, blendMode: 'inertial', trueBlendTime: 0.2, falseBlendTime: 0.2 } },
      loco: { type: 'SaveCachedPose', inputs: { pose: 'ib' } },
      u1: { type: 'UseCachedPose', properties: { cache: 'loco' } },
      u2: { type: 'UseCachedPose', properties: { cache: 'loco' } },
      i1: { type: 'Inertialization', inputs: { pose: 'u1' } },
      ...(secondInertialized ? { i2: { type: 'Inertialization', inputs: { pose: 'u2' } } } : {}),
      mix: { type: 'BlendTwo', inputs: { A: 'i1', B: secondInertialized ? 'i2' : 'u2' }, properties: { alpha: 0.4 } },
    });
    const params = { a: { type: 'bool', default: true } };
    expect(problems(asset(nodes(false), 'mix', params))).toEqual([['$.nodes.ib.properties.blendMode', 'no-inertialization']]);
    const g = instance(nodes(true), 'mix', params);
    g.update(0.1);
    g.setParameter('a', false);
    g.evaluate();
    g.update(0.05);
    // Requests are taken at evaluation; this one went to the larger use's provider (u1 at 0.6) only.
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
    expect(find(g.gatherDebug(), 'i1')[0].values).toMatchObject({ active: true, duration: 0.2 });
    expect(find(g.gatherDebug(), 'i2')[0].values).toMatchObject({ active: false });
  });

  it('allocates nothing per frame once warm (nested caches, root motion, copied and blended uses)', () => {
    const result = runProbe('cached-pose-allocation-probe.ts');
    // The measurement's own floor is about 0.13 bytes a frame.
    expect(result.perFrame).toBeLessThan(0.6);
    // mix at 0.8: u1 at 0.8 × 0.65 = 0.52, u2 at 0.28.
    expect(result.cacheType).toBe('SaveCachedPose');
    expect(result.cacheWeight).toBeCloseTo(0.52, 15);
  });
});

describe('cached poses and state machine states', () => {
  const machine = (states: Record<string, unknown>, duration: number) => ({
    type: 'StateMachine', properties: {
      entry: 'a', states,
      transitions: [
        { from: 'a', to: 'b', rule: { param: 'go' }, duration },
        { from: 'b', to: 'a', rule: { param: 'go', value: false }, duration },
      ],
    },
  });
  const go = { go: { type: 'bool', default: false } };
  const running = { nodes: { r: { type: 'SequencePlayer', properties: { clip: 'run' } } }, output: 'r' };
  const cachedWalk = { walk: shared.walk, spy: shared.spy, loco: shared.loco };
  /** Poses of `frames` updates of 0.1 s, `go` set true before frame `on` and false before frame `off`. */
  const run = (character: ReturnType<typeof instance>, frames: number, on: number, off = frames) => {
    const out: number[][] = [];
    for (let f = 0; f < frames; f++) {
      if (f === on) character.setParameter('go', true);
      if (f === off) character.setParameter('go', false);
      character.update(0.1);
      const pose = character.evaluate();
      out.push([...pose.translations, ...pose.rotations]);
    }
    return out;
  };

  it("lets a state use a cache of the graph around its machine: its branch updated once per frame at the state's weight, poses as if the state played it", () => {
    const nodes = { ...cachedWalk, sm: machine({ a: { nodes: { u: { type: 'UseCachedPose', properties: { cache: 'loco' } } }, output: 'u' }, b: running }, 0.4) };
    const character = instance(nodes, 'sm', go);
    const direct = instance({ sm: machine({ a: { nodes: { w: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'w' }, b: running }, 0.4) }, 'sm', go);
    // Go at frame 3: the transition starts at the start of that update and a fades out over 0.4 s
    // from it (weights 1, 1, 1, then 0.75, 0.5, 0.25).
    const poses = run(character, 6, 3);
    expect(poses).toEqual(run(direct, 6, 3));
    const spy = character.nodes.get('spy') as Spy;
    expect(spy.updates).toBe(6);
    expect(spy.weights.map((w) => +w.toFixed(6))).toEqual([1, 1, 1, 0.75, 0.5, 0.25]);
    expect(character.nodes.get('sm/a/u')!.gatherDebug().description).toBe('Cache: loco');
  });

  it('does not restart a cache of the graph around the machine when its state is re-entered, and restarts one of its own', () => {
    const outer = instance({ ...cachedWalk, sm: machine({ a: { nodes: { u: { type: 'UseCachedPose', properties: { cache: 'loco' } } }, output: 'u' }, b: running }, 0) }, 'sm', go);
    const own = instance({ sm: machine({ a: { nodes: { ...cachedWalk, u: { type: 'UseCachedPose', properties: { cache: 'loco' } } }, output: 'u' }, b: running }, 0) }, 'sm', go);
    // a updated in frames 0-2 (the walk plays 0.3 s; the switch to b happens at the start of frame
    // 3's update), b alone in 3-4 (the cache is not updated), a again in 5-6.
    run(outer, 7, 3, 5);
    run(own, 7, 3, 5);
    // The outer cache's walk goes on from 0.4 s.
    expect((outer.nodes.get('walk') as unknown as { time: number }).time).toBeCloseTo(0.5, 12);
    // The state's own cache restarted at the re-entry: two updates of 0.1 s since.
    expect((own.nodes.get('sm/a/walk') as unknown as { time: number }).time).toBeCloseTo(0.2, 12);
  });

  it('resolves a use in a nested state to the nearest graph holding the name; a state may shadow an outer cache', () => {
    const use = { u: { type: 'UseCachedPose', properties: { cache: 'loco' } } };
    const inner = machine({ a: { nodes: use, output: 'u' }, b: running }, 0.4);
    const nested = instance({ ...cachedWalk, sm: machine({ a: { nodes: { inner }, output: 'inner' }, b: running }, 0.4) }, 'sm', go);
    nested.update(0.1);
    expect((nested.nodes.get('spy') as Spy).weights).toEqual([1]);
    expect((nested.nodes.get('walk') as unknown as { time: number }).time).toBeCloseTo(0.1, 12);
    // State a caches the run under the same name: its use reads that one, the outer walk is not updated.
    const shadowing = { ...use, rr: { type: 'SequencePlayer', properties: { clip: 'run' } }, loco: { type: 'SaveCachedPose', inputs: { pose: 'rr' } } };
    const shadowed = instance({ ...cachedWalk, sm: machine({ a: { nodes: shadowing, output: 'u' }, b: running }, 0.4), top: { type: 'UseCachedPose', properties: { cache: 'loco' } }, mix: { type: 'BlendTwo', inputs: { A: 'sm', B: 'top' }, properties: { alpha: 0 } } }, 'mix', go);
    shadowed.update(0.1);
    expect((shadowed.nodes.get('sm/a/rr') as unknown as { time: number }).time).toBeCloseTo(0.1, 12);
    expect((shadowed.nodes.get('spy') as Spy).updates).toBe(0); // the top use is at weight 0
  });

  it('reports a cache used inside its own branch through a state, and names of no cache, at the use in the state', () => {
    const use = (cache: string) => ({ nodes: { u: { type: 'UseCachedPose', properties: { cache } } }, output: 'u' });
    // loco caches the machine whose state a uses loco.
    expect(problems(asset({
      loco: { type: 'SaveCachedPose', inputs: { pose: 'sm' } }, out: { type: 'UseCachedPose', properties: { cache: 'loco' } },
      sm: machine({ a: use('loco'), b: running }, 0.2),
    }, 'out', go))).toEqual([['$.nodes.sm.properties.states.a.nodes.u.properties.cache', 'cycle']]);
    expect(problems(asset({ walk: shared.walk, sm: machine({ a: use('walk'), b: use('nowhere') }, 0.2) }, 'sm', go))).toEqual([
      ['$.nodes.sm.properties.states.a.nodes.u.properties.cache', 'wrong-node-type'],
      ['$.nodes.sm.properties.states.b.nodes.u.properties.cache', 'dangling-link'],
    ]);
  });
});
