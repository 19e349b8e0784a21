import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { applyAdditive } from '../../runtime/core/additive.ts';
import { quatFromAxisAngle, quatMultiply } from '../../runtime/core/math.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { AimOffset } from '../../nodes/AimOffset.ts';
import { AimOffset1D } from '../../nodes/AimOffset1D.ts';
import { AimOffsetLookAt } from '../../nodes/AimOffsetLookAt.ts';
import { runProbe } from '../support/allocation.ts';
import { expectRowsLikeAlone } from '../support/batch-rows.ts';
import { expectClose, hasNaN } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

const EXAMPLES = fileURLToPath(new URL('../../graphs/examples/', import.meta.url));
const DEG = Math.PI / 180;

/** The nine aim poses of the example, as mesh-space additive clips against its first frame (yaw left +, pitch up +). */
const AIM_SAMPLES: [string, number, number][] = [
  ['aimCenter', 0, 0], ['aimLeft', 60, 0], ['aimRight', -60, 0], ['aimUp', 0, 40], ['aimDown', 0, -40],
  ['aimLeftUp', 60, 40], ['aimRightUp', -60, 40], ['aimLeftDown', 60, -40], ['aimRightDown', -60, -40],
];

function aimClips(space: 'mesh' | 'local' = 'mesh'): Record<string, unknown> {
  const clips: Record<string, unknown> = {
    idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' },
    aimPoses: { source: 'builtin:aim' },
  };
  AIM_SAMPLES.forEach(([name], frame) => {
    clips[name] = { source: 'builtin:aim', frames: [frame, frame], additive: { reference: { clip: 'aimPoses', frame: 0 }, space } };
  });
  return clips;
}

const aimSamples = AIM_SAMPLES.map(([clip, x, y]) => ({ clip, x, y }));

function biped(nodes: Record<string, unknown>, output: string, parameters: Record<string, unknown> = {}, clips = aimClips()): AnimGraphInstance {
  return loadGraphAsset({ format: 'animgraph/1', skeleton: 'builtin:biped', clips, parameters, nodes, output }, { baseDir: EXAMPLES }).createInstance();
}

/** Runs `frames` frames of 1/60 s and returns a copy of the last pose. */
function run(g: AnimGraphInstance, frames: number): Pose {
  for (let i = 0; i < frames; i++) g.update(1 / 60);
  const pose = g.evaluate(), copy = new Pose(pose.boneCount);
  copy.translations.set(pose.translations);
  copy.rotations.set(pose.rotations);
  copy.scales.set(pose.scales);
  return copy;
}

/** Compares rotations up to sign (q and -q are one rotation). */
function expectSameRotations(a: Float64Array, b: Float64Array, tolerance: number): void {
  for (let o = 0; o < a.length; o += 4) {
    const dot = a[o] * b[o] + a[o + 1] * b[o + 1] + a[o + 2] * b[o + 2] + a[o + 3] * b[o + 3];
    expectClose(a.subarray(o, o + 4).map((x) => (dot < 0 ? -x : x)), b.subarray(o, o + 4), tolerance);
  }
}

function expectSamePose(a: Pose, b: Pose, tolerance: number): void {
  expectClose(a.translations, b.translations, tolerance);
  expectSameRotations(a.rotations, b.rotations, tolerance);
  expectClose(a.scales, b.scales, tolerance);
}

/** Component-space rotations of a pose's bones (parents first). */
function componentRotations(pose: Pose, parents: Int32Array): Float64Array {
  const out = new Float64Array(pose.rotations.length);
  for (let b = 0; b < parents.length; b++) {
    if (parents[b] < 0) out.set(pose.rotations.subarray(b * 4, b * 4 + 4), b * 4);
    else quatMultiply(out, b * 4, out, parents[b] * 4, pose.rotations, b * 4);
  }
  return out;
}

const walkBase = { type: 'SequencePlayer', properties: { clip: 'walk' } };

