import { quatFromTo, quatMultiply, quatNormalize } from '../core/math.ts';

/**
 * Chain IK on component-space transforms (Unreal's FABRIK and CCDIK), usable without a node: the
 * FABRIK and CCDIK nodes gather a chain from root bone to tip bone into a work array, solve it here
 * and write the bones back.
 *
 * A chain is `count` bones (at least 2), each the parent of the next: the root stays where it is and
 * every bone keeps its length (the distance from its parent, as the input has it). The work array
 * (chainIKWorkLength numbers) holds, at the offsets chainIKLayout gives: positions (3 per bone) and
 * rotations (xyzw, 4 per bone) in component space, which the caller fills and reads back, then the
 * solver's own numbers. Settings come in a Float64Array (CHAIN_IK_OPTIONS; see CONTRIBUTING.md,
 * "Numbers in the frame loop"); nothing here allocates.
 *
 * The tip keeps its component-space rotation (FABRIK) or its rotation relative to its parent
 * (CCD, which turns the whole rest of the chain): the node sets the tip's rotation as its
 * settings ask afterwards.
 */

/** Offset of the target, 3 numbers in component space. */
export const CHAIN_TARGET = 0;
/** The distance from the tip to the target below which the solver stops (Unreal's Precision). */
export const CHAIN_PRECISION = 3;
/** The most iterations the solver runs (Unreal's MaxIterations). */
export const CHAIN_MAX_ITERATIONS = 4;
/** CCD: 1 to turn the joints from the tip's parent toward the root in each iteration (Unreal's bStartFromTail), 0 from the root. */
export const CHAIN_START_FROM_TAIL = 5;
/** CCD: 1 to hold each joint's total turn in one solve to its limit (the `limits` array, radians). */
export const CHAIN_LIMIT_ROTATION = 6;
/** Written by the solvers: the iterations run. */
export const CHAIN_ITERATIONS = 7;
/** Written by the solvers: the distance from the solved tip to the target. */
export const CHAIN_REACH_ERROR = 8;
/** Length of an options array. */
export const CHAIN_IK_OPTIONS = 9;

/** Numbers a work array holds for a chain of `count` bones. */
export function chainIKWorkLength(count: number): number {
  return count * 12;
}

/** Where each part of a chain of `count` bones starts in its work array. */
export function chainIKLayout(count: number): { positions: number; rotations: number } {
  return { positions: 0, rotations: count * 3 };
}

// The solver's own parts of the work array, after positions (3n) and rotations (4n).
const OLD = 7; // the input positions, 3n
const LENGTHS = 10; // bone lengths, n (the root's is 0)
const TURNED = 11; // CCD: angle each joint has turned in this solve, n

// Scratch for rotations, at module scope so that solving allocates nothing.
const s = new Float64Array(16);
const V0 = 0, V1 = 3, Q = 6, AXIS = 10;

/** Copies the input positions and measures the bones; returns nothing (lengths land in the work array). */
function measure(work: Float64Array, count: number): void {
  const old = OLD * count, lengths = LENGTHS * count;
  for (let i = 0; i < count * 3; i++) work[old + i] = work[i];
  work[lengths] = 0;
  for (let i = 1; i < count; i++) {
    const dx = work[i * 3] - work[i * 3 - 3], dy = work[i * 3 + 1] - work[i * 3 - 2], dz = work[i * 3 + 2] - work[i * 3 - 1];
    work[lengths + i] = Math.sqrt(dx * dx + dy * dy + dz * dz);
  }
}

/**
 * Moves bone `i` to `length` from bone `from` along the direction from `from` to `i`; where the two
 * coincide, along the input's direction between them (the same bones' input positions).
 */
function place(work: Float64Array, count: number, i: number, from: number): void {
  const length = work[LENGTHS * count + (i > from ? i : from)];
  let dx = work[i * 3] - work[from * 3], dy = work[i * 3 + 1] - work[from * 3 + 1], dz = work[i * 3 + 2] - work[from * 3 + 2];
  let d = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(d > 0) || !(d < Infinity)) {
    const old = OLD * count;
    dx = work[old + i * 3] - work[old + from * 3]; dy = work[old + i * 3 + 1] - work[old + from * 3 + 1]; dz = work[old + i * 3 + 2] - work[old + from * 3 + 2];
    d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (!(d > 0)) { dx = 0; dy = 0; dz = 0; d = 1; } // a zero-length bone: length is 0 too
  }
  const k = length / d;
  work[i * 3] = work[from * 3] + dx * k;
  work[i * 3 + 1] = work[from * 3 + 1] + dy * k;
  work[i * 3 + 2] = work[from * 3 + 2] + dz * k;
}

