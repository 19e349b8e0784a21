import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadGraphFile, runGraph } from '../../node.ts';
import { loadGraphAsset } from '../../host/files.ts';
import { AdditiveReferencePose, applyAdditive, makeAdditive } from '../../runtime/core/additive.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import { quatFromAxisAngle, quatMultiply } from '../../runtime/core/math.ts';
import { Pose, poseCopy } from '../../runtime/core/pose.ts';
import { sampleClip as builtinClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { Skeleton } from '../../runtime/core/skeleton.ts';
import { GraphLoadError } from '../../graphs/loader.ts';
import { expectClose, hasNaN } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';
import { runProbe } from '../support/allocation.ts';

const DEG = Math.PI / 180;
const skeleton = sampleSkeleton();
const sample = (clip: string, time: number) => sampleClip(new Pose(22), new ClipBinding(builtinClip(clip), skeleton), time, true);
const bone = (name: string) => skeleton.indexOf(name);

function biped(nodes: Record<string, unknown>, output: string, clips: Record<string, unknown> = {}, parameters: Record<string, unknown> = {}) {
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' }, ...clips },
    parameters,
    nodes,
    output,
  });
}

/** The angle of unit quaternion q (radians), and its axis. */
function angleAxis(q: ArrayLike<number>): [number, number[]] {
  const w = Math.abs(q[3]), s = Math.hypot(q[0], q[1], q[2]), sign = q[3] < 0 ? -1 : 1;
  return [2 * Math.atan2(s, w), [q[0], q[1], q[2]].map((x) => (sign * x) / s)];
}
/** a · conjugate(b) at bone offsets. */
function relative(a: Float64Array, b: Float64Array, o: number): Float64Array {
  const conj = Float64Array.of(-b[o], -b[o + 1], -b[o + 2], b[o + 3]);
  return quatMultiply(new Float64Array(4), 0, a, o, conj, 0);
}

// The walk at its frame 7 as the base, the run at 0.4 s as the pose: ApplyAdditive(base, MakeAdditive(run, walk frame 7)).
const roundTrip = (alpha: number, space: 'local' | 'mesh') => biped({
  base: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: 7 / 30 } },
  run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: 0.4 } },
  delta: { type: 'MakeAdditive', inputs: { pose: 'run' }, properties: { reference: { clip: 'walk', frame: 7 }, space } },
  apply: { type: 'ApplyAdditive', inputs: { base: 'base', additive: 'delta' }, properties: { alpha, space } },
}, 'apply').createInstance();