describe('AimOffset', () => {
  it('on a sample gives that sample\'s additive applied onto the base in mesh space (as ApplyAdditive, to 1e-12)', () => {
    for (const [clip, x, y] of [AIM_SAMPLES[1], AIM_SAMPLES[6], AIM_SAMPLES[4]]) {
      const aim = biped({ walk: walkBase, aim: { type: 'AimOffset', inputs: { base: 'walk' }, properties: { samples: aimSamples, x, y } } }, 'aim');
      const apply = biped({
        walk: walkBase,
        pose: { type: 'SequencePlayer', properties: { clip } },
        apply: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'pose' }, properties: { space: 'mesh' } },
      }, 'apply');
      expectSamePose(run(aim, 37), run(apply, 37), 1e-12);
    }
  });

  it('turns the head about the character\'s up axis by the whole yaw, whatever the walk does below it', () => {
    const parents = sampleSkeleton().parents;
    const head = 5 * 4;
    for (const frames of [1, 20, 45]) {
      const base = run(biped({ walk: walkBase }, 'walk'), frames);
      const aimed = run(biped({ walk: walkBase, aim: { type: 'AimOffset', inputs: { base: 'walk' }, properties: { samples: aimSamples, x: 60, y: 0 } } }, 'aim'), frames);
      // The aim pose's four joints turn 18 + 18 + 12 + 12 = 60 degrees about +Y (the biped's up).
      const turn = quatFromAxisAngle(new Float64Array(4), 0, 0, 1, 0, 60 * DEG);
      const expected = quatMultiply(new Float64Array(4), 0, turn, 0, componentRotations(base, parents), head);
      expectSameRotations(componentRotations(aimed, parents).subarray(head, head + 4), expected, 1e-12);
      // Below the spine nothing turns: the pelvis and legs are the walk's (renormalised).
      expectClose(aimed.rotations.subarray(0, 8), base.rotations.subarray(0, 8), 1e-15);
      expectClose(aimed.rotations.subarray(14 * 4), base.rotations.subarray(14 * 4), 1e-15);
    }
  });

  it('between samples weighs them as BlendSpace2D does, and applies their blend in mesh space', () => {
    const params = { yaw: { type: 'float', default: 0 }, pitch: { type: 'float', default: 0 } };
    const bind = { x: { param: 'yaw' }, y: { param: 'pitch' } };
    const aim = biped({ walk: walkBase, aim: { type: 'AimOffset', inputs: { base: 'walk' }, properties: { samples: aimSamples, ...bind, alpha: 0.7 } } }, 'aim', params);
    const space = biped({ bs: { type: 'BlendSpace2D', properties: { samples: aimSamples, ...bind } } }, 'bs', params);
    const base = biped({ walk: walkBase }, 'walk');
    const node = aim.nodes.get('aim') as AimOffset, bs = space.nodes.get('bs') as unknown as { weights: Float64Array };
    const parents = sampleSkeleton().parents, scratch = new Float64Array(22 * 8);
    const blendedCounts: number[] = [];
    for (const [yaw, pitch] of [[25, 10], [-47, -33], [60, 15], [-80, 55], [5, -39]]) {
      for (const g of [aim, space]) {
        g.setParameter('yaw', yaw);
        g.setParameter('pitch', pitch);
      }
      const out = run(aim, 11), blended = run(space, 11), expected = run(base, 11);
      expect(Array.from(node.weights)).toEqual(Array.from(bs.weights));
      blendedCounts.push(node.weights.filter((w) => w > 0).length);
      applyAdditive(expected, blended, Float64Array.of(0.7), 0, true, parents, scratch);
      expectSamePose(out, expected, 1e-12);
    }
    // Inside triangles, on the outline's edge, beyond its corner.
    expect(blendedCounts).toEqual([3, 3, 2, 1, 3]);
  });

  it('at alpha 0 is the base bit for bit, and its samples are not updated', () => {
    const aim = biped({ walk: walkBase, aim: { type: 'AimOffset', inputs: { base: 'walk' }, properties: { samples: aimSamples, x: 30, y: 20, alpha: 0 } } }, 'aim');
    const base = biped({ walk: walkBase }, 'walk');
    const a = run(aim, 25), b = run(base, 25);
    expect(Array.from(a.rotations)).toEqual(Array.from(b.rotations));
    expect(Array.from(a.translations)).toEqual(Array.from(b.translations));
    const debug = aim.gatherDebug().children[0];
    expect(debug.id).toBe('aim');
    expect(debug.values).toMatchObject({ alpha: 0 });
    expect(debug.description).toMatch(/Alpha: 0\.0%$/);
    expect(debug.children.map((c) => c.id)).toEqual(['walk']);
  });

  it('reports a sample clip that is not additive, or additive in local space, at its path', () => {
    const problems = (clips: Record<string, unknown>) => {
      const result = checkGraphAsset({
        format: 'animgraph/1', skeleton: 'builtin:biped', clips,
        nodes: { walk: walkBase, aim: { type: 'AimOffset', inputs: { base: 'walk' }, properties: { samples: [{ clip: 'aimCenter', x: 0, y: 0 }, { clip: 'walk', x: 1, y: 0 }, { clip: 'aimUp', x: 0, y: 1 }] } } },
        output: 'aim',
      }, { baseDir: EXAMPLES });
      return result.ok ? [] : result.problems.map((p) => [p.path, p.code]);
    };
    expect(problems(aimClips())).toEqual([['$.nodes.aim.properties.samples[1].clip', 'not-additive']]);
    const local = { ...aimClips(), aimUp: { source: 'builtin:aim', frames: [3, 3], additive: { reference: { clip: 'aimPoses', frame: 0 } } } };
    expect(problems(local)).toEqual([
      ['$.nodes.aim.properties.samples[1].clip', 'not-additive'],
      ['$.nodes.aim.properties.samples[2].clip', 'space-mismatch'],
    ]);
 
    // Samples on one line, as a BlendSpace2D's, with a message naming the aim offsets.
    const line = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: aimClips(),
      nodes: { walk: walkBase, aim: { type: 'AimOffset', inputs: { base: 'walk' }, properties: { samples: [{ clip: 'aimLeft', x: 60, y: 0 }, { clip: 'aimCenter', x: 0, y: 0 }, { clip: 'aimRight', x: -60, y: 0 }] } } },
      output: 'aim',
    }, { baseDir: EXAMPLES });
    expect(line.ok ? [] : line.problems.map((p) => [p.path, p.code, p.message])).toEqual([
      ['$.nodes.aim.properties.samples', 'collinear-samples', 'the samples lie on one line: a 2D blend space needs three samples not on one line (use AimOffset1D for one axis)'],
    ]);
  });

  it('allocates nothing per frame once warm, in a plain Node process', () => {
    const result = runProbe('aim-offset-allocation-probe.ts');
    expect(result.perFrame).toBeLessThan(4);
    expect(result.moved).toBe(true);
  });
});

