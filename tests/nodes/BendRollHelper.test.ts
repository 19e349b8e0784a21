import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadGraphFile } from '../../host/files.ts';
import { BendRollHelperType } from '../../nodes/BendRollHelper.ts';
import { OutputType } from '../../nodes/index.ts';
import { SequenceEvaluatorType } from '../../nodes/SequenceEvaluator.ts';
import { Clip } from '../../runtime/core/clip.ts';
import { AnimGraph } from '../../runtime/graph/graph.ts';
import type { CompiledNode, PropertyValue } from '../../runtime/graph/definition.ts';
import { quatFromAxisAngle, quatMultiply, quatScaleAngle, quatSwingTwist } from '../../runtime/core/math.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { hasNaN } from '../support/graphs.ts';
import { describeWithData } from '../support/shared-data.ts';
import { runProbe } from '../support/allocation.ts';

// ---------------------------------------------------------------------------------------------
// An independent bend/roll decomposition with rotation matrices (row-major 3x3), written from the
// definitions: bend = the rotation about a × v by the angle between a and v = R·a (Rodrigues);
// roll = transpose(bend) · R, whose angle about a is measured on a vector perpendicular to a.

type M3 = number[];
type V3 = [number, number, number];

function matFromQuat(q: ArrayLike<number>, o = 0): M3 {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  const n = Math.hypot(x, y, z, w), X = x / n, Y = y / n, Z = z / n, W = w / n;
  return [
    1 - 2 * (Y * Y + Z * Z), 2 * (X * Y - Z * W), 2 * (X * Z + Y * W),
    2 * (X * Y + Z * W), 1 - 2 * (X * X + Z * Z), 2 * (Y * Z - X * W),
    2 * (X * Z - Y * W), 2 * (Y * Z + X * W), 1 - 2 * (X * X + Y * Y),
  ];
}
const mul = (a: M3, b: M3): M3 => Array.from({ length: 9 }, (_, k) => {
  const r = Math.floor(k / 3), c = k % 3;
  return a[r * 3] * b[c] + a[r * 3 + 1] * b[3 + c] + a[r * 3 + 2] * b[6 + c];
});
const transpose = (a: M3): M3 => [a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]];
const apply = (m: M3, v: V3): V3 => [
  m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2], m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V3, b: V3): V3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (v: readonly number[]): V3 => {
  const n = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / n, v[1] / n, v[2] / n];
};
/** Rotation by `angle` about the unit vector k: I + sin K + (1 - cos) K². */
function rodrigues(k: V3, angle: number): M3 {
  const s = Math.sin(angle), c = 1 - Math.cos(angle);
  const K = [0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0];
  const K2 = mul(K, K);
  return [1, 0, 0, 0, 1, 0, 0, 0, 1].map((id, i) => id + s * K[i] + c * K2[i]);
}
const maxDiff = (a: M3, b: M3) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));
/** Rotation angle of a rotation matrix, robust for small angles. */
function matAngle(m: M3): number {
  const sin = Math.hypot(m[7] - m[5], m[2] - m[6], m[3] - m[1]) / 2;
  return Math.atan2(sin, (m[0] + m[4] + m[8] - 1) / 2);
}

/** Signed angle of the rotation m about the unit axis a (m must leave a fixed). */
function angleAbout(m: M3, a: V3): number {
  const e: V3 = Math.abs(a[0]) < 0.6 ? [1, 0, 0] : [0, 1, 0];
  const u = unit(cross(a, e));
  const mu = apply(m, u);
  return Math.atan2(dot(a, cross(u, mu)), dot(u, mu));
}

interface Reference {
  bendAxis: V3;
  bend: number;
  roll: number;
  B: M3;
  T: M3;
  weightedBend: M3;
  weightedRoll: M3;
  out: M3;
}

