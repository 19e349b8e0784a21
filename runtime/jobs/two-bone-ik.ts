import { quatFromTo, quatMultiply, quatRotateVec3, type Floats } from '../core/math.ts';

/**
 * Analytic two-bone IK (Unreal's AnimationCore::SolveTwoBoneIK) on component-space transforms, usable
 * without a node (TwoBoneIK wraps it; stride warping places feet with it).
 *
 * A chain is three bones: upper (thigh), middle (calf), end (foot), the middle being a child of the
 * upper and the end a child of the middle. The solver keeps the upper bone where it is and the bone
 * lengths as the input has them, and finds the middle and end positions by the law of cosines in the
 * bend plane: the plane through the upper bone and the target that contains the bend direction.
 * Each bone is then turned by the smallest rotation that points it at its child's new position, so
 * bones keep their twist.
 *
 * Layout (output-first, like runtime/core/math.ts): `positions` holds [upper xyz, middle xyz, end xyz]
 * (9 numbers) and `rotations` [upper xyzw, middle xyzw, end xyzw] (12), all in component space. The
 * outputs may be the inputs (solving in place). Settings come in a Float64Array (twoBoneIKOptions;
 * see CONTRIBUTING.md, "Numbers in the frame loop"); nothing here allocates.
 */

/** Offset of the bend (pole) direction, 3 numbers in component space; zero: keep the input's bend. */
export const IK_HINT = 0;
/** 1: the end bone keeps its input component-space rotation; 0: it turns with the middle bone. */
export const IK_KEEP_END_ROTATION = 3;
/** 1: bones may lengthen (by translation) toward targets beyond reach, as set by the next two. */
export const IK_ALLOW_STRETCH = 4;
/** Reach ratio (target distance / chain length) at which stretching starts. */
export const IK_START_STRETCH_RATIO = 5;
/** Largest length scale stretching may reach. */
export const IK_MAX_STRETCH_SCALE = 6;
/** Length of an options array. */
export const TWO_BONE_IK_OPTIONS = 7;

export interface TwoBoneIKSettings {
  /** Bend (pole) direction in component space; omitted or zero: keep the input's bend. */
  hint?: ArrayLike<number>;
  /** Default true, as Unreal (whose bMaintainEffectorRelRot defaults to false). */
  keepEndRotation?: boolean;
  /** Default false. */
  allowStretch?: boolean;
  /** Default 1. */
  startStretchRatio?: number;
  /** Default 1.2. */
  maxStretchScale?: number;
}

/** An options array for solveTwoBoneIK (allocates: build it once, then write its slots per frame). */
export function twoBoneIKOptions(settings: TwoBoneIKSettings = {}): Float64Array {
  const o = new Float64Array(TWO_BONE_IK_OPTIONS);
  if (settings.hint) for (let i = 0; i < 3; i++) o[IK_HINT + i] = settings.hint[i];
  o[IK_KEEP_END_ROTATION] = settings.keepEndRotation ?? true ? 1 : 0;
  o[IK_ALLOW_STRETCH] = settings.allowStretch ? 1 : 0;
  o[IK_START_STRETCH_RATIO] = settings.startStretchRatio ?? 1;
  o[IK_MAX_STRETCH_SCALE] = settings.maxStretchScale ?? 1.2;
  return o;
}

// Scratch, at module scope so that solving allocates nothing. Offsets:
const s = new Float64Array(48);
const U = 0; // reach direction (unit)
const N = 3; // bend direction (unit, perpendicular to U)
const M = 6; // hinge axis U x N, the fallback axis for half turns
const V0 = 9, V1 = 12; // from and to directions of a bone's rotation
const Q1 = 15, Q2 = 19; // delta rotations of the upper and the middle bone
const TMP = 23; // a candidate bend direction
const R = 26; // the input rotations (12), copied because the outputs may alias them
const AXIS = 38; // a local axis of the upper bone
const Q12 = 41; // Q2 * Q1

