/**
 * Crowd benchmark: N characters, each its own AnimGraphInstance of one shared AnimGraph, on a
 * 65-bone skeleton, against a hand-written typed-array peer doing the same arithmetic with no graph.
 *
 *   node --expose-gc --import tsx bench/crowd.ts [--quick] [--json FILE] [--counts 100,1000]
 *                                                 [--cases player,blend,player+cs,blend+cs]
 *                                                 [--alloc-profile]
 *
 * Cases (every character advances 1/60 s per frame, looping, from its own start phase):
 *   player      SequencePlayer (slerp rotations, lerp translations)
 *   blend       BlendTwo of two SequencePlayers at alpha 0.5
 *   player+cs   player, then instance.componentPose() (forward pass composing parent transforms)
 *   blend+cs    blend, then instance.componentPose()
 *
 * Time: after warm-up, windows of a fixed number of frames alternate between animgraph and the
 * peer (ABBA order, so drift and machine noise hit both); ms/frame is the median over windows and
 * the ratio is the median of the per-pair ratios. Both sides run the same frames, so at the end
 * their poses are compared (max |diff| column): the peer really does the same work.
 *
 * Allocation: with --expose-gc, gc(), read the used size of V8's new and large-object spaces, run a
 * window of frames, read it again (see ALLOCATION_SPACES for why not old space); a v8.GCProfiler
 * running around the window tells whether a GC happened in between (then the window is halved and
 * repeated, since a GC makes the delta meaningless). Windows come in pairs of f and 2f frames and
 * the per-frame figure is their difference over f, so what a window costs once (the heap-statistics
 * objects, ~3 KB) cancels. Reported: median over the pairs (5, or 3 with --quick).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { findSourceMap, type SourceMapping } from 'node:module';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { Clip } from '../runtime/clip.ts';
import type { AnimGraph, AnimGraphInstance } from '../runtime/graph.ts';
import type { Skeleton } from '../runtime/skeleton.ts';
import { buildCrowdGraph, createCrowd, crowdPhases, type CrowdGraphKind } from './crowd-cases.ts';

const DT = 1 / 60;

// ---------------------------------------------------------------------------------------------
// Options

interface Options {
  quick: boolean;
  json: string | null;
  counts: number[];
  cases: string[];
  allocProfile: boolean;
}

interface CaseDefinition {
  name: string;
  kind: CrowdGraphKind;
  component: boolean;
}

const ALL_CASES: readonly CaseDefinition[] = [
  { name: 'player', kind: 'player', component: false },
  { name: 'blend', kind: 'blend', component: false },
  { name: 'player+cs', kind: 'player', component: true },
  { name: 'blend+cs', kind: 'blend', component: true },
];

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { quick: false, json: null, counts: [100, 1000], cases: ALL_CASES.map((c) => c.name), allocProfile: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--quick') options.quick = true;
    else if (arg === '--json') options.json = value();
    else if (arg === '--counts') options.counts = value().split(',').map((s) => Number.parseInt(s, 10));
    else if (arg === '--cases') options.cases = value().split(',');
    else if (arg === '--alloc-profile') options.allocProfile = true;
    else if (arg === '--help' || arg === '-h') {
      console.log('usage: node --expose-gc --import tsx bench/crowd.ts [--quick] [--json FILE] [--counts 100,1000] [--cases player,blend,player+cs,blend+cs] [--alloc-profile]');
      process.exit(0);
    } else throw new Error(`unknown argument '${arg}'`);
  }
  if (options.counts.some((n) => !(n > 0))) throw new Error('--counts takes positive integers');
  const unknown = options.cases.filter((c) => !ALL_CASES.some((d) => d.name === c));
  if (unknown.length > 0) throw new Error(`unknown case(s) ${unknown.join(', ')}; have ${ALL_CASES.map((c) => c.name).join(', ')}`);
  return options;
}

// ---------------------------------------------------------------------------------------------
// The peer: the same arithmetic on flat typed arrays, no graph, no nodes, no pose objects.

/**
 * All characters' poses in one array per attribute ([character][bone][xyz(w)]), their play times
 * in one Float64Array. Rotation interpolation is slerp exactly as runtime/math.ts quatSlerp does
 * it (shorter arc, nlerp fallback above cos 0.9995, then normalise), translations are lerped, the
 * blend is BlendTwo's (a * (1 - alpha) + b * alpha, b's rotation flipped into a's hemisphere,
 * then normalised) fused into the sampling loop, and the component pass is transformCompose's (Unreal's FTransform composition).
 * Scales are carried (reference scale, as sampleClip writes it) so the output is a whole pose.
 */
