import { describe, expect, it } from 'vitest';
import { CURVE_STRIDE, inertialCurveFit, inertialCurveValue, MAX_TRANSITION_TIME, PoseInertializer } from '../../../runtime/jobs/inertialization.ts';
import { PoseHistory } from '../../../runtime/jobs/pose-history.ts';
import { quatFromAxisAngle } from '../../../runtime/core/math.ts';
import { Pose } from '../../../runtime/core/pose.ts';

/**
 * Independent construction: with x0, v0, a0 fixed at t = 0, solve the 3x3 system
 * x(t1) = x'(t1) = x''(t1) = 0 for the t^3, t^4, t^5 coefficients by Gaussian elimination.
 */
function solveQuintic(x0: number, v0: number, a0: number, t1: number): number[] {
  const m = [
    [t1 ** 3, t1 ** 4, t1 ** 5, -(x0 + v0 * t1 + 0.5 * a0 * t1 ** 2)],
    [3 * t1 ** 2, 4 * t1 ** 3, 5 * t1 ** 4, -(v0 + a0 * t1)],
    [6 * t1, 12 * t1 ** 2, 20 * t1 ** 3, -a0],
  ];
  for (let c = 0; c < 3; c++) {
    for (let r = c + 1; r < 3; r++) {
      const f = m[r][c] / m[c][c];
      for (let k = c; k < 4; k++) m[r][k] -= f * m[c][k];
    }
  }
  const x = [0, 0, 0];
  for (let r = 2; r >= 0; r--) x[r] = (m[r][3] - m[r].slice(r + 1, 3).reduce((s, v, i) => s + v * x[r + 1 + i], 0)) / m[r][r];
  return [x0, v0, a0 / 2, ...x]; // coefficients of t^0 .. t^5
}
const poly = (c: number[], t: number) => c.reduce((s, k, i) => s + k * t ** i, 0);
const dpoly = (c: number[], t: number) => c.reduce((s, k, i) => s + (i > 0 ? i * k * t ** (i - 1) : 0), 0);
const ddpoly = (c: number[], t: number) => c.reduce((s, k, i) => s + (i > 1 ? i * (i - 1) * k * t ** (i - 2) : 0), 0);

function fit(x0: number, v0: number, duration: number): Float64Array {
  const c = new Float64Array(CURVE_STRIDE);
  inertialCurveFit(c, 0, x0, v0, duration);
  return c;
}

