import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { runGraph } from '../../host/runner.ts';
import type { LayeredBlendPerBone } from '../../nodes/LayeredBlendPerBone.ts';
import { boneMaskWeights } from '../../runtime/core/bone-mask.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { bipedInstance, expectClose, hasNaN } from '../support/graphs.ts';
import { describeWithData } from '../support/shared-data.ts';
import { runProbe } from '../support/allocation.ts';

const biped = sampleSkeleton();
const weightsOf = (spec: Parameters<typeof boneMaskWeights>[1]) => {
  const w = boneMaskWeights(biped, spec);
  return Object.fromEntries(biped.boneNames.map((name, i) => [name, w[i]]).filter(([, v]) => v !== 0));
};

describe('bone masks (runtime/core/bone-mask.ts)', () => {
  it('branch filter, blend depth 0: the bone and everything below it at full weight', () => {
    expect(weightsOf({ filters: [{ bone: 'spine_02', depth: 0 }] })).toEqual({
      spine_02: 1, neck: 1, head: 1, clavicle_l: 1, upperarm_l: 1, lowerarm_l: 1, hand_l: 1,
      clavicle_r: 1, upperarm_r: 1, lowerarm_r: 1, hand_r: 1,
    });
  });

  it('blend depth 1 is depth 0; blend depth 2 gives the filter bone 1/2 and the rest 1', () => {
    expect(weightsOf({ filters: [{ bone: 'clavicle_l', depth: 1 }] })).toEqual({ clavicle_l: 1, upperarm_l: 1, lowerarm_l: 1, hand_l: 1 });
    expect(weightsOf({ filters: [{ bone: 'clavicle_l', depth: 2 }] })).toEqual({ clavicle_l: 0.5, upperarm_l: 1, lowerarm_l: 1, hand_l: 1 });
  });

  it('blend depth 3 ramps 1/3, 2/3, 1 down the chain', () => {
    const w = weightsOf({ filters: [{ bone: 'spine_01', depth: 3 }] });
    expect(w.spine_01).toBeCloseTo(1 / 3, 15);
    expect(w.spine_02).toBeCloseTo(2 / 3, 15);
    expect([w.neck, w.head, w.clavicle_r, w.hand_r]).toEqual([1, 1, 1, 1]);
    expect(w.pelvis).toBeUndefined();
    expect(w.thigh_l).toBeUndefined();
  });

  it('filters add in order; a negative depth takes a branch away', () => {
    expect(weightsOf({ filters: [{ bone: 'spine_02', depth: 0 }, { bone: 'clavicle_l', depth: -1 }, { bone: 'neck', depth: -2 }] })).toEqual({
      spine_02: 1, neck: 0.5, clavicle_r: 1, upperarm_r: 1, lowerarm_r: 1, hand_r: 1,
    });
  });

  it('an explicit mask: named bones take their weight, the others their parent\'s (0 at the root)', () => {
    expect(weightsOf({ mask: { spine_02: 1, neck: 0.25, lowerarm_r: 0 } })).toEqual({
      spine_02: 1, neck: 0.25, head: 0.25, clavicle_l: 1, upperarm_l: 1, lowerarm_l: 1, hand_l: 1,
      clavicle_r: 1, upperarm_r: 1,
    });
  });

  it('skips bones the skeleton lacks and names them', () => {
    const unknown: string[] = [];
    const w = boneMaskWeights(biped, { filters: [{ bone: 'tail', depth: 0 }, { bone: 'head', depth: 0 }] }, undefined, (b) => unknown.push(b));
    expect(unknown).toEqual(['tail']);
    expect(Array.from(w).reduce((a, b) => a + b, 0)).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------

const sampleBuiltin = (clip: string, time: number) =>
  sampleClip(new Pose(22), new ClipBinding(builtinClip(clip), biped), time, true);

const layered = (properties: Record<string, unknown>, parameters: Record<string, unknown> = {}) => bipedInstance({
  walk: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: 0.3 } },
  run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: 0.1 } },
  layered: { type: 'LayeredBlendPerBone', inputs: { base: 'walk', layers: ['run'] }, properties },
}, 'layered', parameters);