describe('ApplyAdditive', () => {
  it('mesh space: instances interleaved give what each gives alone (the rotations are scratch within one call)', () => {
    const [a, b] = [roundTrip(0.3, 'mesh'), roundTrip(0.8, 'mesh')];
    a.update(1 / 30);
    b.update(1 / 30);
    const [pa, pb] = [a, b].map((g) => Array.from(g.evaluate().rotations));
    expect(pa).not.toEqual(pb);
    const [aloneA, aloneB] = [roundTrip(0.3, 'mesh'), roundTrip(0.8, 'mesh')];
    for (const g of [aloneB, aloneA]) g.update(1 / 30);
    expect(Array.from(aloneB.evaluate().rotations)).toEqual(pb);
    expect(Array.from(aloneA.evaluate().rotations)).toEqual(pa);
  });

  it('gives back the pose: base + (pose - base) = pose, local and mesh space', () => {
    for (const space of ['local', 'mesh'] as const) {
      const g = roundTrip(1, space);
      g.update(1 / 30);
      const out = g.evaluate(), run = sample('run', 0.4);
      expectClose(out.translations, run.translations, 1e-12);
      expectClose(out.scales, run.scales, 1e-12);
      // q and -q are one rotation.
      for (let o = 0; o < 88; o += 4) {
        const s = Math.sign(out.rotations[o + 3] * run.rotations[o + 3] + out.rotations[o] * run.rotations[o]) || 1;
        expectClose(out.rotations.subarray(o, o + 4).map((x) => x * s), run.rotations.subarray(o, o + 4), 1e-12);
      }
    }
  });

  it('at alpha 0 is the base bit for bit, and does not update the additive branch', () => {
    const g = roundTrip(0, 'local');
    g.update(1 / 30);
    const out = g.evaluate(), walk = sample('walk', 7 / 30);
    expect(Array.from(out.translations)).toEqual(Array.from(walk.translations));
    expect(Array.from(out.rotations)).toEqual(Array.from(walk.rotations));
    expect(g.gatherDebug().children[0].children[1].weight).toBe(0);
  });

  it('at alpha 0.5 goes half the way: half the translation, half the rotation angle about the same axis', () => {
    const g = roundTrip(0.5, 'local');
    g.update(1 / 30);
    const out = g.evaluate(), walk = sample('walk', 7 / 30), run = sample('run', 0.4);
    for (let i = 0; i < 66; i++) expect(out.translations[i]).toBeCloseTo((walk.translations[i] + run.translations[i]) / 2, 12);
    for (const name of ['spine_01', 'thigh_l', 'lowerarm_r', 'upperarm_l']) {
      const o = bone(name) * 4;
      const [full, axis] = angleAxis(relative(run.rotations, walk.rotations, o));
      const [half, halfAxis] = angleAxis(relative(out.rotations, walk.rotations, o));
      expect(full).toBeGreaterThan(2 * DEG);
      expect(half).toBeCloseTo(full / 2, 12);
      expectClose(halfAxis, axis, 1e-9);
    }
    expect(g.gatherDebug().children[0].description).toBe('Alpha: 50.0% (local)');
  });

  it('scales the rotation delta from the identity by nlerp, as Unreal\'s BlendFromIdentityAndAccumulate; by slerp when asked', () => {
    const at = (alpha: number, rotationBlend?: string) => {
      const g = biped({
        base: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: 7 / 30 } },
        run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: 0.4 } },
        delta: { type: 'MakeAdditive', inputs: { pose: 'run' }, properties: { reference: { clip: 'walk', frame: 7 } } },
        apply: { type: 'ApplyAdditive', inputs: { base: 'base', additive: 'delta' }, properties: { alpha, ...(rotationBlend ? { rotationBlend } : {}) } },
      }, 'apply').createInstance();
      g.update(1 / 30);
      return Float64Array.from(g.evaluate().rotations);
    };
    const walk = sample('walk', 7 / 30), run = sample('run', 0.4), nlerp = at(0.25), slerp = at(0.25, 'slerp');
    let apart = 0;
    for (const name of ['spine_01', 'thigh_l', 'calf_r', 'lowerarm_r', 'upperarm_l']) {
      const o = bone(name) * 4;
      // The delta run · walk⁻¹ in the identity's hemisphere; nlerp: normalize(0.75 · identity + 0.25 · delta), on the left of the walk.
      const d = relative(run.rotations, walk.rotations, o), sign = d[3] < 0 ? -1 : 1;
      const q = [0.25 * sign * d[0], 0.25 * sign * d[1], 0.25 * sign * d[2], 0.75 + 0.25 * sign * d[3]];
      const len = Math.hypot(...q);
      const expected = quatMultiply(new Float64Array(4), 0, Float64Array.from(q, (x) => x / len), 0, walk.rotations, o);
      const flip = expected[0] * nlerp[o] + expected[1] * nlerp[o + 1] + expected[2] * nlerp[o + 2] + expected[3] * nlerp[o + 3] < 0 ? -1 : 1;
      for (let c = 0; c < 4; c++) expect(flip * nlerp[o + c]).toBeCloseTo(expected[c], 14);
      // slerp: a quarter of the delta's angle.
      const [full] = angleAxis(d), [quarter] = angleAxis(relative(slerp, walk.rotations, o));
      expect(quarter).toBeCloseTo(full / 4, 12);
      apart = Math.max(apart, angleAxis(relative(nlerp, slerp, o))[0]);
    }
    expect(apart).toBeGreaterThan(1e-5);
  });

  it('scales multiplicatively: base × (1 + alpha × (S / Sref − 1))', () => {
    const base = new Pose(1), pose = new Pose(1), ref = new Pose(1);
    base.scales.set([2, 1, 4]);
    ref.scales.set([2, 0, 1]);
    pose.scales.set([3, 5, 1]);
    const one = new Skeleton(['b'], [-1]);
    makeAdditive(pose, new AdditiveReferencePose(ref, one), false, one.parents, new Float64Array(4));
    expect(Array.from(pose.scales)).toEqual([1.5, 0, 1]); // a zero reference scale has ratio 0, not Infinity
    applyAdditive(base, pose, Float64Array.of(0.5), 0, false, one.parents, new Float64Array(8));
    expect(Array.from(base.scales)).toEqual([2 * 1.25, 0.5, 4]);
  });

  it('mesh space turns a child about the component axes, local space about its parent\'s (hand-made chain)', () => {
    // Root and child. The pose turns the child 90° about Y from an identity reference; the base
    // has the root turned 90° about X.
    const chain = new Skeleton(['root', 'child'], [-1, 0]);
    const identity = new AdditiveReferencePose(new Pose(2), chain);
    const results: Record<string, Float64Array> = {};
    for (const space of ['local', 'mesh'] as const) {
      const pose = new Pose(2);
      quatFromAxisAngle(pose.rotations, 4, 0, 1, 0, 90 * DEG);
      makeAdditive(pose, identity, space === 'mesh', chain.parents, new Float64Array(8));
      const base = new Pose(2);
      quatFromAxisAngle(base.rotations, 0, 1, 0, 0, 90 * DEG);
      applyAdditive(base, pose, Float64Array.of(1), 0, space === 'mesh', chain.parents, new Float64Array(16));
      expectClose(base.rotations.subarray(0, 4), [Math.SQRT1_2, 0, 0, Math.SQRT1_2], 1e-15); // the root keeps the base's
      results[space] = base.rotations.slice(4, 8);
    }
    // Local: the child's local rotation is the delta itself, 90° about Y.
    expectClose(results.local, [0, Math.SQRT1_2, 0, Math.SQRT1_2], 1e-15);
    // Mesh: its component rotation is Ry(90) · Rx(90), so locally Rx(-90) · Ry(90) · Rx(90) = 90° about -Z.
    expectClose(results.mesh, [0, 0, -Math.SQRT1_2, Math.SQRT1_2], 1e-15);
  });

  it('clamps a bound alpha to [0, 1]', () => {
    const g = biped({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      delta: { type: 'MakeAdditive', inputs: { pose: 'run' } },
      apply: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'delta' }, properties: { alpha: { param: 'a' } } },
    }, 'apply', {}, { a: { type: 'float', default: 3 } }).createInstance();
    g.update(0.1);
    expect(g.gatherDebug().children[0].values).toEqual({ alpha: 1, space: 'local' });
    g.setParameter('a', -2);
    g.update(0.1);
    expect(g.gatherDebug().children[0].values?.alpha).toBe(0);
    expect(g.gatherDebug().children[0].children[1].weight).toBe(0);
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
  });

  it('drops the root motion of its additive branch', () => {
    const clips = { walkRm: { source: 'builtin:walk', rootMotion: true } };
    const nodes = {
      walk: { type: 'SequencePlayer', properties: { clip: 'walkRm' } },
      delta: { type: 'MakeAdditive', inputs: { pose: 'walk' } },
    };
    const moving = biped(nodes, 'delta', clips).createInstance();
    const applied = biped({
      ...nodes, idle: { type: 'SequencePlayer', properties: { clip: 'idle' } }, apply: { type: 'ApplyAdditive', inputs: { base: 'idle', additive: 'delta' } },
    }, 'apply', clips).createInstance();
    moving.update(0.2);
    applied.update(0.2);
    expect(Math.max(...Array.from(moving.rootMotion, Math.abs))).toBeGreaterThan(1e-3); // the pelvis's sway and heading
    expect(Array.from(applied.rootMotion)).toEqual([0, 0, 0, 0]);
  });

  describe('load errors, at the link, all at once', () => {
    const check = (nodes: Record<string, unknown>, clips: Record<string, unknown> = {}) => {
      try {
        biped(nodes, 'apply', clips);
      } catch (e) {
        if (e instanceof GraphLoadError) return e.problems.map((p) => [p.path, p.code]);
        throw e;
      }
      return [];
    };

    it('an additive input fed an ordinary pose is not-additive; an additive of the other space a space-mismatch', () => {
      expect(check({
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run' } },
        idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
        blend: { type: 'BlendTwo', inputs: { A: 'run', B: 'idle' } },
        inner: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'blend' } },
        idle2: { type: 'SequencePlayer', properties: { clip: 'idle' } },
        mesh: { type: 'MakeAdditive', inputs: { pose: 'idle2' }, properties: { space: 'mesh' } },
        apply: { type: 'ApplyAdditive', inputs: { base: 'inner', additive: 'mesh' } },
      })).toEqual([
        ['$.nodes.inner.inputs.additive', 'not-additive'],
        ['$.nodes.apply.inputs.additive', 'space-mismatch'],
      ]);
    });

    it('a player of a clip marked additive is an additive source, of its clip\'s space', () => {
      const clips = { lean: { source: 'builtin:run', additive: { space: 'mesh' } } };
      const nodes = (space: string) => ({
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        lean: { type: 'SequenceEvaluator', properties: { clip: 'lean' } },
        apply: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'lean' }, properties: { space } },
      });
      expect(check(nodes('mesh'), clips)).toEqual([]);
      expect(check(nodes('local'), clips)).toEqual([['$.nodes.apply.inputs.additive', 'space-mismatch']]);
    });

    it('bad additive clips and MakeAdditive references', () => {
      expect(check({
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run' } },
        delta: { type: 'MakeAdditive', inputs: { pose: 'run' }, properties: { reference: { clip: 'jog', frame: 0 } } },
        apply: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'delta' } },
      }, {
        a: { source: 'builtin:run', additive: { reference: { clip: 'nope', frame: 0 } } },
        b: { source: 'builtin:run', additive: { reference: { clip: 'walk', frame: 34 } } },
        c: { source: 'builtin:run', rootMotion: true, additive: {} },
        d: { source: 'builtin:run', additive: { space: 'world' } },
      })).toEqual([
        ['$.clips.d.additive.space', 'schema'],
        ['$.clips.a.additive.reference.clip', 'unknown-clip'],
        ['$.clips.b.additive.reference.frame', 'clip-frames'],
        ['$.clips.c.additive', 'schema'],
        ['$.nodes.delta.properties.reference.clip', 'unknown-clip'],
      ]);
      // Past the other checks: a reference frame outside its clip.
      expect(check({
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run' } },
        delta: { type: 'MakeAdditive', inputs: { pose: 'run' }, properties: { reference: { clip: 'walk', frame: -40 } } },
        apply: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'delta' } },
      })).toEqual([['$.nodes.delta.properties.reference.frame', 'schema']]);
    });
  });

  it('allocates nothing per frame once warm, in a plain Node process', () => {
    const result = runProbe('additive-allocation-probe.ts');
    expect(result.perFrame).toBeLessThan(4);
    expect(result.moved).toBe(true);
  });
});

