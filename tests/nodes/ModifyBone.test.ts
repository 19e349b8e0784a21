import { describe, expect, it } from 'vitest';
import type { ComponentPose } from '../../runtime/core/component-pose.ts';
import { quatConjugate, quatMultiply, quatRotateVec3 } from '../../runtime/core/math.ts';
import { runProbe } from '../support/allocation.ts';
import { bipedInstance, expectClose } from '../support/graphs.ts';
import { controlProblems } from '../support/walk-controls.ts';

type V = [number, number, number];
type Q = [number, number, number, number];
const add = (a: V, b: V): V => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const mul = (a: V, b: V): V => [a[0] * b[0], a[1] * b[1], a[2] * b[2]];
const rotate = (q: Q, v: V): V => Array.from(quatRotateVec3(new Float64Array(3), 0, Float64Array.from(q), 0, Float64Array.from(v), 0)) as V;
const qmul = (a: Q, b: Q): Q => Array.from(quatMultiply(new Float64Array(4), 0, Float64Array.from(a), 0, Float64Array.from(b), 0)) as Q;
const qinv = (a: Q): Q => Array.from(quatConjugate(new Float64Array(4), 0, Float64Array.from(a), 0)) as Q;
const half = (deg: number) => (deg * Math.PI) / 360;
/** Rx·Ry·Rz from degrees, written out from axis-angle halves. */
const euler = (x: number, y: number, z: number): Q =>
  qmul(qmul([Math.sin(half(x)), 0, 0, Math.cos(half(x))], [0, Math.sin(half(y)), 0, Math.cos(half(y))]), [0, 0, Math.sin(half(z)), Math.cos(half(z))]);
/** q or −q, whichever is nearer `like` (the same rotation). */
const sameSign = (q: Q, like: ArrayLike<number>): Q => (q[0] * like[0] + q[1] * like[1] + q[2] * like[2] + q[3] * like[3] < 0 ? q.map((x) => -x) as Q : q);

const T: V = [3, -2, 5], R: V = [10, 20, 30], S: V = [2, 0.5, 1.5];
const q = euler(...R);

/**
 * The walk at 0.3 s with the forearm and upper arm given non-uniform scales first (so that scale
 * and parent space show), then `modify` (a ModifyBone of lowerarm_l, or nothing).
 */
function pose(modify?: Record<string, unknown>): ComponentPose {
  const g = bipedInstance({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    upper: { type: 'ModifyBone', inputs: { pose: 'walk' }, properties: { bone: 'upperarm_l', scale: [1.2, 0.8, 1.1], scaleMode: 'replace' } },
    lower: { type: 'ModifyBone', inputs: { pose: 'upper' }, properties: { bone: 'lowerarm_l', scale: [1.5, 1, 0.5], scaleMode: 'replace' } },
    ...(modify ? { m: { type: 'ModifyBone', inputs: { pose: 'lower' }, properties: { bone: 'lowerarm_l', ...modify } } } : {}),
  }, modify ? 'm' : 'lower');
  g.update(0.3);
  return g.componentPose();
}