describe('LayeredBlendPerBone on the biped (local-space blend)', () => {
  const walk = sampleBuiltin('walk', 0.3), run = sampleBuiltin('run', 0.1);
  const bone = (name: string) => biped.indexOf(name);

  it('takes the layer on its branch, the base elsewhere, a ramp between', () => {
    const g = layered({ layers: [{ filters: [{ bone: 'spine_01', depth: 2 }] }] });
    g.update(1 / 30);
    const pose = g.evaluate();
    for (const name of ['root', 'pelvis', 'thigh_l', 'calf_r', 'foot_l']) {
      const b = bone(name);
      expect(Array.from(pose.rotations.subarray(b * 4, b * 4 + 4))).toEqual(Array.from(walk.rotations.subarray(b * 4, b * 4 + 4)));
    }
    for (const name of ['spine_02', 'neck', 'upperarm_l', 'hand_r']) {
      const b = bone(name);
      expectClose(pose.rotations.subarray(b * 4, b * 4 + 4), run.rotations.subarray(b * 4, b * 4 + 4), 1e-15);
    }
    // spine_01 at weight 1/2: the normalised halfway of the two rotations.
    const b = bone('spine_01') * 4;
    const half = [0, 1, 2, 3].map((c) => walk.rotations[b + c] + run.rotations[b + c] * Math.sign(dot4(walk.rotations, run.rotations, b)));
    const len = Math.hypot(...half);
    expectClose(pose.rotations.subarray(b, b + 4), half.map((v) => v / len), 1e-15);
  });

  it('an explicit mask blends each bone by its weight', () => {
    const g = layered({ layers: [{ mask: { upperarm_l: 0.25 } }] });
    g.update(1 / 30);
    const pose = g.evaluate();
    const b = bone('hand_l') * 4; // inherits 0.25 from upperarm_l
    const q = [0, 1, 2, 3].map((c) => walk.rotations[b + c] * 0.75 + run.rotations[b + c] * 0.25 * Math.sign(dot4(walk.rotations, run.rotations, b)));
    const len = Math.hypot(...q);
    expectClose(pose.rotations.subarray(b, b + 4), q.map((v) => v / len), 1e-15);
    const h = bone('head') * 4;
    expect(Array.from(pose.rotations.subarray(h, h + 4))).toEqual(Array.from(walk.rotations.subarray(h, h + 4)));
  });

  it('multiplies the mask by the layer weight, bound to a parameter, read every frame', () => {
    const g = layered({ layers: [{ filters: [{ bone: 'neck', depth: 0 }], weight: { param: 'aim' } }] }, { aim: { type: 'float', default: 0 } });
    const b = bone('head') * 4;
    g.update(1 / 30);
    expect(Array.from(g.evaluate().rotations.subarray(b, b + 4))).toEqual(Array.from(walk.rotations.subarray(b, b + 4)));
    expect(g.gatherDebug().children[0].description).toBe('Layers: 0.0% (skipped)');
    expect(g.gatherDebug().children[0].children[1].weight).toBe(0); // the layer was not updated
    g.setParameter('aim', 0.4);
    g.update(1 / 30);
    const q = [0, 1, 2, 3].map((c) => walk.rotations[b + c] * 0.6 + run.rotations[b + c] * 0.4 * Math.sign(dot4(walk.rotations, run.rotations, b)));
    const len = Math.hypot(...q);
    expectClose(g.evaluate().rotations.subarray(b, b + 4), q.map((v) => v / len), 1e-15);
    const debug = g.gatherDebug().children[0];
    expect(debug.description).toBe('Layers: 40.0%');
    expect(debug.values).toEqual({ layerWeights: [0.4], meshSpaceRotationBlend: false });
    expect(debug.children.map((c) => [c.id, c.weight])).toEqual([['walk', 1], ['run', 0.4]]);
    g.setParameter('aim', 7);
    g.update(1 / 30);
    expectClose(g.evaluate().rotations.subarray(b, b + 4), run.rotations.subarray(b, b + 4), 1e-15); // clamped to 1
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
  });

  it('stacks layers in order: a later layer wins where masks overlap', () => {
    const g = bipedInstance({
      walk: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: 0.3 } },
      run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: 0.1 } },
      idle: { type: 'SequenceEvaluator', properties: { clip: 'idle', explicitTime: 0.2 } },
      layered: {
        type: 'LayeredBlendPerBone', inputs: { base: 'walk', layers: ['run', 'idle'] },
        properties: { layers: [{ filters: [{ bone: 'spine_02', depth: 0 }] }, { filters: [{ bone: 'clavicle_r', depth: 0 }] }] },
      },
    }, 'layered');
    g.update(1 / 30);
    const pose = g.evaluate();
    const idle = sampleBuiltin('idle', 0.2);
    const l = bone('upperarm_l') * 4, r = bone('upperarm_r') * 4;
    expectClose(pose.rotations.subarray(l, l + 4), run.rotations.subarray(l, l + 4), 1e-15);
    expectClose(pose.rotations.subarray(r, r + 4), idle.rotations.subarray(r, r + 4), 1e-15);
  });

  it('is deterministic: two instances give bit-identical poses', () => {
    const spec = { layers: [{ filters: [{ bone: 'spine_01', depth: 3 }], weight: 0.7 }], meshSpaceRotationBlend: true };
    const a = layered(spec), b = layered(spec);
    for (let f = 0; f < 5; f++) { a.update(1 / 60); b.update(1 / 60); }
    expect(Array.from(a.evaluate().rotations)).toEqual(Array.from(b.evaluate().rotations));
  });

  it('shares its masks between the instances of one graph, and each graph has its own', () => {
    const asset = (depth: number) => ({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run' } },
        layered: { type: 'LayeredBlendPerBone', inputs: { base: 'walk', layers: ['run'] }, properties: { layers: [{ filters: [{ bone: 'spine_01', depth }] }] } },
      },
      output: 'layered',
    });
    type Instance = ReturnType<ReturnType<typeof loadGraphAsset>['createInstance']>;
    const layered = (g: Instance) => g.nodes.get('layered') as unknown as LayeredBlendPerBone;
    const mask = (g: Instance) => layered(g).layerMask(0);
    // The node's own arrays (private): the graph's, shared.
    const shared = (g: Instance) => (layered(g) as unknown as { maskWeights: Float64Array[] }).maskWeights[0];
    const graph = loadGraphAsset(asset(3)), other = loadGraphAsset(asset(1));
    const [a, b, c] = [graph.createInstance(), graph.createInstance(), other.createInstance()];
    expect(shared(a)).toBe(shared(b));
    expect(shared(c)).not.toBe(shared(a));
    // What layerMask gives a tool is its own: writing to it changes no instance.
    const given = mask(a);
    given.fill(0.25);
    expect(Array.from(mask(b))).toEqual(Array.from(shared(a)));
    expect(mask(b)[bone('spine_01')]).toBeCloseTo(1 / 3, 15);
    expect(mask(a)[bone('spine_01')]).toBeCloseTo(1 / 3, 15);
    expect(mask(c)[bone('spine_01')]).toBe(1);
    expect(Array.from(mask(a))).toEqual(Array.from(boneMaskWeights(biped, { filters: [{ bone: 'spine_01', depth: 3 }] })));
  });
});