/** A direction whose part perpendicular to U is below this fraction of its length gives no plane. */
const PLANE_EPSILON = 1e-6;

/**
 * Writes into N the part of s[TMP..] perpendicular to U, normalised, and returns true, unless that
 * part is negligible (the candidate is zero, non-finite or within PLANE_EPSILON rad of U).
 */
function acceptBend(): boolean {
  const x = s[TMP], y = s[TMP + 1], z = s[TMP + 2];
  const len2 = x * x + y * y + z * z;
  const k = x * s[U] + y * s[U + 1] + z * s[U + 2];
  const px = x - k * s[U], py = y - k * s[U + 1], pz = z - k * s[U + 2];
  const p2 = px * px + py * py + pz * pz;
  if (!(p2 > PLANE_EPSILON * PLANE_EPSILON * len2) || !(p2 < Infinity)) return false;
  const inv = 1 / Math.sqrt(p2);
  s[N] = px * inv; s[N + 1] = py * inv; s[N + 2] = pz * inv;
  return true;
}

/**
 * Solves the chain for `target[to..to+2]` (component space):
 * - Reachable targets (|upper − middle| ≤ distance ≤ upper + middle lengths) are reached exactly, the
 *   middle joint in the bend plane on the side of the bend direction.
 * - Targets beyond reach: the chain points straight at the target, fully extended (after stretching,
 *   when allowed). Targets too close (a chain with unequal bones cannot fold onto its root): the chain
 *   folds flat toward the target, the end as near the target as the bone lengths allow.
 * - Bend direction, the first that is not (nearly) parallel to the reach direction: the hint; the
 *   input's bend carried along (the middle joint's offset from the upper→end line, turned by the
 *   smallest rotation taking that line to the upper→target line, so the knee keeps pointing where it
 *   pointed relative to the leg; kept as is when the target lies straight behind that line); the
 *   middle joint's offset from the upper→target line (a straight input chain bends toward the side it
 *   came from); the local axis of the upper bone least aligned with the reach direction (a straight
 *   chain aimed at the target: deterministic, but arbitrary: give a hint where chains can be straight).
 * - Stretch (Unreal's): scale = 1 + (maxStretchScale − 1) · clamp((distance / chain length −
 *   startStretchRatio) / (maxStretchScale − startStretchRatio), 0, 1), applied to both bone lengths by
 *   moving the middle and end bones (their rotations and scales are not stretched). None when
 *   maxStretchScale ≤ 1 or ≤ startStretchRatio. With the defaults (1, 1.2) a target up to 20% beyond
 *   reach is reached exactly.
 * - Degenerate input, never NaN: a target on the upper bone (within 1e-12 × the chain length)
 *   reaches along the input's upper→end direction, else the upper bone's direction; zero-length bones
 *   keep their rotation (a zero-length upper bone leaves the middle on the root, and the end reaches
 *   from there); an all-zero chain or a non-finite target or chain returns the input unchanged.
 * - Rotations: upper' = Q1 · upper, middle' = Q2 · Q1 · middle, where Q1 is the smallest rotation
 *   turning the upper bone toward the middle's new position and Q2 the smallest turning the middle
 *   bone (as Q1 left it) toward the end's new position; half turns are about the bend plane's normal.
 *   The end bone keeps its input component-space rotation (IK_KEEP_END_ROTATION), or turns with the
 *   middle bone, keeping its rotation relative to it: end' = Q2 · Q1 · end. The upper position is
 *   unchanged.
 */