function reference(R: M3, axis: readonly number[], wb: number, wr: number, order: 'bendRoll' | 'rollBend'): Reference {
  const a = unit(axis);
  const v = apply(R, a);
  const c = cross(a, v), s = Math.hypot(...c);
  if (s < 1e-7 && dot(a, v) < 0) throw new Error('reference: rotated axis opposite to the axis');
  const bend = Math.atan2(s, dot(a, v));
  const bendAxis: V3 = s > 0 ? [c[0] / s, c[1] / s, c[2] / s] : [1, 0, 0];
  const B = rodrigues(bendAxis, bend);
  const T = mul(transpose(B), R);
  const roll = angleAbout(T, a);
  const weightedBend = rodrigues(bendAxis, bend * wb), weightedRoll = rodrigues(a, roll * wr);
  const out = order === 'rollBend' ? mul(weightedBend, weightedRoll) : mul(weightedRoll, weightedBend);
  return { bendAxis, bend, roll, B, T, weightedBend, weightedRoll, out };
}

/** Seeded PRNG (mulberry32), so every run checks the same rotations. */
function prng(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}
/** A uniformly distributed unit quaternion (Shoemake). */
function randomRotation(random: () => number): number[] {
  const u1 = random(), u2 = random() * 2 * Math.PI, u3 = random() * 2 * Math.PI;
  const a = Math.sqrt(1 - u1), b = Math.sqrt(u1);
  return [a * Math.sin(u2), a * Math.cos(u2), b * Math.sin(u3), b * Math.cos(u3)];
}

// ---------------------------------------------------------------------------------------------
// The node on the sample biped with helper bones, its source driven through every rotation given.

const HELPERS = [
  { target: 'h0', axis: [0.3, -2, 0.7], order: 'rollBend' },
  { target: 'h1', axis: [0.3, -2, 0.7], order: 'bendRoll' },
  { target: 'h2', axis: undefined, order: 'rollBend' }, // the default axis, +X
  { target: 'h3', axis: [0, 0, -5], order: 'bendRoll' },
] as const;
const SOURCE = 'lowerarm_l';

function rotationGraph(rotations: readonly number[][], alpha: PropertyValue = 1) {
  const skeleton = sampleSkeleton().withExtraBones(HELPERS.map((h) => ({ name: h.target, parent: 'upperarm_l', translation: [0, -10, 0] })));
  const clip = new Clip({
    name: 'rotations', frameRate: 1, frameCount: rotations.length, interpolation: 'nlerp',
    tracks: [{ bone: SOURCE, translation: false, rotation: true, scale: false }],
    rotations: Float64Array.from(rotations.flat()),
  });
  const nodes: CompiledNode[] = [
    { id: 'source', nodeType: SequenceEvaluatorType, properties: { clip: 'rotations', explicitTime: { param: 'frame' } }, inputs: {} },
    {
      id: 'helpers', nodeType: BendRollHelperType, inputs: { pose: 'source' },
      properties: {
        alpha,
        helpers: HELPERS.map((h) => ({
          source: SOURCE, target: h.target, order: h.order, bendWeight: { param: 'wb' }, rollWeight: { param: 'wr' }, ...(h.axis ? { axis: [...h.axis] } : {}),
        })),
      },
    },
    { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'helpers' } },
  ];
  const graph = new AnimGraph({
    name: 'rotations', skeleton, clips: new Map([['rotations', clip]]), nodes,
    parameters: { frame: { type: 'float' }, wb: { type: 'float' }, wr: { type: 'float' }, alpha: { type: 'float' } },
  });
  const instance = graph.createInstance();
  const bone = (name: string) => skeleton.indexOf(name);
  /** Evaluates rotation `frame` with the given weights: the source's and each helper's local rotation matrix. */
  const run = (frame: number, wb: number, wr: number) => {
    instance.setParameter('frame', frame);
    instance.setParameter('wb', wb);
    instance.setParameter('wr', wr);
    instance.update(0);
    const pose = instance.evaluate();
    return {
      source: matFromQuat(pose.rotations, bone(SOURCE) * 4),
      targets: HELPERS.map((h) => matFromQuat(pose.rotations, bone(h.target) * 4)),
      pose,
    };
  };
  return { graph, instance, skeleton, run, bone };
}

const IDENTITY: M3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];

