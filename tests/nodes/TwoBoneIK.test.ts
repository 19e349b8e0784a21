import { describe, expect, it } from 'vitest';
import { checkGraphAsset } from '../../host/files.ts';
import { ComponentPose } from '../../runtime/core/component-pose.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { quatNlerp, quatRotateVec3, vec3Lerp } from '../../runtime/core/math.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { bipedInstance, expectClose, hasNaN } from '../support/graphs.ts';
import { describeWithData } from '../support/shared-data.ts';
import { cmuWalkInstance } from '../support/walk-controls.ts';

const skeleton = sampleSkeleton();
const bone = (name: string) => skeleton.indexOf(name);
const THIGH = bone('thigh_l'), CALF = bone('calf_l'), FOOT = bone('foot_l'), BALL = bone('ball_l');
const TIME = 0.3;

type V = [number, number, number];
const pos = (cs: ComponentPose, b: number): V => {
  cs.ensureComponent(b);
  return [cs.translations[b * 3], cs.translations[b * 3 + 1], cs.translations[b * 3 + 2]];
};
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: V, b: V): V => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const dist = (a: V, b: V) => Math.hypot(...sub(a, b));
const perp = (v: V, axis: V): V => {
  const u = axis.map((x) => x / Math.hypot(...axis)) as V;
  const k = dot(v, u);
  return [v[0] - k * u[0], v[1] - k * u[1], v[2] - k * u[2]];
};

/** The walk at TIME without the IK, in component space. */
function fkPose(): ComponentPose {
  const g = bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'walk');
  g.update(TIME);
  const cs = new ComponentPose(skeleton);
  cs.setFromLocal(g.evaluate());
  cs.ensureAllComponent();
  return cs;
}

function ikGraph(properties: Record<string, unknown>): AnimGraphInstance {
  return bipedInstance({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    ik: { type: 'TwoBoneIK', inputs: { pose: 'walk' }, properties: { endBone: 'foot_l', target: { param: 't' }, ...properties } },
  }, 'ik', { t: { type: 'vec3', default: [0, 0, 0] }, h: { type: 'vec3', default: [0, 0, 1] }, a: { type: 'float', default: 1 } });
}

function solved(properties: Record<string, unknown>, target: V): ComponentPose {
  const g = ikGraph(properties);
  g.setParameter('t', target);
  g.update(TIME);
  return g.componentPose();
}

describe('TwoBoneIK with extreme bound values (fuzz regressions, issue 13)', () => {
  it('a target at ±1.8e308 is out of reach like one at 1e9 along its direction: finite reach error and pose', () => {
    // The distance to [MAX, MAX, 0] overflowed: debug reachError was Infinity.
    const far = solved({}, [Number.MAX_VALUE, Number.MAX_VALUE, 0]);
    const bounded = solved({}, [1e9, 1e9, 0]);
    expectClose(far.translations, bounded.translations, 0);
    const g = ikGraph({ hintMode: 'position', hint: { param: 'h' } });
    g.setParameter('t', [-Number.MAX_VALUE, 0, Number.MAX_VALUE]);
    g.setParameter('h', [Number.MAX_VALUE, -Number.MAX_VALUE, 1]);
    g.update(TIME);
    expect(hasNaN(g.componentPose().translations)).toBe(false);
    const values = g.gatherDebug().children[0].values!;
    expect(Number.isFinite(values.reachError)).toBe(true);
    expect(values.reachError as number).toBeGreaterThan(1e9);
  });

  it('bound stretch ratio and scale are held to [0, 1e6] and [1, 1e6]: a scale of 1.3e154 squared to Infinity', () => {
    const g = bipedInstance({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      ik: { type: 'TwoBoneIK', inputs: { pose: 'walk' }, properties: { endBone: 'foot_l', target: [0, 0, 0], allowStretch: true, startStretchRatio: { param: 's' }, maxStretchScale: { param: 'm' } } },
    }, 'ik', { s: { type: 'float', default: -Number.MAX_VALUE }, m: { type: 'float', default: 1.3407807929942645e154 } });
    g.update(TIME);
    const pose = g.evaluate();
    expect(hasNaN(pose.translations) || hasNaN(pose.rotations)).toBe(false);
    // Held to the range's ends, it is the same pose as those literal values give.
    const literal = bipedInstance({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      ik: { type: 'TwoBoneIK', inputs: { pose: 'walk' }, properties: { endBone: 'foot_l', target: [0, 0, 0], allowStretch: true, startStretchRatio: 0, maxStretchScale: 1e6 } },
    }, 'ik');
    literal.update(TIME);
    expectClose(pose.translations, literal.evaluate().translations, 0);
  });
});