function dot4(a: Float64Array, b: Float64Array, o: number): number {
  return a[o] * b[o] + a[o + 1] * b[o + 1] + a[o + 2] * b[o + 2] + a[o + 3] * b[o + 3];
}

// ---------------------------------------------------------------------------------------------
// A hand-made chain with a known answer: root -> a -> b. The base pose turns the root 90° about Y
// (a leaning base) and leaves a and b straight; the layer is straight everywhere.

const chainBvh = (rootY: number) => `HIERARCHY
ROOT root
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT a
  {
    OFFSET 0 10 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    JOINT b
    {
      OFFSET 0 10 0
      CHANNELS 3 Zrotation Xrotation Yrotation
      End Site
      {
        OFFSET 0 10 0
      }
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
0 0 0 0 0 ${rootY} 0 0 0 0 0 0
0 0 0 0 0 ${rootY} 0 0 0 0 0 0
`;

function chain(properties: Record<string, unknown>) {
  const files: Record<string, string> = { 'base.bvh': chainBvh(90), 'layer.bvh': chainBvh(0) };
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: { bvh: 'base.bvh' },
    clips: { base: { source: 'base.bvh' }, layer: { source: 'layer.bvh' } },
    nodes: {
      base: { type: 'SequenceEvaluator', properties: { clip: 'base', explicitTime: 0 } },
      layer: { type: 'SequenceEvaluator', properties: { clip: 'layer', explicitTime: 0 } },
      layered: { type: 'LayeredBlendPerBone', inputs: { base: 'base', layers: ['layer'] }, properties },
    },
    output: 'layered',
  }, { resolveSync: (p) => files[p] }).createInstance();
}