describe('graphs/examples/sample-additive-lean.json (through runGraph)', () => {
  const graph = loadGraphFile(fileURLToPath(new URL('../../graphs/examples/sample-additive-lean.json', import.meta.url)));
  const fps = 30, frames = 40;
  const run = (lean: number) => runGraph(graph, { frames, fps, timeline: [{ name: 'lean', value: lean, time: 0 }] });

  it('leans the walk forward by alpha × the run\'s extra 4° of spine and lowers the pelvis by alpha × 1 cm', () => {
    const plain = run(0), leaning = run(0.75);
    const spine = bone('spine_01'), pelvis = bone('pelvis');
    for (let f = 0; f < frames; f++) {
      const a = plain.frames[f].local![spine], b = leaning.frames[f].local![spine];
      // Both about X: the run's spine_01 is lean/2 = 6° at its first frame, the walk's 2°. The 4° delta
      // is nlerped from the identity by 0.75 (as Unreal's): 2 atan2(0.75 sin 2°, 0.25 + 0.75 cos 2°).
      const angle = (row: number[]) => 2 * Math.atan2(row[3], row[6]);
      expect(angle(b) - angle(a)).toBeCloseTo(2 * Math.atan2(0.75 * Math.sin(2 * DEG), 0.25 + 0.75 * Math.cos(2 * DEG)), 12);
      expect(leaning.frames[f].local![pelvis][1] - plain.frames[f].local![pelvis][1]).toBeCloseTo(-0.75, 10);
    }
    expect(leaning.frames[5].debug!.children[0].description).toBe('Alpha: 75.0% (local)');
  });

  it('is deterministic', () => {
    expect(run(0.5).frames.map((f) => f.local)).toEqual(run(0.5).frames.map((f) => f.local));
  });
});