class PeerCrowd {
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
      } else slerp(or, o4, cr, a4, c4, this.alphas, 0);
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
      else slerp(q, 0, ar, ra0, ra1, this.alphas, 0);
      if (alphaB === 0) { q[4] = br[rb0]; q[5] = br[rb0 + 1]; q[6] = br[rb0 + 2]; q[7] = br[rb0 + 3]; }
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
 * The factor is read from a typed array rather than passed as a number: when V8 does not inline a
 * call, a non-integer number argument is boxed into a fresh HeapNumber (16 bytes) per call, which
 * is exactly the per-bone garbage the peer must not make.
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

// ---------------------------------------------------------------------------------------------
// animgraph side

class GraphCrowd {
  constructor(readonly instances: readonly AnimGraphInstance[], private readonly component: boolean) {}

  frames(frameCount: number): void {
    const instances = this.instances;
    const n = instances.length;
    if (this.component) {
      for (let f = 0; f < frameCount; f++) {
        for (let i = 0; i < n; i++) {
          const instance = instances[i];
          instance.update(DT);
          instance.evaluate();
          instance.componentPose();
        }
      }
    } else {
      for (let f = 0; f < frameCount; f++) {
        for (let i = 0; i < n; i++) {
          const instance = instances[i];
          instance.update(DT);
          instance.evaluate();
        }
      }
    }
  }

  /** One phase of a frame alone, to tell where allocation comes from (see allocationBreakdown). */
  phase(which: 'update' | 'evaluate' | 'evaluate+componentPose'): Runner {
    const instances = this.instances;
    const n = instances.length;
    switch (which) {
      case 'update':
        return { frames: (frameCount) => { for (let f = 0; f < frameCount; f++) for (let i = 0; i < n; i++) instances[i].update(DT); } };
      case 'evaluate':
        return { frames: (frameCount) => { for (let f = 0; f < frameCount; f++) for (let i = 0; i < n; i++) instances[i].evaluate(); } };
      default:
        return {
          frames: (frameCount) => {
            for (let f = 0; f < frameCount; f++) {
              for (let i = 0; i < n; i++) {
                instances[i].evaluate();
                instances[i].componentPose();
              }
            }
          },
        };
    }
  }
}

interface Runner {
  frames(frameCount: number): void;
}

// ---------------------------------------------------------------------------------------------
// Measurement

const gc: () => void = (() => {
  const g = (globalThis as { gc?: () => void }).gc;
  if (typeof g !== 'function') {
    console.error('bench/crowd.ts needs --expose-gc: node --expose-gc --import tsx bench/crowd.ts');
    process.exit(2);
  }
  return g;
})();

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function timeWindow(runner: Runner, frames: number): number {
  const start = performance.now();
  runner.frames(frames);
  return (performance.now() - start) / frames;
}

interface HeapWindow {
  /** Growth of the spaces where the frame loop's objects are allocated (see ALLOCATION_SPACES). */
  bytes: number;
  /** Growth of old and code space, kept for the JSON only (see ALLOCATION_SPACES). */
  otherBytes: number;
  frames: number;
  /** Whether a GC ran during the window (the delta is then meaningless). */
  collected: boolean;
}

/**
 * Where objects made by JavaScript in the frame loop go: the young generation, and the large
 * object spaces for big arrays. Old and code space are left out of the figure: right after a full
 * gc() their used size moves by up to ~100 KB with no allocation at all (sweeping bookkeeping; the
 * same jump shows in empty windows and does not scale with the number of frames), and JIT code
 * lands there. A per-frame allocation V8 pretenures straight into old space would be missed, but
 * that only happens to objects that survive, which a steady-state leak would first show here.
 */
const ALLOCATION_SPACES = new Set(['new_space', 'new_large_object_space', 'large_object_space']);