describe('TwoBoneIK on the built-in biped (thigh_l > calf_l > foot_l)', () => {
  const fk = fkPose();
  const thigh = pos(fk, THIGH), knee = pos(fk, CALF), foot = pos(fk, FOOT);
  const l1 = dist(knee, thigh), l2 = dist(foot, knee);
  const target = add(foot, [6, 14, 9]); // lift the foot and move it out and forward

  it('reaches a reachable target, keeps the thigh in place and the bone lengths, bends toward the hint', () => {
    const cs = solved({ hintMode: 'direction', hint: { param: 'h' } }, target);
    expect(dist(pos(cs, FOOT), target)).toBeLessThanOrEqual(1e-4 * (l1 + l2));
    expect(dist(pos(cs, FOOT), target)).toBeLessThan(1e-9);
    expectClose(pos(cs, THIGH), thigh, 1e-12);
    expect(Math.abs(dist(pos(cs, CALF), pos(cs, THIGH)) - l1)).toBeLessThan(1e-9);
    expect(Math.abs(dist(pos(cs, FOOT), pos(cs, CALF)) - l2)).toBeLessThan(1e-9);
    // The knee is on the +Z (forward) side of the thigh–target line.
    const reach = sub(target, thigh);
    expect(dot(perp(sub(pos(cs, CALF), thigh), reach), perp([0, 0, 1], reach))).toBeGreaterThan(0);
    // The hint decides: pointing it backward puts the knee behind the line.
    const back = solved({ hintMode: 'direction', hint: [0, 0, -1] }, target);
    expect(dot(perp(sub(pos(back, CALF), thigh), reach), perp([0, 0, 1], reach))).toBeLessThan(0);
    expect(dist(pos(back, FOOT), target)).toBeLessThan(1e-9);
  });

  it('keeps the foot’s component-space rotation by default, and its children follow it', () => {
    const cs = solved({ hintMode: 'direction', hint: [0, 0, 1] }, target);
    expectClose(cs.rotations.subarray(FOOT * 4, FOOT * 4 + 4), fk.rotations.subarray(FOOT * 4, FOOT * 4 + 4), 1e-12);
    expectClose(cs.local.translations.subarray(BALL * 3, BALL * 3 + 3), fk.local.translations.subarray(BALL * 3, BALL * 3 + 3), 1e-12);
    expectClose(cs.local.rotations.subarray(BALL * 4, BALL * 4 + 4), fk.local.rotations.subarray(BALL * 4, BALL * 4 + 4), 1e-12);
    // keepEndRotation off: the foot keeps its rotation relative to the calf instead.
    const rel = solved({ hintMode: 'direction', hint: [0, 0, 1], keepEndRotation: false }, target);
    expectClose(rel.local.rotations.subarray(FOOT * 4, FOOT * 4 + 4), fk.local.rotations.subarray(FOOT * 4, FOOT * 4 + 4), 1e-12);
  });

  it('takes a joint target position in position mode (Unreal’s Joint Target)', () => {
    const front = solved({ hintMode: 'position', hint: add(knee, [0, 0, 40]) }, target);
    const behind = solved({ hintMode: 'position', hint: add(knee, [0, 0, -40]) }, target);
    const reach = sub(target, thigh);
    expect(dot(perp(sub(pos(front, CALF), thigh), reach), perp([0, 0, 1], reach))).toBeGreaterThan(0);
    expect(dot(perp(sub(pos(behind, CALF), thigh), reach), perp([0, 0, 1], reach))).toBeLessThan(0);
  });

  it('without a hint keeps the walk’s knee bend (forward)', () => {
    const cs = solved({}, target);
    const reach = sub(target, thigh);
    expect(dist(pos(cs, FOOT), target)).toBeLessThan(1e-9);
    expect(dot(perp(sub(pos(cs, CALF), thigh), reach), perp(sub(knee, thigh), sub(foot, thigh)))).toBeGreaterThan(0);
  });

  it('reaches for a bone in bone mode, offset in that bone’s space', () => {
    const r = bone('calf_r');
    const right = pos(fk, r);
    const offset: V = [4, -10, 5];
    const turned = quatRotateVec3(new Float64Array(3), 0, fk.rotations, r * 4, Float64Array.from(offset), 0);
    const expected = add(right, [turned[0], turned[1], turned[2]]);
    expect(dist(expected, thigh)).toBeLessThan(l1 + l2); // reachable, so reached
    const cs = solved({ targetMode: 'bone', targetBone: 'calf_r', target: offset, hintMode: 'direction', hint: [0, 0, 1] }, [0, 0, 0]);
    expect(dist(pos(cs, FOOT), expected)).toBeLessThan(1e-9);
    const at = solved({ targetMode: 'bone', targetBone: 'calf_r' }, [0, 0, 0]);
    expect(dist(pos(at, FOOT), right)).toBeLessThan(1e-9);
    expect(Math.hypot(...turned)).toBeGreaterThan(10);
  });

  it('straightens toward an unreachable target, and stretches toward it when allowed', () => {
    const far = add(thigh, [0, -150, 40]);
    const dir = sub(far, thigh).map((x) => x / dist(far, thigh)) as V;
    const cs = solved({}, far);
    expectClose(pos(cs, CALF), add(thigh, dir.map((x) => x * l1) as V), 1e-9);
    expectClose(pos(cs, FOOT), add(thigh, dir.map((x) => x * (l1 + l2)) as V), 1e-9);
    // 10% beyond reach: reached with the defaults (up to 1.2), by moving the calf and foot (no scale).
    const near = add(thigh, dir.map((x) => x * 1.1 * (l1 + l2)) as V);
    const st = solved({ allowStretch: true }, near);
    expect(dist(pos(st, FOOT), near)).toBeLessThan(1e-6);
    expect(dist(pos(st, CALF), thigh)).toBeCloseTo(1.1 * l1, 6);
    expectClose(st.scales, fk.scales, 0);
    // Beyond the maximum scale: fully extended at maxStretchScale.
    const held = solved({ allowStretch: true, maxStretchScale: 1.05 }, far);
    expectClose(pos(held, FOOT), add(thigh, dir.map((x) => x * 1.05 * (l1 + l2)) as V), 1e-9);
  });

  it('blends by alpha as every skeletal control: each bone lerped/nlerped in component space toward the solution', () => {
    const full = solved({ hintMode: 'direction', hint: [0, 0, 1] }, target);
    const g = ikGraph({ hintMode: 'direction', hint: [0, 0, 1], alpha: { param: 'a' } });
    g.setParameter('t', target);
    g.setParameter('a', 0.5);
    g.update(TIME);
    const half = g.componentPose();
    const expected = fkPose();
    const t = new Float64Array(3), r = new Float64Array(4), s = new Float64Array(3);
    for (const b of [THIGH, CALF, FOOT]) {
      expected.ensureComponent(b);
      vec3Lerp(t, 0, expected.translations, b * 3, full.translations, b * 3, 0.5);
      quatNlerp(r, 0, expected.rotations, b * 4, full.rotations, b * 4, 0.5);
      vec3Lerp(s, 0, expected.scales, b * 3, full.scales, b * 3, 0.5);
      expected.setComponent(b, t, r, s, 0);
    }
    expected.ensureAllComponent();
    expectClose(half.translations, expected.translations, 1e-9);
    expectClose(half.rotations, expected.rotations, 1e-12);
    // Halfway: the foot is clearly between the FK foot and the target.
    expect(dist(pos(half, FOOT), target)).toBeGreaterThan(1);
    expect(dist(pos(half, FOOT), target)).toBeLessThan(dist(foot, target));
    expect(g.gatherDebug().children[0].description).toBe('Alpha: 50.0% thigh_l > calf_l > foot_l -> target');
    g.setParameter('a', 0);
    g.update(0);
    expectClose(g.evaluate().rotations, fk.local.rotations, 1e-12);
  });

  it('reports its target, reach error and stretch in the debug tree', () => {
    const g = ikGraph({ allowStretch: true });
    const far = add(thigh, [0, -1.1 * (l1 + l2), 0]);
    g.setParameter('t', far);
    g.update(TIME);
    g.evaluate();
    const line = g.gatherDebug().children[0];
    expect(line).toMatchObject({ type: 'TwoBoneIK', alpha: 1, description: 'Alpha: 100.0% thigh_l > calf_l > foot_l -> target' });
    expectClose(line.values!.target as number[], far, 1e-12);
    expect(line.values!.reachError).toBeLessThan(1e-6);
    expect(line.values!.stretch).toBeCloseTo(1.1, 6);
  });

  it('never produces NaN: target on the thigh or next to it, a zero or parallel hint', () => {
    for (const t of [thigh, add(thigh, [0, 1e-14, 0]), add(thigh, [0, -1e-3, 0])]) {
      for (const props of [{}, { hintMode: 'direction', hint: [0, 0, 0] }, { hintMode: 'position', hint: thigh }, { allowStretch: true }]) {
        const g = ikGraph(props);
        g.setParameter('t', t);
        g.update(TIME);
        const cs = g.componentPose();
        expect(hasNaN(cs.translations) || hasNaN(cs.rotations)).toBe(false);
      }
    }
  });
});

