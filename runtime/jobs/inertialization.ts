import type { BlendProfile } from '../core/blend-profile.ts';
import { EPSILON, quatNormalize } from '../core/math.ts';
import type { Pose } from '../core/pose.ts';

/**
 * Inertialization (Bollo, GDC 2018; Unreal 4.24+): at a transition the output switches to the new
 * pose at once, and the difference between the last output and the new pose decays to zero along
 * a quintic that starts with the old pose's own velocity. Per bone and attribute the difference is
 * one scalar along a fixed direction (translation, scale) or axis (rotation).
 *
 * A scalar curve is seven numbers: [x0, v0, a0, t1, A, B, C] with
 *   x(t) = A t^5 + B t^4 + C t^3 + (a0/2) t^2 + v0 t + x0 for t < t1, and 0 from t1 on,
 * x(0) = x0, x'(0) = v0, x''(0) = a0, x(t1) = x'(t1) = x''(t1) = 0.
 */
export const CURVE_STRIDE = 7;
/** A PoseInertializer's numbers: the powers of the elapsed time (eight places, five used), then per bone three vectors and three curves and the live flags. */
const INERTIALIZER_NUMBERS_BEFORE_BONES = 8, INERTIALIZER_NUMBERS_PER_BONE = 9 + 3 * CURVE_STRIDE + 1;

// fdlibm's minimax kernels on [-pi/4, pi/4]: sin x = x + x^3 (K1 + K2 x^2 + ...), cos x = 1 - x^2/2
// + x^4 (L1 + L2 x^2 + ...).
const QUARTER_PI = Math.PI / 4;
const K1 = -1.66666666666666324348e-01, K2 = 8.33333333332248946124e-03, K3 = -1.98412698298579493134e-04,
  K4 = 2.75573137070700676789e-06, K5 = -2.50507602534068634195e-08, K6 = 1.58969099521155010221e-10;
const L1 = 4.16666666666666019037e-02, L2 = -1.38888888888741095749e-03, L3 = 2.48015872894767294178e-05,
  L4 = -2.75573143513906633035e-07, L5 = 2.08757232129817482790e-09, L6 = -1.13596475577881948265e-11;

/**
 * Fits the curve for offset x0 moving at v0 over at most `duration` seconds into
 * out[o .. o+6], with the overshoot guards: the sign is normalised so x0 >= 0; a velocity moving
 * away from the target is zeroed; approaching fast shortens t1 to -5 x0 / v0; a0 >= 0.
 * The curve's values are in the caller's sign (a negative x0 gives a negative curve).
 */
export function inertialCurveFit(out: Float64Array, o: number, x0: number, v0: number, duration: number): void {
  const args = curveArgs;
  args[X0] = x0;
  args[V0] = v0;
  args[DURATION] = duration;
  fitCurve(out, o, args);
}

/** The arguments of a fit ([x0, v0, duration]): see CONTRIBUTING.md, "Numbers in the frame loop". */
const X0 = 0, V0 = 1, DURATION = 2;
const curveArgs = new Float64Array(3);

/**
 * The longest transition fitted, in seconds (11.6 days). The quintic's coefficients divide by t1⁵,
 * which overflows from t1 of about 1e61 and makes 0 × Infinity of the acceleration term from 1e154;
 * a longer request is held to this.
 */
export const MAX_TRANSITION_TIME = 1e6;
/**
 * The shortest transition fitted with a curve, in seconds. An approaching velocity shortens t1 to
 * -5 x0 / v0, and a velocity measured over a delta time of 1e-90 s makes t1 so short that t1⁵
 * underflows to 0; below this the offset is held for t1 and then dropped, which no frame can tell
 * from the curve.
 */
const MIN_CURVE_TIME = 1e-6;