function heapSpaces(): { allocation: number; other: number } {
  let allocation = 0, other = 0;
  for (const space of v8.getHeapSpaceStatistics()) {
    if (ALLOCATION_SPACES.has(space.space_name)) allocation += space.space_used_size;
    else other += space.space_used_size;
  }
  return { allocation, other };
}

function heapWindow(runner: Runner, frames: number): HeapWindow {
  gc();
  gc();
  const profiler = new v8.GCProfiler();
  profiler.start();
  const before = heapSpaces();
  runner.frames(frames);
  const after = heapSpaces();
  const report = profiler.stop();
  const bytes = after.allocation - before.allocation;
  const collected = (report?.statistics.length ?? 0) > 0 || bytes < 0;
  return { bytes, otherBytes: after.other - before.other, frames, collected };
}

interface AllocationResult {
  /** Median over the window pairs of the per-frame growth, bytes per frame. */
  bytesPerFrame: number;
  /** Per-pair values (bytes per frame). */
  samples: number[];
  /** Frames of the shorter window of each pair (the longer one runs twice as many). */
  framesPerWindow: number;
  /** Windows thrown away because a GC ran during them. */
  discarded: number;
  /** Per-pair old + code space growth per frame, for reference only (see ALLOCATION_SPACES). */
  otherSamples: number[];
}

/**
 * Steady-state bytes per frame: the heap growth over 2f frames minus that over f frames, divided
 * by f. Whatever a window costs once (the heap-statistics object read at its end, about 600 bytes,
 * or anything else done once per call of `frames`) cancels out; what remains is per frame.
 */
function measureAllocation(runner: Runner, frames: number, windows: number): AllocationResult {
  const samples: number[] = [];
  const otherSamples: number[] = [];
  let discarded = 0;
  let f = Math.max(1, frames);
  heapWindow(runner, f); // settle: the first window after other work sometimes carries a one-off
  while (samples.length < windows && discarded < 40) {
    const short = heapWindow(runner, f);
    const long = heapWindow(runner, 2 * f);
    if (short.collected || long.collected) {
      discarded++;
      f = Math.max(1, f >> 1);
      continue;
    }
    samples.push(Math.max(0, (long.bytes - short.bytes) / f));
    otherSamples.push((long.otherBytes - short.otherBytes) / f);
  }
  return { bytesPerFrame: samples.length > 0 ? median(samples) : Number.NaN, samples, framesPerWindow: f, discarded, otherSamples };
}

/** Bytes a window costs with no frames at all (reported, for reference: the measurement's own cost). */
function windowOverhead(): number {
  const samples: number[] = [];
  for (let i = 0; i < 9; i++) {
    const w = heapWindow({ frames() {} }, 1);
    if (!w.collected) samples.push(w.bytes);
  }
  return samples.length > 0 ? Math.min(...samples) : Number.NaN;
}

/** The largest absolute difference between animgraph's poses and the peer's, over all characters. */
function maxDifference(graph: GraphCrowd, peer: PeerCrowd, component: boolean): number {
  let max = 0;
  const n = peer.boneCount;
  const diff = (a: Float64Array, b: Float64Array, offset: number): void => {
    for (let i = 0; i < a.length; i++) {
      const d = Math.abs(a[i] - b[offset + i]);
      if (!(d <= max)) max = d; // NaN propagates as a huge difference
    }
  };
  graph.instances.forEach((instance, c) => {
    if (component) {
      const cp = instance.componentPose();
      diff(cp.translations, peer.compT, c * n * 3);
      diff(cp.rotations, peer.compR, c * n * 4);
      diff(cp.scales, peer.compS, c * n * 3);
    } else {
      const pose = instance.evaluate();
      diff(pose.translations, peer.localT, c * n * 3);
      diff(pose.rotations, peer.localR, c * n * 4);
      diff(pose.scales, peer.localS, c * n * 3);
    }
  });
  return max;
}

interface CaseResult {
  case: string;
  characters: number;
  bones: number;
  framesPerWindow: number;
  windows: number;
  animgraphMsPerFrame: number;
  animgraphMbonesPerSecond: number;
  animgraphBytesPerFrame: number;
  peerMsPerFrame: number;
  peerMbonesPerSecond: number;
  peerBytesPerFrame: number;
  /** Median over window pairs of animgraph time / peer time. */
  ratio: number;
  maxDifference: number;
  animgraphWindowsMs: number[];
  peerWindowsMs: number[];
  allocation: { animgraph: AllocationResult; peer: AllocationResult };
  /** When animgraph allocates: bytes per frame of each phase of the frame measured alone. */
  animgraphBreakdown?: Record<string, number>;
}