export function solveTwoBoneIK(
  outPositions: Floats, outRotations: Floats,
  positions: Floats, rotations: Floats,
  target: Floats, to: number,
  options: Floats,
): void {
  const ax = positions[0], ay = positions[1], az = positions[2];
  const bx = positions[3], by = positions[4], bz = positions[5];
  const cx = positions[6], cy = positions[7], cz = positions[8];
  for (let i = 0; i < 12; i++) s[R + i] = rotations[i];
  const l1 = Math.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay) + (bz - az) * (bz - az));
  const l2 = Math.sqrt((cx - bx) * (cx - bx) + (cy - by) * (cy - by) + (cz - bz) * (cz - bz));
  const chain = l1 + l2;
  const dx = target[to] - ax, dy = target[to + 1] - ay, dz = target[to + 2] - az;
  let d = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (!(chain > 0) || !(chain < Infinity) || !(d < Infinity)) {
    // Nothing can move (or the numbers are unusable): pass the chain through.
    for (let i = 0; i < 9; i++) outPositions[i] = positions[i];
    for (let i = 0; i < 12; i++) outRotations[i] = s[R + i];
    return;
  }
  const tiny = chain * 1e-12;

  // Reach direction U.
  const ex = cx - ax, ey = cy - ay, ez = cz - az;
  const le = Math.sqrt(ex * ex + ey * ey + ez * ez);
  if (d > tiny) {
    s[U] = dx / d; s[U + 1] = dy / d; s[U + 2] = dz / d;
  } else {
    d = 0;
    if (le > tiny) { s[U] = ex / le; s[U + 1] = ey / le; s[U + 2] = ez / le; }
    else { s[U] = (bx - ax) / l1; s[U + 1] = (by - ay) / l1; s[U + 2] = (bz - az) / l1; } // l1 ≥ chain / 2 here
  }
  const ux = s[U], uy = s[U + 1], uz = s[U + 2];

  // Bend direction N, from the first usable candidate.
  s[TMP] = options[IK_HINT]; s[TMP + 1] = options[IK_HINT + 1]; s[TMP + 2] = options[IK_HINT + 2];
  let found = acceptBend();
  if (!found && le > tiny && l1 > tiny) {
    // The input's bend: the middle joint's offset from the upper→end line, perpendicular to it.
    const wx = ex / le, wy = ey / le, wz = ez / le;
    const k = (bx - ax) * wx + (by - ay) * wy + (bz - az) * wz;
    const px = bx - ax - k * wx, py = by - ay - k * wy, pz = bz - az - k * wz;
    if (px * px + py * py + pz * pz > PLANE_EPSILON * PLANE_EPSILON * l1 * l1) {
      // Carried by the smallest rotation taking w to u (Rodrigues): v c + k × v + k (k · v) / (1 + c).
      const c = wx * ux + wy * uy + wz * uz;
      if (1 + c > 1e-9) {
        const kx = wy * uz - wz * uy, ky = wz * ux - wx * uz, kz = wx * uy - wy * ux;
        const kv = (kx * px + ky * py + kz * pz) / (1 + c);
        s[TMP] = px * c + (ky * pz - kz * py) + kx * kv;
        s[TMP + 1] = py * c + (kz * px - kx * pz) + ky * kv;
        s[TMP + 2] = pz * c + (kx * py - ky * px) + kz * kv;
      } else {
        s[TMP] = px; s[TMP + 1] = py; s[TMP + 2] = pz;
      }
      found = acceptBend();
    }
  }
  if (!found) {
    s[TMP] = bx - ax; s[TMP + 1] = by - ay; s[TMP + 2] = bz - az;
    found = acceptBend();
  }
  if (!found) {
    // The upper bone's local axis least aligned with U (at least ~55 degrees from it).
    let best = 2;
    for (let axis = 0; axis < 3; axis++) {
      s[V0] = axis === 0 ? 1 : 0; s[V0 + 1] = axis === 1 ? 1 : 0; s[V0 + 2] = axis === 2 ? 1 : 0;
      quatRotateVec3(s, AXIS, s, R, s, V0);
      const k = Math.abs(s[AXIS] * ux + s[AXIS + 1] * uy + s[AXIS + 2] * uz);
      if (k < best) { best = k; s[TMP] = s[AXIS]; s[TMP + 1] = s[AXIS + 1]; s[TMP + 2] = s[AXIS + 2]; }
    }
    if (!acceptBend()) { s[N] = 0; s[N + 1] = 0; s[N + 2] = 0; } // only with a non-finite rotation
  }
  const nx = s[N], ny = s[N + 1], nz = s[N + 2];
  s[M] = uy * nz - uz * ny; s[M + 1] = uz * nx - ux * nz; s[M + 2] = ux * ny - uy * nx;

  // Stretch.
  let scale = 1;
  if (options[IK_ALLOW_STRETCH] !== 0) {
    const start = options[IK_START_STRETCH_RATIO], max = options[IK_MAX_STRETCH_SCALE];
    const range = max - start;
    if (max > 1 && range > 1e-9) {
      const f = (d / chain - start) / range;
      scale = 1 + (max - 1) * (f > 0 ? (f < 1 ? f : 1) : 0);
    }
  }
  const a = l1 * scale, b = l2 * scale;

  // New middle (joint) and end positions.
  let jx: number, jy: number, jz: number, tx: number, ty: number, tz: number;
  const fold = a > b ? a - b : b - a;
  if (d >= a + b) {
    jx = ax + a * ux; jy = ay + a * uy; jz = az + a * uz;
    tx = ax + (a + b) * ux; ty = ay + (a + b) * uy; tz = az + (a + b) * uz;
  } else if (d <= fold) {
    const j = a >= b ? a : -a;
    jx = ax + j * ux; jy = ay + j * uy; jz = az + j * uz;
    tx = ax + fold * ux; ty = ay + fold * uy; tz = az + fold * uz;
  } else {
    // Here d > 0, a > 0 and b > 0.
    let cos = (a * a + d * d - b * b) / (2 * a * d);
    cos = cos > -1 ? (cos < 1 ? cos : 1) : -1;
    const sin = Math.sqrt(1 - cos * cos);
    jx = ax + a * (cos * ux + sin * nx); jy = ay + a * (cos * uy + sin * ny); jz = az + a * (cos * uz + sin * nz);
    tx = target[to]; ty = target[to + 1]; tz = target[to + 2];
  }

  // Upper bone: turn toward the new joint.
  s[V0] = bx - ax; s[V0 + 1] = by - ay; s[V0 + 2] = bz - az;
  s[V1] = jx - ax; s[V1 + 1] = jy - ay; s[V1 + 2] = jz - az;
  if (l1 > tiny) quatFromTo(s, Q1, s, V0, s, V1, s, M);
  else { s[Q1] = 0; s[Q1 + 1] = 0; s[Q1 + 2] = 0; s[Q1 + 3] = 1; }
  // Middle bone: as the upper's turn left it, turn toward the new end.
  s[V0] = cx - bx; s[V0 + 1] = cy - by; s[V0 + 2] = cz - bz;
  quatRotateVec3(s, V0, s, Q1, s, V0);
  s[V1] = tx - jx; s[V1 + 1] = ty - jy; s[V1 + 2] = tz - jz;
  if (l2 > tiny) quatFromTo(s, Q2, s, V0, s, V1, s, M);
  else { s[Q2] = 0; s[Q2 + 1] = 0; s[Q2 + 2] = 0; s[Q2 + 3] = 1; }
  quatMultiply(s, Q12, s, Q2, s, Q1);

  outPositions[0] = ax; outPositions[1] = ay; outPositions[2] = az;
  outPositions[3] = jx; outPositions[4] = jy; outPositions[5] = jz;
  outPositions[6] = tx; outPositions[7] = ty; outPositions[8] = tz;
  quatMultiply(outRotations, 0, s, Q1, s, R);
  quatMultiply(outRotations, 4, s, Q12, s, R + 4);
  if (options[IK_KEEP_END_ROTATION] !== 0) {
    for (let i = 8; i < 12; i++) outRotations[i] = s[R + i];
  } else quatMultiply(outRotations, 8, s, Q12, s, R + 8);
}