describeWithData('ApplyAdditive: nlerp against slerp on CMU subject 2 (run over walk)', () => {
  // The run's delta from the walk's first frame, over the walk at the same time, 40 frames at alpha 0.1 to 0.9.
  const graph = (alpha: number, space: string, rotationBlend: string) => loadGraphAsset({
    format: 'animgraph/1', skeleton: { bvh: `${CMU}002_01.bvh` },
    clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] }, run: { source: `${CMU}002_03.bvh`, frames: [1, -1] } },
    parameters: { t: { type: 'float', default: 0 } },
    nodes: {
      base: { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: { param: 't' } } },
      run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: { param: 't' } } },
      delta: { type: 'MakeAdditive', inputs: { pose: 'run' }, properties: { reference: { clip: 'walk', frame: 0 }, space } },
      apply: { type: 'ApplyAdditive', inputs: { base: 'base', additive: 'delta' }, properties: { alpha, space, rotationBlend } },
    },
    output: 'apply',
  }).createInstance();
  /** The largest local rotation angle and component-space position (cm) between the two blends. */
  const apart = (space: string) => {
    let angle = 0, position = 0;
    for (let a = 1; a <= 9; a++) {
      const [n, s] = [graph(a / 10, space, 'nlerp'), graph(a / 10, space, 'slerp')];
      for (let f = 0; f < 40; f++) {
        for (const g of [n, s]) {
          g.setParameter('t', f / 30);
          g.update(1 / 30);
        }
        const pn = poseCopy(new Pose(n.skeleton.boneCount), n.evaluate()), ps = s.evaluate();
        for (let o = 0; o < pn.rotations.length; o += 4) angle = Math.max(angle, angleAxis(relative(pn.rotations, ps.rotations, o))[0]);
        const [cn, cs] = [positions(pn, n.skeleton.parents), positions(ps, s.skeleton.parents)];
        for (let k = 0; k < cn.length; k += 3) position = Math.max(position, Math.hypot(cn[k] - cs[k], cn[k + 1] - cs[k + 1], cn[k + 2] - cs[k + 2]));
      }
    }
    return [angle, position];
  };

  it('differ at partial weights by up to 0.020 rad / 0.94 cm in local space, 0.050 rad / 2.56 cm in mesh space', () => {
    const [localAngle, localPosition] = apart('local');
    expect(localAngle).toBeCloseTo(0.0201, 4);
    expect(localPosition).toBeCloseTo(0.945, 3);
    const [meshAngle, meshPosition] = apart('mesh');
    expect(meshAngle).toBeCloseTo(0.0503, 4);
    expect(meshPosition).toBeCloseTo(2.560, 3);
  });
});