/** [x, y, z, w] of a rotation of `degrees` about Y. */
const aboutY = (degrees: number) => [0, Math.sin((degrees * Math.PI) / 360), 0, Math.cos((degrees * Math.PI) / 360)];

describe('LayeredBlendPerBone: local against mesh-space rotation blend (hand-made chain)', () => {
  const a = 1 * 4, b = 2 * 4;

  it('local space: the layer\'s local rotation, so a turns with the leaning root', () => {
    const g = chain({ layers: [{ filters: [{ bone: 'a', depth: 0 }] }] });
    g.update(0);
    const pose = g.evaluate();
    expectClose(pose.rotations.subarray(0, 4), aboutY(90), 1e-12);
    expectClose(pose.rotations.subarray(a, a + 4), aboutY(0), 1e-12);
    expectClose(g.componentPose().rotations.subarray(a, a + 4), aboutY(90), 1e-12);
  });

  it('mesh space: the layer\'s component rotation, so a turns back by -90° locally', () => {
    const g = chain({ layers: [{ filters: [{ bone: 'a', depth: 0 }] }], meshSpaceRotationBlend: true });
    g.update(0);
    const pose = g.evaluate();
    expectClose(pose.rotations.subarray(0, 4), aboutY(90), 1e-12);
    expectClose(pose.rotations.subarray(a, a + 4), aboutY(-90), 1e-12);
    expectClose(pose.rotations.subarray(b, b + 4), aboutY(0), 1e-12);
    expectClose(g.componentPose().rotations.subarray(a, a + 4), aboutY(0), 1e-12);
    expectClose(g.componentPose().rotations.subarray(b, b + 4), aboutY(0), 1e-12);
    expect(g.gatherDebug().children[0].description).toBe('Layers: 100.0% Mesh Space Rotations');
  });

  it('mesh space at weight 1/2: a\'s component rotation halfway (45°), so -45° locally', () => {
    const g = chain({ layers: [{ filters: [{ bone: 'a', depth: 0 }], weight: 0.5 }], meshSpaceRotationBlend: true });
    g.update(0);
    expectClose(g.evaluate().rotations.subarray(a, a + 4), aboutY(-45), 1e-12);
    expectClose(g.componentPose().rotations.subarray(b, b + 4), aboutY(45), 1e-12);
    const local = chain({ layers: [{ filters: [{ bone: 'a', depth: 0 }], weight: 0.5 }] });
    local.update(0);
    expectClose(local.evaluate().rotations.subarray(a, a + 4), aboutY(0), 1e-12);
  });

  it('mesh space: instances share the blend\'s scratch, whatever their skeletons and order', () => {
    // The rotations are scratch within one blend: a chain built before a biped (whose blend needs a
    // longer scratch), and two bipeds at other poses evaluated in between, leave its answer alone.
    const g = chain({ layers: [{ filters: [{ bone: 'a', depth: 0 }], weight: 0.5 }], meshSpaceRotationBlend: true });
    const spec = { layers: [{ filters: [{ bone: 'spine_01', depth: 3 }], weight: 0.7 }], meshSpaceRotationBlend: true };
    const big = layered(spec), other = layered({ ...spec, layers: [{ filters: [{ bone: 'spine_01', depth: 3 }], weight: 0.2 }] });
    for (const x of [g, big, other]) x.update(0);
    const [bigPose, otherPose] = [big, other].map((x) => Array.from(x.evaluate().rotations));
    expectClose(g.evaluate().rotations.subarray(a, a + 4), aboutY(-45), 1e-12);
    expect(bigPose).not.toEqual(otherPose);
    const alone = layered(spec);
    alone.update(0);
    expect(Array.from(alone.evaluate().rotations)).toEqual(bigPose);
  });

  it('mesh space: a bone the mask leaves out below a blended one keeps the base\'s component rotation', () => {
    const g = chain({ layers: [{ mask: { a: 1, b: 0 } }], meshSpaceRotationBlend: true });
    g.update(0);
    expectClose(g.evaluate().rotations.subarray(b, b + 4), aboutY(90), 1e-12);
    expectClose(g.componentPose().rotations.subarray(b, b + 4), aboutY(90), 1e-12);
  });
});

// ---------------------------------------------------------------------------------------------

