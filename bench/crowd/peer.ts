/**
 * The crowd bench's hand-written peer: the same arithmetic as animgraph's player and blend cases on
 * flat typed arrays, no graph, no nodes, no pose objects. It repeats the runtime's arithmetic on
 * purpose (the floor the graph's abstraction is measured against), so it must not call the runtime.
 */
import type { Clip } from '../../runtime/core/clip.ts';
import type { Skeleton } from '../../runtime/core/skeleton.ts';
import { DT } from './options.ts';

/**
 * All characters' poses in one array per attribute ([character][bone][xyz(w)]), their play times
 * in one Float64Array. Rotation interpolation is slerp exactly as runtime/core/sampling.ts sampleClipAt does
 * it (quatSlerp's shorter arc, nlerp fallback above cos 0.9995, with the angle and 1 / sin(angle)
 * of each pair of consecutive keys read from Clip.rotationSpans, the sines of pairs up to 0.35 rad
 * apart from their Taylor series (see SLERP_SERIES_MAX_ANGLE) and no renormalisation of a slerp
 * between unit keys, as the runtime does; the wrap from the last key to the first computes them
 * and renormalises, as quatSlerp), translations are lerped, the
 * blend is BlendTwo's (a * (1 - alpha) + b * alpha, b's rotation flipped into a's hemisphere,
 * then normalised) fused into the sampling loop, and the component pass is transformCompose's (Unreal's FTransform composition).
 * Scales are carried (reference scale, as sampleClip writes it) so the output is a whole pose.
 */
export class PeerCrowd {
  readonly count: number;
  readonly boneCount: number;
  readonly times: Float64Array;
  readonly localT: Float64Array;
  readonly localR: Float64Array;
  readonly localS: Float64Array;
  readonly compT: Float64Array;
  readonly compR: Float64Array;
  readonly compS: Float64Array;
  private readonly parents: Int32Array;
  private readonly refS: Float64Array;
  private readonly spansA: Float64Array;
  private readonly spansB: Float64Array;
  private readonly scratch = new Float64Array(8);
  /** Interpolation factors handed to slerp (see slerp for why not as an argument). */
  private readonly alphas = new Float64Array(2);

  constructor(
    skeleton: Skeleton,
    private readonly clipA: Clip,
    private readonly clipB: Clip,
    count: number,
    phases: Float64Array,
    private readonly blend: boolean,
    private readonly component: boolean,
    private readonly alpha = 0.5,
  ) {
    const n = skeleton.boneCount;
    for (const clip of [clipA, clipB]) {
      // The peer hard-codes the bench's clip layout: track i animates bone i, translation + rotation.
      if (clip.tracks.length !== n || clip.tracks.some((t, i) => t.bone !== skeleton.boneNames[i] || !t.translation || !t.rotation || t.scale)) {
        throw new Error(`peer: clip '${clip.name}' is not one T+R track per bone in skeleton order`);
      }
    }
    this.count = count;
    this.boneCount = n;
    this.spansA = clipA.rotationSpans();
    this.spansB = clipB.rotationSpans();
    if (!clipA.unitRotationKeys || !clipB.unitRotationKeys) throw new Error('peer: the clips\' rotation keys must be unit quaternions (see Clip.unitRotationKeys)');
    this.parents = skeleton.parents;
    this.refS = skeleton.referencePose.scales;
    this.times = new Float64Array(count * 2);
    for (let i = 0; i < count * 2; i++) {
      const clip = i % 2 === 0 ? clipA : clipB;
      this.times[i] = Math.min(Math.max(phases[i], 0), clip.duration);
    }
    this.localT = new Float64Array(count * n * 3);
    this.localR = new Float64Array(count * n * 4);
    this.localS = new Float64Array(count * n * 3);
    this.compT = new Float64Array(component ? count * n * 3 : 0);
    this.compR = new Float64Array(component ? count * n * 4 : 0);
    this.compS = new Float64Array(component ? count * n * 3 : 0);
  }