describe('AimOffset1D', () => {
  it('weighs its samples along x as BlendSpace1D does; on a sample it is ApplyAdditive of that clip', () => {
    const samples = [{ clip: 'aimRight', x: -60 }, { clip: 'aimCenter', x: 0 }, { clip: 'aimLeft', x: 60 }];
    const aim = biped({ walk: walkBase, aim: { type: 'AimOffset1D', inputs: { base: 'walk' }, properties: { samples, x: 60 } } }, 'aim');
    const apply = biped({
      walk: walkBase, pose: { type: 'SequencePlayer', properties: { clip: 'aimLeft' } },
      apply: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'pose' }, properties: { space: 'mesh' } },
    }, 'apply');
    expectSamePose(run(aim, 9), run(apply, 9), 1e-12);
    const between = biped({ walk: walkBase, aim: { type: 'AimOffset1D', inputs: { base: 'walk' }, properties: { samples, x: -15 } } }, 'aim');
    run(between, 1);
    expect(Array.from((between.nodes.get('aim') as AimOffset1D).weights)).toEqual([0.25, 0.75, 0]);
  });
});

describeWithData('AimOffset on CMU 002_01 (mesh-space additives of walk frames)', () => {
  const clips = {
    walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] },
    ...Object.fromEntries([30, 70, 110].map((f) => [`f${f}`, { source: `${CMU}002_01.bvh`, frames: [f, f], additive: { reference: { clip: 'walk', frame: 0 }, space: 'mesh' } }])),
    f70local: { source: `${CMU}002_01.bvh`, frames: [70, 70], additive: { reference: { clip: 'walk', frame: 0 } } },
  };
  const load = (nodes: Record<string, unknown>, output: string) =>
    loadGraphAsset({ format: 'animgraph/1', skeleton: { bvh: `${CMU}002_01.bvh` }, clips, nodes, output }).createInstance();
  const samples = [{ clip: 'f30', x: 0, y: 0 }, { clip: 'f70', x: 1, y: 0 }, { clip: 'f110', x: 0, y: 1 }];

  it('on a sample equals ApplyAdditive of it in mesh space, and between them its weights are barycentric', () => {
    const aim = load({ walk: walkBase, aim: { type: 'AimOffset', inputs: { base: 'walk' }, properties: { samples, x: 1, y: 0, alpha: 0.6 } } }, 'aim');
    const apply = load({
      walk: walkBase, pose: { type: 'SequencePlayer', properties: { clip: 'f70' } },
      apply: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'pose' }, properties: { space: 'mesh', alpha: 0.6 } },
    }, 'apply');
    const a = run(aim, 50), b = run(apply, 50);
    expectSamePose(a, b, 1e-12);
    // The sample moves the walk: a test of a no-op would pass on anything.
    const walk = run(load({ walk: walkBase }, 'walk'), 50);
    expect(Math.max(...a.rotations.map((v, i) => Math.abs(v - walk.rotations[i])))).toBeGreaterThan(0.02);
    expect(hasNaN(a.rotations) || hasNaN(a.translations)).toBe(false);

    const between = load({ walk: walkBase, aim: { type: 'AimOffset', inputs: { base: 'walk' }, properties: { samples, x: 0.25, y: 0.5 } } }, 'aim');
    run(between, 3);
    const w = (between.nodes.get('aim') as AimOffset).weights;
    expectClose(w, [0.25, 0.25, 0.5], 1e-15);
  });

  it('a local-space additive sample is a space-mismatch', () => {
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: { bvh: `${CMU}002_01.bvh` }, clips,
      nodes: { walk: walkBase, aim: { type: 'AimOffset1D', inputs: { base: 'walk' }, properties: { samples: [{ clip: 'f30', x: 0 }, { clip: 'f70local', x: 1 }] } } },
      output: 'aim',
    });
    expect(result.ok ? [] : result.problems.map((p) => [p.path, p.code])).toEqual([['$.nodes.aim.properties.samples[1].clip', 'space-mismatch']]);
  });
});

