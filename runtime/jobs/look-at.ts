import { quatFromTo } from '../core/math.ts';

/**
 * Aiming one bone (Unreal's AnimationCore::SolveAim, which its LookAt node uses), usable without a
 * node: the rotation that turns a bone's look axis toward a target, and the easing of the target's
 * interpolation. Settings and results come in a Float64Array (LOOK_AT_OPTIONS; see CONTRIBUTING.md,
 * "Numbers in the frame loop"); nothing here allocates.
 */

/** Offset of the target, 3 numbers in component space. */
export const LOOK_TARGET = 0;
/** The bone's position, 3 numbers in component space. */
export const LOOK_ORIGIN = 3;
/** The look axis as the bone's rotation carries it: a unit direction in component space. */
export const LOOK_AXIS = 6;
/** The up axis as the bone's rotation carries it: a unit direction in component space. */
export const LOOK_UP = 9;
/** 1: the bone turns only about its up axis (the target projected onto the plane normal to it). */
export const LOOK_USE_UP = 12;
/** The largest angle the look axis turns, in radians; 0: no limit. */
export const LOOK_CLAMP = 13;
/** Written by solveLookAt: the angle the look axis turned, radians. */
export const LOOK_ANGLE = 14;
/** Length of an options array. */
export const LOOK_AT_OPTIONS = 15;

const s = new Float64Array(12);
const AIM = 0, DIR = 3, FALLBACK = 6;

/**
 * Writes into out[o..o+3] the component-space rotation to apply before the bone's own (delta *
 * rotation) that turns the look axis toward the target:
 * - with LOOK_USE_UP, the direction to the target is first projected onto the plane normal to the
 *   up axis, so the bone turns only about that axis (as Unreal's bUseLookUpAxis);
 * - with a clamp, a direction more than LOOK_CLAMP from the look axis is replaced by the one
 *   LOOK_CLAMP from it toward the target, on the great circle between them (the axis ends exactly
 *   at the clamp; Unreal scales the chord instead, which turns it a little less);
 * - a target on the bone (or, with the up axis, straight above or below it) gives the identity; a
 *   target straight behind turns about the up axis with LOOK_USE_UP, else about the component axis
 *   least aligned with the look axis.
 * Never NaN.
 */
export function solveLookAt(out: Float64Array, o: number, options: Float64Array): void {
  let dx = options[LOOK_TARGET] - options[LOOK_ORIGIN];
  let dy = options[LOOK_TARGET + 1] - options[LOOK_ORIGIN + 1];
  let dz = options[LOOK_TARGET + 2] - options[LOOK_ORIGIN + 2];
  const ax = options[LOOK_AXIS], ay = options[LOOK_AXIS + 1], az = options[LOOK_AXIS + 2];
  const useUp = options[LOOK_USE_UP] !== 0;
  const ux = options[LOOK_UP], uy = options[LOOK_UP + 1], uz = options[LOOK_UP + 2];
  if (useUp) {
    const k = dx * ux + dy * uy + dz * uz;
    dx -= k * ux; dy -= k * uy; dz -= k * uz;
  }
  const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
  options[LOOK_ANGLE] = 0;
  if (!(d > 1e-12) || !(d < Infinity)) {
    out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1;
    return;
  }
  dx /= d; dy /= d; dz /= d;
  const c = ax * dx + ay * dy + az * dz;
  let angle = Math.acos(c > -1 ? (c < 1 ? c : 1) : -1);
  const clamp = options[LOOK_CLAMP];
  if (clamp > 0 && angle > clamp) {
    // The part of the direction normal to the axis, or where there is none (straight behind), the
    // up axis made normal to it, or the component axis least aligned with it.
    let px = dx - c * ax, py = dy - c * ay, pz = dz - c * az;
    let p = Math.sqrt(px * px + py * py + pz * pz);
    if (!(p > 1e-9)) {
      const cross = useUp;
      if (cross) { px = uy * az - uz * ay; py = uz * ax - ux * az; pz = ux * ay - uy * ax; }
      p = Math.sqrt(px * px + py * py + pz * pz);
      if (!(p > 1e-9)) {
        const fx = Math.abs(ax), fy = Math.abs(ay), fz = Math.abs(az);
        const wx = fx <= fy && fx <= fz ? 1 : 0, wy = wx === 0 && fy <= fz ? 1 : 0, wz = wx === 0 && wy === 0 ? 1 : 0;
        const k = wx * ax + wy * ay + wz * az;
        px = wx - k * ax; py = wy - k * ay; pz = wz - k * az;
        p = Math.sqrt(px * px + py * py + pz * pz);
      }
    }
    const cc = Math.cos(clamp), sc = Math.sin(clamp) / p;
    dx = ax * cc + px * sc; dy = ay * cc + py * sc; dz = az * cc + pz * sc;
    angle = clamp;
  }
  options[LOOK_ANGLE] = angle;
  s[AIM] = ax; s[AIM + 1] = ay; s[AIM + 2] = az;
  s[DIR] = dx; s[DIR + 1] = dy; s[DIR + 2] = dz;
  if (useUp) { s[FALLBACK] = ux; s[FALLBACK + 1] = uy; s[FALLBACK + 2] = uz; } else { s[FALLBACK] = 0; s[FALLBACK + 1] = 0; s[FALLBACK + 2] = 0; }
  quatFromTo(out, o, s, AIM, s, DIR, s, FALLBACK);
}

/** The easing curves of a look-at's interpolation (Unreal's EInterpolationBlend), by index. */
export const LOOK_AT_INTERPOLATIONS = ['linear', 'cubic', 'sinusoidal', 'easeInOutExponent2', 'easeInOutExponent3', 'easeInOutExponent4', 'easeInOutExponent5'] as const;
export type LookAtInterpolation = (typeof LOOK_AT_INTERPOLATIONS)[number];

/**
 * values[i] (a fraction of the interpolation time in [0, 1]) eased by curve `kind` (an index of
 * LOOK_AT_INTERPOLATIONS), in place: linear; cubic, 3t² − 2t³; sinusoidal, (1 − cos πt) / 2;
 * easeInOutExponentN, (2t)ⁿ / 2 up to t = 1/2 and 1 − (2 − 2t)ⁿ / 2 after (Unreal's
 * FMath::InterpEaseInOut).
 */
export function easeInPlace(values: Float64Array, i: number, kind: number): void {
  const t = values[i];
  if (kind === 1) values[i] = t * t * (3 - 2 * t);
  else if (kind === 2) values[i] = (1 - Math.cos(Math.PI * t)) * 0.5;
  else if (kind >= 3) {
    const n = kind - 1;
    values[i] = t < 0.5 ? Math.pow(2 * t, n) * 0.5 : 1 - Math.pow(2 - 2 * t, n) * 0.5;
  }
}
