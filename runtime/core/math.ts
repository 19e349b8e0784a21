/**
 * Output-first math on flat typed arrays (gl-matrix style), with an offset for every array so
 * that a bone's translation, rotation or scale is read and written in place inside a pose's
 * attribute arrays. Nothing here allocates. Quaternions are stored x, y, z, w.
 */

export type Floats = Float64Array;

/** Which component-space axis points up (the floor is the plane normal to it). */
export type UpAxis = 'y' | 'z';

export const EPSILON = 1e-12;

/** out = a * b (apply b first, then a). `out` may alias `a` or `b`. */
export function quatMultiply(out: Floats, o: number, a: Floats, ao: number, b: Floats, bo: number): Floats {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

/** out = conjugate(a), the inverse of a unit quaternion. */
export function quatConjugate(out: Floats, o: number, a: Floats, ao: number): Floats {
  out[o] = -a[ao];
  out[o + 1] = -a[ao + 1];
  out[o + 2] = -a[ao + 2];
  out[o + 3] = a[ao + 3];
  return out;
}

/** out = conjugate(a) * b, the rotation that takes a to b in a's frame. */
export function quatConjugateMultiply(out: Floats, o: number, a: Floats, ao: number, b: Floats, bo: number): Floats {
  const ax = -a[ao], ay = -a[ao + 1], az = -a[ao + 2], aw = a[ao + 3];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
  return out;
}

/**
 * Normalises in place. A degenerate quaternion (length 0 or not finite) becomes the identity,
 * so a bad blend can never leak NaN into later frames.
 */
export function quatNormalize(q: Floats, o: number): Floats {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  const len2 = x * x + y * y + z * z + w * w;
  if (!(len2 > EPSILON) || !Number.isFinite(len2)) {
    q[o] = 0; q[o + 1] = 0; q[o + 2] = 0; q[o + 3] = 1;
    return q;
  }
  const inv = 1 / Math.sqrt(len2);
  q[o] = x * inv; q[o + 1] = y * inv; q[o + 2] = z * inv; q[o + 3] = w * inv;
  return q;
}

/** Normalised linear interpolation along the shorter arc. */
export function quatNlerp(out: Floats, o: number, a: Floats, ao: number, b: Floats, bo: number, t: number): Floats {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  let bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  if (ax * bx + ay * by + az * bz + aw * bw < 0) { bx = -bx; by = -by; bz = -bz; bw = -bw; }
  const s = 1 - t;
  out[o] = ax * s + bx * t;
  out[o + 1] = ay * s + by * t;
  out[o + 2] = az * s + bz * t;
  out[o + 3] = aw * s + bw * t;
  return quatNormalize(out, o);
}

/** Spherical linear interpolation along the shorter arc; falls back to nlerp for tiny angles. */
export function quatSlerp(out: Floats, o: number, a: Floats, ao: number, b: Floats, bo: number, t: number): Floats {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2], aw = a[ao + 3];
  let bx = b[bo], by = b[bo + 1], bz = b[bo + 2], bw = b[bo + 3];
  let cos = ax * bx + ay * by + az * bz + aw * bw;
  if (cos < 0) { cos = -cos; bx = -bx; by = -by; bz = -bz; bw = -bw; }
  let s0: number, s1: number;
  if (cos > 0.9995) {
    s0 = 1 - t;
    s1 = t;
  } else {
    const angle = Math.acos(cos);
    const inv = 1 / Math.sin(angle);
    s0 = Math.sin((1 - t) * angle) * inv;
    s1 = Math.sin(t * angle) * inv;
  }
  out[o] = ax * s0 + bx * s1;
  out[o + 1] = ay * s0 + by * s1;
  out[o + 2] = az * s0 + bz * s1;
  out[o + 3] = aw * s0 + bw * s1;
  return quatNormalize(out, o);
}

/** out = rotation of `angle` radians about the unit axis (x, y, z). */
export function quatFromAxisAngle(out: Floats, o: number, x: number, y: number, z: number, angle: number): Floats {
  const h = angle * 0.5;
  const s = Math.sin(h);
  out[o] = x * s;
  out[o + 1] = y * s;
  out[o + 2] = z * s;
  out[o + 3] = Math.cos(h);
  return out;
}

/** out = q applied to the vector v. `out` may alias `v`. */
export function quatRotateVec3(out: Floats, o: number, q: Floats, qo: number, v: Floats, vo: number): Floats {
  const qx = q[qo], qy = q[qo + 1], qz = q[qo + 2], qw = q[qo + 3];
  const vx = v[vo], vy = v[vo + 1], vz = v[vo + 2];
  // t = 2 * cross(q.xyz, v); v' = v + w * t + cross(q.xyz, t)
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[o] = vx + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = vz + qw * tz + (qx * ty - qy * tx);
  return out;
}