describe('BendRollHelper on 10,000 random rotations', () => {
  const random = prng(20241210);
  const rotations = Array.from({ length: 10000 }, () => randomRotation(random));
  const weights = rotations.map(() => [random() * 2 - 1, random() * 2 - 1]);
  const { run } = rotationGraph(rotations);

  it('matches the independent matrix decomposition to 1e-6 for both orders and any weights, and the special weights do what they say', () => {
    let worst = 0, worstIdentity = 0, worstSource = 0, worstAxis = 0, worstTwist = 0, worstConjugate = 0;
    let differ = 0, comparable = 0;
    rotations.forEach((_, i) => {
      const [wb, wr] = weights[i];
      // (1, 1): rollBend (bend × roll) is the source itself; bendRoll is roll × bend.
      const full = run(i, 1, 1);
      HELPERS.forEach((h, k) => {
        const ref = reference(full.source, h.axis ?? [1, 0, 0], 1, 1, h.order);
        worst = Math.max(worst, maxDiff(full.targets[k], ref.out));
        if (h.order === 'rollBend') worstSource = Math.max(worstSource, maxDiff(full.targets[k], full.source));
      });
      // (0, 0): the identity.
      const none = run(i, 0, 0);
      for (const t of none.targets) worstIdentity = Math.max(worstIdentity, maxDiff(t, IDENTITY));
      // Roll only: the axis stays where it is.
      const rollOnly = run(i, 0, wr);
      HELPERS.forEach((h, k) => {
        const a = unit(h.axis ?? [1, 0, 0]);
        const turned = apply(rollOnly.targets[k], a);
        worstAxis = Math.max(worstAxis, ...turned.map((x, c) => Math.abs(x - a[c])));
        worst = Math.max(worst, maxDiff(rollOnly.targets[k], reference(rollOnly.source, a, 0, wr, h.order).out));
      });
      // Bend only: no twist about the axis (its own decomposition has zero roll).
      const bendOnly = run(i, wb, 0);
      HELPERS.forEach((h, k) => {
        const a = unit(h.axis ?? [1, 0, 0]);
        worstTwist = Math.max(worstTwist, Math.abs(reference(bendOnly.targets[k], a, 1, 1, 'rollBend').roll));
        worst = Math.max(worst, maxDiff(bendOnly.targets[k], reference(bendOnly.source, a, wb, 0, h.order).out));
      });
      // Any weights: both orders against the reference; bendRoll = Rw · rollBend · Rw⁻¹ (same axis, helpers 0 and 1).
      const both = run(i, wb, wr);
      HELPERS.forEach((h, k) => {
        worst = Math.max(worst, maxDiff(both.targets[k], reference(both.source, h.axis ?? [1, 0, 0], wb, wr, h.order).out));
      });
      const ref = reference(both.source, HELPERS[0].axis, wb, wr, 'rollBend');
      const conjugated = mul(mul(ref.weightedRoll, both.targets[0]), transpose(ref.weightedRoll));
      worstConjugate = Math.max(worstConjugate, maxDiff(conjugated, both.targets[1]));
      if (Math.abs(ref.bend * wb) > 0.05 && Math.abs(ref.roll * wr) > 0.05) {
        comparable++;
        if (maxDiff(both.targets[0], both.targets[1]) > 1e-4) differ++;
      }
    });
    expect(worst).toBeLessThan(1e-6);
    expect(worstSource).toBeLessThan(1e-9);
    expect(worstIdentity).toBeLessThan(1e-12);
    expect(worstAxis).toBeLessThan(1e-9);
    expect(worstTwist).toBeLessThan(1e-9);
    expect(worstConjugate).toBeLessThan(1e-9);
    // The orders differ wherever both parts turn (bend and roll about perpendicular axes do not commute).
    expect(comparable).toBeGreaterThan(5000);
    expect(differ).toBe(comparable);
  });

  it('bendRoll at full weights is the roll applied after the bend: the axis goes to R·(B·a), not to where the joint points it', () => {
    for (let i = 0; i < 100; i++) {
      const { source, targets } = run(i, 1, 1);
      const a = unit(HELPERS[1].axis);
      const ref = reference(source, a, 1, 1, 'bendRoll');
      const expected = apply(ref.T, apply(ref.B, a));
      expect(Math.max(...apply(targets[1], a).map((x, c) => Math.abs(x - expected[c])))).toBeLessThan(1e-9);
      // rollBend points it where the joint does.
      const joint = apply(source, a);
      expect(Math.max(...apply(targets[0], a).map((x, c) => Math.abs(x - joint[c])))).toBeLessThan(1e-9);
    }
  });

  it('clamps bound weights to [-1, 1]', () => {
    for (const i of [17, 18, 19]) {
      const clamped = run(i, 7, -3), limits = run(i, 1, -1), inside = run(i, 0.999, -0.999);
      for (let k = 0; k < HELPERS.length; k++) {
        expect(maxDiff(clamped.targets[k], limits.targets[k])).toBe(0);
        expect(maxDiff(clamped.targets[k], inside.targets[k])).toBeGreaterThan(1e-5); // the weights matter here
      }
      expect(hasNaN(clamped.pose.rotations)).toBe(false);
    }
  });

  it('debug shows each helper’s bend and roll angles in degrees', () => {
    const { instance } = rotationGraph(rotations);
    instance.setParameter('frame', 3);
    instance.setParameter('wb', 0.5);
    instance.setParameter('wr', 0.5);
    instance.update(0);
    const pose = instance.evaluate();
    const ref = reference(matFromQuat(pose.rotations, sampleSkeleton().indexOf(SOURCE) * 4), HELPERS[0].axis, 1, 1, 'rollBend');
    const debug = instance.gatherDebug().children[0];
    const deg = (r: number) => (r * 180) / Math.PI;
    expect((debug.values!.bend as number[])[0]).toBeCloseTo(deg(ref.bend), 6);
    expect((debug.values!.roll as number[])[0]).toBeCloseTo(deg(ref.roll), 6);
    expect(debug.values!.bendWeight).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(debug.description).toContain(`${SOURCE} -> h0 (Bend: ${deg(ref.bend).toFixed(1)}° Roll: ${deg(ref.roll).toFixed(1)}°)`);
    expect(debug.description.startsWith('Alpha: 100.0% ')).toBe(true);
    expect(debug.alpha).toBe(1);
  });

  it('shares its axes, weight sources and bones between the instances of a graph, each with its own weights', () => {
    const { graph, instance, run } = rotationGraph(rotations);
    const other = graph.createInstance();
    type Inside = { table: unknown; bones: Int32Array; weights: Float64Array };
    const [a, b] = [instance, other].map((g) => g.nodes.get('helpers') as unknown as Inside);
    expect(a.table).toBe(b.table);
    expect(a.bones).toBe(b.bones);
    const first = run(3, 0.25, -0.5).targets;
    other.setParameter('frame', 3);
    other.setParameter('wb', 1);
    other.update(0);
    other.evaluate();
    expect(Array.from(a.weights.subarray(0, 2))).toEqual([0.25, -0.5]);
    expect(Array.from(b.weights.subarray(0, 2))).toEqual([1, 0]);
    expect(run(3, 0.25, -0.5).targets).toEqual(first);
  });
});

