import { describe, expect, it } from 'vitest';
import { Pose, PosePool, poseAccumulate, poseBlend, poseBlendTwo, poseNormalizeRotations, poseScaleInto } from '../../../runtime/core/pose.ts';
import { mulberry32 } from '../../../bench/crowd-cases.ts';

/** A pose of random unit rotations (some in the far hemisphere), translations and scales. */
function randomPose(n: number, random: () => number): Pose {
  const p = new Pose(n);
  for (let i = 0; i < n * 3; i++) {
    p.translations[i] = random() * 200 - 100;
    p.scales[i] = 0.5 + random();
  }
  for (let b = 0; b < n; b++) {
    let len = 0;
    for (let k = 0; k < 4; k++) {
      p.rotations[b * 4 + k] = random() * 2 - 1;
      len += p.rotations[b * 4 + k] ** 2;
    }
    for (let k = 0; k < 4; k++) p.rotations[b * 4 + k] /= Math.sqrt(len);
  }
  return p;
}

describe('pose blending', () => {
  it('poseBlendTwo gives bit for bit what scale, accumulate and normalise give in three passes', () => {
    const random = mulberry32(7);
    const weights = new Float64Array([0.3, 0.7]);
    const a = randomPose(65, random), b = randomPose(65, random);
    const threePass = poseNormalizeRotations(poseAccumulate(poseScaleInto(new Pose(65), a, weights, 0), b, weights, 1));
    const onePass = poseBlendTwo(new Pose(65), a, b, weights);
    expect(Array.from(onePass.translations)).toEqual(Array.from(threePass.translations));
    expect(Array.from(onePass.rotations)).toEqual(Array.from(threePass.rotations));
    expect(Array.from(onePass.scales)).toEqual(Array.from(threePass.scales));
    // In place (out aliasing a), as BlendTwo uses it.
    const inPlace = poseBlendTwo(a, a, b, weights);
    expect(Array.from(inPlace.rotations)).toEqual(Array.from(threePass.rotations));
  });

  it('takes the shorter arc: q and -q blend to the same rotation, half way between known rotations', () => {
    const a = new Pose(1), b = new Pose(1);
    // a = identity, b = 90 degrees about z, given as -q (w < 0).
    const h = Math.SQRT1_2;
    b.rotations.set([0, 0, -h, -h]);
    poseBlend(a, a, b, 0.5);
    // Half way is 45 degrees about z: (0, 0, sin 22.5°, cos 22.5°).
    expect(a.rotations[2]).toBeCloseTo(Math.sin(Math.PI / 8), 12);
    expect(a.rotations[3]).toBeCloseTo(Math.cos(Math.PI / 8), 12);
  });

  it('the pool makes poses only until it holds as many as are in use at once', () => {
    const pool = new PosePool(4);
    const x = pool.acquire(), y = pool.acquire();
    pool.release(y);
    pool.release(x);
    for (let i = 0; i < 10; i++) pool.release(pool.acquire());
    expect(pool.size).toBe(2);
  });

  it('the pool counts the poses lent, and reclaim takes them all back, handing them out again first made first', () => {
    const pool = new PosePool(4);
    const made = [pool.acquire(), pool.acquire(), pool.acquire()];
    pool.release(made[1]);
    expect([pool.size, pool.lent]).toEqual([3, 2]);
    // What an evaluation that threw part way leaves: two poses never released.
    pool.reclaim();
    expect(pool.lent).toBe(0);
    const again = [pool.acquire(), pool.acquire(), pool.acquire(), pool.acquire()];
    expect(again.slice(0, 3).map((pose, i) => pose === made[i])).toEqual([true, true, true]);
    expect(made).not.toContain(again[3]);
    expect([pool.size, pool.lent]).toEqual([4, 4]);
  });

  it('the pool hands back the last pose released first, and emptying it makes no new poses', () => {
    const pool = new PosePool(4);
    const held = [pool.acquire(), pool.acquire(), pool.acquire()];
    for (const pose of held) pool.release(pose);
    // Emptied and refilled at varying depths, as blends of different sizes do frame after frame.
    for (let round = 0; round < 5; round++) {
      const depth = 1 + (round % 3);
      const taken = Array.from({ length: depth }, () => pool.acquire());
      expect(taken[0]).toBe(held[2]);
      for (let i = depth - 1; i >= 0; i--) pool.release(taken[i]);
    }
    expect(pool.size).toBe(3);
  });
});
