import { quatRotateVec3 } from '../../runtime/core/math.ts';
import {
  CHAIN_IK_OPTIONS, CHAIN_ITERATIONS, CHAIN_MAX_ITERATIONS, CHAIN_PRECISION, CHAIN_REACH_ERROR, CHAIN_TARGET, chainIKWorkLength,
} from '../../runtime/jobs/chain-ik.ts';

type V = [number, number, number];

/** A chain of bones at `points` (identity rotations), solved by `solve` toward `target`. */
export function solveChain(
  solve: (work: Float64Array, count: number, options: Float64Array) => void, points: V[], target: V, precision = 1e-12, maxIterations = 1000,
): { positions: V[]; rotations: Float64Array; iterations: number; reachError: number } {
  const n = points.length, work = new Float64Array(chainIKWorkLength(n));
  points.forEach((p, i) => work.set(p, i * 3));
  for (let i = 0; i < n; i++) work[n * 3 + i * 4 + 3] = 1;
  const options = new Float64Array(CHAIN_IK_OPTIONS);
  options.set(target, CHAIN_TARGET);
  options[CHAIN_PRECISION] = precision;
  options[CHAIN_MAX_ITERATIONS] = maxIterations;
  solve(work, n, options);
  return {
    positions: points.map((_, i) => [work[i * 3], work[i * 3 + 1], work[i * 3 + 2]] as V),
    rotations: work.slice(n * 3, n * 7),
    iterations: options[CHAIN_ITERATIONS],
    reachError: options[CHAIN_REACH_ERROR],
  };
}

/** The direction `rotation` (at bone i of `rotations`) carries `v` to. */
export function turned(rotations: Float64Array, i: number, v: V): V {
  const out = quatRotateVec3(new Float64Array(3), 0, rotations, i * 4, Float64Array.from(v), 0);
  return [out[0], out[1], out[2]];
}

/** A seeded generator in [0, 1) (mulberry32), so that the random chains are the same every run. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