describe('inertialization curve', () => {
  it('starts at x0 with velocity v0 and reaches zero value, velocity and acceleration at t1', () => {
    const c = fit(0.5, -1, 0.4);
    // Guards here: v0 < 0 and -5 x0 / v0 = 2.5 > 0.4, so t1 stays 0.4; a0 = (3.2 - 10) / 0.16 < 0 -> 0.
    expect(c[3]).toBe(0.4);
    expect(c[2]).toBe(0);
    const ref = solveQuintic(0.5, -1, 0, 0.4);
    for (const t of [0, 0.05, 0.1, 0.2, 0.3, 0.39]) expect(inertialCurveValue(c, 0, t)).toBeCloseTo(poly(ref, t), 12);
    expect(inertialCurveValue(c, 0, 0)).toBe(0.5);
    const h = 1e-6;
    expect((inertialCurveValue(c, 0, h) - inertialCurveValue(c, 0, 0)) / h).toBeCloseTo(-1, 4);
    expect(poly(ref, 0.4)).toBeCloseTo(0, 12);
    expect(dpoly(ref, 0.4)).toBeCloseTo(0, 10);
    expect(ddpoly(ref, 0.4)).toBeCloseTo(0, 8);
    expect(inertialCurveValue(c, 0, 0.4)).toBe(0);
    expect(inertialCurveValue(c, 0, 1)).toBe(0);
  });

  it('zeroes a velocity moving away from the target, and never changes sign on [0, t1]', () => {
    const c = fit(0.3, 2, 0.5);
    expect(c[1]).toBe(0);
    const ref = solveQuintic(0.3, 0, c[2], 0.5);
    expect(c[2]).toBeCloseTo(Math.max(0, -20 * 0.3 / 0.25), 12); // = 0: x0 > 0 makes the formula negative
    for (let t = 0; t < 0.5; t += 0.01) {
      const x = inertialCurveValue(c, 0, t);
      expect(x).toBeCloseTo(poly(ref, t), 12);
      expect(x).toBeGreaterThanOrEqual(-1e-12);
    }
  });

  it('clamps t1 to -5 x0 / v0 when approaching fast, with a0 >= 0', () => {
    const c = fit(0.1, -5, 1); // -5 * 0.1 / -5 = 0.1
    expect(c[3]).toBeCloseTo(0.1, 15);
    // a0 = (-8 v0 t1 - 20 x0) / t1^2 = (4 - 2) / 0.01 = 200
    expect(c[2]).toBeCloseTo(200, 9);
    const ref = solveQuintic(0.1, -5, 200, 0.1);
    for (let t = 0; t < 0.1; t += 0.005) {
      expect(inertialCurveValue(c, 0, t)).toBeCloseTo(poly(ref, t), 10);
      expect(inertialCurveValue(c, 0, t)).toBeGreaterThanOrEqual(-1e-12); // no overshoot
    }
  });

  it('mirrors a negative offset', () => {
    const pos = fit(0.7, -0.4, 0.3), neg = fit(-0.7, 0.4, 0.3);
    for (const t of [0, 0.1, 0.2]) expect(inertialCurveValue(neg, 0, t)).toBeCloseTo(-inertialCurveValue(pos, 0, t), 14);
  });

  it('is flat zero for a zero offset or a zero duration, without NaN', () => {
    for (const [x0, v0, d] of [[0, 3, 0.2], [0.5, -1, 0], [0.5, -1, -1], [1e-20, 0, 0.2], [0.5, NaN, 0.2]]) {
      const c = fit(x0, v0, d);
      expect(Array.from(c).every(Number.isFinite)).toBe(true);
      if (d <= 0 || x0 < 1e-9) expect(inertialCurveValue(c, 0, 0.05)).toBe(0);
    }
  });
});

describe('PoseHistory', () => {
  const posed = (n: number, k: number) => {
    const p = new Pose(n);
    p.translations.forEach((_, i) => { p.translations[i] = k + i; });
    return p;
  };

  it('moves its two poses into a block with useNumbers, carrying them, and keeps recording there', () => {
    const n = 2, history = new PoseHistory(n), dt = Float64Array.of(0.1);
    history.push(posed(n, 10), dt);
    history.push(posed(n, 20), dt);
    const block = new Float64Array(3 + PoseHistory.numberCount(n) + 1).fill(-7);
    history.useNumbers(block, 3);
    expect(Array.from(history.previous.translations)).toEqual(Array.from(posed(n, 20).translations));
    expect(Array.from(history.older.translations)).toEqual(Array.from(posed(n, 10).translations));
    expect(history.count).toBe(2);
    expect([block[2], block[block.length - 1]]).toEqual([-7, -7]);
    // The same block again changes nothing (a state machine re-initializes its states' nodes each entry).
    const [previous, older] = [history.previous, history.older];
    history.useNumbers(block, 3);
    expect(history.previous).toBe(previous);
    expect(history.older).toBe(older);
    history.push(posed(n, 30), dt);
    expect(block.subarray(3, 3 + PoseHistory.numberCount(n)).includes(30)).toBe(true);
    expect(Array.from(history.older.translations)).toEqual(Array.from(posed(n, 20).translations));
  });
});

