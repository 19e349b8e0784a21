import { describe, expect, it } from 'vitest';
import { quatConjugateMultiply, quatMultiply, quatNormalize, quatRotateVec3 } from '../../../runtime/core/math.ts';
import {
  IK_HINT, IK_KEEP_END_ROTATION, solveTwoBoneIK, twoBoneIKOptions, type TwoBoneIKSettings,
} from '../../../runtime/jobs/two-bone-ik.ts';
import { expectClose, hasNaN } from '../../support/graphs.ts';

/** Deterministic PRNG (mulberry32), so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const v3 = (...v: number[]) => Float64Array.from(v);
const sub = (a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number) => [a[ao] - b[bo], a[ao + 1] - b[bo + 1], a[ao + 2] - b[bo + 2]];
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const len = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));
const cross = (a: ArrayLike<number>, b: ArrayLike<number>) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
/** The part of v perpendicular to the unit vector u. */
const perp = (v: ArrayLike<number>, u: ArrayLike<number>) => { const k = dot(v, u); return [v[0] - k * u[0], v[1] - k * u[1], v[2] - k * u[2]]; };
const unit = (v: ArrayLike<number>) => { const l = len(v); return [v[0] / l, v[1] / l, v[2] / l]; };
const IDENTITY3 = () => Float64Array.from([0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);

interface Solved { p: Float64Array; r: Float64Array }
function solve(positions: ArrayLike<number>, target: ArrayLike<number>, settings: TwoBoneIKSettings = {}, rotations: Float64Array = IDENTITY3()): Solved {
  const p = new Float64Array(9), r = new Float64Array(12);
  solveTwoBoneIK(p, r, Float64Array.from(positions), rotations, Float64Array.from(target), 0, twoBoneIKOptions(settings));
  return { p, r };
}
const joint = (s: Solved) => s.p.subarray(3, 6);
const endOf = (s: Solved) => s.p.subarray(6, 9);

/** The delta rotation a bone received: rotated · conjugate(input). */
function delta(out: Float64Array, input: Float64Array, bone: number): Float64Array {
  const d = quatMultiply(new Float64Array(4), 0, out, bone * 4, Float64Array.from([-input[bone * 4], -input[bone * 4 + 1], -input[bone * 4 + 2], input[bone * 4 + 3]]), 0);
  return d;
}

function randomUnit(rand: () => number): number[] {
  for (;;) {
    const v = [rand() * 2 - 1, rand() * 2 - 1, rand() * 2 - 1];
    const l = len(v);
    if (l > 0.1 && l <= 1) return v.map((x) => x / l);
  }
}
function randomQuat(rand: () => number): number[] {
  const q = Float64Array.from([rand() * 2 - 1, rand() * 2 - 1, rand() * 2 - 1, rand() * 2 - 1]);
  return Array.from(quatNormalize(q, 0));
}

/** Checks that each bone's delta rotation carries its input bone vector onto the solved one, with no twist about it. */
function expectConsistentRotations(input: ArrayLike<number>, rotations: Float64Array, s: Solved, tolerance: number): void {
  const inUpper = sub(input, 3, input, 0), outUpper = sub(s.p, 3, s.p, 0);
  const inLower = sub(input, 6, input, 3), outLower = sub(s.p, 6, s.p, 3);
  const d1 = delta(s.r, rotations, 0), d12 = delta(s.r, rotations, 1);
  const l1 = len(inUpper), l2 = len(inLower);
  if (l1 > 0) {
    const turned = quatRotateVec3(new Float64Array(3), 0, d1, 0, Float64Array.from(inUpper), 0);
    expectClose(turned.map((x) => x / l1), outUpper.map((x) => x / len(outUpper)), tolerance);
    // Smallest rotation: its axis is perpendicular to the bone (no twist about it).
    expect(Math.abs(dot(d1, inUpper) / l1)).toBeLessThan(tolerance);
  }
  if (l2 > 0) {
    const turned = quatRotateVec3(new Float64Array(3), 0, d12, 0, Float64Array.from(inLower), 0);
    expectClose(turned.map((x) => x / l2), outLower.map((x) => x / len(outLower)), tolerance);
  }
}

describe('solveTwoBoneIK: known answers', () => {
  // Upper 3, lower 4, straight along +Y; target (3, 4, 0) at distance 5: a 3-4-5 right triangle.
  const straightUp = [0, 0, 0, 0, 3, 0, 0, 7, 0];

  it('solves the 3-4-5 triangle with the joint on the hint side', () => {
    const s = solve(straightUp, [3, 4, 0], { hint: [1, 0, 0] });
    expectClose(joint(s), [3, 0, 0], 1e-12);
    expectClose(endOf(s), [3, 4, 0], 1e-12);
    // Upper: +Y to +X is a quarter turn about -Z; the middle ends up as it was (+Y).
    const h = Math.SQRT1_2;
    expectClose(s.r.subarray(0, 4), [0, 0, -h, h], 1e-12);
    expectClose(s.r.subarray(4, 8), [0, 0, 0, 1], 1e-12);
    expectClose(s.r.subarray(8, 12), [0, 0, 0, 1], 0);
  });

  it('puts the joint on the other side for the opposite hint (the hint decides the bend plane)', () => {
    const s = solve(straightUp, [3, 4, 0], { hint: [-1, 0, 0] });
    // 3 (0.6 u - 0.8 n) with u = (0.6, 0.8, 0) and n = (-0.8, 0.6, 0).
    expectClose(joint(s), [-0.84, 2.88, 0], 1e-12);
    expectClose(endOf(s), [3, 4, 0], 1e-12);
    // A hint out of the XY plane bends the chain out of it.
    const z = solve(straightUp, [3, 4, 0], { hint: [0, 0, 1] });
    expectClose(joint(z), [1.08, 1.44, 2.4], 1e-12); // 3 (0.6 u + 0.8 z)
  });

  it('uses the law of cosines along the chain line: target (0, 5, 0) with hint +X', () => {
    const s = solve(straightUp, [0, 5, 0], { hint: [1, 0, 0] });
    expectClose(joint(s), [2.4, 1.8, 0], 1e-12);
    expectClose(endOf(s), [0, 5, 0], 1e-12);
  });

  it('fully extends the chain toward an unreachable target', () => {
    const s = solve([0, 0, 0, 3, 0, 0, 3, 4, 0], [0, -30, 40], { hint: [1, 0, 0] });
    expectClose(joint(s), [0, -1.8, 2.4], 1e-12);
    expectClose(endOf(s), [0, -4.2, 5.6], 1e-12);
  });

  it('folds the chain flat toward a target nearer than |upper − lower|', () => {
    // Upper 4, lower 1 (bent): the end can come no nearer than 3 to the root.
    const s = solve([0, 0, 0, 4, 0, 0, 4, 1, 0], [1, 0, 0], { hint: [0, 1, 0] });
    expectClose(joint(s), [4, 0, 0], 1e-12);
    expectClose(endOf(s), [3, 0, 0], 1e-12);
    // Upper 1, lower 4: the joint goes behind the root.
    const t = solve([0, 0, 0, 1, 0, 0, 1, 4, 0], [0, 2, 0]);
    expectClose(joint(t), [0, -1, 0], 1e-12);
    expectClose(endOf(t), [0, 3, 0], 1e-12);
  });
});

describe('solveTwoBoneIK: random chains (seeded)', () => {
  it('reaches reachable targets to 1e-4 of the chain length, keeps lengths to 1e-9 and bends toward the hint', () => {
    const rand = prng(20240611);
    let worstReach = 0;
    for (let trial = 0; trial < 2000; trial++) {
      const a = [rand() * 200 - 100, rand() * 200 - 100, rand() * 200 - 100];
      const l1 = 5 + rand() * 60, l2 = 5 + rand() * 60;
      const d1 = randomUnit(rand), d2 = randomUnit(rand);
      const b = a.map((x, i) => x + l1 * d1[i]);
      const c = b.map((x, i) => x + l2 * d2[i]);
      const positions = [...a, ...b, ...c];
      const rotations = Float64Array.from([...randomQuat(rand), ...randomQuat(rand), ...randomQuat(rand)]);
      const dir = randomUnit(rand);
      const lo = Math.abs(l1 - l2), hi = l1 + l2;
      const dist = lo + (hi - lo) * (0.001 + 0.998 * rand());
      const target = a.map((x, i) => x + dist * dir[i]);
      const useHint = trial % 3 !== 0;
      const hint = randomUnit(rand);
      const s = solve(positions, target, useHint ? { hint, keepEndRotation: trial % 2 === 0 } : {}, rotations);
      expect(hasNaN(s.p) || hasNaN(s.r)).toBe(false);
      const reach = len(sub(endOf(s), 0, target, 0));
      worstReach = Math.max(worstReach, reach / hi);
      expect(reach).toBeLessThanOrEqual(1e-4 * hi);
      expect(Math.abs(len(sub(s.p, 3, s.p, 0)) - l1)).toBeLessThan(1e-9);
      expect(Math.abs(len(sub(s.p, 6, s.p, 3)) - l2)).toBeLessThan(1e-9);
      expectClose(s.p.subarray(0, 3), a, 0);
      expectConsistentRotations(positions, rotations, s, 1e-9);
      if (useHint) {
        // The joint lies on the hint's side of the root–target line.
        const side = dot(perp(sub(s.p, 3, a, 0), dir), perp(hint, dir));
        expect(side).toBeGreaterThan(0);
      }
    }
    expect(worstReach).toBeLessThan(1e-12); // reached exactly, in fact
  });

  it('solves in place (outputs aliasing the inputs) with the same result', () => {
    const rand = prng(7);
    for (let trial = 0; trial < 50; trial++) {
      const positions = Float64Array.from(Array.from({ length: 9 }, () => rand() * 40 - 20));
      const rotations = Float64Array.from([...randomQuat(rand), ...randomQuat(rand), ...randomQuat(rand)]);
      const target = Float64Array.from([rand() * 40 - 20, rand() * 40 - 20, rand() * 40 - 20]);
      const options = twoBoneIKOptions({ hint: randomUnit(rand), keepEndRotation: false, allowStretch: true });
      const p = new Float64Array(9), r = new Float64Array(12);
      solveTwoBoneIK(p, r, positions, rotations, target, 0, options);
      solveTwoBoneIK(positions, rotations, positions, rotations, target, 0, options);
      expect(Array.from(positions)).toEqual(Array.from(p));
      expect(Array.from(rotations)).toEqual(Array.from(r));
    }
  });
});

describe('solveTwoBoneIK: bend plane without a hint', () => {
  // A leg: hip at the origin, knee bent forward (+Z), foot below.
  const leg = [0, 0, 0, 0, -40, 4, 0, -80, 0];

  it('keeps the input bend: the knee keeps pointing forward relative to the leg', () => {
    for (const target of [[0, -70, 0], [10, -70, 0], [-20, -60, 10], [0, -50, -30], [30, -40, 0]]) {
      const s = solve(leg, target);
      const u = unit(target);
      const bend = perp(joint(s), u);
      // Forward: the input bend (+Z) carried by the swing from straight down to the target direction.
      const down = [0, -1, 0];
      const axis = cross(down, u), c = dot(down, u);
      const z = [0, 0, 1];
      const kz = dot(axis, z) / (1 + c);
      const carried = [0, 1, 2].map((i) => z[i] * c + cross(axis, z)[i] + axis[i] * kz);
      expect(dot(unit(bend), carried)).toBeGreaterThan(1 - 1e-9);
      expectClose(endOf(s), target, 1e-12);
    }
  });

  it('keeps the plane when the target lies along the input root–end line', () => {
    const s = solve(leg, [0, -60, 0]);
    expect(Math.abs(joint(s)[0])).toBeLessThan(1e-12); // still in the YZ plane
    expect(joint(s)[2]).toBeGreaterThan(4); // bent further forward
  });

  it('bends a straight input chain toward the side it came from', () => {
    const s = solve([0, 0, 0, 0, -40, 0, 0, -80, 0], [20, -60, 0]);
    // The old joint (0, -40, 0) is on the -X/−Y side of the new root–target line; so is the new joint.
    const u = unit([20, -60, 0]);
    expect(dot(perp(joint(s), u), perp([0, -40, 0], u))).toBeGreaterThan(0);
    expectClose(endOf(s), [20, -60, 0], 1e-12);
  });
});

describe('solveTwoBoneIK: end rotation', () => {
  const chain = [0, 0, 0, 0, -40, 4, 0, -80, 0];
  const rotations = () => Float64Array.from([0, 0, 0, 1, 0.1, 0.2, 0.3, 0.9, -0.3, 0.1, 0.2, 0.8]).map((x, i, a) => {
    const b = Math.floor(i / 4) * 4;
    return x / Math.hypot(a[b], a[b + 1], a[b + 2], a[b + 3]);
  });

  it('keeps the end bone’s component-space rotation by default', () => {
    const r = rotations();
    const s = solve(chain, [25, -50, 10], {}, r);
    expectClose(s.r.subarray(8, 12), r.subarray(8, 12), 0);
  });

  it('otherwise keeps the end bone’s rotation relative to the middle bone', () => {
    const r = rotations();
    const s = solve(chain, [25, -50, 10], { keepEndRotation: false }, r);
    const before = quatConjugateMultiply(new Float64Array(4), 0, r, 4, r, 8);
    const after = quatConjugateMultiply(new Float64Array(4), 0, s.r, 4, s.r, 8);
    expectClose(after, before, 1e-12);
    expect(Math.abs(s.r[11] - r[11])).toBeGreaterThan(1e-3);
  });
});

describe('solveTwoBoneIK: stretch', () => {
  const chain = [0, 0, 0, 0, 3, 0, 0, 7, 0]; // length 7

  it('does not stretch unless allowed', () => {
    const s = solve(chain, [0, 7.7, 0]);
    expectClose(endOf(s), [0, 7, 0], 1e-12);
  });

  it('reaches targets up to maxStretchScale × the chain length with the defaults, by translation', () => {
    const s = solve(chain, [0, 7.7, 0], { allowStretch: true });
    // At full extension the joint moves with the square root of any rounding in the distance.
    expectClose(joint(s), [0, 3.3, 0], 1e-6);
    expectClose(endOf(s), [0, 7.7, 0], 1e-12);
    // Beyond: held at 1.2.
    const far = solve(chain, [0, 0, -20], { allowStretch: true, hint: [1, 0, 0] });
    expectClose(joint(far), [0, 0, -3.6], 1e-12);
    expectClose(endOf(far), [0, 0, -8.4], 1e-12);
    // Rotations do not scale anything: they stay unit quaternions.
    for (let b = 0; b < 3; b++) expect(Math.hypot(...far.r.subarray(b * 4, b * 4 + 4))).toBeCloseTo(1, 12);
  });

  it('starts stretching at startStretchRatio, while the chain is still bent', () => {
    // Ratio 6 / 7 against start 0.8, max 1.5: scale = 1 + 0.5 · (6/7 − 0.8) / 0.7.
    const scale = 1 + 0.5 * ((6 / 7 - 0.8) / 0.7);
    const s = solve(chain, [0, 6, 0], { allowStretch: true, startStretchRatio: 0.8, maxStretchScale: 1.5, hint: [1, 0, 0] });
    expect(len(joint(s))).toBeCloseTo(3 * scale, 12);
    expect(len(sub(s.p, 6, s.p, 3))).toBeCloseTo(4 * scale, 12);
    expectClose(endOf(s), [0, 6, 0], 1e-12);
    expect(joint(s)[0]).toBeGreaterThan(0);
  });

  it('never stretches when maxStretchScale ≤ 1 or ≤ startStretchRatio', () => {
    for (const settings of [{ maxStretchScale: 1 }, { startStretchRatio: 1.3, maxStretchScale: 1.2 }, { maxStretchScale: 0.5, startStretchRatio: 0 }]) {
      const s = solve(chain, [0, 9, 0], { allowStretch: true, ...settings });
      expectClose(endOf(s), [0, 7, 0], 1e-12);
    }
  });
});

describe('solveTwoBoneIK: degenerate cases never produce NaN', () => {
  const finite = (s: Solved) => {
    expect(hasNaN(s.p), 'positions').toBe(false);
    expect(hasNaN(s.r), 'rotations').toBe(false);
    for (let b = 0; b < 3; b++) expect(Math.hypot(...s.r.subarray(b * 4, b * 4 + 4))).toBeCloseTo(1, 12);
  };

  it('target on the root: reaches along the input root–end line as near as the lengths allow', () => {
    const s = solve([0, 0, 0, 4, 0, 0, 4, 3, 0], [0, 0, 0]);
    finite(s);
    expect(len(endOf(s))).toBeCloseTo(1, 12);
    expectClose(unit(endOf(s)), [0.8, 0.6, 0], 1e-12);
    // Equal lengths fold the end exactly onto the root.
    const eq = solve([0, 0, 0, 3, 0, 0, 3, 3, 0], [0, 0, 0]);
    finite(eq);
    expectClose(endOf(eq), [0, 0, 0], 1e-12);
    // A target within 1e-12 of the chain length counts as on the root; one just outside is aimed at.
    finite(solve([0, 0, 0, 3, 0, 0, 3, 3, 0], [1e-13, 0, 0]));
    const near = solve([0, 0, 0, 3, 0, 0, 3, 3, 0], [0, 1e-9, 0]);
    finite(near);
    expectClose(endOf(near), [0, 1e-9, 0], 1e-12);
  });

  it('target on the root with the input end on the root too: reaches along the upper bone', () => {
    const s = solve([0, 0, 0, 0, 0, 2, 0, 0, 0], [0, 0, 0]);
    finite(s);
    expectClose(endOf(s), [0, 0, 0], 1e-12);
    expectClose(joint(s), [0, 0, 2], 1e-12);
  });

  it('zero-length upper bone: the joint stays on the root, the end reaches from there', () => {
    const s = solve([1, 1, 1, 1, 1, 1, 1, 4, 1], [5, 1, 1]);
    finite(s);
    expectClose(joint(s), [1, 1, 1], 0);
    expectClose(endOf(s), [4, 1, 1], 1e-12);
    expectClose(s.r.subarray(0, 4), [0, 0, 0, 1], 0);
  });

  it('zero-length lower bone: the joint reaches, the middle bone keeps its turn from the upper', () => {
    const s = solve([0, 0, 0, 0, 3, 0, 0, 3, 0], [0, 0, 2], { keepEndRotation: false });
    finite(s);
    expectClose(joint(s), [0, 0, 3], 1e-12);
    expectClose(endOf(s), [0, 0, 3], 1e-12);
    expectClose(s.r.subarray(4, 8), s.r.subarray(0, 4), 1e-12);
  });

  it('all bones zero length: passes the chain through', () => {
    const s = solve([2, 2, 2, 2, 2, 2, 2, 2, 2], [5, 0, 0], { allowStretch: true });
    finite(s);
    expectClose(s.p, [2, 2, 2, 2, 2, 2, 2, 2, 2], 0);
    expectClose(s.r, IDENTITY3(), 0);
  });

  it('hint parallel to the target direction falls back to the input bend', () => {
    const leg = [0, 0, 0, 0, -40, 4, 0, -80, 0];
    const withHint = solve(leg, [0, -60, 0], { hint: [0, -5, 0] });
    const without = solve(leg, [0, -60, 0]);
    finite(withHint);
    expectClose(withHint.p, without.p, 0);
    // A hint a hair (1e-7 rad) off the line is still parallel; clearly off, it decides.
    expectClose(solve(leg, [0, -60, 0], { hint: [0, -1, -1e-7] }).p, without.p, 0);
    expect(joint(solve(leg, [0, -60, 0], { hint: [0, -1, -1e-3] }))[2]).toBeLessThan(0);
  });

  it('straight chain aimed along its own line with no hint bends about a local axis of the upper bone', () => {
    const s = solve([0, 0, 0, 0, 3, 0, 0, 7, 0], [0, 5, 0]);
    finite(s);
    expectClose(endOf(s), [0, 5, 0], 1e-12);
    expect(len(joint(s))).toBeCloseTo(3, 12);
    // Identity rotation: local X is the axis least aligned with +Y.
    expectClose(joint(s), [2.4, 1.8, 0], 1e-12);
    // The choice turns with the upper bone: rotated a quarter turn about Y, local X is world -Z.
    const h = Math.SQRT1_2;
    const turned = solve([0, 0, 0, 0, 3, 0, 0, 7, 0], [0, 5, 0], {}, Float64Array.from([0, h, 0, h, 0, 0, 0, 1, 0, 0, 0, 1]));
    expectClose(joint(turned), [0, 1.8, -2.4], 1e-12);
  });

  it('straight chain pointing away from an unreachable target: half turn in the bend plane', () => {
    const s = solve([0, 0, 0, 0, 3, 0, 0, 7, 0], [0, -20, 0], { hint: [0, 0, 1] });
    finite(s);
    expectClose(joint(s), [0, -3, 0], 1e-12);
    expectClose(endOf(s), [0, -7, 0], 1e-12);
    // About the hinge axis u × n = (0, -1, 0) × (0, 0, 1) = -X.
    expectClose(s.r.subarray(0, 4), [-1, 0, 0, 0], 1e-12);
  });

  it('target straight behind a bent chain: the bend is kept as it is', () => {
    const s = solve([0, 0, 0, 0, -40, 4, 0, -80, 0], [0, 60, 0]);
    finite(s);
    expect(joint(s)[2]).toBeGreaterThan(0);
    expectClose(endOf(s), [0, 60, 0], 1e-12);
  });

  it('non-finite targets or chains pass the chain through', () => {
    const chain = [0, 0, 0, 0, 3, 0, 0, 7, 0];
    for (const target of [[NaN, 0, 0], [Infinity, 0, 0], [0, -Infinity, 0]]) {
      const s = solve(chain, target);
      expectClose(s.p, chain, 0);
      expectClose(s.r, IDENTITY3(), 0);
    }
    const s = solve([0, 0, 0, 0, NaN, 0, 0, 7, 0], [1, 1, 1]);
    expect(hasNaN(s.r)).toBe(false);
  });

  it('hint slot layout and defaults of twoBoneIKOptions', () => {
    const o = twoBoneIKOptions({ hint: [1, 2, 3] });
    expect(Array.from(o.subarray(IK_HINT, IK_HINT + 3))).toEqual([1, 2, 3]);
    expect(o[IK_KEEP_END_ROTATION]).toBe(1);
    expect(Array.from(twoBoneIKOptions())).toEqual([0, 0, 0, 1, 0, 1, 1.2]);
  });
});