function fitCurve(out: Float64Array, o: number, args: Float64Array): void {
  const x0 = args[X0];
  const sign = x0 < 0 ? -1 : 1;
  let x = x0 * sign;
  let v = args[V0] * sign;
  let t1 = Math.min(args[DURATION], MAX_TRANSITION_TIME);
  if (!(x > EPSILON) || !(t1 > 0) || !Number.isFinite(x)) {
    out.fill(0, o, o + CURVE_STRIDE);
    return;
  }
  if (!Number.isFinite(v) || v > 0) v = 0;
  if (v < 0) t1 = Math.min(t1, (-5 * x) / v);
  if (!(t1 >= MIN_CURVE_TIME)) {
    out.fill(0, o, o + CURVE_STRIDE);
    out[o] = x * sign;
    out[o + 3] = t1;
    return;
  }
  const t2 = t1 * t1;
  const a0 = Math.max(0, (-8 * v * t1 - 20 * x) / t2);
  const A = -(a0 * t2 + 6 * v * t1 + 12 * x) / (2 * t2 * t2 * t1);
  const B = (3 * a0 * t2 + 16 * v * t1 + 30 * x) / (2 * t2 * t2);
  const C = -(3 * a0 * t2 + 12 * v * t1 + 20 * x) / (2 * t2 * t1);
  out[o] = x * sign;
  out[o + 1] = v * sign;
  out[o + 2] = a0 * sign;
  out[o + 3] = t1;
  out[o + 4] = A * sign;
  out[o + 5] = B * sign;
  out[o + 6] = C * sign;
}

/** The curve's value at time t (0 at and after t1). */
export function inertialCurveValue(curve: Float64Array, o: number, t: number): number {
  if (t <= 0) return t < curve[o + 3] ? curve[o] : 0;
  scratchTime[0] = t;
  curvePowers(scratchPowers, scratchTime, 0);
  return curveAt(curve, o, scratchPowers);
}

const scratchTime = new Float64Array(1);
const scratchPowers = new Float64Array(5);

/**
 * [t, t²/2, t³, t⁴, t⁵] of t = time[index] into p: computed once per pose, so that each curve is a sum of independent
 * products (curveAt) rather than Horner's chain of dependent ones.
 */
function curvePowers(p: Float64Array, time: Float64Array, index: number): void {
  const t = time[index];
  const t3 = t * t * t;
  p[0] = t;
  p[1] = 0.5 * t * t;
  p[2] = t3;
  p[3] = t3 * t;
  p[4] = t3 * t * t;
}

/**
 * The curve at o, at the time whose powers are p (see curvePowers), into out[index]; 0 at and
 * after its t1. Into an array rather than returned, so that no double crosses the call: see
 * CONTRIBUTING.md, "Numbers in the frame loop".
 */
function curveInto(out: Float64Array, index: number, curve: Float64Array, o: number, p: Float64Array): void {
  const t = p[0];
  out[index] = t < curve[o + 3] ? curve[o] + curve[o + 1] * t + curve[o + 2] * p[1] + curve[o + 6] * p[2] + curve[o + 5] * p[3] + curve[o + 4] * p[4] : 0;
}

/** curveInto's value, for tools and debug output (not the frame loop). */
function curveAt(curve: Float64Array, o: number, p: Float64Array): number {
  curveInto(boneOffsets, 0, curve, o, p);
  return boneOffsets[0];
}

/** apply's curve values of the bone at hand: [translation, scale, rotation]; curveAt's scratch. */
const boneOffsets = new Float64Array(3);

/**
 * The decaying offset of a whole pose: per bone a direction and a curve for translation, an axis
 * and a curve for rotation, a direction and a curve for scale. The caller owns one per node and
 * sizes it once; start() fits it at a transition, apply() adds it to each frame's new pose.
 */