interface Budget {
  warmupMs: number;
  windowMs: number;
  windows: number;
  allocWindows: number;
}

function runCase(def: CaseDefinition, count: number, budget: Budget, graphs: Map<CrowdGraphKind, AnimGraph>): { result: CaseResult; crowd: GraphCrowd } {
  const graph = graphs.get(def.kind)!;
  const clipA = graph.clipBindings.get('clipA')!.clip;
  const clipB = graph.clipBindings.get('clipB')!.clip;
  const phases = crowdPhases(count, clipA.duration);
  const crowd = new GraphCrowd(createCrowd(graph, count, phases), def.component);
  const peer = new PeerCrowd(graph.skeleton, clipA, clipB, count, phases, def.kind === 'blend', def.component);
  const bones = count * graph.skeleton.boneCount;
  gc();

  // Warm-up (and calibration): animgraph runs for warmupMs; the peer then runs as many frames, so
  // both stay on the same frame and their poses can be compared at the end.
  let warmFrames = 0;
  const warmStart = performance.now();
  while (performance.now() - warmStart < budget.warmupMs || warmFrames < 3) {
    crowd.frames(1);
    warmFrames++;
  }
  const warmMsPerFrame = (performance.now() - warmStart) / warmFrames;
  peer.frames(warmFrames);
  const framesPerWindow = Math.max(1, Math.round(budget.windowMs / warmMsPerFrame));

  const graphMs: number[] = [];
  const peerMs: number[] = [];
  const ratios: number[] = [];
  for (let w = 0; w < budget.windows; w++) {
    let g: number, p: number;
    if (w % 2 === 0) {
      g = timeWindow(crowd, framesPerWindow);
      p = timeWindow(peer, framesPerWindow);
    } else {
      p = timeWindow(peer, framesPerWindow);
      g = timeWindow(crowd, framesPerWindow);
    }
    graphMs.push(g);
    peerMs.push(p);
    ratios.push(g / p);
  }

  // Both sides have run the same frames: their poses must agree (the peer does the same work).
  const difference = maxDifference(crowd, peer, def.component);

  const allocFrames = Math.max(4, Math.min(framesPerWindow, 30));
  const graphAlloc = measureAllocation(crowd, allocFrames, budget.allocWindows);
  const peerAlloc = measureAllocation(peer, allocFrames, budget.allocWindows);

  const animgraphMsPerFrame = median(graphMs);
  const peerMsPerFrame = median(peerMs);
  const result: CaseResult = {
    case: def.name,
    characters: count,
    bones,
    framesPerWindow,
    windows: budget.windows,
    animgraphMsPerFrame,
    animgraphMbonesPerSecond: bones / animgraphMsPerFrame / 1000,
    animgraphBytesPerFrame: graphAlloc.bytesPerFrame,
    peerMsPerFrame,
    peerMbonesPerSecond: bones / peerMsPerFrame / 1000,
    peerBytesPerFrame: peerAlloc.bytesPerFrame,
    ratio: median(ratios),
    maxDifference: difference,
    animgraphWindowsMs: graphMs,
    peerWindowsMs: peerMs,
    allocation: { animgraph: graphAlloc, peer: peerAlloc },
  };
  if (!(graphAlloc.bytesPerFrame < 1)) result.animgraphBreakdown = allocationBreakdown(crowd, allocFrames, budget.allocWindows, def.component);
  return { result, crowd };
}

/** Bytes per frame of update alone, evaluate alone and (by difference) componentPose alone. */
function allocationBreakdown(crowd: GraphCrowd, frames: number, windows: number, component: boolean): Record<string, number> {
  const update = measureAllocation(crowd.phase('update'), frames, windows).bytesPerFrame;
  const evaluate = measureAllocation(crowd.phase('evaluate'), frames, windows).bytesPerFrame;
  const breakdown: Record<string, number> = { update, evaluate };
  if (component) {
    const both = measureAllocation(crowd.phase('evaluate+componentPose'), frames, windows).bytesPerFrame;
    breakdown.componentPose = Math.max(0, both - evaluate);
  }
  return breakdown;
}