  frames(frameCount: number): void {
    for (let f = 0; f < frameCount; f++) {
      for (let c = 0; c < this.count; c++) {
        if (this.blend) this.sampleBlend(c);
        else this.samplePlayer(c);
        if (this.component) this.composeComponent(c);
      }
    }
  }

  /** Advances play time `slot` by DT, looping. Doubles stay in typed arrays across calls (see slerp). */
  private advance(slot: number, clip: Clip): void {
    const duration = clip.duration;
    const next = this.times[slot] + DT;
    this.times[slot] = next >= duration ? next % duration : next;
  }

  private samplePlayer(c: number): void {
    const clip = this.clipA;
    const n = this.boneCount;
    this.advance(c * 2, clip);
    const t = this.times[c * 2];
    const position = t * clip.frameRate;
    let f0 = Math.floor(position);
    if (f0 > clip.frameCount - 1) f0 = clip.frameCount - 1;
    const alpha = position - f0;
    this.alphas[0] = alpha;
    const f1 = f0 + 1 < clip.frameCount ? f0 + 1 : 0;
    const ct = clip.translations, cr = clip.rotations;
    const ot = this.localT, or = this.localR, os = this.localS, rs = this.refS;
    const base = c * n;
    for (let bone = 0; bone < n; bone++) {
      const o3 = (base + bone) * 3, o4 = (base + bone) * 4, b3 = bone * 3;
      const a3 = (f0 * n + bone) * 3, c3 = (f1 * n + bone) * 3;
      ot[o3] = ct[a3] + (ct[c3] - ct[a3]) * alpha;
      ot[o3 + 1] = ct[a3 + 1] + (ct[c3 + 1] - ct[a3 + 1]) * alpha;
      ot[o3 + 2] = ct[a3 + 2] + (ct[c3 + 2] - ct[a3 + 2]) * alpha;
      const a4 = (f0 * n + bone) * 4, c4 = (f1 * n + bone) * 4;
      if (alpha === 0) {
        or[o4] = cr[a4]; or[o4 + 1] = cr[a4 + 1]; or[o4 + 2] = cr[a4 + 2]; or[o4 + 3] = cr[a4 + 3];
      } else if (f1 === f0 + 1) spanSlerp(or, o4, cr, a4, c4, this.spansA, (f0 * n + bone) * 2, this.alphas, 0);
      else slerp(or, o4, cr, a4, c4, this.alphas, 0);
      os[o3] = rs[b3]; os[o3 + 1] = rs[b3 + 1]; os[o3 + 2] = rs[b3 + 2];
    }
  }