export class PoseInertializer {
  readonly boneCount: number;
  /**
   * The offsets' numbers in one block, its own or (useNumbers) its instance's per-frame numbers,
   * where a batch's sampling kernel applies them: [0, 8) this frame's powers of the elapsed time
   * (five used), then per bone the translation directions, rotation axes and scale directions (3
   * each), the translation, rotation and scale curves (CURVE_STRIDE each) and which curves are live.
   * The arrays below view it; the kernel's inertialize (runtime/kernel/wasm/sampling.wat) reads this layout.
   */
  private numbers: Float64Array;
  private base = 0;
  /** The block's byte address in its buffer: where a sampling kernel sharing the buffer reads it. */
  private blockAddress = 0;
  private translationDir!: Float64Array;
  private rotationAxis!: Float64Array;
  private scaleDir!: Float64Array;
  private translationCurve!: Float64Array;
  private rotationCurve!: Float64Array;
  private scaleCurve!: Float64Array;
  /**
   * Per bone, which curves are not zero: 1 translation, 2 rotation, 4 scale. apply() reads no
   * curve that is zero (most scales), since a crowd's transitions are bound by memory traffic.
   */
  private live!: Float64Array;
  /** The elapsed time's powers for this frame's curves (see curvePowers). */
  private powers!: Float64Array;
  /** [elapsed, duration] of the running transition; elapsed >= duration means none. */
  readonly clock = new Float64Array(2);
  /** start()'s two numbers, as startFrom reads them: [delta time from the older pose to the previous, duration]. */
  readonly startArgs = new Float64Array(2);
  /**
   * A blend profile read by the next start: each bone's offset then decays over the duration
   * times the profile's durationScales[bone], and the transition lasts until the slowest bone's
   * has. Null: every bone over the duration.
   */
  profile: BlendProfile | null = null;

  /** How many numbers an inertializer of `boneCount` bones keeps (what its node reserves: NodeBuild.numbers). */
  static numberCount(boneCount: number): number {
    return INERTIALIZER_NUMBERS_BEFORE_BONES + INERTIALIZER_NUMBERS_PER_BONE * boneCount;
  }

  constructor(boneCount: number) {
    this.boneCount = boneCount;
    this.numbers = new Float64Array(PoseInertializer.numberCount(boneCount));
    this.view();
  }

  /**
   * Keeps the offsets' numbers in `numbers` from `base` on (a node's reservation in its instance's
   * per-frame numbers), carrying over their values; a negative base keeps them where they are.
   */
  useNumbers(numbers: Float64Array, base: number): void {
    if (base < 0 || (numbers === this.numbers && base === this.base)) return;
    const count = PoseInertializer.numberCount(this.boneCount);
    numbers.set(this.numbers.subarray(this.base, this.base + count), base);
    this.numbers = numbers;
    this.base = base;
    this.view();
  }

  /** The views of the block at `base` of `numbers`. */
  private view(): void {
    const n = this.boneCount, numbers = this.numbers;
    let at = this.base;
    this.blockAddress = numbers.byteOffset + at * 8;
    const take = (count: number): Float64Array => numbers.subarray(at, (at += count));
    this.powers = take(INERTIALIZER_NUMBERS_BEFORE_BONES);
    this.translationDir = take(n * 3);
    this.rotationAxis = take(n * 3);
    this.scaleDir = take(n * 3);
    this.translationCurve = take(n * CURVE_STRIDE);
    this.rotationCurve = take(n * CURVE_STRIDE);
    this.scaleCurve = take(n * CURVE_STRIDE);
    this.live = take(n);
  }

  /** True until the elapsed time reaches the duration (to within a nanosecond of summed delta times). */
  get active(): boolean {
    return this.clock[0] < this.clock[1] - 1e-9;
  }

  get elapsed(): number {
    return this.clock[0];
  }

  get duration(): number {
    return this.clock[1];
  }

  stop(): void {
    this.clock[0] = 0;
    this.clock[1] = 0;
  }

  /**
   * The largest offset apply() adds now, over the bones: translation in skeleton units, rotation
   * in degrees. For debug trees and plots (it allocates its result), not the frame loop.
   */
  offsetMagnitudes(): { translation: number; rotation: number } {
    let translation = 0, rotation = 0;
    if (!this.active) return { translation, rotation };
    const p = this.powers;
    curvePowers(p, this.clock, 0);
    for (let bone = 0; bone < this.boneCount; bone++) {
      const m = this.live[bone], c = bone * CURVE_STRIDE;
      if ((m & 1) !== 0) translation = Math.max(translation, Math.abs(curveAt(this.translationCurve, c, p)));
      if ((m & 2) !== 0) rotation = Math.max(rotation, Math.abs(curveAt(this.rotationCurve, c, p)));
    }
    return { translation, rotation: (rotation * 180) / Math.PI };
  }