function tipError(work: Float64Array, count: number, options: Float64Array): void {
  const t = (count - 1) * 3;
  const dx = work[t] - options[CHAIN_TARGET], dy = work[t + 1] - options[CHAIN_TARGET + 1], dz = work[t + 2] - options[CHAIN_TARGET + 2];
  options[CHAIN_REACH_ERROR] = Math.sqrt(dx * dx + dy * dy + dz * dz);
}

/**
 * FABRIK (Aristidou and Lasenby; Unreal's AnimationCore::SolveFabrik), then rotations:
 * - A target beyond reach (farther from the root than the bones' lengths added up): every bone
 *   points at it, the chain straight from the root toward it.
 * - Otherwise, unless the tip is already within the precision: the tip is put on the target and
 *   the joints between are moved alternately from the tip and from the root, each kept at its
 *   bone's length from the one it is placed from, until the tip's parent is within the precision of
 *   the tip bone's length from the target or the iterations run out; the tip is then placed at its
 *   length from its parent toward the target, so every length is kept whatever the iterations.
 * - Each bone but the tip then turns by the smallest rotation taking its old direction to its
 *   child to the new one (so twist is kept); the tip's rotation is left as it was.
 */
export function solveFabrik(work: Float64Array, count: number, options: Float64Array): void {
  measure(work, count);
  const lengths = LENGTHS * count, tip = count - 1;
  const tx = options[CHAIN_TARGET], ty = options[CHAIN_TARGET + 1], tz = options[CHAIN_TARGET + 2];
  let reach = 0;
  for (let i = 1; i < count; i++) reach += work[lengths + i];
  const rx = tx - work[0], ry = ty - work[1], rz = tz - work[2];
  let iterations = 0;
  if (!(rx * rx + ry * ry + rz * rz <= reach * reach)) {
    // Beyond reach (or the numbers are unusable: then the directions fall back to the input's).
    for (let i = 1; i < count; i++) {
      work[i * 3] = tx; work[i * 3 + 1] = ty; work[i * 3 + 2] = tz;
      place(work, count, i, i - 1);
    }
  } else {
    const ex = work[tip * 3] - tx, ey = work[tip * 3 + 1] - ty, ez = work[tip * 3 + 2] - tz;
    const precision = options[CHAIN_PRECISION], maxIterations = options[CHAIN_MAX_ITERATIONS];
    let slop = Math.sqrt(ex * ex + ey * ey + ez * ez);
    if (slop > precision) {
      work[tip * 3] = tx; work[tip * 3 + 1] = ty; work[tip * 3 + 2] = tz;
      while (slop > precision && iterations < maxIterations) {
        iterations++;
        for (let i = tip - 1; i > 0; i--) place(work, count, i, i + 1);
        for (let i = 1; i < tip; i++) place(work, count, i, i - 1);
        const px = work[tip * 3 - 3] - tx, py = work[tip * 3 - 2] - ty, pz = work[tip * 3 - 1] - tz;
        slop = Math.abs(work[lengths + tip] - Math.sqrt(px * px + py * py + pz * pz));
      }
      place(work, count, tip, tip - 1);
    }
  }
  options[CHAIN_ITERATIONS] = iterations;
  tipError(work, count, options);
  // Rotations: each bone from its old direction to its child to the new one.
  const old = OLD * count, rotations = count * 3;
  for (let i = 0; i < tip; i++) {
    for (let k = 0; k < 3; k++) {
      s[V0 + k] = work[old + i * 3 + 3 + k] - work[old + i * 3 + k];
      s[V1 + k] = work[i * 3 + 3 + k] - work[i * 3 + k];
      s[AXIS + k] = 0;
    }
    quatFromTo(s, Q, s, V0, s, V1, s, AXIS);
    quatMultiply(work, rotations + i * 4, s, Q, work, rotations + i * 4);
    quatNormalize(work, rotations + i * 4);
  }
}