  /** Samples both clips bone by bone and blends them in the same loop (no intermediate poses). */
  private sampleBlend(c: number): void {
    const A = this.clipA, B = this.clipB;
    const n = this.boneCount;
    this.advance(c * 2, A);
    this.advance(c * 2 + 1, B);
    const tA = this.times[c * 2], tB = this.times[c * 2 + 1];
    const pA = tA * A.frameRate, pB = tB * B.frameRate;
    let a0 = Math.floor(pA), b0 = Math.floor(pB);
    if (a0 > A.frameCount - 1) a0 = A.frameCount - 1;
    if (b0 > B.frameCount - 1) b0 = B.frameCount - 1;
    const alphaA = pA - a0, alphaB = pB - b0;
    this.alphas[0] = alphaA;
    this.alphas[1] = alphaB;
    const a1 = a0 + 1 < A.frameCount ? a0 + 1 : 0;
    const b1 = b0 + 1 < B.frameCount ? b0 + 1 : 0;
    const at = A.translations, ar = A.rotations, bt = B.translations, br = B.rotations;
    const w = this.alpha, wa = 1 - w;
    const ot = this.localT, or = this.localR, os = this.localS, rs = this.refS;
    const q = this.scratch;
    const base = c * n;
    for (let bone = 0; bone < n; bone++) {
      const o3 = (base + bone) * 3, o4 = (base + bone) * 4, b3 = bone * 3;
      const i0 = (a0 * n + bone) * 3, i1 = (a1 * n + bone) * 3, j0 = (b0 * n + bone) * 3, j1 = (b1 * n + bone) * 3;
      for (let k = 0; k < 3; k++) {
        const ta = at[i0 + k] + (at[i1 + k] - at[i0 + k]) * alphaA;
        const tb = bt[j0 + k] + (bt[j1 + k] - bt[j0 + k]) * alphaB;
        ot[o3 + k] = ta * wa + tb * w;
        os[o3 + k] = rs[b3 + k] * wa + rs[b3 + k] * w;
      }
      const ra0 = (a0 * n + bone) * 4, ra1 = (a1 * n + bone) * 4, rb0 = (b0 * n + bone) * 4, rb1 = (b1 * n + bone) * 4;
      if (alphaA === 0) { q[0] = ar[ra0]; q[1] = ar[ra0 + 1]; q[2] = ar[ra0 + 2]; q[3] = ar[ra0 + 3]; }
      else if (a1 === a0 + 1) spanSlerp(q, 0, ar, ra0, ra1, this.spansA, (a0 * n + bone) * 2, this.alphas, 0);
      else slerp(q, 0, ar, ra0, ra1, this.alphas, 0);
      if (alphaB === 0) { q[4] = br[rb0]; q[5] = br[rb0 + 1]; q[6] = br[rb0 + 2]; q[7] = br[rb0 + 3]; }
      else if (b1 === b0 + 1) spanSlerp(q, 4, br, rb0, rb1, this.spansB, (b0 * n + bone) * 2, this.alphas, 1);
      else slerp(q, 4, br, rb0, rb1, this.alphas, 1);
      const dot = q[0] * q[4] + q[1] * q[5] + q[2] * q[6] + q[3] * q[7];
      const wb = dot < 0 ? -w : w;
      or[o4] = q[0] * wa + q[4] * wb;
      or[o4 + 1] = q[1] * wa + q[5] * wb;
      or[o4 + 2] = q[2] * wa + q[6] * wb;
      or[o4 + 3] = q[3] * wa + q[7] * wb;
      normalize(or, o4);
    }
  }