/** q · v for the quaternion at `q[o]`. */
function rotate(q: ArrayLike<number>, o: number, v: readonly number[]): number[] {
  const [x, y, z, w] = [q[o], q[o + 1], q[o + 2], q[o + 3]];
  const m = [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
  return m.map((row) => row[0] * v[0] + row[1] * v[1] + row[2] * v[2]);
}

/**
 * The yaw and pitch (degrees; Y up) from a bone's socket to `target`, measured on a graph's
 * component pose by rotation matrices, independently of the node's own composition.
 */
function lookAtAngles(g: AnimGraphInstance, bone: number, offset: readonly number[], axis: readonly number[], target: readonly number[]): [number, number] {
  const c = g.componentPose();
  const shift = rotate(c.rotations, bone * 4, offset.map((v, i) => v * c.scales[bone * 3 + i]));
  const socket = [0, 1, 2].map((i) => c.translations[bone * 3 + i] + shift[i]);
  const f = rotate(c.rotations, bone * 4, axis), d = target.map((v, i) => v - socket[i]);
  let yaw = Math.atan2(d[0], d[2]) - Math.atan2(f[0], f[2]);
  if (yaw > Math.PI) yaw -= 2 * Math.PI;
  if (yaw < -Math.PI) yaw += 2 * Math.PI;
  const pitch = Math.atan2(d[1], Math.hypot(d[0], d[2])) - Math.atan2(f[1], Math.hypot(f[0], f[2]));
  return [yaw / DEG, pitch / DEG];
}

describe('AimOffsetLookAt', () => {
  const straight = { type: 'SequenceEvaluator', properties: { clip: 'aimPoses', explicitTime: 0 } };
  const params = { target: { type: 'vec3', default: [0, 0, 1000] } };
  const lookAt = (base: unknown, extra: Record<string, unknown> = {}) => biped({
    base, aim: { type: 'AimOffsetLookAt', inputs: { base: 'base' }, properties: { samples: aimSamples, target: { param: 'target' }, sourceBone: 'head', socketOffset: [0, 5, 8], ...extra } },
  }, 'aim', params);

  it('a target 30 degrees left and 10 up of a straight head weighs the samples at (30, 10), as AimOffset there (1e-12)', () => {
    const g = lookAt(straight);
    const head = biped({ base: straight }, 'base', params);
    run(head, 1);
    const c = head.componentPose(), at = [0, 1, 2].map((i) => c.translations[5 * 3 + i] + [0, 5, 8][i]);
    const direction = [Math.sin(30 * DEG) * Math.cos(10 * DEG), Math.sin(10 * DEG), Math.cos(30 * DEG) * Math.cos(10 * DEG)];
    g.setParameter('target', direction.map((v, i) => at[i] + 400 * v));
    const out = run(g, 3), node = g.nodes.get('aim') as AimOffsetLookAt;
    expectClose(node.coordinates, [30, 10], 1e-12);
    // The next update weighs the samples at the look last measured, not at the blend space's (0, 0).
    g.update(1 / 60);
    expectClose(node.coordinates, [30, 10], 1e-12);
    const aim = biped({ base: straight, aim: { type: 'AimOffset', inputs: { base: 'base' }, properties: { samples: aimSamples, x: 30, y: 10 } } }, 'aim');
    expectSamePose(out, run(aim, 3), 1e-12);
    // Behind the character to its right: yaw wraps to the far side, pitch below.
    g.setParameter('target', [at[0] - 100, at[1] - 100, at[2] - 100]);
    run(g, 1);
    expectClose(node.coordinates, [-135, -Math.atan(100 / Math.hypot(100, 100)) / DEG], 1e-12);
  });

  it('measures the look on the base pose the walk gives (its socket composed to component space)', () => {
    const g = lookAt(walkBase, { sourceAxis: [0.2, 0.1, 1] }), base = biped({ base: walkBase }, 'base', params);
    const node = g.nodes.get('aim') as AimOffsetLookAt;
    const axis = [0.2, 0.1, 1].map((v) => v / Math.hypot(0.2, 0.1, 1));
    for (const [frames, target] of [[5, [120, 180, 300]], [17, [-40, 60, 500]], [30, [0, 300, -50]]] as [number, number[]][]) {
      g.setParameter('target', target);
      run(g, frames);
      run(base, frames);
      expectClose(node.coordinates, lookAtAngles(base, 5, [0, 5, 8], axis, target), 1e-9);
    }
  });

  it('keeps its last weights for a target at the socket, and stays finite', () => {
    const g = lookAt(straight);
    g.setParameter('target', [200, 150, 300]);
    run(g, 2);
    const node = g.nodes.get('aim') as AimOffsetLookAt, before = Array.from(node.weights);
    const head = biped({ base: straight }, 'base', params);
    run(head, 1);
    const c = head.componentPose();
    g.setParameter('target', [0, 1, 2].map((i) => c.translations[15 + i] + [0, 5, 8][i]));
    const out = run(g, 2);
    expect(Array.from(node.weights)).toEqual(before);
    expect(hasNaN(out.rotations)).toBe(false);
  });
});

describeWithData('AimOffsetLookAt on CMU 002_01', () => {
  it('measures yaw and pitch from the head of the walking capture, as its component pose gives them', () => {
    const clips = {
      walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] },
      ...Object.fromEntries([30, 70, 110].map((f) => [`f${f}`, { source: `${CMU}002_01.bvh`, frames: [f, f], additive: { reference: { clip: 'walk', frame: 0 }, space: 'mesh' } }])),
    };
    const parameters = { target: { type: 'vec3', default: [0, 0, 0] } };
    const load = (nodes: Record<string, unknown>, output: string) =>
      loadGraphAsset({ format: 'animgraph/1', skeleton: { bvh: `${CMU}002_01.bvh` }, clips, parameters, nodes, output }).createInstance();
    const samples = [{ clip: 'f30', x: 0, y: 0 }, { clip: 'f70', x: 60, y: 0 }, { clip: 'f110', x: 0, y: 40 }];
    const g = load({ walk: walkBase, aim: { type: 'AimOffsetLookAt', inputs: { base: 'walk' }, properties: { samples, target: { param: 'target' }, sourceBone: 'CC_Base_Head', socketOffset: [0, 8, 9] } } }, 'aim');
    const base = load({ walk: walkBase }, 'walk');
    const bone = base.skeleton.indexOf('CC_Base_Head');
    const node = g.nodes.get('aim') as AimOffsetLookAt;
    let moved = 0;
    for (const [frames, target] of [[10, [100, 150, 400]], [40, [-200, 100, 300]], [25, [50, 250, 200]]] as [number, number[]][]) {
      g.setParameter('target', target);
      const out = run(g, frames), walk = run(base, frames);
      expectClose(node.coordinates, lookAtAngles(base, bone, [0, 8, 9], [0, 0, 1], target), 1e-9);
      expect(hasNaN(out.rotations)).toBe(false);
      moved = Math.max(moved, ...out.rotations.map((v, i) => Math.abs(v - walk.rotations[i])));
    }
    expect(moved).toBeGreaterThan(0.01);
  });
});