/**
 * CCD (cyclic coordinate descent; Unreal's AnimationCore::SolveCCDIK): in each iteration every joint
 * from the root to the tip's parent (or back, from the tip's parent, with CHAIN_START_FROM_TAIL)
 * turns the rest of the chain about itself by the smallest rotation that points its direction to
 * the tip at the target, until the tip is within the precision or the iterations run out. With
 * CHAIN_LIMIT_ROTATION, a joint's turns in one solve add up to at most `limits[i]` radians (a
 * joint at its limit stops turning). The root turns too (Unreal's solver leaves it out); the tip
 * turns with its parent. A joint whose directions to the tip and the target are opposite, or
 * either zero, does not turn in that step.
 */
export function solveCCDIK(work: Float64Array, count: number, options: Float64Array, limits: Float64Array): void {
  measure(work, count);
  const turned = TURNED * count, tip = count - 1;
  for (let i = 0; i < count; i++) work[turned + i] = 0;
  const precision = options[CHAIN_PRECISION], maxIterations = options[CHAIN_MAX_ITERATIONS];
  const fromTail = options[CHAIN_START_FROM_TAIL] !== 0;
  tipError(work, count, options);
  let iterations = 0;
  while (options[CHAIN_REACH_ERROR] > precision && iterations < maxIterations) {
    iterations++;
    for (let k = 0; k < tip; k++) turnJoint(work, count, fromTail ? tip - 1 - k : k, options, limits);
    tipError(work, count, options);
  }
  options[CHAIN_ITERATIONS] = iterations;
}

/** One CCD step at joint `i`: the rest of the chain turned about it toward the target. */
function turnJoint(work: Float64Array, count: number, i: number, options: Float64Array, limits: Float64Array): void {
  const tip = count - 1, turned = TURNED * count, rotations = count * 3;
  const px = work[i * 3], py = work[i * 3 + 1], pz = work[i * 3 + 2];
  let ax = work[tip * 3] - px, ay = work[tip * 3 + 1] - py, az = work[tip * 3 + 2] - pz;
  let bx = options[CHAIN_TARGET] - px, by = options[CHAIN_TARGET + 1] - py, bz = options[CHAIN_TARGET + 2] - pz;
  const la = Math.sqrt(ax * ax + ay * ay + az * az), lb = Math.sqrt(bx * bx + by * by + bz * bz);
  if (!(la > 0) || !(lb > 0) || !(la < Infinity) || !(lb < Infinity)) return;
  ax /= la; ay /= la; az /= la; bx /= lb; by /= lb; bz /= lb;
  let nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
  const ln = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(ln > 1e-15)) return;
  nx /= ln; ny /= ln; nz /= ln;
  const c = ax * bx + ay * by + az * bz;
  let angle = Math.acos(c > -1 ? (c < 1 ? c : 1) : -1);
  if (options[CHAIN_LIMIT_ROTATION] !== 0) {
    const left = limits[i] - work[turned + i];
    if (!(left > 0)) return;
    if (angle > left) angle = left;
  }
  work[turned + i] += angle;
  const h = angle * 0.5, sh = Math.sin(h);
  s[Q] = nx * sh; s[Q + 1] = ny * sh; s[Q + 2] = nz * sh; s[Q + 3] = Math.cos(h);
  const qx = s[Q], qy = s[Q + 1], qz = s[Q + 2], qw = s[Q + 3];
  for (let j = i + 1; j < count; j++) {
    // p_j = p_i + q (p_j - p_i)
    const vx = work[j * 3] - px, vy = work[j * 3 + 1] - py, vz = work[j * 3 + 2] - pz;
    const tx = 2 * (qy * vz - qz * vy), ty = 2 * (qz * vx - qx * vz), tz = 2 * (qx * vy - qy * vx);
    work[j * 3] = px + (vx + qw * tx + (qy * tz - qz * ty));
    work[j * 3 + 1] = py + (vy + qw * ty + (qz * tx - qx * tz));
    work[j * 3 + 2] = pz + (vz + qw * tz + (qx * ty - qy * tx));
  }
  for (let j = i; j < count; j++) {
    quatMultiply(work, rotations + j * 4, s, Q, work, rotations + j * 4);
    quatNormalize(work, rotations + j * 4);
  }
}
