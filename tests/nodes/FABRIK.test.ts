import { describe, expect, it } from 'vitest';
import type { ComponentPose } from '../../runtime/core/component-pose.ts';
import { quatRotateVec3 } from '../../runtime/core/math.ts';
import { solveFabrik } from '../../runtime/jobs/chain-ik.ts';
import { runProbe } from '../support/allocation.ts';
import { random, solveChain, turned } from '../support/chains.ts';
import { bipedInstance, expectClose, hasNaN } from '../support/graphs.ts';
import { describeWithData } from '../support/shared-data.ts';
import { cmuWalkInstance, controlProblems } from '../support/walk-controls.ts';

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dist = (a: V, b: V) => Math.hypot(...sub(a, b));
const pos = (cs: ComponentPose, b: number): V => {
  cs.ensureComponent(b);
  return [cs.translations[b * 3], cs.translations[b * 3 + 1], cs.translations[b * 3 + 2]];
};
const quat = (cs: ComponentPose, b: number) => Array.from(cs.rotations.subarray(b * 4, b * 4 + 4));

describe('solveFabrik on small chains with known answers', () => {
  // Root at the origin, a knee at (0, 1, 0), the tip at (1, 1, 0): two bones of length 1.
  const L: V[] = [[0, 0, 0], [0, 1, 0], [1, 1, 0]];

  it('reaches a reachable point: the joint where the two circles meet on the side it bent to', () => {
    const { positions, rotations, reachError } = solveChain(solveFabrik, L, [1.2, 0, 0]);
    expectClose(positions[0], [0, 0, 0], 0);
    expect(reachError).toBeLessThanOrEqual(1e-12);
    expectClose(positions[2], [1.2, 0, 0], 1e-12);
    // |joint| = 1 and |joint − target| = 1: x = 0.6, y = ±0.8; the chain bent toward +y.
    expectClose(positions[1], [0.6, 0.8, 0], 1e-9);
    // Each bone turned from its old direction to its new one: the root's (0, 1, 0) to the joint.
    expectClose(turned(rotations, 0, [0, 1, 0]), [0.6, 0.8, 0], 1e-9);
    expectClose(turned(rotations, 1, [1, 0, 0]), [0.6, -0.8, 0], 1e-9);
    // The tip keeps its rotation.
    expectClose(rotations.subarray(8, 12), [0, 0, 0, 1], 0);
  });

  it('straightens toward a target out of reach, every bone at its length', () => {
    const { positions, rotations, iterations } = solveChain(solveFabrik, L, [5, 0, 0]);
    expectClose(positions[1], [1, 0, 0], 1e-15);
    expectClose(positions[2], [2, 0, 0], 1e-15);
    expect(iterations).toBe(0);
    expectClose(turned(rotations, 0, [0, 1, 0]), [1, 0, 0], 1e-15);
    const diagonal = solveChain(solveFabrik, L, [3, 4, 12]); // 13 away
    expectClose(diagonal.positions[2], [6 / 13, 8 / 13, 24 / 13], 1e-15);
  });

  it('stops within the precision, at most maxIterations, and a tip already there moves nothing', () => {
    const coarse = solveChain(solveFabrik, L, [1.2, 0, 0], 0.05);
    expect(coarse.reachError).toBeLessThanOrEqual(0.05);
    expect(coarse.iterations).toBeLessThan(solveChain(solveFabrik, L, [1.2, 0, 0]).iterations);
    expect(solveChain(solveFabrik, L, [1.2, 0, 0], 1e-12, 2).iterations).toBe(2);
    const still = solveChain(solveFabrik, L, [1, 1 + 1e-3, 0], 0.01);
    expect(still.iterations).toBe(0);
    expectClose(still.positions.flat(), L.flat(), 0);
  });

  it('keeps every bone length to 1e-12 relative on random chains of 2 to 12 bones, and reaches within the precision', () => {
    const next = random(38);
    for (let trial = 0; trial < 200; trial++) {
      const n = 2 + Math.floor(next() * 11);
      const points: V[] = [[next() * 10 - 5, next() * 10 - 5, next() * 10 - 5]];
      let reach = 0;
      for (let i = 1; i < n; i++) {
        const step: V = [next() * 2 - 1, next() * 2 - 1, next() * 2 - 1];
        reach += Math.hypot(...step);
        points.push([points[i - 1][0] + step[0], points[i - 1][1] + step[1], points[i - 1][2] + step[2]]);
      }
      const dir: V = [next() - 0.5, next() - 0.5, next() - 0.5], k = (next() * 1.3 * reach) / Math.hypot(...dir);
      const target: V = [points[0][0] + dir[0] * k, points[0][1] + dir[1] * k, points[0][2] + dir[2] * k];
      const { positions, rotations, reachError } = solveChain(solveFabrik, points, target, 1e-6, 200);
      for (let i = 1; i < n; i++) {
        const before = dist(points[i], points[i - 1]);
        expect(Math.abs(dist(positions[i], positions[i - 1]) - before)).toBeLessThanOrEqual(1e-12 * before);
        // The bone's rotation carries its old direction to its new one.
        const carried = turned(rotations, i - 1, sub(points[i], points[i - 1]));
        expectClose(carried, sub(positions[i], positions[i - 1]), 1e-9 * before);
      }
      expect(hasNaN(rotations)).toBe(false);
      if (dist(target, points[0]) > reach) expect(reachError).toBeCloseTo(dist(target, points[0]) - reach, 9);
    }
  });

  it('never gives NaN: a target on the root, on a joint, non-finite; zero-length bones', () => {
    for (const target of [[0, 0, 0], [0, 1, 0], [NaN, 0, 0], [Infinity, 0, 0]] as V[]) {
      const r = solveChain(solveFabrik, [[0, 0, 0], [0, 1, 0], [0, 1, 0], [1, 1, 0]], target, 1e-6, 50);
      expect(hasNaN(r.positions.flat()) || hasNaN(r.rotations)).toBe(false);
    }
  });
});

