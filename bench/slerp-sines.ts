/**
 * Micro-benchmark of the rotation part of sampling a slerp clip, on the crowd bench's clips: how a
 * key pair's sines are had (runtime/core/clip.ts, SLERP_SERIES_MAX_ANGLE), and what each way costs and
 * how far it is from exact slerp. Every variant reads the same spans (Clip.rotationSpans) and keys,
 * in the sampler's loop order, for random fractions between consecutive keys:
 *
 *   sin        Math.sin of both angles (the sampler before the series)
 *   series9    their Taylor series to x^9 (the sampler now, for arcs up to 0.35 rad)
 *   series11   to x^11 (exact to rounding up to 0.35 rad, one more multiply-add per weight)
 *   nlerp      lerp and renormalise (no sines; ozz's way), for comparison
 *
 *   node --import tsx bench/slerp-sines.ts [--rounds 12]
 *
 * Prints ns per bone (median over rounds, the variants interleaved in each) and the largest
 * difference per component and in rotation angle from Math.sin's slerp over the samples timed.
 */
import { makeCrowdClips, makeHumanoid65 } from './crowd-cases.ts';

const VARIANTS = ['sin', 'series9', 'series11', 'nlerp'] as const;
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 12;
const clip = makeCrowdClips(makeHumanoid65()).get('clipA')!;
const spans = clip.rotationSpans();
const n = clip.tracks.length, keys = clip.rotations;
const alphas = new Float64Array(1024);
for (let i = 0, s = 1; i < alphas.length; i++) {
  s = (s * 16807) % 2147483647;
  alphas[i] = s / 2147483647;
}

/** Samples `frames` poses' rotations into out (n bones), variant v. One function per variant keeps each monomorphic. */
function makeSampler(v: number): (out: Float64Array, frames: number, from: number) => void {
  return new Function('spans', 'keys', 'alphas', 'n', 'frameCount', `
    return function sample(out, frames, from) {
      for (let it = from; it < from + frames; it++) {
        const f0 = it % (frameCount - 1), alpha = alphas[it & 1023];
        const base0 = f0 * n, base1 = base0 + n;
        for (let t = 0; t < n; t++) {
          const a = (base0 + t) * 4, b = (base1 + t) * 4, p = (base0 + t) * 2, o = t * 4;
          const angle = spans[p], k = spans[p + 1];
          let s0, s1, norm = angle === 0;
          if (norm) { s0 = 1 - alpha; s1 = alpha; }
          else {
            const inv = k < 0 ? -k : k, x0 = (1 - alpha) * angle, x1 = alpha * angle, y0 = x0 * x0, y1 = x1 * x1;
            ${[
              's0 = Math.sin(x0) * inv; s1 = Math.sin(x1) * inv;',
              's0 = (x0 + x0 * y0 * (-1 / 6 + y0 * (1 / 120 + y0 * (-1 / 5040 + y0 * (1 / 362880))))) * inv; s1 = (x1 + x1 * y1 * (-1 / 6 + y1 * (1 / 120 + y1 * (-1 / 5040 + y1 * (1 / 362880))))) * inv;',
              's0 = (x0 + x0 * y0 * (-1 / 6 + y0 * (1 / 120 + y0 * (-1 / 5040 + y0 * (1 / 362880 + y0 * (-1 / 39916800)))))) * inv; s1 = (x1 + x1 * y1 * (-1 / 6 + y1 * (1 / 120 + y1 * (-1 / 5040 + y1 * (1 / 362880 + y1 * (-1 / 39916800)))))) * inv;',
              's0 = 1 - alpha; s1 = alpha; norm = true;',
            ][v]}
          }
          if (k < 0) s1 = -s1;
          let x = keys[a] * s0 + keys[b] * s1, y = keys[a + 1] * s0 + keys[b + 1] * s1;
          let z = keys[a + 2] * s0 + keys[b + 2] * s1, w = keys[a + 3] * s0 + keys[b + 3] * s1;
          if (norm) { const l = 1 / Math.sqrt(x * x + y * y + z * z + w * w); x *= l; y *= l; z *= l; w *= l; }
          out[o] = x; out[o + 1] = y; out[o + 2] = z; out[o + 3] = w;
        }
      }
    };`)(spans, keys, alphas, n, clip.frameCount) as (out: Float64Array, frames: number, from: number) => void;
}

const samplers = VARIANTS.map((_, v) => makeSampler(v));
const outs = VARIANTS.map(() => new Float64Array(n * 4));
// Accuracy against Math.sin's slerp, sample by sample.
const worst = VARIANTS.map(() => ({ component: 0, angle: 0 }));
for (let it = 0; it < 4096; it++) {
  samplers.forEach((sample, v) => sample(outs[v], 1, it));
  for (let v = 1; v < VARIANTS.length; v++) {
    for (let o = 0; o < n * 4; o += 4) {
      const p = outs[v], e = outs[0];
      for (let i = 0; i < 4; i++) worst[v].component = Math.max(worst[v].component, Math.abs(p[o + i] - e[o + i]));
      // The rotation between the two: 2 atan2(|xyz|, |w|) of conjugate(p) * e.
      const ax = -p[o], ay = -p[o + 1], az = -p[o + 2], aw = p[o + 3], bx = e[o], by = e[o + 1], bz = e[o + 2], bw = e[o + 3];
      const rx = aw * bx + ax * bw + ay * bz - az * by, ry = aw * by - ax * bz + ay * bw + az * bx;
      const rz = aw * bz + ax * by - ay * bx + az * bw, rw = aw * bw - ax * bx - ay * by - az * bz;
      worst[v].angle = Math.max(worst[v].angle, 2 * Math.atan2(Math.hypot(rx, ry, rz), Math.abs(rw)));
    }
  }
}
const frames = 20000;
const times = VARIANTS.map((): number[] => []);
for (let round = 0; round < rounds + 2; round++) {
  for (let v = 0; v < VARIANTS.length; v++) {
    const start = performance.now();
    samplers[v](outs[v], frames, round * frames);
    if (round >= 2) times[v].push(((performance.now() - start) / frames / n) * 1e6);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`rotation sampling, crowd bench clipA (${n} bones, ${clip.frameCount} keys, arcs up to 0.28 rad), ${rounds} rounds of ${frames} poses`);
VARIANTS.forEach((name, v) => {
  const err = v === 0 ? 'reference' : `max ${worst[v].component.toExponential(1)} per component, ${worst[v].angle.toExponential(1)} rad`;
  console.log(`${name.padEnd(9)} ${median(times[v]).toFixed(2)} ns/bone (${(median(times[v]) / median(times[0])).toFixed(2)}x sin)  ${err}`);
});