/** out = conjugate(q) applied to v (the inverse rotation of a unit quaternion). */
export function quatInverseRotateVec3(out: Floats, o: number, q: Floats, qo: number, v: Floats, vo: number): Floats {
  const qx = -q[qo], qy = -q[qo + 1], qz = -q[qo + 2], qw = q[qo + 3];
  const vx = v[vo], vy = v[vo + 1], vz = v[vo + 2];
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[o] = vx + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = vz + qw * tz + (qx * ty - qy * tx);
  return out;
}

/** out = a + (b - a) * t for three components. */
export function vec3Lerp(out: Floats, o: number, a: Floats, ao: number, b: Floats, bo: number, t: number): Floats {
  out[o] = a[ao] + (b[bo] - a[ao]) * t;
  out[o + 1] = a[ao + 1] + (b[bo + 1] - a[ao + 1]) * t;
  out[o + 2] = a[ao + 2] + (b[bo + 2] - a[ao + 2]) * t;
  return out;
}

const scratchQuat = new Float64Array(4);
const scratchVec = new Float64Array(3);

/**
 * Component-space composition of TRS transforms, as engines do it (Unreal's FTransform):
 *   rotation = parentR * childR, scale = parentS * childS,
 *   translation = parentT + parentR * (parentS * childT).
 * Writes bone `o` of (outT, outR, outS) from parent `p` of (pT, pR, pS) and child `c` of
 * (cT, cR, cS); offsets are bone indices, not array offsets.
 */
export function transformCompose(
  outT: Floats, outR: Floats, outS: Floats, o: number,
  pT: Floats, pR: Floats, pS: Floats, p: number,
  cT: Floats, cR: Floats, cS: Floats, c: number,
): void {
  const o3 = o * 3, o4 = o * 4, p3 = p * 3, p4 = p * 4, c3 = c * 3, c4 = c * 4;
  scratchVec[0] = cT[c3] * pS[p3];
  scratchVec[1] = cT[c3 + 1] * pS[p3 + 1];
  scratchVec[2] = cT[c3 + 2] * pS[p3 + 2];
  quatRotateVec3(scratchVec, 0, pR, p4, scratchVec, 0);
  const tx = pT[p3] + scratchVec[0], ty = pT[p3 + 1] + scratchVec[1], tz = pT[p3 + 2] + scratchVec[2];
  quatMultiply(scratchQuat, 0, pR, p4, cR, c4);
  const sx = pS[p3] * cS[c3], sy = pS[p3 + 1] * cS[c3 + 1], sz = pS[p3 + 2] * cS[c3 + 2];
  outT[o3] = tx; outT[o3 + 1] = ty; outT[o3 + 2] = tz;
  outR[o4] = scratchQuat[0]; outR[o4 + 1] = scratchQuat[1]; outR[o4 + 2] = scratchQuat[2]; outR[o4 + 3] = scratchQuat[3];
  quatNormalize(outR, o4);
  outS[o3] = sx; outS[o3 + 1] = sy; outS[o3 + 2] = sz;
}

/** a / b that treats a zero (or tiny) divisor as "no scale to undo" instead of producing Infinity. */
function safeDivide(a: number, b: number): number {
  return Math.abs(b) > 1e-8 ? a / b : 0;
}

/**
 * The inverse of transformCompose: the local transform of a child given its parent's and its own
 * component-space transforms. A zero parent scale yields zero (never Infinity or NaN).
 */
export function transformRelative(
  outT: Floats, outR: Floats, outS: Floats, o: number,
  pT: Floats, pR: Floats, pS: Floats, p: number,
  cT: Floats, cR: Floats, cS: Floats, c: number,
): void {
  const o3 = o * 3, o4 = o * 4, p3 = p * 3, p4 = p * 4, c3 = c * 3, c4 = c * 4;
  scratchVec[0] = cT[c3] - pT[p3];
  scratchVec[1] = cT[c3 + 1] - pT[p3 + 1];
  scratchVec[2] = cT[c3 + 2] - pT[p3 + 2];
  quatInverseRotateVec3(scratchVec, 0, pR, p4, scratchVec, 0);
  const tx = safeDivide(scratchVec[0], pS[p3]);
  const ty = safeDivide(scratchVec[1], pS[p3 + 1]);
  const tz = safeDivide(scratchVec[2], pS[p3 + 2]);
  quatConjugateMultiply(scratchQuat, 0, pR, p4, cR, c4);
  const sx = safeDivide(cS[c3], pS[p3]), sy = safeDivide(cS[c3 + 1], pS[p3 + 1]), sz = safeDivide(cS[c3 + 2], pS[p3 + 2]);
  outT[o3] = tx; outT[o3 + 1] = ty; outT[o3 + 2] = tz;
  outR[o4] = scratchQuat[0]; outR[o4 + 1] = scratchQuat[1]; outR[o4 + 2] = scratchQuat[2]; outR[o4 + 3] = scratchQuat[3];
  quatNormalize(outR, o4);
  outS[o3] = sx; outS[o3 + 1] = sy; outS[o3 + 2] = sz;
}