describe('PoseInertializer', () => {
  const pose = (angle: number, x = 0) => {
    const p = new Pose(1);
    quatFromAxisAngle(p.rotations, 0, 1, 0, 0, angle);
    p.translations[0] = x;
    return p;
  };

  it('decays a half-turn offset about its own axis without NaN, and leaves zero offsets alone', () => {
    const inertializer = new PoseInertializer(1);
    const target = pose(0, 5);
    inertializer.start(target, pose(Math.PI, 5), null, 0, 0.2);
    const out = pose(0, 5);
    inertializer.apply(out); // t = 0: the previous pose exactly (q and -q are the same rotation)
    expect(Math.abs(out.rotations[0])).toBeCloseTo(1, 12);
    const dt = Float64Array.of(0.1);
    inertializer.advance(dt);
    const half = pose(0, 5);
    inertializer.apply(half);
    const angle = 2 * Math.atan2(Math.hypot(half.rotations[0], half.rotations[1], half.rotations[2]), half.rotations[3]);
    expect(angle).toBeGreaterThan(0.1);
    expect(angle).toBeLessThan(Math.PI);
    expect(half.translations[0]).toBe(5); // no translation offset: untouched
    inertializer.advance(dt);
    expect(inertializer.active).toBe(false);
  });

  it('reports the largest offset it adds now (translation and rotation in degrees), 0 once the transition ends', () => {
    const inertializer = new PoseInertializer(1);
    expect(inertializer.offsetMagnitudes()).toEqual({ translation: 0, rotation: 0 });
    inertializer.start(pose(0, 0), pose(Math.PI / 6, 5), null, 0, 0.2); // 30 degrees and 5 units away
    const start = inertializer.offsetMagnitudes();
    expect(start.translation).toBeCloseTo(5, 12);
    expect(start.rotation).toBeCloseTo(30, 10);
    inertializer.advance(Float64Array.of(0.1));
    const half = inertializer.offsetMagnitudes();
    // Zero initial velocity: the quintic is at 1/2 of its start value half way.
    expect(half.translation).toBeCloseTo(2.5, 10);
    expect(half.rotation).toBeCloseTo(15, 8);
    inertializer.advance(Float64Array.of(0.1));
    expect(inertializer.offsetMagnitudes()).toEqual({ translation: 0, rotation: 0 });
  });

  it('measures velocity from the older pose along the offset, and ignores it without a delta time', () => {
    const inertializer = new PoseInertializer(1);
    // Previous at x = 1, older at x = 1.5, target at 0: approaching at 0.5 / 0.1 s = 5 units/s.
    inertializer.start(pose(0, 0), pose(0, 1), pose(0, 1.5), 0.1, 1);
    const p = pose(0, 0);
    inertializer.advance(Float64Array.of(1e-4));
    inertializer.apply(p);
    expect((p.translations[0] - 1) / 1e-4).toBeCloseTo(-5, 1);
    const still = new PoseInertializer(1);
    still.start(pose(0, 0), pose(0, 1), pose(0, 1.5), 0, 1);
    const q = pose(0, 0);
    still.advance(Float64Array.of(1e-4));
    still.apply(q);
    expect((q.translations[0] - 1) / 1e-4).toBeCloseTo(0, 1);
  });

  // Independent quaternion helpers ([x, y, z, w], Hamilton product), so these tests do not lean
  // on runtime/core/math.ts.
  type Q = [number, number, number, number];
  const axisAngle = (n: number[], angle: number): Q => {
    const len = Math.hypot(n[0], n[1], n[2]), s = Math.sin(angle / 2) / len;
    return [n[0] * s, n[1] * s, n[2] * s, Math.cos(angle / 2)];
  };
  const mul = (a: Q, b: Q): Q => [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
  const inverse = (q: Q): Q => [-q[0], -q[1], -q[2], q[3]];
  const rotationPose = (q: Q) => { const p = new Pose(1); p.rotations.set(q); return p; };

  it('measures the rotation velocity as the twist of the older pose about the offset axis', () => {
    // previous = R(n, 0.6) T and older = R(n, 0.6 + extra) T: the offset is 0.6 rad about n and
    // was extra / dt rad/s larger a frame before, so v0 = -extra / dt (approaching the target).
    const n = [1, 2, 2], T = axisAngle([0.3, -1, 0.5], 1.1), dt = 0.1;
    const angleOf = (out: Pose) => {
      const r = mul(Array.from(out.rotations) as Q, inverse(T)); // = R(n, x(t))
      const dot = (r[0] * n[0] + r[1] * n[1] + r[2] * n[2]) / 3;
      return 2 * Math.atan2(dot, r[3]);
    };
    for (const { extra, duration, t1, a0 } of [
      // v0 = -0.5 rad/s: -5 x0 / v0 = 6 s does not clamp; a0 = max(0, (-8 v0 t1 - 20 x0) / t1^2) = max(0, (1.2 - 12) / 0.09) = 0.
      { extra: 0.05, duration: 0.3, t1: 0.3, a0: 0 },
      // v0 = -15 rad/s: t1 = -5 × 0.6 / -15 = 0.2; a0 = (-8 × -15 × 0.2 - 20 × 0.6) / 0.04 = (24 - 12) / 0.04 = 300.
      { extra: 1.5, duration: 0.3, t1: 0.2, a0: 300 },
    ]) {
      const v0 = -extra / dt;
      const inertializer = new PoseInertializer(1);
      inertializer.start(rotationPose(T), rotationPose(mul(axisAngle(n, 0.6), T)), rotationPose(mul(axisAngle(n, 0.6 + extra), T)), dt, duration);
      const ref = solveQuintic(0.6, v0, a0, t1);
      let elapsed = 0;
      for (const step of [1e-5, 0.02, 0.05, 0.05, 0.05]) {
        inertializer.advance(Float64Array.of(step));
        elapsed += step;
        const out = rotationPose(T);
        inertializer.apply(out);
        const expected = elapsed < t1 ? poly(ref, elapsed) : 0;
        expect(angleOf(out)).toBeCloseTo(expected, 10);
        if (elapsed === 1e-5) expect((angleOf(out) - 0.6) / elapsed).toBeCloseTo(v0, 2);
      }
    }
  });

  it('ignores the part of the older rotation that is not a twist about the offset axis', () => {
    // The older pose adds a turn about an axis perpendicular to n: the twist about n, and so v0, is unchanged.
    const n = [0, 0, 1], dt = 0.1;
    const run = (older: Q) => {
      const inertializer = new PoseInertializer(1);
      inertializer.start(rotationPose([0, 0, 0, 1]), rotationPose(axisAngle(n, 0.6)), rotationPose(older), dt, 0.3);
      inertializer.advance(Float64Array.of(0.05));
      const out = rotationPose([0, 0, 0, 1]);
      inertializer.apply(out);
      return 2 * Math.atan2(out.rotations[2], out.rotations[3]);
    };
    // Twist of (swing about x by 0.4) · (twist about z by 0.7) about z is 0.7: v0 = (0.6 - 0.7) / 0.1 = -1.
    expect(run(mul(axisAngle([1, 0, 0], 0.4), axisAngle(n, 0.7)))).toBeCloseTo(poly(solveQuintic(0.6, -1, 0, 0.3), 0.05), 10);
    expect(run(axisAngle(n, 0.7))).toBeCloseTo(poly(solveQuintic(0.6, -1, 0, 0.3), 0.05), 10);
  });

  it('decays a scale offset as a direction and a length, its velocity measured along that direction', () => {
    const target = new Pose(1), previous = new Pose(1), older = new Pose(1);
    target.scales.set([1.2, 0.9, 1]);
    // Offset (0.3, 0, -0.4): length 0.5 along (0.6, 0, -0.8).
    previous.scales.set([1.5, 0.9, 0.6]);
    // Older offset (0.36, 0.2, -0.48): 0.6 along the direction (0.216 + 0.384), plus 0.2 across it,
    // which the velocity ignores: v0 = (0.5 - 0.6) / 0.1 = -1 per second.
    older.scales.set([1.56, 1.1, 0.52]);
    for (const p of [target, previous, older]) p.translations.set([3, 4, 5]);
    const inertializer = new PoseInertializer(1);
    inertializer.start(target, previous, older, 0.1, 0.4);
    // t1 = min(0.4, -5 × 0.5 / -1 = 2.5) = 0.4; a0 = max(0, (3.2 - 10) / 0.16) = 0.
    const ref = solveQuintic(0.5, -1, 0, 0.4);
    let elapsed = 0;
    for (const step of [0, 0.1, 0.1, 0.15, 0.05]) {
      inertializer.advance(Float64Array.of(step));
      elapsed += step;
      const out = new Pose(1);
      out.scales.set(target.scales);
      out.translations.set(target.translations);
      inertializer.apply(out);
      const x = elapsed < 0.4 - 1e-9 ? poly(ref, elapsed) : 0;
      expectCloseArray(out.scales, [1.2 + 0.6 * x, 0.9, 1 - 0.8 * x], 1e-12);
      expectCloseArray(out.translations, [3, 4, 5], 0); // no translation offset
      expectCloseArray(out.rotations, [0, 0, 0, 1], 0);
    }
    expect(inertializer.active).toBe(false);
  });
});

describe('inertial curves at extreme durations and velocities (issue 13, item 11)', () => {
  it('holds a transition longer than MAX_TRANSITION_TIME to it, with finite coefficients', () => {
    // t1⁵ overflows and 0 × Infinity made the coefficients NaN from a duration of about 1e155.
    const out = new Float64Array(CURVE_STRIDE), held = new Float64Array(CURVE_STRIDE);
    inertialCurveFit(held, 0, 1, 0, MAX_TRANSITION_TIME);
    for (const duration of [1e155, 1e300, Number.MAX_VALUE]) {
      inertialCurveFit(out, 0, 1, 0, duration);
      expect(Array.from(out)).toEqual(Array.from(held));
    }
    expect(MAX_TRANSITION_TIME).toBe(1e6);
    expect(out[3]).toBe(1e6);
    // Its value over an ordinary frame is still the offset, decaying by the quintic of a 1e6 s fit.
    expect(inertialCurveValue(out, 0, 0.5)).toBeCloseTo(1, 12);
  });

  it('holds the offset, without a curve, when an approach shortens t1 below a microsecond', () => {
    // A velocity measured over a 1e-90 s frame: t1 = -5 x0 / v0 = 5e-90, whose fifth power underflows.
    const out = new Float64Array(CURVE_STRIDE);
    inertialCurveFit(out, 0, 1, -1e90, 0.3);
    expect(Array.from(out)).toEqual([1, 0, 0, 5e-90, 0, 0, 0]);
    expect(inertialCurveValue(out, 0, 0)).toBe(1); // the switch frame repeats the last pose
    expect(inertialCurveValue(out, 0, 1 / 60)).toBe(0);
    // Negative offsets keep their sign.
    inertialCurveFit(out, 0, -2, 1e90, 0.3);
    expect(Array.from(out)).toEqual([-2, 0, 0, 1e-89, 0, 0, 0]);
  });

  it('PoseInertializer keeps every number finite for a transition of 1e300 s', () => {
    const inertializer = new PoseInertializer(1);
    const target = new Pose(1), previous = new Pose(1);
    previous.translations.set([10, 0, 0]);
    inertializer.start(target, previous, null, 0, 1e300);
    expect(inertializer.duration).toBe(1e6);
    inertializer.advance(Float64Array.of(0.5));
    const out = new Pose(1);
    inertializer.apply(out);
    expect(out.translations[0]).toBeCloseTo(10, 9);
  });
});

function expectCloseArray(actual: ArrayLike<number>, expected: number[], tolerance: number): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(Math.abs(actual[i] - expected[i]), `element ${i}: ${actual[i]} vs ${expected[i]}`).toBeLessThanOrEqual(tolerance);
}