describe('BendRollHelper alpha and targets', () => {
  const random = prng(7);
  const rotations = Array.from({ length: 20 }, () => randomRotation(random));

  it('alpha blends each target from its input rotation toward the result (normalised lerp of the local rotations)', () => {
    const { instance, bone } = rotationGraph(rotations, { param: 'alpha' });
    const full = rotationGraph(rotations).run(5, 0.8, 0.3);
    for (const alpha of [0, 0.3, 1]) {
      instance.setParameter('frame', 5);
      instance.setParameter('wb', 0.8);
      instance.setParameter('wr', 0.3);
      instance.setParameter('alpha', alpha);
      instance.update(0);
      const pose = instance.evaluate();
      HELPERS.forEach((h, k) => {
        // The helper bones' input rotation is their reference rotation, the identity.
        const result = full.pose.rotations.subarray(bone(h.target) * 4, bone(h.target) * 4 + 4);
        const sign = result[3] < 0 ? -1 : 1;
        const blend = [0, 0, 0, 1 - alpha].map((x, c) => x + alpha * sign * result[c]);
        expect(maxDiff(matFromQuat(pose.rotations, bone(h.target) * 4), matFromQuat(blend))).toBeLessThan(1e-12);
      });
    }
  });

  it('a helper whose target lies below another helper’s target still gets exactly its local rotation, in any listing order', () => {
    const skeleton = sampleSkeleton().withExtraBones([
      { name: 'pad', parent: 'upperarm_l', translation: [0, -12, 0] },
      { name: 'plate', parent: 'pad', translation: [2, -3, 0] },
    ]);
    const clip = new Clip({
      name: 'r', frameRate: 1, frameCount: 2, tracks: [
        { bone: 'upperarm_l', translation: false, rotation: true, scale: false },
        { bone: 'lowerarm_l', translation: false, rotation: true, scale: false },
      ],
      rotations: Float64Array.from([...rotations[0], ...rotations[1], ...rotations[2], ...rotations[3]]),
    });
    for (const listed of [['pad', 'plate'], ['plate', 'pad']]) {
      const sources: Record<string, string> = { pad: 'upperarm_l', plate: 'lowerarm_l' };
      const graph = new AnimGraph({
        name: 'nested', skeleton, clips: new Map([['r', clip]]), parameters: {},
        nodes: [
          { id: 'source', nodeType: SequenceEvaluatorType, properties: { clip: 'r' }, inputs: {} },
          {
            id: 'helpers', nodeType: BendRollHelperType, inputs: { pose: 'source' },
            properties: { helpers: listed.map((t) => ({ source: sources[t], target: t, axis: [0, -1, 0], bendWeight: 0.7, rollWeight: 0.4 })) },
          },
          { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'helpers' } },
        ],
      });
      const instance = graph.createInstance();
      instance.update(0);
      const pose = instance.evaluate();
      for (const target of ['pad', 'plate']) {
        const src = matFromQuat(pose.rotations, skeleton.indexOf(sources[target]) * 4);
        const expected = reference(src, [0, -1, 0], 0.7, 0.4, 'rollBend').out;
        expect(maxDiff(matFromQuat(pose.rotations, skeleton.indexOf(target) * 4), expected), `${target} listed as ${listed}`).toBeLessThan(1e-9);
      }
      // Translations and scales are kept.
      const plate = skeleton.indexOf('plate');
      expect(Array.from(pose.translations.subarray(plate * 3, plate * 3 + 3)).map((x) => +x.toFixed(9))).toEqual([2, -3, 0]);
      expect(Array.from(pose.scales.subarray(plate * 3, plate * 3 + 3)).map((x) => +x.toFixed(9))).toEqual([1, 1, 1]);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The split where the rotated axis is opposite to the axis, and near it.

describe('quatSwingTwist near and at the opposite axis', () => {
  const a = Float64Array.from(unit([0.2, 1, -0.4]));
  const aV: V3 = [a[0], a[1], a[2]];
  const u: V3 = unit(cross(aV, [1, 0, 0])); // perpendicular to the axis
  const quat = (axis: V3, angle: number) => quatFromAxisAngle(new Float64Array(4), 0, axis[0], axis[1], axis[2], angle);
  const split = (q: Float64Array) => {
    const swing = new Float64Array(4), twist = new Float64Array(4);
    quatSwingTwist(swing, 0, twist, 0, q, 0, a, 0);
    return { swing, twist };
  };
  const weighted = (q: Float64Array, wb: number, wr: number) => {
    const { swing, twist } = split(q);
    const w = Float64Array.of(wb, wr), out = new Float64Array(12);
    quatScaleAngle(out, 0, swing, 0, w, 0);
    quatScaleAngle(out, 4, twist, 0, w, 1);
    return quatMultiply(out, 8, out, 0, out, 4).subarray(8, 12);
  };
  const twistAngle = (t: Float64Array) => 2 * Math.atan2(t[0] * a[0] + t[1] * a[1] + t[2] * a[2], t[3]);

  it('at the opposite: no roll, the bend is the rotation itself (a half turn about its own axis, perpendicular to the axis)', () => {
    for (const phi of [0, 0.4, -2, Math.PI]) {
      const q = quatMultiply(new Float64Array(4), 0, quat(u, Math.PI), 0, quat(aV, phi), 0);
      const { swing, twist } = split(q);
      expect(Array.from(twist)).toEqual([0, 0, 0, 1]);
      expect(maxDiff(matFromQuat(swing), matFromQuat(q))).toBeLessThan(1e-15);
      expect(Math.abs(swing[0] * a[0] + swing[1] * a[1] + swing[2] * a[2])).toBeLessThan(1e-15);
      expect(hasNaN(weighted(q, 0.5, 0.5))).toBe(false);
    }
  });

  it('pure bends approaching the half turn converge to the split at it (no flip along a bend)', () => {
    const at = weighted(quat(u, Math.PI), 0.5, 0.25);
    for (const eps of [1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-13]) {
      const near = weighted(quat(u, Math.PI - eps), 0.5, 0.25);
      expect(maxDiff(matFromQuat(near), matFromQuat(at))).toBeLessThan(eps);
      expect(Math.abs(twistAngle(split(quat(u, Math.PI - eps)).twist))).toBeLessThan(1e-9);
    }
  });

  it('near the opposite, bend and roll are still recovered (no early switch to a fallback axis)', () => {
    for (const eps of [1e-3, 1e-5, 1e-7, 1e-8]) {
      for (const phi of [0.3, -1.2, 2.9]) {
        const q = quatMultiply(new Float64Array(4), 0, quat(u, Math.PI - eps), 0, quat(aV, phi), 0);
        const { swing, twist } = split(q);
        expect(twistAngle(twist)).toBeCloseTo(phi, 6);
        const bend = 2 * Math.atan2(Math.hypot(swing[0], swing[1], swing[2]), swing[3]);
        expect(bend).toBeCloseTo(Math.PI - eps, 9);
        expect(maxDiff(matFromQuat(swing), matFromQuat(quat(u, Math.PI - eps)))).toBeLessThan(1e-6);
      }
    }
  });

  it('stays continuous along paths that pass close to the opposite: no step moves the result more than the source’s bend and roll moved', () => {
    // The bend axis sweeps a full turn about the axis while the bend stays 1e-4 short of a half turn
    // and the roll drifts: the rotated axis circles the opposite direction at 1e-4 rad.
    const steps = 20000;
    let prev: { q: Float64Array; out: Float64Array } | null = null;
    for (let s = 0; s <= steps; s++) {
      const t = s / steps;
      const spin = quat(aV, 2 * Math.PI * t);
      const bendAxis = apply(matFromQuat(spin), u);
      const q = quatMultiply(new Float64Array(4), 0, quat(bendAxis, Math.PI - 1e-4), 0, quat(aV, 0.5 + t), 0);
      const out = Float64Array.from(weighted(q, 0.6, 0.3));
      expect(hasNaN(out)).toBe(false);
      if (prev) {
        // Triangle inequality: the weighted parts each move by at most their source part's move.
        const before = reference(matFromQuat(prev.q), aV, 1, 1, 'rollBend'), after = reference(matFromQuat(q), aV, 1, 1, 'rollBend');
        const bendMove = matAngle(mul(after.B, transpose(before.B)));
        const rollMove = Math.abs(after.roll - before.roll);
        const outMove = matAngle(mul(matFromQuat(out), transpose(matFromQuat(prev.out))));
        expect(outMove).toBeLessThanOrEqual(bendMove + 0.3 * rollMove + 1e-9);
        expect(outMove).toBeLessThan(1e-3); // small steps, small moves
      }
      prev = { q, out };
    }
  });

  it('at the opposite with a roll, matches its neighbours from every side only for weights 0 and 0 or a whole bend with the whole roll', () => {
    // q = a half turn about u, then a roll phi. Rotations near q bend by pi - 1e-9 about u turned
    // by beta about the axis and roll by phi + 2 beta: every beta approaches q from its own side,
    // with its own split, so the weighted output's limit depends on beta unless the weights undo
    // that. The worst angle between the output there and the output at q, over five sides:
    const phi = 0.4;
    const q = quatMultiply(new Float64Array(4), 0, quat(u, Math.PI), 0, quat(aV, phi), 0);
    const output = (r: Float64Array, wb: number, wr: number, order: 'rollBend' | 'bendRoll') => {
      const { swing, twist } = split(r);
      const w = Float64Array.of(wb, wr), o = new Float64Array(12);
      quatScaleAngle(o, 0, swing, 0, w, 0);
      quatScaleAngle(o, 4, twist, 0, w, 1);
      return matFromQuat(order === 'rollBend' ? quatMultiply(o, 8, o, 0, o, 4) : quatMultiply(o, 8, o, 4, o, 0), 8);
    };
    const jump = (wb: number, wr: number, order: 'rollBend' | 'bendRoll') => {
      const at = output(q, wb, wr, order);
      let worst = 0;
      for (const beta of [-1.2, -0.6, 0, 0.5, 1.1]) {
        const side = apply(rodrigues(aV, beta), u);
        const near = quatMultiply(new Float64Array(4), 0, quat(side, Math.PI - 1e-9), 0, quat(aV, phi + 2 * beta), 0);
        expect(matAngle(mul(matFromQuat(near), transpose(matFromQuat(q))))).toBeLessThan(1e-8);
        worst = Math.max(worst, matAngle(mul(output(near, wb, wr, order), transpose(at))));
      }
      return worst;
    };
    // Continuous: nothing taken, or the whole bend (a half turn, so -1 is the same) with the whole
    // roll, undone in the order the parts are composed.
    for (const [wb, wr, order] of [[0, 0, 'rollBend'], [1, 1, 'rollBend'], [-1, 1, 'rollBend'], [1, -1, 'bendRoll'], [-1, -1, 'bendRoll']] as const) {
      expect(jump(wb, wr, order)).toBeLessThan(1e-8);
    }
    // Equal weights other than 0 and 1 are not: 74.5 degrees apart at 0.5 and 0.5, 54.0 at 0.25 and
    // 0.25; 1 and 1 in bendRoll order, 160.4.
    expect(jump(0.5, 0.5, 'rollBend')).toBeCloseTo((74.5 * Math.PI) / 180, 2);
    expect(jump(0.25, 0.25, 'rollBend')).toBeCloseTo((54.0 * Math.PI) / 180, 2);
    expect(jump(1, 1, 'bendRoll')).toBeCloseTo((160.4 * Math.PI) / 180, 2);
    expect(jump(0.6, 0.3, 'rollBend')).toBeGreaterThan(1);
  });

  it('never returns NaN, even for a zero or NaN rotation', () => {
    for (const q of [Float64Array.of(0, 0, 0, 0), Float64Array.of(NaN, 0, 0, 1), Float64Array.of(0, 0, 0, -1)]) {
      const { swing, twist } = split(q);
      expect(hasNaN(swing) || hasNaN(twist)).toBe(false);
      expect(hasNaN(weighted(q, 0.5, NaN))).toBe(false);
    }
  });
});

describe('quatScaleAngle', () => {
  it('scales the angle on the shorter arc: q and −q give the same result, so 300 degrees is −60', () => {
    const axis = unit([1, 2, 2]);
    const q = quatFromAxisAngle(new Float64Array(4), 0, axis[0], axis[1], axis[2], (300 * Math.PI) / 180);
    expect(q[3]).toBeLessThan(0);
    const half = quatScaleAngle(new Float64Array(4), 0, q, 0, Float64Array.of(0.5), 0);
    const expected = quatFromAxisAngle(new Float64Array(4), 0, axis[0], axis[1], axis[2], (-30 * Math.PI) / 180);
    expect(maxDiff(matFromQuat(half), matFromQuat(expected))).toBeLessThan(1e-15);
    const negated = quatScaleAngle(new Float64Array(4), 0, q.map((x) => -x), 0, Float64Array.of(0.5), 0);
    expect(maxDiff(matFromQuat(negated), matFromQuat(expected))).toBeLessThan(1e-15);
    const inverse = quatScaleAngle(new Float64Array(4), 0, q, 0, Float64Array.of(-1), 0);
    expect(maxDiff(matFromQuat(inverse), transpose(matFromQuat(q)))).toBeLessThan(1e-15);
  });
});

// ---------------------------------------------------------------------------------------------

describe('BendRollHelper allocates nothing per frame', () => {
  it('in a plain Node process, once warm', () => {
    const result = runProbe('bend-roll-allocation-probe.ts');
    expect(result.perFrame).toBeLessThan(4);
    expect(result.moved).toBe(true); // the helpers really were driven
  });
});

// ---------------------------------------------------------------------------------------------

describeWithData('BendRollHelper on the CMU walk (graphs/examples/cmu-armour.json)', () => {
  const graph = loadGraphFile(fileURLToPath(new URL('../../graphs/examples/cmu-armour.json', import.meta.url)));
  const skeleton = graph.skeleton;
  const bone = (name: string) => skeleton.indexOf(name);
  const upperarm = bone('CC_Base_L_Upperarm'), hand = bone('CC_Base_L_Hand');
  const armour = bone('L_ShoulderArmour'), guard = bone('L_ForearmGuard');
  const armAxis = unit([-0.830822, 25.193945, -0.240383]), wristAxis = unit([-0.682396, 25.698553, -0.294087]);
  // Every frame of the clip (170 at 60 fps), with the example's weights.
  const instance = graph.createInstance();
  const frames = Array.from({ length: 170 }, (_, f) => {
    instance.update(f === 0 ? 0 : 1 / 60);
    const pose = instance.evaluate();
    const cs = instance.componentPose();
    return {
      arm: matFromQuat(pose.rotations, upperarm * 4), armour: matFromQuat(pose.rotations, armour * 4),
      wrist: matFromQuat(pose.rotations, hand * 4), guard: matFromQuat(pose.rotations, guard * 4),
      armourPosition: Array.from(cs.translations.subarray(armour * 3, armour * 3 + 3)),
      armPosition: Array.from(cs.translations.subarray(upperarm * 3, upperarm * 3 + 3)),
    };
  });

  it('adds the helper bones after the BVH joints, at the shoulder and halfway down the forearm', () => {
    expect(skeleton.boneCount).toBe(103);
    expect([armour, guard]).toEqual([101, 102]);
    expect(skeleton.parents[armour]).toBe(bone('CC_Base_L_Clavicle'));
    expect(skeleton.parents[guard]).toBe(bone('CC_Base_L_Forearm'));
    // The armour's offset is the upper arm's, so it sits on the shoulder joint in every frame.
    for (const f of frames) expect(Math.max(...f.armourPosition.map((x, c) => Math.abs(x - f.armPosition[c])))).toBeLessThan(1e-9);
  });

  it("the armour's twist about the arm axis is 0.25 × the arm's and its bend is the arm's; the guard turns 0.5 × the wrist's roll and does not bend", () => {
    let armTwistRange = 0;
    for (const f of frames) {
      const arm = reference(f.arm, armAxis, 1, 1, 'rollBend'), arm2 = reference(f.armour, armAxis, 1, 1, 'rollBend');
      expect(arm2.roll).toBeCloseTo(0.25 * arm.roll, 9);
      expect(arm2.bend).toBeCloseTo(arm.bend, 9);
      expect(maxDiff(arm2.B, arm.B)).toBeLessThan(1e-9);
      expect(maxDiff(f.armour, reference(f.arm, armAxis, 1, 0.25, 'rollBend').out)).toBeLessThan(1e-6);
      const wrist = reference(f.wrist, wristAxis, 1, 1, 'rollBend'), g = reference(f.guard, wristAxis, 1, 1, 'rollBend');
      expect(g.roll).toBeCloseTo(0.5 * wrist.roll, 9);
      expect(g.bend).toBeLessThan(1e-9);
      armTwistRange = Math.max(armTwistRange, Math.abs(arm.roll));
    }
    // The arm does twist in this take (so the check above means something): 15 to 53 degrees.
    expect(armTwistRange).toBeGreaterThan((40 * Math.PI) / 180);
  });

  it('never flips: each frame the armour turns no more than the arm’s own bend and its weighted roll turned', () => {
    let biggest = 0;
    for (let i = 1; i < frames.length; i++) {
      const before = reference(frames[i - 1].arm, armAxis, 1, 1, 'rollBend'), after = reference(frames[i].arm, armAxis, 1, 1, 'rollBend');
      const armourMove = matAngle(mul(frames[i].armour, transpose(frames[i - 1].armour)));
      const armMove = matAngle(mul(frames[i].arm, transpose(frames[i - 1].arm)));
      const bound = matAngle(mul(after.B, transpose(before.B))) + 0.25 * Math.abs(after.roll - before.roll);
      expect(armourMove).toBeLessThanOrEqual(bound + 1e-9);
      // The bound is of the arm's own size: a flip would move the armour by tens of degrees in a frame.
      expect(armourMove).toBeLessThan(1.5 * armMove + 1e-9);
      const guardMove = matAngle(mul(frames[i].guard, transpose(frames[i - 1].guard)));
      const wristBefore = reference(frames[i - 1].wrist, wristAxis, 1, 1, 'rollBend'), wristAfter = reference(frames[i].wrist, wristAxis, 1, 1, 'rollBend');
      expect(guardMove).toBeCloseTo(0.5 * Math.abs(wristAfter.roll - wristBefore.roll), 9);
      biggest = Math.max(biggest, armourMove);
    }
    expect(biggest).toBeLessThan((10 * Math.PI) / 180);
  });
});