describe('TwoBoneIK load checks', () => {
  const asset = (ik: Record<string, unknown>) => ({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      ik: { type: 'TwoBoneIK', inputs: { pose: 'walk' }, properties: ik },
    },
    output: 'ik',
  });
  const problems = (ik: Record<string, unknown>) => {
    const r = checkGraphAsset(asset(ik));
    return r.ok ? [] : r.problems.map((p) => `${p.path} [${p.code}] ${p.message}`);
  };

  it('needs an end bone with a parent and a grandparent', () => {
    expect(problems({ endBone: 'pelvis' })).toEqual([
      "$.nodes.ik.properties.endBone [unknown-bone] bone 'pelvis' has no grandparent: the chain is endBone's grandparent (upper), parent (middle) and endBone itself",
    ]);
    expect(problems({ endBone: 'root' })).toEqual([expect.stringMatching(/^\$\.nodes\.ik\.properties\.endBone \[unknown-bone\] bone 'root' has no parent/)]);
    expect(problems({ endBone: 'nope' })).toEqual(["$.nodes.ik.properties.endBone [unknown-bone] the skeleton has no bone 'nope'"]);
    expect(problems({})).toEqual([expect.stringMatching(/^\$\.nodes\.ik\.properties\.endBone \[schema\]/)]);
    expect(problems({ endBone: 'foot_l' })).toEqual([]);
    expect(problems({ endBone: 'calf_l' })).toEqual([]);
  });

  it('needs a target bone in bone mode, and checks that it exists', () => {
    expect(problems({ endBone: 'foot_l', targetMode: 'bone' })).toEqual(["$.nodes.ik.properties.targetBone [schema] targetMode 'bone' needs a targetBone"]);
    expect(problems({ endBone: 'foot_l', targetMode: 'bone', targetBone: 'nope' })).toEqual(["$.nodes.ik.properties.targetBone [unknown-bone] the skeleton has no bone 'nope'"]);
    expect(problems({ endBone: 'foot_l', targetMode: 'bone', targetBone: 'foot_r' })).toEqual([]);
    // In vector mode a target bone is ignored (but must still exist).
    expect(problems({ endBone: 'foot_l', targetBone: 'foot_r' })).toEqual([]);
  });

  it('checks ranges and enum values', () => {
    expect(problems({ endBone: 'foot_l', maxStretchScale: 0.9 })).toEqual([expect.stringMatching(/maxStretchScale \[schema\]/)]);
    expect(problems({ endBone: 'foot_l', hintMode: 'pole' })).toEqual([expect.stringMatching(/hintMode \[schema\]/)]);
    expect(problems({ endBone: 'foot_l', alpha: 2 })).toEqual([expect.stringMatching(/alpha \[schema\]/)]);
  });
});