const skeletonGraph = (ik: Record<string, unknown>, parameters: Record<string, unknown> = {}) => bipedInstance({
  walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
  ik: { type: 'FABRIK', inputs: { pose: 'walk' }, properties: ik },
}, 'ik', { t: { type: 'vec3', default: [0, 0, 0] }, ...parameters });

describe('FABRIK on the built-in biped (clavicle_l .. hand_l)', () => {
  const fk = bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'walk');
  fk.update(0.3);
  const f = fk.componentPose();
  const sk = fk.skeleton, bone = (name: string) => sk.indexOf(name);
  const chain = ['clavicle_l', 'upperarm_l', 'lowerarm_l', 'hand_l'].map(bone);
  const target: V = [35, 120, 25];

  function solved(properties: Record<string, unknown>, at: V = target): ComponentPose {
    const g = skeletonGraph({ rootBone: 'clavicle_l', tipBone: 'hand_l', target: { param: 't' }, precision: 1e-6, maxIterations: 100, ...properties });
    g.setParameter('t', at);
    g.update(0.3);
    return g.componentPose();
  }

  it('reaches the target within the precision, keeps the root and every length, and the hand’s rotation', () => {
    expect(dist(pos(f, chain[0]), target)).toBeLessThan(12 + 28 + 25);
    const cs = solved({});
    expect(dist(pos(cs, chain[3]), target)).toBeLessThanOrEqual(1e-6);
    expectClose(pos(cs, chain[0]), pos(f, chain[0]), 1e-12);
    for (let i = 1; i < 4; i++) {
      const l = dist(pos(f, chain[i]), pos(f, chain[i - 1]));
      expect(Math.abs(dist(pos(cs, chain[i]), pos(cs, chain[i - 1])) - l)).toBeLessThanOrEqual(1e-9 * l);
    }
    expectClose(quat(cs, chain[3]), quat(f, chain[3]), 1e-12);
    // Bones off the chain keep their local transforms (the right arm, the head).
    expectClose(cs.local.rotations.subarray(bone('head') * 4, bone('head') * 4 + 4), f.local.rotations.subarray(bone('head') * 4, bone('head') * 4 + 4), 0);
  });

  it('turns the tip as tipRotation says: keepLocal, copyTarget from a vector or a bone', () => {
    const local = solved({ tipRotation: 'keepLocal' });
    expectClose(local.local.rotations.subarray(chain[3] * 4, chain[3] * 4 + 4), f.local.rotations.subarray(chain[3] * 4, chain[3] * 4 + 4), 1e-12);
    const copied = solved({ tipRotation: 'copyTarget', targetRotation: [0, 90, 0] });
    expectClose(quat(copied, chain[3]), [0, Math.SQRT1_2, 0, Math.SQRT1_2], 1e-12);
    const head = bone('head');
    const fromBone = solved({ tipRotation: 'copyTarget', targetMode: 'bone', targetBone: 'head', target: [20, 0, 20] });
    expectClose(quat(fromBone, chain[3]), quat(f, head), 1e-12);
    // The offset is in the head's space: a socket on it.
    const offset = quatRotateVec3(new Float64Array(3), 0, f.rotations, head * 4, Float64Array.of(20, 0, 20), 0);
    const socket = pos(f, head).map((x, i) => x + offset[i]) as V;
    expect(dist(socket, pos(f, chain[0]))).toBeLessThan(12 + 28 + 25);
    expect(dist(pos(fromBone, chain[3]), socket)).toBeLessThanOrEqual(1e-6);
  });

  it('reports the target, reach error and iterations; alpha 0 leaves the pose alone', () => {
    const g = skeletonGraph({ rootBone: 'clavicle_l', tipBone: 'hand_l', target: target, precision: 0.5, alpha: { param: 'a' } }, { a: { type: 'float', default: 1 } });
    g.update(0.3);
    g.evaluate();
    const line = g.gatherDebug().children[0];
    expect(line.description).toBe('Alpha: 100.0% clavicle_l .. hand_l -> target');
    expect(line.values!.target).toEqual(target);
    expect(line.values!.reachError as number).toBeLessThanOrEqual(0.5);
    expect(line.values!.iterations as number).toBeGreaterThan(0);
    g.setParameter('a', 0);
    g.update(0);
    expectClose(g.evaluate().rotations, f.local.rotations, 0);
  });

  it('is deterministic: two instances give bit-identical poses over 200 frames of a moving target', () => {
    const [a, b] = [0, 1].map(() => skeletonGraph({ rootBone: 'spine_01', tipBone: 'hand_l', target: { param: 't' }, precision: 0.01 }));
    for (let frame = 0; frame < 200; frame++) {
      const t: V = [30 + 20 * Math.sin(frame / 17), 120 + 15 * Math.cos(frame / 11), 20];
      for (const g of [a, b]) { g.setParameter('t', t); g.update(1 / 60); }
      expect(Array.from(a.evaluate().rotations)).toEqual(Array.from(b.evaluate().rotations));
    }
  });

  it('allocates nothing per frame (0 B once warm), at full and half alpha', () => {
    const result = runProbe<Record<string, number>>('controls-allocation-probe.ts', [], ['FABRIK']);
    expect(result.perFrame).toBeLessThan(0.5);
    expect(result.reachError).toBeLessThan(1);
  });
});