describe('LayeredBlendPerBone load errors', () => {
  const asset = (layered: Record<string, unknown>) => ({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' }, idle: { source: 'builtin:idle' } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      layered: { type: 'LayeredBlendPerBone', ...layered },
    },
    output: 'layered',
  });
  const problems = (layered: Record<string, unknown>) => {
    const result = checkGraphAsset(asset(layered));
    if (result.ok) throw new Error('expected the asset to be rejected');
    return result.problems.map((p) => [p.path, p.code]);
  };

  it('reports every unknown bone of filters and masks at its path, all at once', () => {
    expect(problems({
      inputs: { base: 'walk', layers: ['run', 'idle'] },
      properties: {
        layers: [
          { filters: [{ bone: 'spine_01', depth: 1 }, { bone: 'spine_99', depth: 0 }] },
          { mask: { neck: 1, tail: 0.5 } },
        ],
      },
    })).toEqual([
      ['$.nodes.layered.properties.layers[0].filters[1].bone', 'unknown-bone'],
      ['$.nodes.layered.properties.layers[1].mask.tail', 'unknown-bone'],
    ]);
  });

  it('reports a layer count that differs from the linked layer poses, and a layer with both or neither mask', () => {
    expect(problems({
      inputs: { base: 'walk', layers: ['run'] },
      properties: { layers: [{ filters: [{ bone: 'neck' }], mask: { neck: 1 } }, { weight: 0.5 }] },
    })).toEqual([
      ['$.nodes.layered.properties.layers', 'schema'],
      ['$.nodes.layered.properties.layers[0]', 'schema'],
      ['$.nodes.layered.properties.layers[1]', 'schema'],
    ]);
  });

  it('reports a mask weight out of [0, 1] and a fractional depth as schema problems, next to an unknown bone in the same mask', () => {
    const found = problems({
      inputs: { base: 'walk', layers: ['run', 'idle'] },
      properties: { layers: [{ mask: { neck: 2, head: 0.5, tail: 1 } }, { filters: [{ bone: 'neck', depth: 1.5 }, { bone: 'tail' }] }] },
    });
    expect(found).toContainEqual(['$.nodes.layered.properties.layers[0].mask.neck', 'schema']);
    expect(found).toContainEqual(['$.nodes.layered.properties.layers[0].mask.tail', 'unknown-bone']);
    expect(found).toContainEqual(['$.nodes.layered.properties.layers[1].filters[0].depth', 'schema']);
    expect(found).toContainEqual(['$.nodes.layered.properties.layers[1].filters[1].bone', 'unknown-bone']);
    expect(found).toHaveLength(4);
  });
});

// ---------------------------------------------------------------------------------------------