describeWithData('TwoBoneIK on the CMU walk (CC_Base_L_Thigh > CC_Base_L_Calf > CC_Base_L_Foot)', () => {
  const graph = cmuWalkInstance;

  it('pulls the foot 15% of the way toward the thigh every frame: reached, lengths kept, knee in its FK bend plane', () => {
    const fk = graph({}, 'walk');
    const ik = graph({ ik: { type: 'TwoBoneIK', inputs: { pose: 'walk' }, properties: { endBone: 'CC_Base_L_Foot', target: { param: 't' } } } }, 'ik');
    const sk = fk.skeleton;
    const [T, C, F] = ['CC_Base_L_Thigh', 'CC_Base_L_Calf', 'CC_Base_L_Foot'].map((n) => sk.indexOf(n));
    expect(sk.parents[F]).toBe(C);
    expect(sk.parents[C]).toBe(T);
    let frames = 0;
    for (let frame = 0; frame < 160; frame++) {
      const dt = frame === 0 ? 0 : 1 / 120;
      fk.update(dt);
      const f = fk.componentPose();
      const thigh = pos(f, T), knee = pos(f, C), foot = pos(f, F);
      const l1 = dist(knee, thigh), l2 = dist(foot, knee);
      const target = add(foot, sub(thigh, foot).map((x) => x * 0.15) as V);
      ik.setParameter('t', target);
      ik.update(dt);
      const cs = ik.componentPose();
      expect(hasNaN(cs.translations) || hasNaN(cs.rotations)).toBe(false);
      expect(dist(pos(cs, F), target)).toBeLessThanOrEqual(1e-4 * (l1 + l2));
      expectClose(pos(cs, T), thigh, 1e-9);
      expect(Math.abs(dist(pos(cs, C), thigh) - l1)).toBeLessThan(1e-9);
      expect(Math.abs(dist(pos(cs, F), pos(cs, C)) - l2)).toBeLessThan(1e-9);
      // The target is on the FK thigh–foot line, so the knee stays in the FK bend plane, on its side.
      const bend = perp(sub(knee, thigh), sub(foot, thigh));
      const newBend = perp(sub(pos(cs, C), thigh), sub(foot, thigh));
      const normal = [bend[1] * (foot[2] - thigh[2]) - bend[2] * (foot[1] - thigh[1]), bend[2] * (foot[0] - thigh[0]) - bend[0] * (foot[2] - thigh[2]), bend[0] * (foot[1] - thigh[1]) - bend[1] * (foot[0] - thigh[0])] as V;
      expect(Math.abs(dot(newBend, normal)) / Math.hypot(...normal)).toBeLessThan(1e-9);
      expect(dot(newBend, bend)).toBeGreaterThan(0);
      // The knee bends further than in the FK pose, and the foot keeps its FK rotation.
      expect(Math.hypot(...newBend)).toBeGreaterThan(Math.hypot(...bend));
      expectClose(cs.rotations.subarray(F * 4, F * 4 + 4), f.rotations.subarray(F * 4, F * 4 + 4), 1e-12);
      frames++;
    }
    expect(frames).toBe(160);
  });
});