describe('FABRIK load checks', () => {
  const problems = (ik: Record<string, unknown>) => controlProblems('FABRIK', 'ik', ik);

  it('needs the tip below the root, and a target bone in bone mode', () => {
    expect(problems({ rootBone: 'clavicle_l', tipBone: 'hand_l' })).toEqual([]);
    expect(problems({ rootBone: 'hand_l', tipBone: 'clavicle_l' })).toEqual([
      "$.nodes.ik.properties.tipBone [unknown-bone] bone 'clavicle_l' is not below rootBone 'hand_l': the chain runs from rootBone down to tipBone",
    ]);
    expect(problems({ rootBone: 'hand_l', tipBone: 'hand_l' })).toEqual([expect.stringMatching(/tipBone \[unknown-bone\] bone 'hand_l' is not below/)]);
    expect(problems({ rootBone: 'clavicle_r', tipBone: 'hand_l' })).toEqual([expect.stringMatching(/is not below rootBone 'clavicle_r'/)]);
    expect(problems({ rootBone: 'clavicle_l', tipBone: 'hand_l', targetMode: 'bone' })).toEqual(["$.nodes.ik.properties.targetBone [schema] targetMode 'bone' needs a targetBone"]);
    expect(problems({ rootBone: 'clavicle_l', tipBone: 'nope' })).toEqual(["$.nodes.ik.properties.tipBone [unknown-bone] the skeleton has no bone 'nope'"]);
    expect(problems({ rootBone: 'clavicle_l', tipBone: 'hand_l', maxIterations: 1001 })).toEqual([expect.stringMatching(/maxIterations \[schema\]/)]);
  });
});

describeWithData('FABRIK and CCDIK on the CMU walk (CC_Base_Waist .. CC_Base_L_Hand)', () => {
  const graph = cmuWalkInstance;

  for (const type of ['FABRIK', 'CCDIK']) {
    it(`${type}: the hand reaches a point 30% of the way to the waist every frame, within the precision, lengths kept to 1e-9 relative`, () => {
      const fk = graph({}, 'walk');
      const ik = graph({ ik: { type, inputs: { pose: 'walk' }, properties: { rootBone: 'CC_Base_Waist', tipBone: 'CC_Base_L_Hand', target: { param: 't' }, precision: 0.01, maxIterations: 200 } } }, 'ik');
      const sk = fk.skeleton, root = sk.indexOf('CC_Base_Waist'), tip = sk.indexOf('CC_Base_L_Hand');
      const chain: number[] = [];
      for (let b = tip; b !== root; b = sk.parents[b]) chain.unshift(b);
      chain.unshift(root);
      expect(chain.length).toBeGreaterThanOrEqual(6);
      let worst = 0;
      for (let frame = 0; frame < 120; frame++) {
        const dt = frame === 0 ? 0 : 1 / 120;
        fk.update(dt);
        const f = fk.componentPose();
        const hand = pos(f, tip), waist = pos(f, root);
        const target = hand.map((x, i) => x + (waist[i] - x) * 0.3) as V;
        ik.setParameter('t', target);
        ik.update(dt);
        const cs = ik.componentPose();
        expect(hasNaN(cs.translations) || hasNaN(cs.rotations)).toBe(false);
        expect(dist(pos(cs, tip), target)).toBeLessThanOrEqual(0.01);
        expectClose(pos(cs, root), waist, 1e-9);
        for (let i = 1; i < chain.length; i++) {
          const l = dist(pos(f, chain[i]), pos(f, chain[i - 1]));
          const err = Math.abs(dist(pos(cs, chain[i]), pos(cs, chain[i - 1])) - l) / l;
          worst = Math.max(worst, err);
        }
      }
      expect(worst).toBeLessThanOrEqual(1e-9);
    });
  }
});