const DEG = Math.PI / 180;

/**
 * Rotation from Euler angles in degrees applied in the listed order as intrinsic rotations, as BVH
 * channels are: for the order "ZYX" the result is Rz * Ry * Rx.
 */
export function quatFromEulerDegrees(out: Floats, o: number, order: string, angles: ArrayLike<number>): Floats {
  out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1;
  for (let i = 0; i < order.length; i++) {
    const axis = order.charCodeAt(i);
    const h = angles[i] * DEG * 0.5;
    const s = Math.sin(h), c = Math.cos(h);
    scratchQuat[0] = axis === 88 ? s : 0; // 'X'
    scratchQuat[1] = axis === 89 ? s : 0; // 'Y'
    scratchQuat[2] = axis === 90 ? s : 0; // 'Z'
    scratchQuat[3] = c;
    quatMultiply(out, o, out, o, scratchQuat, 0);
  }
  return out;
}

export function clamp(value: number, min: number, max: number): number {
  return value < min ? min : value > max ? max : value;
}

/**
 * out = the smallest rotation that turns direction `a` into direction `b` (neither needs to be unit
 * length): about the axis a × b, with no twist about either vector. When a and b are opposite (within
 * about 1e-6 rad) the smallest rotation is not unique: out is a half turn about `axis` made
 * perpendicular to a, or, if that axis is zero or parallel to a, about the world axis least aligned with
 * a. A zero-length or non-finite a or b gives the identity. Never NaN.
 */
export function quatFromTo(out: Floats, o: number, a: Floats, ao: number, b: Floats, bo: number, axis: Floats, xo: number): Floats {
  const ax = a[ao], ay = a[ao + 1], az = a[ao + 2];
  const bx = b[bo], by = b[bo + 1], bz = b[bo + 2];
  const norms = Math.sqrt((ax * ax + ay * ay + az * az) * (bx * bx + by * by + bz * bz));
  if (!(norms > 0) || !(norms < Infinity)) {
    out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1;
    return out;
  }
  const w = norms + (ax * bx + ay * by + az * bz);
  if (w > 1e-12 * norms) {
    out[o] = ay * bz - az * by;
    out[o + 1] = az * bx - ax * bz;
    out[o + 2] = ax * by - ay * bx;
    out[o + 3] = w;
    return quatNormalize(out, o);
  }
  // Opposite: a half turn about an axis perpendicular to a.
  const la2 = ax * ax + ay * ay + az * az;
  let px = axis[xo], py = axis[xo + 1], pz = axis[xo + 2];
  const p2 = px * px + py * py + pz * pz;
  let k = (px * ax + py * ay + pz * az) / la2;
  let qx = px - k * ax, qy = py - k * ay, qz = pz - k * az;
  let q2 = qx * qx + qy * qy + qz * qz;
  if (!(q2 > 1e-12 * p2) || !(q2 < Infinity)) {
    // The world axis least aligned with a is at least ~55 degrees from it.
    const fx = Math.abs(ax), fy = Math.abs(ay), fz = Math.abs(az);
    px = fx <= fy && fx <= fz ? 1 : 0;
    py = px === 0 && fy <= fz ? 1 : 0;
    pz = px === 0 && py === 0 ? 1 : 0;
    k = (px * ax + py * ay + pz * az) / la2;
    qx = px - k * ax; qy = py - k * ay; qz = pz - k * az;
    q2 = qx * qx + qy * qy + qz * qz;
  }
  const inv = 1 / Math.sqrt(q2);
  out[o] = qx * inv; out[o + 1] = qy * inv; out[o + 2] = qz * inv; out[o + 3] = 0;
  return out;
}

/**
 * Splits the rotation q into swing × twist about the unit vector `axis` (bend and roll, in the
 * helper-bone terms of BendRollHelper): q = swing * twist, where
 * - twist is a rotation about `axis` (it leaves `axis` where it is), stored with w >= 0 so that its
 *   angle is the signed twist in [-π, π];
 * - swing is the shortest rotation taking `axis` to q·axis: its axis is perpendicular to `axis`, its
 *   angle is the angle between the two directions, in [0, π] (w >= 0).
 *
 * The twist is computed first, as q's projection onto rotations about `axis`: normalise(q.xyz·axis,
 * q.w). Its length is cos(swing / 2), so the only singular case is q·axis = −axis exactly (within
 * about 1e-14 rad), where the shortest rotation is not unique. There the twist is taken as the identity
 * and the swing is q itself: a half turn about q's own axis, which is perpendicular to `axis`. That is
 * the limit of pure swings approaching the half turn, so a bend that sweeps through the opposite
 * direction does not flip; near the case nothing switches branch and the split stays continuous. A
 * NaN or zero q gives two identities. Never NaN. `q` may alias either output.
 */