  /** Forward pass, parents before children: component = parent component ∘ local. */
  private composeComponent(c: number): void {
    const n = this.boneCount;
    const parents = this.parents;
    const lt = this.localT, lr = this.localR, ls = this.localS;
    const ct = this.compT, cr = this.compR, cs = this.compS;
    const base = c * n;
    for (let bone = 0; bone < n; bone++) {
      const o3 = (base + bone) * 3, o4 = (base + bone) * 4;
      const parent = parents[bone];
      if (parent < 0) {
        ct[o3] = lt[o3]; ct[o3 + 1] = lt[o3 + 1]; ct[o3 + 2] = lt[o3 + 2];
        cr[o4] = lr[o4]; cr[o4 + 1] = lr[o4 + 1]; cr[o4 + 2] = lr[o4 + 2]; cr[o4 + 3] = lr[o4 + 3];
        cs[o3] = ls[o3]; cs[o3 + 1] = ls[o3 + 1]; cs[o3 + 2] = ls[o3 + 2];
        continue;
      }
      const p3 = (base + parent) * 3, p4 = (base + parent) * 4;
      const psx = cs[p3], psy = cs[p3 + 1], psz = cs[p3 + 2];
      const qx = cr[p4], qy = cr[p4 + 1], qz = cr[p4 + 2], qw = cr[p4 + 3];
      // translation = parentT + parentR * (parentS * childT)
      const vx = lt[o3] * psx, vy = lt[o3 + 1] * psy, vz = lt[o3 + 2] * psz;
      const tx = 2 * (qy * vz - qz * vy);
      const ty = 2 * (qz * vx - qx * vz);
      const tz = 2 * (qx * vy - qy * vx);
      ct[o3] = ct[p3] + (vx + qw * tx + (qy * tz - qz * ty));
      ct[o3 + 1] = ct[p3 + 1] + (vy + qw * ty + (qz * tx - qx * tz));
      ct[o3 + 2] = ct[p3 + 2] + (vz + qw * tz + (qx * ty - qy * tx));
      // rotation = parentR * childR, normalised
      const bx = lr[o4], by = lr[o4 + 1], bz = lr[o4 + 2], bw = lr[o4 + 3];
      cr[o4] = qw * bx + qx * bw + qy * bz - qz * by;
      cr[o4 + 1] = qw * by - qx * bz + qy * bw + qz * bx;
      cr[o4 + 2] = qw * bz + qx * by - qy * bx + qz * bw;
      cr[o4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
      normalize(cr, o4);
      // scale = parentS * childS
      cs[o3] = psx * ls[o3]; cs[o3 + 1] = psy * ls[o3 + 1]; cs[o3 + 2] = psz * ls[o3 + 2];
    }
  }
}

/**
 * out[o..o+3] = slerp(keys[a..], keys[b..], ts[ti]) along the shorter arc, normalised (as quatSlerp).
 * The factor is read from a typed array rather than passed as a number, so that the peer makes no
 * per-bone garbage (see CONTRIBUTING.md, "Numbers in the frame loop").
 */
function slerp(out: Float64Array, o: number, keys: Float64Array, a: number, b: number, ts: Float64Array, ti: number): void {
  const t = ts[ti];
  const ax = keys[a], ay = keys[a + 1], az = keys[a + 2], aw = keys[a + 3];
  let bx = keys[b], by = keys[b + 1], bz = keys[b + 2], bw = keys[b + 3];
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
  normalize(out, o);
}

/**
 * slerp, with the pair's angle and signed 1 / sin(angle) read from spans[p..p+1] (see
 * Clip.rotationSpans), and the sines of a pair up to 0.35 rad apart from their series, as sampleClipAt.
 */
function spanSlerp(out: Float64Array, o: number, keys: Float64Array, a: number, b: number, spans: Float64Array, p: number, ts: Float64Array, ti: number): void {
  const t = ts[ti];
  const angle = spans[p], k = spans[p + 1];
  let s0: number, s1: number;
  if (angle === 0) {
    s0 = 1 - t;
    s1 = t;
  } else {
    const inv = k < 0 ? -k : k;
    const x0 = (1 - t) * angle, x1 = t * angle;
    if (angle <= 0.35) {
      // The sines from their series to x^9, as sampleClipAt (see SLERP_SERIES_MAX_ANGLE in runtime/core/sampling.ts).
      const y0 = x0 * x0, y1 = x1 * x1;
      s0 = (x0 + x0 * y0 * (-1 / 6 + y0 * (1 / 120 + y0 * (-1 / 5040 + y0 * (1 / 362880))))) * inv;
      s1 = (x1 + x1 * y1 * (-1 / 6 + y1 * (1 / 120 + y1 * (-1 / 5040 + y1 * (1 / 362880))))) * inv;
    } else {
      s0 = Math.sin(x0) * inv;
      s1 = Math.sin(x1) * inv;
    }
  }
  if (k < 0) s1 = -s1;
  out[o] = keys[a] * s0 + keys[b] * s1;
  out[o + 1] = keys[a + 1] * s0 + keys[b + 1] * s1;
  out[o + 2] = keys[a + 2] * s0 + keys[b + 2] * s1;
  out[o + 3] = keys[a + 3] * s0 + keys[b + 3] * s1;
  // The bench's keys are unit (checked in PeerCrowd's constructor), so only the linear fallback
  // needs renormalising, as in sampleClipAt.
  if (angle === 0) normalize(out, o);
}

function normalize(q: Float64Array, o: number): void {
  const x = q[o], y = q[o + 1], z = q[o + 2], w = q[o + 3];
  const len2 = x * x + y * y + z * z + w * w;
  if (!(len2 > 1e-12) || !Number.isFinite(len2)) {
    q[o] = 0; q[o + 1] = 0; q[o + 2] = 0; q[o + 3] = 1;
    return;
  }
  const inv = 1 / Math.sqrt(len2);
  q[o] = x * inv; q[o + 1] = y * inv; q[o + 2] = z * inv; q[o + 3] = w * inv;
}