describe('graphs/examples/sample-aim-offset.json', () => {
  it('loads, and runs finite through every state with the aim swept over and beyond its samples', () => {
    const g = loadGraphFile(`${EXAMPLES}sample-aim-offset.json`).createInstance();
    const node = g.nodes.get('aim') as AimOffset;
    let frame = 0, turned = 0;
    for (const speed of [0, 150, 400, 0]) {
      g.setParameter('speed', speed);
      for (let i = 0; i < 90; i++, frame++) {
        g.setParameter('yaw', 80 * Math.sin(frame * 0.05));
        g.setParameter('pitch', 50 * Math.cos(frame * 0.03));
        g.update(1 / 60);
        const pose = g.evaluate();
        expect(hasNaN(pose.rotations) || hasNaN(pose.translations) || hasNaN(pose.scales)).toBe(false);
        turned = Math.max(turned, Math.abs(node.coordinates[0]));
      }
    }
    // The yaw went beyond the samples' ±60: the weights stay on the outline.
    expect(turned).toBeGreaterThan(60);
    expect(node.weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
  });
});

describe('graphs/examples/sample-aim-look-at.json', () => {
  it('loads, turns the head toward a target moving round the character, and runs finite in every state', () => {
    const g = loadGraphFile(`${EXAMPLES}sample-aim-look-at.json`).createInstance();
    const node = g.nodes.get('aim') as AimOffsetLookAt;
    const yaws: number[] = [];
    let frame = 0;
    for (const speed of [0, 150, 400, 0]) {
      g.setParameter('speed', speed);
      for (let i = 0; i < 90; i++, frame++) {
        g.setParameter('target', [300 * Math.sin(frame * 0.04), 150 + 100 * Math.sin(frame * 0.07), 300 * Math.cos(frame * 0.04)]);
        g.update(1 / 60);
        const pose = g.evaluate();
        expect(hasNaN(pose.rotations) || hasNaN(pose.translations) || hasNaN(pose.scales)).toBe(false);
        yaws.push(node.coordinates[0]);
      }
    }
    // The target went all the way round: the measured yaw covered both sides.
    expect(Math.min(...yaws)).toBeLessThan(-150);
    expect(Math.max(...yaws)).toBeGreaterThan(150);
  });
});

describe('aim offsets in an InstanceBatch', () => {
  it('give each character the poses an instance of its own gives (both examples, aims and speeds differing)', () => {
    for (const file of ['sample-aim-offset.json', 'sample-aim-look-at.json']) {
      const graph = loadGraphFile(`${EXAMPLES}${file}`);
      const batch = graph.createInstances(3, { componentSpace: true });
      const alone = [0, 1, 2].map(() => graph.createInstance());
      [1 / 60, 1 / 30, 0, 1 / 60, 0.05].forEach((dt, frame) => {
        for (const [i, g] of [...batch.instances.map((g, i) => [i, g] as const), ...alone.map((g, i) => [i, g] as const)]) {
          g.setParameter('speed', [0, 150, 400][i]);
          if (file === 'sample-aim-offset.json') {
            g.setParameter('yaw', 20 * i - 25 + frame);
            g.setParameter('pitch', 15 - 10 * i);
          } else g.setParameter('target', [100 * i - 100, 120 + 10 * frame, 200]);
        }
        batch.update(dt);
        for (const g of alone) {
          g.update(dt);
          g.evaluate();
        }
      });
      expectRowsLikeAlone(batch, alone);
    }
  });
});