// ---------------------------------------------------------------------------------------------
// Where allocations come from: V8's sampling heap profiler over a window of frames.

interface AllocationSite {
  /** Innermost frames first: "function file:line:column". */
  stack: string[];
  /** Estimated bytes per frame (sampled, so approximate). */
  bytesPerFrame: number;
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** "url:line:column" (1-based) in the TypeScript source, through tsx's source maps when there are any. */
function originalPosition(url: string, line: number, column: number): string {
  const found = url.startsWith('file:') ? findSourceMap(url)?.findEntry(line, column) : undefined;
  const entry = found !== undefined && 'originalSource' in found ? (found as SourceMapping) : undefined;
  if (entry?.originalSource) {
    return `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  }
  return `${url}:${line + 1}:${column + 1}`;
}

async function allocationSites(runner: Runner, frames: number): Promise<AllocationSite[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    // Sampling profiles keep only live objects unless told to include those collected since.
    const params = { samplingInterval: 64, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
    await session.post('HeapProfiler.startSampling', params as { samplingInterval: number });
    runner.frames(frames);
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } };
    await session.post('HeapProfiler.disable');
    const bySite = new Map<string, AllocationSite>();
    const cwd = `file://${process.cwd()}/`;
    const walk = (node: SamplingNode, stack: string[]): void => {
      const cf = node.callFrame;
      const where = cf.url ? originalPosition(cf.url, cf.lineNumber, cf.columnNumber).replace(cwd, '') : '(native)';
      const here = [`${cf.functionName || '(anonymous)'} ${where}`, ...stack];
      if (node.selfSize > 0) {
        const key = here.slice(0, 4).join(' < ');
        const site = bySite.get(key) ?? { stack: here.slice(0, 4), bytesPerFrame: 0 };
        site.bytesPerFrame += node.selfSize / frames;
        bySite.set(key, site);
      }
      for (const child of node.children) walk(child, here);
    };
    walk(profile.head, []);
    return [...bySite.values()].sort((a, b) => b.bytesPerFrame - a.bytesPerFrame);
  } finally {
    session.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// Output

const COLUMNS = [
  ['case', 10], ['chars', 6], ['animgraph ms/frame', 19], ['Mbones/s', 9], ['B/frame', 8],
  ['peer ms/frame', 14], ['peer Mbones/s', 14], ['peer B/frame', 13], ['ratio ag/peer', 14], ['max |diff|', 10],
] as const;

function row(cells: readonly string[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(COLUMNS[i][1]) : c.padStart(COLUMNS[i][1]))).join('  ');
}

function formatBytes(b: number): string {
  return Number.isNaN(b) ? 'n/a' : b < 10 ? b.toFixed(1) : Math.round(b).toString();
}

function formatRow(r: CaseResult): string {
  return row([
    r.case, String(r.characters), r.animgraphMsPerFrame.toFixed(3), r.animgraphMbonesPerSecond.toFixed(1),
    formatBytes(r.animgraphBytesPerFrame), r.peerMsPerFrame.toFixed(3), r.peerMbonesPerSecond.toFixed(1),
    formatBytes(r.peerBytesPerFrame), `${r.ratio.toFixed(2)}x`, r.maxDifference.toExponential(1),
  ]);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const budget: Budget = options.quick
    ? { warmupMs: 100, windowMs: 15, windows: 4, allocWindows: 3 }
    : { warmupMs: 400, windowMs: 60, windows: 12, allocWindows: 5 };
  const cases = ALL_CASES.filter((c) => options.cases.includes(c.name));
  const graphs = new Map<CrowdGraphKind, AnimGraph>([['player', buildCrowdGraph('player')], ['blend', buildCrowdGraph('blend')]]);
  const boneCount = graphs.get('player')!.skeleton.boneCount;
  const started = performance.now();

  console.log(`animgraph crowd bench: ${boneCount}-bone skeleton, 2 clips x 61 keys (30 fps, T+R track per bone), dt 1/60 s, looping`);
  console.log(`node ${process.version}, ${options.quick ? 'quick' : 'full'} run: ${budget.windows} interleaved windows of ~${budget.windowMs} ms per side after ${budget.warmupMs} ms warm-up`);
  console.log('');
  const header = row(COLUMNS.map(([name]) => name));
  console.log(header);
  console.log('-'.repeat(header.length));

  // A first pass over every case on a small crowd, so that the first case measured does not also
  // pay for the JIT's first tiering (code running before it is optimised boxes numbers and allocates).
  for (const def of cases) {
    const graph = graphs.get(def.kind)!;
    const warm = new GraphCrowd(createCrowd(graph, 50, crowdPhases(50, 2, 7)), def.component);
    const skeleton = graph.skeleton;
    const clipA = graph.clipBindings.get('clipA')!.clip, clipB = graph.clipBindings.get('clipB')!.clip;
    const peer = new PeerCrowd(skeleton, clipA, clipB, 50, crowdPhases(50, 2, 7), def.kind === 'blend', def.component);
    const until = performance.now() + budget.warmupMs / 2;
    while (performance.now() < until) {
      warm.frames(5);
      peer.frames(5);
    }
  }

  const results: CaseResult[] = [];
  const sites: Record<string, AllocationSite[]> = {};
  const profiles: string[] = [];
  for (const count of options.counts) {
    for (const def of cases) {
      const { result, crowd } = runCase(def, count, budget, graphs);
      results.push(result);
      console.log(formatRow(result));
      if (options.allocProfile) {
        // Profile the warm crowd right away, while the optimised code is this case's.
        const frames = Math.max(10, Math.min(result.framesPerWindow * 2, 60));
        const found = await allocationSites(crowd, frames);
        sites[`${def.name}/${count}`] = found.filter((site) => site.stack.some((f) => !f.includes('node:') && !f.includes('(native)') && !f.startsWith('allocationSites ')));
        profiles.push(`  ${def.name}, ${count} characters (measured ${formatBytes(result.animgraphBytesPerFrame)} B/frame):`);
        const shown = sites[`${def.name}/${count}`].filter((site) => !site.stack[0].startsWith('allocationSites ')).slice(0, 8);
        if (shown.length === 0) profiles.push('    (no samples)');
        for (const site of shown) profiles.push(`    ${site.bytesPerFrame.toFixed(0).padStart(8)}  ${site.stack.join('\n              < ')}`);
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log('');
  console.log('ms/frame: median over windows; ratio: median of per-window-pair animgraph/peer time (same frames, interleaved);');
  console.log('B/frame: steady-state allocation per frame: growth of V8 new + large-object space over GC-free windows of 2f');
  console.log(`  frames minus f frames, divided by f (the ${windowOverhead()} bytes a window itself costs cancel); max |diff|: largest`);
  console.log("  difference between animgraph's and the peer's poses after the same frames. A few B/frame on one case only is");
  console.log('  JIT tiering (code that runs before it is optimised, or after a deopt, boxes numbers), not steady state.');
  console.log(`total ${seconds.toFixed(1)} s`);

  const allocating = results.filter((r) => r.animgraphBreakdown !== undefined);
  if (allocating.length > 0) {
    console.log('');
    console.log('animgraph allocates in steady state; bytes/frame by phase of the frame, each measured alone:');
    for (const r of allocating) {
      const parts = Object.entries(r.animgraphBreakdown!).map(([phase, bytes]) => `${phase} ${formatBytes(bytes)}`).join(', ');
      console.log(`  ${r.case.padEnd(10)} ${String(r.characters).padStart(5)} chars: ${parts}  (${formatBytes(r.animgraphBytesPerFrame / r.characters)} B per character per frame)`);
    }
    if (!options.allocProfile) console.log('  (run with --alloc-profile for V8 sampling-heap-profiler allocation sites)');
  }
  if (profiles.length > 0) {
    console.log('');
    console.log('allocation sites (V8 sampling heap profiler over a window of the warm crowd; estimated bytes/frame;');
    console.log('function positions, innermost frame first, inlined frames included):');
    for (const line of profiles) console.log(line);
  }

  if (options.json !== null) {
    const out = {
      bench: 'crowd',
      node: process.version,
      quick: options.quick,
      boneCount,
      budget,
      measurementOverheadBytes: windowOverhead(),
      seconds,
      results,
      allocationSites: sites,
    };
    writeFileSync(options.json, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${options.json}`);
  }
}

await main();