  /**
   * Fits the offsets from `target` (the new pose) to `previous` (the last pose output), with
   * velocities measured against `older` (the pose output before it) over `olderDeltaTime`
   * seconds. Without an older pose (null, or a delta time of 0) velocities are 0.
   */
  start(target: Pose, previous: Pose, older: Pose | null, olderDeltaTime: number, duration: number): void {
    this.startArgs[0] = olderDeltaTime;
    this.startArgs[1] = duration;
    this.startFrom(target, previous, older, this.startArgs, this.startArgs, 1);
  }

  /**
   * start() with its two numbers read here, from arrays (olderDeltaTime[0], durations[index]), as
   * the frame loop starts transitions. Every bone's fit is written into this one function's loops,
   * not a function called per bone, so that it is optimised within a few transitions: see
   * CONTRIBUTING.md, "Numbers in the frame loop".
   */
  startFrom(target: Pose, previous: Pose, older: Pose | null, olderDeltaTime: Float64Array, durations: Float64Array, index: number): void {
    const olderDt = olderDeltaTime[0], duration = durations[index];
    this.clock[0] = 0;
    this.clock[1] = duration > 0 ? Math.min(duration, MAX_TRANSITION_TIME) : 0;
    const args = curveArgs;
    // The velocities' time step: 0 (no velocity) without an older pose.
    const dt = older !== null && olderDt > 0 ? olderDt : 0;
    const n = this.boneCount;
    const profile = this.profile;
    const scales = profile !== null && profile.durationScales.length === n ? profile.durationScales : null;
    const full = this.clock[1];
    if (scales !== null) this.clock[1] = Math.min(full * profile!.maxDurationScale, MAX_TRANSITION_TIME);
    // Per bone, which curves are live: 1 translation, 2 rotation, 4 scale.
    const live = this.live;
    live.fill(0);
    // Translations, then scales: each bone's offset a distance along a unit direction, its velocity
    // the older pose's offset measured along the same direction.
    for (let channel = 0; channel < 2; channel++) {
      const dir = channel === 0 ? this.translationDir : this.scaleDir, curve = channel === 0 ? this.translationCurve : this.scaleCurve;
      const to = channel === 0 ? target.translations : target.scales, from = channel === 0 ? previous.translations : previous.scales;
      const before = older === null ? null : channel === 0 ? older.translations : older.scales;
      const bit = channel === 0 ? 1 : 4;
      for (let bone = 0; bone < n; bone++) {
        const boneDuration = scales !== null ? Math.min(full * scales[bone], MAX_TRANSITION_TIME) : full;
        const b3 = bone * 3, c = bone * CURVE_STRIDE;
        const x = from[b3] - to[b3], y = from[b3 + 1] - to[b3 + 1], z = from[b3 + 2] - to[b3 + 2];
        const x0 = Math.sqrt(x * x + y * y + z * z);
        let v0 = 0;
        if (!(x0 > 1e-9) || !(boneDuration > 0)) {
          dir[b3] = 0; dir[b3 + 1] = 0; dir[b3 + 2] = 0;
          args[X0] = 0;
        } else {
          const nx = x / x0, ny = y / x0, nz = z / x0;
          dir[b3] = nx; dir[b3 + 1] = ny; dir[b3 + 2] = nz;
          if (before !== null && dt > 0) {
            const xn1 = (before[b3] - to[b3]) * nx + (before[b3 + 1] - to[b3 + 1]) * ny + (before[b3 + 2] - to[b3 + 2]) * nz;
            v0 = (x0 - xn1) / dt;
          }
          args[X0] = x0;
        }
        args[V0] = v0;
        args[DURATION] = boneDuration;
        fitCurve(curve, c, args);
        if (curve[c + 3] > 0) live[bone] += bit;
      }
    }
    // Rotations: each bone's offset an angle about a unit axis, q0 = previous * inverse(target)
    // taken the shorter way round (w >= 0), its velocity the older pose's offset as a twist about the
    // same axis.
    const to = target.rotations, from = previous.rotations, before = older === null ? null : older.rotations;
    const axis = this.rotationAxis, curve = this.rotationCurve;
    for (let bone = 0; bone < n; bone++) {
      const boneDuration = scales !== null ? Math.min(full * scales[bone], MAX_TRANSITION_TIME) : full;
      const b3 = bone * 3, b4 = bone * 4, c = bone * CURVE_STRIDE;
      const tx = -to[b4], ty = -to[b4 + 1], tz = -to[b4 + 2], tw = to[b4 + 3];
      const px = from[b4], py = from[b4 + 1], pz = from[b4 + 2], pw = from[b4 + 3];
      let qx = pw * tx + px * tw + py * tz - pz * ty;
      let qy = pw * ty - px * tz + py * tw + pz * tx;
      let qz = pw * tz + px * ty - py * tx + pz * tw;
      let qw = pw * tw - px * tx - py * ty - pz * tz;
      if (qw < 0) { qx = -qx; qy = -qy; qz = -qz; qw = -qw; }
      const sine = Math.sqrt(qx * qx + qy * qy + qz * qz);
      const x0 = 2 * Math.atan2(sine, qw);
      let v0 = 0;
      if (!(x0 > 1e-9) || !(boneDuration > 0) || !(sine > 1e-12)) {
        axis[b3] = 0; axis[b3 + 1] = 0; axis[b3 + 2] = 0;
        args[X0] = 0;
      } else {
        const ax = qx / sine, ay = qy / sine, az = qz / sine;
        axis[b3] = ax; axis[b3 + 1] = ay; axis[b3 + 2] = az;
        if (before !== null && dt > 0) {
          const ox = before[b4], oy = before[b4 + 1], oz = before[b4 + 2], ow = before[b4 + 3];
          const rx = ow * tx + ox * tw + oy * tz - oz * ty;
          const ry = ow * ty - ox * tz + oy * tw + oz * tx;
          const rz = ow * tz + ox * ty - oy * tx + oz * tw;
          const rw = ow * tw - ox * tx - oy * ty - oz * tz;
          // Both angles wrapped into [-pi, pi] inline, not by a helper returning a double. One step
          // is enough: 2 atan2 lies in [-2pi, 2pi], and x0 - xn1 in [-pi, 2pi].
          let xn1 = 2 * Math.atan2(rx * ax + ry * ay + rz * az, rw);
          if (xn1 > Math.PI) xn1 -= 2 * Math.PI;
          else if (xn1 < -Math.PI) xn1 += 2 * Math.PI;
          let dx = x0 - xn1;
          if (dx > Math.PI) dx -= 2 * Math.PI;
          else if (dx < -Math.PI) dx += 2 * Math.PI;
          v0 = dx / dt;
        }
        args[X0] = x0;
      }
      args[V0] = v0;
      args[DURATION] = boneDuration;
      fitCurve(curve, c, args);
      if (curve[c + 3] > 0) live[bone] += 2;
    }
  }

