import { describe, expect, it } from 'vitest';
import type { ComponentPose } from '../../runtime/core/component-pose.ts';
import {
  CHAIN_IK_OPTIONS, CHAIN_LIMIT_ROTATION, CHAIN_MAX_ITERATIONS, CHAIN_PRECISION, CHAIN_REACH_ERROR, CHAIN_START_FROM_TAIL, CHAIN_TARGET,
  chainIKWorkLength, solveCCDIK,
} from '../../runtime/jobs/chain-ik.ts';
import { runProbe } from '../support/allocation.ts';
import { bipedInstance, expectClose, hasNaN } from '../support/graphs.ts';
import { random, solveChain, turned } from '../support/chains.ts';
import { controlProblems } from '../support/walk-controls.ts';

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dist = (a: V, b: V) => Math.hypot(...sub(a, b));
const angle = (a: V, b: V) => Math.acos(Math.min(1, Math.max(-1, (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (Math.hypot(...a) * Math.hypot(...b)))));
const pos = (cs: ComponentPose, b: number): V => {
  cs.ensureComponent(b);
  return [cs.translations[b * 3], cs.translations[b * 3 + 1], cs.translations[b * 3 + 2]];
};
const ccd = (fromTail: boolean, limits?: number[]) => (work: Float64Array, count: number, options: Float64Array) => {
  options[CHAIN_START_FROM_TAIL] = fromTail ? 1 : 0;
  options[CHAIN_LIMIT_ROTATION] = limits ? 1 : 0;
  solveCCDIK(work, count, options, Float64Array.from(limits ?? new Array<number>(count).fill(0)));
};

describe('solveCCDIK on small chains with known answers', () => {
  const L: V[] = [[0, 0, 0], [0, 1, 0], [1, 1, 0]];

  it('reaches a reachable point from either end: the joint where the two circles meet, in the chain’s plane', () => {
    for (const fromTail of [true, false]) {
      const { positions, rotations, reachError } = solveChain(ccd(fromTail), L, [1.2, 0, 0], 1e-7, 5000);
      expect(reachError).toBeLessThanOrEqual(1e-7);
      expectClose(positions[0], [0, 0, 0], 0);
      // |joint| = 1 and |joint − target| = 1: (0.6, ±0.8, 0).
      expect(Math.abs(positions[1][0] - 0.6)).toBeLessThan(1e-6);
      expect(Math.abs(Math.abs(positions[1][1]) - 0.8)).toBeLessThan(1e-6);
      expect(positions[1][2]).toBe(0);
      // Rotations follow the bones, and the tip turned with its parent.
      expectClose(turned(rotations, 0, [0, 1, 0]), positions[1], 1e-12);
      expectClose(turned(rotations, 2, [1, 0, 0]), turned(rotations, 1, [1, 0, 0]), 1e-12);
    }
  });

  it('points the straight chain at a target out of reach', () => {
    const { positions } = solveChain(ccd(true), L, [5, 0, 0], 1e-9, 2000);
    expectClose(positions[1], [1, 0, 0], 1e-6);
    expectClose(positions[2], [2, 0, 0], 1e-6);
  });

  it('holds each joint’s total turn to its limit, and a tight limit stops short of the target', () => {
    const limit = (10 * Math.PI) / 180;
    const free = solveChain(ccd(true), L, [1.2, 0, 0], 1e-7, 5000);
    const held = solveChain(ccd(true, [limit, Math.PI, 0]), L, [1.2, 0, 0], 1e-7, 5000);
    expect(angle(sub(free.positions[1], L[0]), sub(L[1], L[0]))).toBeGreaterThan(limit * 2);
    expect(angle(sub(held.positions[1], L[0]), sub(L[1], L[0]))).toBeLessThanOrEqual(limit + 1e-12);
    expect(held.reachError).toBeGreaterThan(0.1);
    // Bone lengths kept all the same.
    expect(Math.abs(dist(held.positions[2], held.positions[1]) - 1)).toBeLessThan(1e-12);
  });

  it('keeps every bone length to 1e-12 relative on random chains, and reaches reachable targets within the precision', () => {
    const next = random(3838);
    let reached = 0;
    for (let trial = 0; trial < 100; trial++) {
      const n = 3 + Math.floor(next() * 8);
      const points: V[] = [[0, 0, 0]];
      for (let i = 1; i < n; i++) points.push(points[i - 1].map((x) => x + next() * 2 - 1) as V);
      let reach = 0;
      for (let i = 1; i < n; i++) reach += dist(points[i], points[i - 1]);
      const dir: V = [next() - 0.5, next() - 0.5, next() - 0.5], k = (next() * 0.8 * reach) / Math.hypot(...dir);
      const target = dir.map((x) => x * k) as V;
      const { positions, rotations, reachError } = solveChain(ccd(next() < 0.5), points, target, 1e-4, 500);
      for (let i = 1; i < n; i++) {
        const before = dist(points[i], points[i - 1]);
        expect(Math.abs(dist(positions[i], positions[i - 1]) - before)).toBeLessThanOrEqual(1e-12 * before);
      }
      expect(hasNaN(rotations)).toBe(false);
      if (reachError <= 1e-4) reached++;
    }
    // CCD may stall in a fold for a target near the root; nearly every one is reached.
    expect(reached).toBeGreaterThanOrEqual(95);
  });

  it('never gives NaN: a target on the root or on a joint, non-finite; zero-length bones', () => {
    for (const target of [[0, 0, 0], [0, 1, 0], [NaN, 0, 0], [Infinity, 0, 0]] as V[]) {
      const work = new Float64Array(chainIKWorkLength(4));
      work.set([0, 0, 0, 0, 1, 0, 0, 1, 0, 1, 1, 0]);
      for (let i = 0; i < 4; i++) work[12 + i * 4 + 3] = 1;
      const options = new Float64Array(CHAIN_IK_OPTIONS);
      options.set(target, CHAIN_TARGET);
      options[CHAIN_PRECISION] = 1e-6;
      options[CHAIN_MAX_ITERATIONS] = 50;
      solveCCDIK(work, 4, options, new Float64Array(4));
      expect(hasNaN(work.subarray(0, 28))).toBe(false);
      expect(Number.isNaN(options[CHAIN_REACH_ERROR])).toBe(target.some(Number.isNaN));
    }
  });
});

describe('CCDIK on the built-in biped (spine_01 .. hand_l)', () => {
  const fk = bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'walk');
  fk.update(0.3);
  const f = fk.componentPose();
  const sk = fk.skeleton, bone = (name: string) => sk.indexOf(name);
  const chain = ['spine_01', 'spine_02', 'clavicle_l', 'upperarm_l', 'lowerarm_l', 'hand_l'].map(bone);
  const target: V = [40, 130, 30];
  const solved = (properties: Record<string, unknown>) => {
    const g = bipedInstance({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      ik: { type: 'CCDIK', inputs: { pose: 'walk' }, properties: { rootBone: 'spine_01', tipBone: 'hand_l', target, precision: 1e-4, maxIterations: 500, ...properties } },
    }, 'ik');
    g.update(0.3);
    return { cs: g.componentPose(), debug: g.gatherDebug().children[0] };
  };

  it('reaches the target within the precision, the root in place, lengths kept, the hand turning with the forearm', () => {
    const { cs, debug } = solved({});
    expect(dist(pos(cs, chain[5]), target)).toBeLessThanOrEqual(1e-4);
    expect(debug.values!.reachError as number).toBeLessThanOrEqual(1e-4);
    expectClose(pos(cs, chain[0]), pos(f, chain[0]), 1e-12);
    for (let i = 1; i < chain.length; i++) {
      const l = dist(pos(f, chain[i]), pos(f, chain[i - 1]));
      expect(Math.abs(dist(pos(cs, chain[i]), pos(cs, chain[i - 1])) - l)).toBeLessThanOrEqual(1e-9 * l);
    }
    const h = chain[5] * 4;
    expectClose(cs.local.rotations.subarray(h, h + 4), f.local.rotations.subarray(h, h + 4), 1e-12);
  });

  it('limits each joint’s turn: rotationLimit for all, jointLimits for one', () => {
    const limit = 5, neck = 2;
    const { cs } = solved({ enableRotationLimits: true, rotationLimit: limit, jointLimits: [{ bone: 'upperarm_l', limit: neck }] });
    const free = solved({}).cs;
    let beyond = 0;
    for (let i = 0; i < chain.length - 1; i++) {
      const before = sub(pos(f, chain[i + 1]), pos(f, chain[i]));
      // The bone's direction turns at most by the limits of its joint and those above it.
      const allowed = (i + 1) * limit + (i >= 3 ? neck - limit : 0);
      expect(angle(before, sub(pos(cs, chain[i + 1]), pos(cs, chain[i]))) * (180 / Math.PI)).toBeLessThanOrEqual(allowed + 1e-9);
      if (angle(before, sub(pos(free, chain[i + 1]), pos(free, chain[i]))) * (180 / Math.PI) > allowed) beyond++;
    }
    // Without the limits the same target turns bones further.
    expect(beyond).toBeGreaterThan(0);
  });

  it('allocates nothing per frame (0 B once warm), at full and half alpha, with limits and copyTarget', () => {
    const result = runProbe<Record<string, number>>('controls-allocation-probe.ts', [], ['CCDIK']);
    expect(result.perFrame).toBeLessThan(0.5);
    expect(result.iterations).toBeGreaterThan(0);
  });
});