describe('ModifyBone: each mode in each space against transforms computed by hand', () => {
  const input = pose(), B = input.skeleton.indexOf('lowerarm_l'), P = input.skeleton.parents[B];
  const get = (cs: ComponentPose, b: number) => {
    cs.ensureComponent(b);
    return {
      t: Array.from(cs.translations.subarray(b * 3, b * 3 + 3)) as V,
      r: Array.from(cs.rotations.subarray(b * 4, b * 4 + 4)) as Q,
      s: Array.from(cs.scales.subarray(b * 3, b * 3 + 3)) as V,
    };
  };
  const bone = get(input, B), parent = get(input, P);
  const check = (modify: Record<string, unknown>, expected: { t?: V; r?: Q; s?: V }) => {
    const got = get(pose(modify), B);
    expectClose(got.t, expected.t ?? bone.t, 1e-9);
    expectClose(got.r, sameSign(expected.r ?? bone.r, got.r), 1e-12);
    expectClose(got.s, expected.s ?? bone.s, 1e-12);
  };

  it('the input has non-uniform scales on the bone and its parent', () => {
    expectClose(bone.s, [1.5, 1, 0.5], 1e-12);
    expectClose(parent.s, [1.2, 0.8, 1.1], 1e-12);
  });

  it('translation: component, parent and bone space, additive and replace', () => {
    const t = (mode: string, space: string) => ({ translation: T, translationMode: mode, translationSpace: space });
    check(t('additive', 'component'), { t: add(bone.t, T) });
    check(t('replace', 'component'), { t: T });
    check(t('additive', 'parent'), { t: add(bone.t, rotate(parent.r, mul(parent.s, T))) });
    check(t('replace', 'parent'), { t: add(parent.t, rotate(parent.r, mul(parent.s, T))) });
    check(t('additive', 'bone'), { t: add(bone.t, rotate(bone.r, mul(bone.s, T))) });
    check(t('replace', 'bone'), { t: add(bone.t, rotate(bone.r, mul(bone.s, T))) });
  });

  it('rotation (Euler degrees, Rx·Ry·Rz): component, parent and bone space, additive and replace', () => {
    const r = (mode: string, space: string) => ({ rotation: R, rotationMode: mode, rotationSpace: space });
    check(r('additive', 'component'), { r: qmul(q, bone.r) });
    check(r('replace', 'component'), { r: q });
    check(r('additive', 'parent'), { r: qmul(parent.r, qmul(q, qmul(qinv(parent.r), bone.r))) });
    check(r('replace', 'parent'), { r: qmul(parent.r, q) });
    check(r('additive', 'bone'), { r: qmul(bone.r, q) });
    check(r('replace', 'bone'), { r: qmul(bone.r, q) });
  });

  it('scale: component, parent and bone space, additive and replace', () => {
    const s = (mode: string, space: string) => ({ scale: S, scaleMode: mode, scaleSpace: space });
    check(s('additive', 'component'), { s: mul(bone.s, S) });
    check(s('replace', 'component'), { s: S });
    check(s('additive', 'parent'), { s: mul(bone.s, S) });
    check(s('replace', 'parent'), { s: mul(parent.s, S) });
    check(s('additive', 'bone'), { s: mul(bone.s, S) });
    check(s('replace', 'bone'), { s: mul(bone.s, S) });
  });

  it('applies scale, then rotation, then translation, each from the input bone in bone space; children follow', () => {
    const all = { scale: S, scaleMode: 'additive', scaleSpace: 'bone', rotation: R, rotationMode: 'additive', rotationSpace: 'bone', translation: T, translationMode: 'additive', translationSpace: 'bone' };
    check(all, { t: add(bone.t, rotate(bone.r, mul(bone.s, T))), r: qmul(bone.r, q), s: mul(bone.s, S) });
    const hand = input.skeleton.indexOf('hand_l'), cs = pose(all);
    expectClose(cs.local.translations.subarray(hand * 3, hand * 3 + 3), input.local.translations.subarray(hand * 3, hand * 3 + 3), 1e-12);
    expectClose(cs.local.rotations.subarray(hand * 4, hand * 4 + 4), input.local.rotations.subarray(hand * 4, hand * 4 + 4), 1e-12);
  });

  it('ignore on every channel passes the pose through; a bound rotation follows its parameter; alpha blends', () => {
    expectClose(pose({ rotation: R }).rotations, input.rotations, 0);
    const g = bipedInstance({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      m: { type: 'ModifyBone', inputs: { pose: 'walk' }, properties: { bone: 'head', rotation: { param: 'r' }, rotationMode: 'replace', alpha: { param: 'a' } } },
    }, 'm', { r: { type: 'vec3', default: [0, 0, 0] }, a: { type: 'float', default: 1 } });
    g.setParameter('r', R);
    g.update(0.3);
    const head = g.skeleton.indexOf('head'), cs = g.componentPose();
    expectClose(cs.rotations.subarray(head * 4, head * 4 + 4), sameSign(q, cs.rotations.subarray(head * 4, head * 4 + 4)), 1e-12);
    g.setParameter('r', [0, 0, 90]);
    g.update(0);
    expectClose(g.componentPose().rotations.subarray(head * 4, head * 4 + 4), [0, 0, Math.SQRT1_2, Math.SQRT1_2], 1e-12);
    expect(g.gatherDebug().children[0].description).toBe('Alpha: 100.0% head');
    g.setParameter('a', 0.5);
    g.update(0);
    const walk = bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'walk');
    walk.update(0.3);
    const w = walk.componentPose(), got = g.componentPose();
    // Nlerp halfway between the walk's head and the replaced rotation.
    const a = Array.from(w.rotations.subarray(head * 4, head * 4 + 4)), b = sameSign([0, 0, Math.SQRT1_2, Math.SQRT1_2], a);
    const mid = a.map((x, i) => (x + b[i]) / 2), len = Math.hypot(...mid);
    expectClose(got.rotations.subarray(head * 4, head * 4 + 4), mid.map((x) => x / len), 1e-12);
  });

  it('allocates nothing per frame (0 B once warm), in every space, at full and half alpha', () => {
    const result = runProbe<Record<string, number>>('controls-allocation-probe.ts', [], ['ModifyBone']);
    expect(result.perFrame).toBeLessThan(0.5);
  });

  it('load checks: modes and spaces are enums, the bone must exist', () => {
    const problems = (m: Record<string, unknown>) => controlProblems('ModifyBone', 'm', m, false);
    expect(problems({ bone: 'head', rotationMode: 'additive' })).toEqual([]);
    expect(problems({ bone: 'head', rotationSpace: 'world' })).toEqual(['$.nodes.m.properties.rotationSpace [schema]']);
    expect(problems({ bone: 'head', scaleMode: 'multiply' })).toEqual(['$.nodes.m.properties.scaleMode [schema]']);
    expect(problems({ bone: 'nope' })).toEqual(['$.nodes.m.properties.bone [unknown-bone]']);
  });
});