  /**
   * Adds the offsets at the current elapsed time to `pose` (the new pose this frame): in the
   * sampling kernel when the pose and the offsets' numbers are both in its memory (a batch's
   * character whose node keeps them in its per-frame numbers), bit-identically.
   */
  apply(pose: Pose): void {
    // The test alone here, the work in a function of its own, so that this short path is optimised
    // early: see CONTRIBUTING.md, "Numbers in the frame loop".
    if (this.clock[0] < this.clock[1] - 1e-9) this.applyOffsets(pose);
  }

  private applyOffsets(pose: Pose): void {
    const p = this.powers;
    curvePowers(p, this.clock, 0);
    const kernel = pose.kernel;
    if (kernel !== null && kernel.buffer === this.numbers.buffer && pose.boneCount === this.boneCount) {
      kernel.inertialize(pose, this.blockAddress);
      return;
    }
    const n = this.boneCount;
    const pt = pose.translations, pr = pose.rotations, ps = pose.scales;
    const live = this.live, tc = this.translationCurve, rc = this.rotationCurve, sc = this.scaleCurve;
    const td = this.translationDir, ra = this.rotationAxis, sd = this.scaleDir;
    for (let bone = 0; bone < n; bone++) {
      const m = live[bone];
      if (m === 0) continue;
      const b3 = bone * 3, b4 = bone * 4, c = bone * CURVE_STRIDE;
      const x = boneOffsets;
      if ((m & 1) === 0) x[0] = 0;
      else curveInto(x, 0, tc, c, p);
      const xt = x[0];
      if (xt !== 0) {
        pt[b3] += td[b3] * xt;
        pt[b3 + 1] += td[b3 + 1] * xt;
        pt[b3 + 2] += td[b3 + 2] * xt;
      }
      if ((m & 4) === 0) x[1] = 0;
      else curveInto(x, 1, sc, c, p);
      const xs = x[1];
      if (xs !== 0) {
        ps[b3] += sd[b3] * xs;
        ps[b3 + 1] += sd[b3 + 1] * xs;
        ps[b3 + 2] += sd[b3 + 2] * xs;
      }
      if ((m & 2) === 0) x[2] = 0;
      else curveInto(x, 2, rc, c, p);
      const xr = x[2];
      if (xr !== 0) {
        // pose rotation = offset(axis, xr) * pose rotation, as previous = offset * target.
        // sin and cos of the half angle h without Math.sin and Math.cos (calls out of optimised
        // code; the rotation offsets are most of a transition's per-frame cost): fdlibm's kernels
        // on h/2, in [-pi/4, pi/4] while the offset stays within a half turn (it decays from at
        // most one), then the double-angle formulas. Error about 2e-16.
        const q = xr * 0.25;
        let s: number, w: number;
        if (q >= -QUARTER_PI && q <= QUARTER_PI) {
          const z = q * q, z2 = z * z;
          const sq = q + q * z * ((K1 + K2 * z) + z2 * (K3 + K4 * z) + z2 * z2 * (K5 + K6 * z));
          const cq = 1 - 0.5 * z + z2 * ((L1 + L2 * z) + z2 * (L3 + L4 * z) + z2 * z2 * (L5 + L6 * z));
          s = 2 * sq * cq;
          w = cq * cq - sq * sq;
        } else {
          s = Math.sin(2 * q);
          w = Math.cos(2 * q);
        }
        const ax = ra[b3] * s, ay = ra[b3 + 1] * s, az = ra[b3 + 2] * s;
        const bx = pr[b4], by = pr[b4 + 1], bz = pr[b4 + 2], bw = pr[b4 + 3];
        const rx = w * bx + ax * bw + ay * bz - az * by;
        const ry = w * by - ax * bz + ay * bw + az * bx;
        const rz = w * bz + ax * by - ay * bx + az * bw;
        const rw = w * bw - ax * bx - ay * by - az * bz;
        // Renormalised: the product of two unit quaternions is off by rounding only (|q|² = 1 + e,
        // e near 1e-16), where one Newton step toward 1/sqrt from 1 is exact to 3e²/8 and spares a
        // square root and a division; anything farther from unit takes the full normalisation.
        const n2 = rx * rx + ry * ry + rz * rz + rw * rw;
        const near = n2 > 1 - 1e-8 && n2 < 1 + 1e-8;
        const k = near ? 1.5 - 0.5 * n2 : 1;
        pr[b4] = rx * k; pr[b4 + 1] = ry * k; pr[b4 + 2] = rz * k; pr[b4 + 3] = rw * k;
        if (!near) quatNormalize(pr, b4);
      }
    }
  }

  /**
   * Advances the transition clock by the delta time held in dt[0]. For tools and tests: the frame
   * loop moves the clock in InertialTransition.update, where the test of `active` is already made.
   */
  advance(dt: Float64Array): void {
    if (this.clock[0] < this.clock[1] - 1e-9) this.clock[0] += dt[0];
  }
}
