import { describe, expect, it } from 'vitest';
import {
  quatFromAxisAngle, quatFromEulerDegrees, quatFromTo, quatMultiply, quatNlerp, quatNormalize, quatRotateVec3, quatSlerp,
  transformCompose, transformRelative,
} from '../../../runtime/core/math.ts';
import { expectClose } from '../../support/graphs.ts';

const q = (...v: number[]) => Float64Array.from(v);

describe('math', () => {
  it('rotates +X by 90 degrees about Z onto +Y', () => {
    const r = quatFromAxisAngle(new Float64Array(4), 0, 0, 0, 1, Math.PI / 2);
    const v = quatRotateVec3(new Float64Array(3), 0, r, 0, q(1, 0, 0), 0);
    expect(v[0]).toBeCloseTo(0, 15);
    expect(v[1]).toBeCloseTo(1, 15);
  });

  it('multiplies right to left: (a * b) applies b first', () => {
    const a = quatFromAxisAngle(new Float64Array(4), 0, 0, 0, 1, Math.PI / 2); // Z 90
    const b = quatFromAxisAngle(new Float64Array(4), 0, 1, 0, 0, Math.PI / 2); // X 90
    const ab = quatMultiply(new Float64Array(4), 0, a, 0, b, 0);
    // b takes +Y to +Z; a leaves +Z alone.
    const v = quatRotateVec3(new Float64Array(3), 0, ab, 0, q(0, 1, 0), 0);
    expectClose(v, [0, 0, 1], 1e-15);
  });

  it('builds Euler rotations in channel order (ZYX = Rz * Ry * Rx)', () => {
    const e = quatFromEulerDegrees(new Float64Array(4), 0, 'ZYX', [30, 40, 50]);
    const z = quatFromAxisAngle(new Float64Array(4), 0, 0, 0, 1, (30 * Math.PI) / 180);
    const y = quatFromAxisAngle(new Float64Array(4), 0, 0, 1, 0, (40 * Math.PI) / 180);
    const x = quatFromAxisAngle(new Float64Array(4), 0, 1, 0, 0, (50 * Math.PI) / 180);
    const zyx = quatMultiply(new Float64Array(4), 0, quatMultiply(new Float64Array(4), 0, z, 0, y, 0), 0, x, 0);
    for (let i = 0; i < 4; i++) expect(e[i]).toBeCloseTo(zyx[i], 14);
  });

  it('slerp keeps constant angular speed; nlerp and slerp take the shorter arc', () => {
    const a = q(0, 0, 0, 1);
    const b = quatFromAxisAngle(new Float64Array(4), 0, 0, 1, 0, 2); // 2 rad about Y
    const s = quatSlerp(new Float64Array(4), 0, a, 0, b, 0, 0.25);
    expect(2 * Math.atan2(s[1], s[3])).toBeCloseTo(0.5, 14);
    const negB = b.map((v) => -v);
    const n = quatNlerp(new Float64Array(4), 0, a, 0, negB, 0, 0.5);
    expect(n[3]).toBeGreaterThan(0);
    expect(2 * Math.atan2(n[1], n[3])).toBeCloseTo(1, 14);
  });

  it('normalising a zero or NaN quaternion gives the identity', () => {
    expect(Array.from(quatNormalize(q(0, 0, 0, 0), 0))).toEqual([0, 0, 0, 1]);
    expect(Array.from(quatNormalize(q(NaN, 0, 0, 1), 0))).toEqual([0, 0, 0, 1]);
  });

  it('transformRelative undoes transformCompose, and a zero parent scale gives no NaN', () => {
    const pT = q(1, 2, 3), pR = quatFromAxisAngle(new Float64Array(4), 0, 0.6, 0.8, 0, 0.7), pS = q(2, 2, 2);
    const cT = q(-4, 5, 0.5), cR = quatFromAxisAngle(new Float64Array(4), 0, 0, 0, 1, -1.1), cS = q(1, 1, 1);
    const oT = new Float64Array(3), oR = new Float64Array(4), oS = new Float64Array(3);
    transformCompose(oT, oR, oS, 0, pT, pR, pS, 0, cT, cR, cS, 0);
    // Independent: parent translation + parent rotation applied to (scale * child translation).
    const expected = quatRotateVec3(new Float64Array(3), 0, pR, 0, q(-8, 10, 1), 0);
    for (let i = 0; i < 3; i++) expect(oT[i]).toBeCloseTo(pT[i] + expected[i], 12);
    const lT = new Float64Array(3), lR = new Float64Array(4), lS = new Float64Array(3);
    transformRelative(lT, lR, lS, 0, pT, pR, pS, 0, oT, oR, oS, 0);
    for (let i = 0; i < 3; i++) expect(lT[i]).toBeCloseTo(cT[i], 12);
    for (let i = 0; i < 4; i++) expect(lR[i]).toBeCloseTo(cR[i], 12);
    transformRelative(lT, lR, lS, 0, pT, pR, q(0, 0, 0), 0, oT, oR, oS, 0);
    expect([...lT, ...lR, ...lS].every(Number.isFinite)).toBe(true);
  });
});

describe('quatFromTo', () => {
  const from = (a: number[], b: number[], axis: number[] = [0, 0, 0]) => quatFromTo(new Float64Array(4), 0, q(...a), 0, q(...b), 0, q(...axis), 0);

  it('turns one direction onto another by the smallest rotation (axis perpendicular to both)', () => {
    const a = [1, 2, -0.5], b = [-3, 0.2, 4];
    const r = from(a, b);
    const turned = quatRotateVec3(new Float64Array(3), 0, r, 0, q(...a), 0);
    const la = Math.hypot(...a), lb = Math.hypot(...b);
    expectClose(turned.map((x) => x / la), b.map((x) => x / lb), 1e-12);
    expect(Math.abs(r[0] * a[0] + r[1] * a[1] + r[2] * a[2])).toBeLessThan(1e-12);
    expect(Math.abs(r[0] * b[0] + r[1] * b[1] + r[2] * b[2])).toBeLessThan(1e-12);
    expectClose(from([0, 3, 0], [0, 0.5, 0]), [0, 0, 0, 1], 0);
  });

  it('makes a half turn about the given axis (made perpendicular) for opposite directions', () => {
    expectClose(from([0, 1, 0], [0, -2, 0], [0, 1, 1]), [0, 0, 1, 0], 1e-15);
    // An axis parallel to the vectors, or none: about the world axis least aligned with them.
    expectClose(from([0, 1, 0], [0, -1, 0], [0, 5, 0]), [1, 0, 0, 0], 0);
    expectClose(from([1, 0, 0], [-1, 0, 0]), [0, 1, 0, 0], 0);
  });

  it('gives the identity for zero-length or non-finite directions', () => {
    expectClose(from([0, 0, 0], [1, 0, 0]), [0, 0, 0, 1], 0);
    expectClose(from([1, 0, 0], [NaN, 0, 0]), [0, 0, 0, 1], 0);
    expectClose(from([Infinity, 0, 0], [1, 0, 0]), [0, 0, 0, 1], 0);
  });
});