/** Component-space bone positions (3 per bone) of a local pose, parents first. */
function positions(pose: Pose, parents: Int32Array): Float64Array {
  const n = parents.length, out = new Float64Array(n * 3), rot = new Float64Array(n * 4), scale = new Float64Array(n * 3);
  const t = pose.translations, r = pose.rotations, s = pose.scales;
  for (let b = 0; b < n; b++) {
    const p = parents[b];
    if (p < 0) {
      out.set(t.subarray(b * 3, b * 3 + 3), b * 3);
      rot.set(r.subarray(b * 4, b * 4 + 4), b * 4);
      scale.set(s.subarray(b * 3, b * 3 + 3), b * 3);
      continue;
    }
    // The parent's rotation applied to the parent-scaled offset: q v q*.
    const v = Float64Array.of(t[b * 3] * scale[p * 3], t[b * 3 + 1] * scale[p * 3 + 1], t[b * 3 + 2] * scale[p * 3 + 2], 0);
    const q = rot.subarray(p * 4, p * 4 + 4), conj = Float64Array.of(-q[0], -q[1], -q[2], q[3]);
    const turned = quatMultiply(new Float64Array(4), 0, quatMultiply(new Float64Array(4), 0, q, 0, v, 0), 0, conj, 0);
    for (let c = 0; c < 3; c++) {
      out[b * 3 + c] = out[p * 3 + c] + turned[c];
      scale[b * 3 + c] = scale[p * 3 + c] * s[b * 3 + c];
    }
    quatMultiply(rot, b * 4, rot, p * 4, r, b * 4);
  }
  return out;
}