export function quatSwingTwist(outSwing: Floats, so: number, outTwist: Floats, to: number, q: Floats, qo: number, axis: Floats, ao: number): void {
  const x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  const ax = axis[ao], ay = axis[ao + 1], az = axis[ao + 2];
  let p = x * ax + y * ay + z * az;
  let tw = w;
  const n2 = p * p + tw * tw;
  if (!(n2 > 1e-28)) {
    // Opposite (or q is zero or NaN): no twist; the swing is q without its (rounding-sized) component along the axis.
    outSwing[so] = x - p * ax; outSwing[so + 1] = y - p * ay; outSwing[so + 2] = z - p * az; outSwing[so + 3] = 0;
    quatNormalize(outSwing, so);
    outTwist[to] = 0; outTwist[to + 1] = 0; outTwist[to + 2] = 0; outTwist[to + 3] = 1;
    return;
  }
  const inv = (tw < 0 ? -1 : 1) / Math.sqrt(n2);
  p *= inv;
  tw *= inv;
  // swing = q * conjugate(twist), twist = (p * axis, tw).
  const bx = -p * ax, by = -p * ay, bz = -p * az;
  let sx = w * bx + x * tw + y * bz - z * by;
  let sy = w * by - x * bz + y * tw + z * bx;
  let sz = w * bz + x * by - y * bx + z * tw;
  let sw = w * tw - x * bx - y * by - z * bz;
  // The swing's axis is perpendicular to `axis` in exact arithmetic; remove the rounding.
  const along = sx * ax + sy * ay + sz * az;
  sx -= along * ax; sy -= along * ay; sz -= along * az;
  if (sw < 0) { sx = -sx; sy = -sy; sz = -sz; sw = -sw; }
  outSwing[so] = sx; outSwing[so + 1] = sy; outSwing[so + 2] = sz; outSwing[so + 3] = sw;
  quatNormalize(outSwing, so);
  outTwist[to] = p * ax; outTwist[to + 1] = p * ay; outTwist[to + 2] = p * az; outTwist[to + 3] = tw;
}

/**
 * out = q with its angle scaled by weights[wi] about the same axis (q to the power of the weight),
 * on the shorter arc: q and −q give the same result, and the angle scaled is the one in [0, π]. A
 * weight of 0 gives the identity, 1 gives q, −1 its inverse. The weight comes in an array (see
 * CONTRIBUTING.md, "Numbers in the frame loop"). A zero or NaN q, or a NaN weight, gives the identity.
 */
export function quatScaleAngle(out: Floats, o: number, q: Floats, qo: number, weights: Floats, wi: number): Floats {
  let x = q[qo], y = q[qo + 1], z = q[qo + 2], w = q[qo + 3];
  if (w < 0) { x = -x; y = -y; z = -z; w = -w; }
  const s = Math.sqrt(x * x + y * y + z * z);
  if (!(s > 0) || !(s < Infinity) || !(w === w)) {
    out[o] = 0; out[o + 1] = 0; out[o + 2] = 0; out[o + 3] = 1;
    return out;
  }
  const weight = weights[wi];
  const half = weight === weight ? Math.atan2(s, w) * weight : 0;
  const k = Math.sin(half) / s;
  out[o] = x * k; out[o + 1] = y * k; out[o + 2] = z * k; out[o + 3] = Math.cos(half);
  return out;
}

/**
 * The largest translation or scale a clip key or a reference pose may hold, in magnitude: 1e15 (in
 * centimetres, ten billion kilometres). Finite keys of any size could be stored, but keys near the
 * largest double overflow to Infinity when a sample is interpolated between them (b - a), blended or
 * composed, and the frame loop must not give a non-finite pose. The asset loader reports such
 * values as problems; an AnimGraph built in code refuses them (checkGraphData in graph.ts).
 */
export const MAX_KEY_MAGNITUDE = 1e15;
export const MAX_KEY_MAGNITUDE_TEXT = '1e15';

/**
 * Index of the first of values[from .. to) whose magnitude is beyond `limit`, or -1. A NaN always
 * is; with Number.MAX_VALUE it finds the first value that is not finite.
 */
export function firstBeyond(values: ArrayLike<number>, limit: number, from = 0, to = values.length): number {
  for (let i = from; i < to; i++) if (!(Math.abs(values[i]) <= limit)) return i;
  return -1;
}