describe('LayeredBlendPerBone with a blendMask profile', () => {
  const walk = sampleBuiltin('walk', 0.3), run = sampleBuiltin('run', 0.1);
  const withProfiles = (layers: unknown[], blendProfiles: Record<string, unknown>) => ({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
    blendProfiles,
    nodes: {
      walk: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: 0.3 } },
      ...Object.fromEntries(layers.map((_, i) => [`run${i}`, { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: 0.1 } }])),
      layered: { type: 'LayeredBlendPerBone', inputs: { base: 'walk', layers: layers.map((_, i) => `run${i}`) }, properties: { layers } },
    },
    output: 'layered',
  });
  const pose = (layers: unknown[], blendProfiles: Record<string, unknown>) => {
    const g = loadGraphAsset(withProfiles(layers, blendProfiles)).createInstance();
    g.update(1 / 30);
    return Float64Array.from(g.evaluate().rotations);
  };

  it('a profile with the filters of a layer gives the layer\'s pose bit for bit', () => {
    const filters = [{ bone: 'spine_01', depth: 2 }];
    expect(Array.from(pose([{ blendProfile: 'upper' }], { upper: { mode: 'blendMask', filters } })))
      .toEqual(Array.from(pose([{ filters }], {})));
  });

  it('a profile\'s bones set one bone each; bones it does not set keep the base', () => {
    const out = pose([{ blendProfile: 'arm', weight: 1 }], { arm: { mode: 'blendMask', bones: { upperarm_l: 1 } } });
    const b = biped.indexOf('upperarm_l') * 4, h = biped.indexOf('hand_l') * 4;
    expectClose(out.subarray(b, b + 4), run.rotations.subarray(b, b + 4), 1e-15);
    expect(Array.from(out.subarray(h, h + 4))).toEqual(Array.from(walk.rotations.subarray(h, h + 4)));
  });

  it('reports a layer with a profile and a mask, an unknown profile and a profile of another mode', () => {
    const result = checkGraphAsset(withProfiles(
      [{ blendProfile: 'upper', mask: { neck: 1 } }, { blendProfile: 'nope' }, { blendProfile: 'slow' }],
      { upper: { mode: 'blendMask', bones: { neck: 1 } }, slow: { mode: 'timeFactor', bones: { neck: 0.5 } } },
    ));
    expect(result.ok ? [] : result.problems.map((p) => [p.path, p.code])).toEqual([
      ['$.nodes.layered.properties.layers[1].blendProfile', 'unknown-blend-profile'],
      ['$.nodes.layered.properties.layers[2].blendProfile', 'blend-profile-mode'],
      ['$.nodes.layered.properties.layers[0]', 'schema'],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------

describe('LayeredBlendPerBone allocates nothing per frame', () => {
  it('in a plain Node process, once warm (local and mesh space, bound weight, two layers)', () => {
    const result = runProbe('layered-allocation-probe.ts');
    expect(result.perFrame).toBeLessThan(4);
    expect(result.blended).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------

describeWithData('LayeredBlendPerBone on the CMU data (graphs/examples/cmu-upper-body.json)', () => {
  const path = fileURLToPath(new URL('../../graphs/examples/cmu-upper-body.json', import.meta.url));
  const graph = loadGraphFile(path);
  const skeleton = graph.skeleton;

  it('legs from the walk, upper body from the run, through runGraph', () => {
    const result = runGraph(graph, { frames: 30, fps: 30 });
    const walk = runGraph(graph, { frames: 30, fps: 30, timeline: [{ name: 'upperBody', value: 0, time: 0 }] });
    const frame = result.frames[20], walkFrame = walk.frames[20];
    const node = frame.debug!.children[0];
    expect(node.type).toBe('LayeredBlendPerBone');
    expect(node.children.map((c) => c.id)).toEqual(['walk', 'run']);
    const thigh = skeleton.indexOf('CC_Base_L_Thigh'), upperarm = skeleton.indexOf('CC_Base_L_Upperarm');
    expect(thigh).toBeGreaterThan(0);
    const rotation = (f: typeof frame, bone: number) => f.local![bone].slice(3, 7);
    // The legs are the walk's whatever the layer does.
    expect(rotation(frame, thigh)).toEqual(rotation(walkFrame, thigh));
    // The arms are not: the run swings them differently.
    const arm = rotation(frame, upperarm), walkArm = rotation(walkFrame, upperarm);
    const angle = 2 * Math.acos(Math.min(1, Math.abs(arm[0] * walkArm[0] + arm[1] * walkArm[1] + arm[2] * walkArm[2] + arm[3] * walkArm[3])));
    expect(angle).toBeGreaterThan(0.05);
    expect(frame.local!.flat().every(Number.isFinite)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------

describe('LayeredBlendPerBone root motion', () => {
  const instance = (layer: Record<string, unknown>) => loadGraphAsset({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk', rootMotion: true }, run: { source: 'builtin:run', rootMotion: true } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      layered: { type: 'LayeredBlendPerBone', inputs: { base: 'walk', layers: ['run'] }, properties: { layers: [layer] } },
    },
    output: 'layered',
  }).createInstance();
  const step = (layer: Record<string, unknown>) => {
    const g = instance(layer);
    g.update(0);
    g.update(0.1);
    return Array.from(g.rootMotion);
  };

  it('comes from the base alone when the layer leaves the root out, and blends by the root\'s weight when it does not', () => {
    const walk = step({ filters: [{ bone: 'spine_01' }], weight: 0 });
    const run = step({ filters: [{ bone: 'root' }] });
    expect(run[3]).toBeGreaterThan(walk[3] * 2); // the two clips turn at different rates
    expect(step({ filters: [{ bone: 'spine_01' }] })).toEqual(walk);
    const half = step({ mask: { root: 1 }, weight: 0.25 });
    for (let k = 0; k < 4; k++) expect(half[k]).toBeCloseTo(walk[k] * 0.75 + run[k] * 0.25, 12);
  });
});
