/**
 * Output-first math on flat typed arrays (gl-matrix style), with an offset for every array so
 * that a bone's translation, rotation or scale is read and written in place inside a pose's
 * attribute arrays. Nothing here allocates. Quaternions are stored x, y, z, w.
 */

export type Floats = Float64Array;

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