describe('CCDIK load checks', () => {
  const problems = (ik: Record<string, unknown>) => controlProblems('CCDIK', 'ik', ik);

  it('takes joint limits on bones of the chain other than the tip, each once', () => {
    const base = { rootBone: 'clavicle_l', tipBone: 'hand_l' };
    expect(problems({ ...base, jointLimits: [{ bone: 'upperarm_l', limit: 20 }, { bone: 'clavicle_l' }] })).toEqual([]);
    expect(problems({ ...base, jointLimits: [{ bone: 'hand_l', limit: 20 }] })).toEqual([
      "$.nodes.ik.properties.jointLimits[0].bone [schema] bone 'hand_l' is not a joint of the chain: a limit applies to the bones from rootBone to tipBone's parent",
    ]);
    expect(problems({ ...base, jointLimits: [{ bone: 'head', limit: 20 }] })).toEqual([expect.stringMatching(/jointLimits\[0\]\.bone \[schema\] bone 'head' is not a joint/)]);
    expect(problems({ ...base, jointLimits: [{ bone: 'upperarm_l' }, { bone: 'upperarm_l', limit: 3 }] })).toEqual([expect.stringMatching(/jointLimits\[1\]\.bone \[schema\] bone 'upperarm_l' is given a limit twice/)]);
    expect(problems({ ...base, jointLimits: [{ bone: 'upperarm_l', limit: 181 }] })).toEqual([expect.stringMatching(/jointLimits\[0\]\.limit \[schema\]/)]);
    expect(problems({ ...base, rotationLimit: { param: 'x' } })).toEqual([expect.stringMatching(/rotationLimit/)]);
    expect(problems({ rootBone: 'hand_l', tipBone: 'clavicle_l' })).toEqual([expect.stringMatching(/tipBone \[unknown-bone\] bone 'clavicle_l' is not below rootBone 'hand_l'/)]);
  });
});
