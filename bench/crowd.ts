/**
 * Crowd benchmark: N characters, each its own AnimGraphInstance of one shared AnimGraph, on a
 * 65-bone skeleton, against two references measured in the same run with their windows
 * interleaved: three.js's AnimationMixer on the same clips, and a hand-written typed-array peer
 * doing the same arithmetic with no graph (the floor the graph's abstraction is measured against).
 *
 *   node --expose-gc --import tsx bench/crowd.ts [--quick] [--json FILE] [--counts 100,1000]
 *                                                 [--cases player,blend,...] [--no-three]
 *                                                 [--alloc-profile] [--workers N]
 *
 * Cases (every character advances 1/60 s per frame, looping, from its own start phase):
 *   player      SequencePlayer (slerp rotations, lerp translations)
 *   blend       BlendTwo of two SequencePlayers at alpha 0.5
 *   player+cs   player, then instance.componentPose() (forward pass composing parent transforms)
 *   blend+cs    blend, then instance.componentPose()
 *   inertial    InertialBlend of the two players during a transition (switched once, blend time
 *               1e6 s, so it never ends): one clip sampled plus the decaying per-bone offsets
 *   stride+cs   StrideWarping (manual, scale 1.3, pelvis adjustment, thigh correction, two-bone IK
 *               on both legs) on the player, then instance.componentPose()
 *   posesearch  PoseSearchBlend over both clips, inertial blend 0.2 s; each character flips its
 *               'motion' parameter every 10 frames (staggered across the crowd), so each flip
 *               searches the database for the best start frame
 *   bendroll+cs BendRollHelper with four helpers (upper arms' and hands' roll, half of it, onto the
 *               twist bones) on the player, then instance.componentPose()
 * A case whose graph does not build (its node not landed, or changed under the bench) prints a
 * TODO line instead of a row.
 *
 * References:
 *   three.js   one THREE.AnimationMixer per character on 65 THREE.Bone objects (bench/three-crowd.ts):
 *              player = one action; blend = a crossFadeTo held at half way (both weights 0.5);
 *              +cs = root.updateMatrixWorld(true). Nearest equivalents where three.js has no such
 *              node: inertial and posesearch = the crossfade (three's way to transition);
 *              stride+cs = player + updateMatrixWorld + CCDIKSolver on both legs to stride-scaled
 *              feet (less work than StrideWarping); bendroll+cs = player + updateMatrixWorld. Where
 *              it does the same work its poses are compared with animgraph's (float32 keys, ~1e-5).
 *   peer       player and blend cases only (the other cases would mean re-writing the nodes).
 *
 * Time: after warm-up, windows alternate between animgraph and a reference (AB then BA, so drift
 * and machine noise hit both); ms/frame is the median over windows and each ratio is the median
 * of the per-window ratios of ms/frame. Two phases per case: first animgraph against the peer
 * (same frames per window, so at the end their poses are compared: the peer really does the same
 * work), with no three.js object alive; then the three.js crowd is built and its windows alternate
 * with animgraph's again. three.js makes megabytes of garbage per frame and its GC work slowed
 * whatever ran after it by up to a half, so animgraph's ms/frame comes from the first phase and
 * ag/three from the second (where animgraph runs among three.js's garbage: the ratio errs in
 * three.js's favour). three.js, much slower, runs windows of the same duration (~windowMs, at
 * least one frame) instead of the same number of frames.
 *
 * Allocation: with --expose-gc, gc(), read the used size of V8's new and large-object spaces, run a
 * window of frames, read it again (see ALLOCATION_SPACES for why not old space); a v8.GCProfiler
 * running around the window tells whether a GC happened in between (then the window is halved and
 * repeated, since a GC makes the delta meaningless). Windows come in pairs of f and 2f frames and
 * the per-frame figure is their difference over f, so what a window costs once (the heap-statistics
 * objects, ~3 KB) cancels. Reported: median over the pairs (5; 3 with --quick or from 500 characters;
 * 2 for three.js).
 * three.js allocates megabytes per frame, so GCs run inside its windows: its figure adds up the
 * growth of the allocation spaces between the GCs (GCProfiler's before/after statistics), with no
 * gc() before its windows.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Session } from 'node:inspector/promises';
import { findSourceMap, type SourceMapping } from 'node:module';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import type * as THREE from 'three';
import type { Clip } from '../runtime/clip.ts';
import { Crowd } from '../runtime/crowd.ts';
import type { AnimGraph, AnimGraphInstance } from '../runtime/graph.ts';
import type { Skeleton } from '../runtime/skeleton.ts';
import { buildCrowdGraph, createCrowd, crowdPhases, CROWD_LEGS, CROWD_SEARCH_EVERY, CROWD_STRIDE_SCALE, type CrowdGraphKind } from './crowd-cases.ts';
import { makeThreeClip, ThreeCrowd, type ThreeCrowdMode } from './three-crowd.ts';

const DT = 1 / 60;

// ---------------------------------------------------------------------------------------------
// Options and cases

interface Options {
  quick: boolean;
  json: string | null;
  counts: number[];
  cases: string[];
  three: boolean;
  allocProfile: boolean;
  /** Worker threads of the Crowd side (besides the calling thread); 0: no Crowd side. */
  workers: number;
}

interface CaseDefinition {
  name: string;
  kind: CrowdGraphKind;
  component: boolean;
  /** Whether the hand-written peer does this case (it does the player and blend arithmetic only). */
  peer: boolean;
  /** three.js's reference; `same`: it does the same work, so its poses are compared with animgraph's. */
  three: { mode: ThreeCrowdMode; component: boolean; same: boolean; note: string };
  /** Brings a fresh crowd into the state the case measures (before warm-up). */
  start?: (instances: readonly AnimGraphInstance[]) => void;
  /** The same for the Crowd side. */
  startCrowd?: (crowd: Crowd) => void;
  /** Checks, after warm-up, that the crowd is in that state. */
  check?: (instance: AnimGraphInstance) => void;
  /** See GraphCrowd: frames between two switches of a character's 'motion' parameter. */
  switchEvery?: number;
  /** The node type the case is about, when it is one that may not have landed yet. */
  node?: string;
}

const ALL_CASES: readonly CaseDefinition[] = [
  { name: 'player', kind: 'player', component: false, peer: true, three: { mode: 'player', component: false, same: true, note: 'one action' } },
  { name: 'blend', kind: 'blend', component: false, peer: true, three: { mode: 'blend', component: false, same: true, note: 'crossFadeTo held at 0.5' } },
  { name: 'player+cs', kind: 'player', component: true, peer: true, three: { mode: 'player', component: true, same: true, note: 'one action + updateMatrixWorld' } },
  { name: 'blend+cs', kind: 'blend', component: true, peer: true, three: { mode: 'blend', component: true, same: true, note: 'crossfade + updateMatrixWorld' } },
  {
    name: 'inertial', kind: 'inertial', component: false, peer: false,
    three: { mode: 'blend', component: false, same: false, note: 'nearest: crossfade (no inertialization in three.js)' },
    start: (instances) => {
      // One frame on A, then switch: the transition starts on the next update and never ends.
      for (const instance of instances) {
        instance.update(DT);
        instance.evaluate();
        instance.setParameter('useA', false);
      }
    },
    startCrowd: (crowd) => {
      crowd.update(DT);
      for (let i = 0; i < crowd.count; i++) crowd.setParameter(i, 'useA', false);
    },
    check: (instance) => {
      if (instance.gatherDebug().children[0]?.values?.active !== true) throw new Error('inertial: the crowd is not in a transition');
    },
  },
  {
    name: 'stride+cs', kind: 'stride', component: true, peer: false,
    three: { mode: 'stride', component: true, same: false, note: 'nearest: player + updateMatrixWorld + CCDIKSolver on both legs' },
    check: (instance) => {
      const scale = instance.gatherDebug().children[0]?.values?.strideScale;
      if (scale !== CROWD_STRIDE_SCALE) throw new Error(`stride+cs: StrideWarping runs at scale ${String(scale)}`);
    },
  },
  {
    name: 'posesearch', kind: 'posesearch', component: false, peer: false, switchEvery: CROWD_SEARCH_EVERY, node: 'PoseSearchBlend',
    three: { mode: 'blend', component: false, same: false, note: 'nearest: crossfade (no pose search in three.js)' },
    check: (instance) => {
      // Character 0 flips 'motion' on frames 10, 20, ... (frame 0 sets it to the clip it starts on).
      if (!(Number(instance.gatherDebug().children[0]?.values?.matchFrame) >= 0)) throw new Error('posesearch: no search has matched a frame');
    },
  },
  {
    name: 'bendroll+cs', kind: 'bendroll', component: true, peer: false, node: 'BendRollHelper',
    three: { mode: 'player', component: true, same: false, note: 'nearest: player + updateMatrixWorld (no helper bones in three.js)' },
  },
];

/** A TODO line for a case whose graph cannot be built (its node has not landed, or has changed). */
function pendingNote(def: CaseDefinition, error: unknown): string {
  const file = `nodes/${def.node ?? '?'}.ts`;
  const landed = existsSync(new URL(`../${file}`, import.meta.url));
  const why = error instanceof Error ? error.message : String(error);
  return `TODO ${def.name}: ${landed ? `${file} is there but the crowd graph did not build (${why})` : `${file} has not landed yet`}; not measured`;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = {
    quick: false, json: null, counts: [100, 1000], cases: ALL_CASES.map((c) => c.name), three: true, allocProfile: false,
    workers: Math.max(availableParallelism() - 1, 0),
  };
  const usage = `usage: node --expose-gc --import tsx bench/crowd.ts [--quick] [--json FILE] [--counts 100,1000] [--cases ${ALL_CASES.map((c) => c.name).join(',')}] [--no-three] [--alloc-profile] [--workers N]`;
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
    else if (arg === '--no-three') options.three = false;
    else if (arg === '--alloc-profile') options.allocProfile = true;
    else if (arg === '--workers') options.workers = Number.parseInt(value(), 10);
    else if (arg === '--help' || arg === '-h') {
      console.log(usage);
      process.exit(0);
    } else throw new Error(`unknown argument '${arg}'\n${usage}`);
  }
  if (options.counts.some((n) => !(n > 0))) throw new Error('--counts takes positive integers');
  if (!(options.workers >= 0)) throw new Error('--workers takes a whole number, 0 for no Crowd side');
  const unknown = options.cases.filter((c) => !ALL_CASES.some((d) => d.name === c));
  if (unknown.length > 0) throw new Error(`unknown case(s) ${unknown.join(', ')}; have ${ALL_CASES.map((c) => c.name).join(', ')}`);
  return options;
}

// ---------------------------------------------------------------------------------------------
// The peer: the same arithmetic on flat typed arrays, no graph, no nodes, no pose objects.

/**
 * All characters' poses in one array per attribute ([character][bone][xyz(w)]), their play times
 * in one Float64Array. Rotation interpolation is slerp exactly as runtime/clip.ts sampleClipAt does
 * it (quatSlerp's shorter arc, nlerp fallback above cos 0.9995, with the angle and 1 / sin(angle)
 * of each pair of consecutive keys read from Clip.rotationSpans and no renormalisation of a slerp
 * between unit keys, as the runtime does; the wrap from the last key to the first computes them
 * and renormalises, as quatSlerp), translations are lerped, the
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

/** slerp, with the pair's angle and signed 1 / sin(angle) read from spans[p..p+1] (see Clip.rotationSpans). */
function spanSlerp(out: Float64Array, o: number, keys: Float64Array, a: number, b: number, spans: Float64Array, p: number, ts: Float64Array, ti: number): void {
  const t = ts[ti];
  const angle = spans[p], k = spans[p + 1];
  let s0: number, s1: number;
  if (angle === 0) {
    s0 = 1 - t;
    s1 = t;
  } else {
    const inv = k < 0 ? -k : k;
    s0 = Math.sin((1 - t) * angle) * inv;
    s1 = Math.sin(t * angle) * inv;
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

// ---------------------------------------------------------------------------------------------
// animgraph side

class GraphCrowd {
  /** Frames run so far (the motion switches of the posesearch case are scheduled by it). */
  private frame = 0;

  /**
   * @param switchEvery when above 0, character i sets its 'motion' parameter to the other clip
   *   before the update of every frame f with (f + i) % switchEvery === 0 (staggered, so each frame
   *   1/switchEvery of the crowd switches).
   */
  constructor(readonly instances: readonly AnimGraphInstance[], private readonly component: boolean, private readonly switchEvery = 0) {}

  frames(frameCount: number): void {
    const instances = this.instances;
    const n = instances.length;
    if (this.switchEvery > 0) {
      const every = this.switchEvery;
      for (let f = 0; f < frameCount; f++, this.frame++) {
        for (let i = 0; i < n; i++) {
          const instance = instances[i];
          const k = this.frame + i;
          if (k % every === 0) instance.setParameter('motion', ((k / every) | 0) & 1);
          instance.update(DT);
          instance.evaluate();
          if (this.component) instance.componentPose();
        }
      }
    } else if (this.component) {
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
  phase(which: 'update' | 'evaluate' | 'evaluate+componentPose' | 'setParameter'): Runner {
    const instances = this.instances;
    const n = instances.length;
    switch (which) {
      case 'setParameter': {
        // The switches of a frame alone: the same calls, with nothing updated in between.
        const every = Math.max(1, this.switchEvery);
        let frame = 0;
        return {
          frames: (frameCount) => {
            for (let f = 0; f < frameCount; f++, frame++) {
              for (let i = 0; i < n; i++) if ((frame + i) % every === 0) instances[i].setParameter('motion', (((frame + i) / every) | 0) & 1);
            }
          },
        };
      }
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

/**
 * The same characters as a GraphCrowd, as one Crowd: its calling thread and worker threads
 * evaluate shares of it together, each character bit-identical to its instance alone. Switches
 * follow GraphCrowd's schedule.
 */
class ThreadedCrowd implements Runner {
  private frame = 0;

  constructor(readonly crowd: Crowd, private readonly switchEvery = 0) {}

  static async create(def: CaseDefinition, count: number, phases: Float64Array, workers: number): Promise<ThreadedCrowd> {
    const source = { module: new URL('./crowd-cases.ts', import.meta.url).href, export: 'buildCrowdGraph', args: [def.kind] };
    const crowd = await Crowd.create({ source, count, workers, componentSpace: def.component });
    for (let i = 0; i < count; i++) {
      crowd.setParameter(i, 'phaseA', phases[i * 2]);
      crowd.setParameter(i, 'phaseB', phases[i * 2 + 1]);
      crowd.reset(i);
    }
    def.startCrowd?.(crowd);
    return new ThreadedCrowd(crowd, def.switchEvery);
  }

  frames(frameCount: number): void {
    const crowd = this.crowd, n = crowd.count, every = this.switchEvery;
    for (let f = 0; f < frameCount; f++, this.frame++) {
      if (every > 0) {
        for (let i = 0; i < n; i++) {
          const k = this.frame + i;
          if (k % every === 0) crowd.setParameter(i, 'motion', ((k / every) | 0) & 1);
        }
      }
      crowd.update(DT);
    }
  }
}

/** Largest difference between the Crowd's poses and the GraphCrowd's after the same frames (0: bit-identical). */
function crowdDifference(graph: GraphCrowd, threaded: ThreadedCrowd, component: boolean): number {
  const crowd = threaded.crowd;
  const n = crowd.boneCount;
  let max = 0;
  graph.instances.forEach((instance, i) => {
    const cs = instance.componentPose(); // the last evaluated pose, not evaluated again
    const mine = component ? cs.rotations : cs.local.rotations;
    const theirs = component ? crowd.componentRotations : crowd.rotations;
    for (let k = 0; k < n * 4; k++) max = Math.max(max, Math.abs(mine[k] - theirs[i * n * 4 + k]));
  });
  return max;
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

function heapWindow(runner: Runner, frames: number, acrossGCs = false): HeapWindow {
  // Counting across GCs needs no clean heap first (and a gc() of three.js's heap takes ~0.2 s).
  if (!acrossGCs) {
    gc();
    gc();
  }
  const profiler = new v8.GCProfiler();
  profiler.start();
  const before = heapSpaces();
  runner.frames(frames);
  const after = heapSpaces();
  const report = profiler.stop();
  let bytes = after.allocation - before.allocation;
  const gcs = report?.statistics ?? [];
  if (acrossGCs) {
    // The allocation spaces only grow between GCs: add up the growth of every stretch between
    // them (what each GC took away is given back). Exact for the young generation; an allocation
    // site V8 pretenures straight into old space is missed (see ALLOCATION_SPACES).
    for (const stat of gcs) bytes += allocationUsed(stat.beforeGC.heapSpaceStatistics) - allocationUsed(stat.afterGC.heapSpaceStatistics);
    return { bytes, otherBytes: Number.NaN, frames, collected: false };
  }
  const collected = gcs.length > 0 || bytes < 0;
  return { bytes, otherBytes: after.other - before.other, frames, collected };
}

function allocationUsed(spaces: readonly { spaceName: string; spaceUsedSize: number }[]): number {
  let used = 0;
  for (const space of spaces) if (ALLOCATION_SPACES.has(space.spaceName)) used += space.spaceUsedSize;
  return used;
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
function measureAllocation(runner: Runner, frames: number, windows: number, acrossGCs = false): AllocationResult {
  const samples: number[] = [];
  const otherSamples: number[] = [];
  let discarded = 0;
  let f = Math.max(1, frames);
  if (!acrossGCs) heapWindow(runner, f); // settle: the first window after other work sometimes carries a one-off
  while (samples.length < windows && discarded < 40) {
    const short = heapWindow(runner, f, acrossGCs);
    const long = heapWindow(runner, 2 * f, acrossGCs);
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


/**
 * The largest difference between animgraph's poses and three.js's for the same frames: local
 * translations and rotations (sign-aligned), or, with component space, every bone's component
 * translation against its matrixWorld. A small crowd of `count` characters run for `frames` frames.
 */
function threeDifference(def: CaseDefinition, graph: AnimGraph, clips: readonly [THREE.AnimationClip, THREE.AnimationClip], count = 16, frames = 150): number {
  const phases = crowdPhases(count, graph.clipBindings.get('clipA')!.clip.duration, 99);
  const instances = createCrowd(graph, count, phases);
  def.start?.(instances);
  const three = new ThreeCrowd(graph.skeleton, clips[0], clips[1], count, phases, DT, { mode: def.three.mode, component: def.three.component });
  const crowd = new GraphCrowd(instances, def.component);
  crowd.frames(frames);
  three.frames(frames);
  let max = 0;
  const at = (d: number): void => { if (!(d <= max)) max = d; };
  instances.forEach((instance, c) => {
    const bones = three.bones[c];
    if (def.component) {
      const t = instance.componentPose().translations;
      bones.forEach((bone, i) => {
        const e = bone.matrixWorld.elements;
        for (let k = 0; k < 3; k++) at(Math.abs(e[12 + k] - t[i * 3 + k]));
      });
    } else {
      const pose = instance.evaluate();
      const t = pose.translations, r = pose.rotations;
      bones.forEach((bone, i) => {
        const p = bone.position, q = bone.quaternion;
        at(Math.abs(p.x - t[i * 3])); at(Math.abs(p.y - t[i * 3 + 1])); at(Math.abs(p.z - t[i * 3 + 2]));
        const sign = q.x * r[i * 4] + q.y * r[i * 4 + 1] + q.z * r[i * 4 + 2] + q.w * r[i * 4 + 3] < 0 ? -1 : 1;
        at(Math.abs(sign * q.x - r[i * 4])); at(Math.abs(sign * q.y - r[i * 4 + 1]));
        at(Math.abs(sign * q.z - r[i * 4 + 2])); at(Math.abs(sign * q.w - r[i * 4 + 3]));
      });
    }
  });
  return max;
}

interface SideResult {
  msPerFrame: number;
  mbonesPerSecond: number;
  bytesPerFrame: number;
  /** Median over window pairs of animgraph time / this side's time (per frame). */
  ratio: number;
  framesPerWindow: number;
  windowsMs: number[];
  allocation: AllocationResult;
  /** Largest difference between animgraph's poses and this side's (see the columns). */
  maxDifference: number;
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
  animgraphWindowsMs: number[];
  /** The hand-written peer; null for cases it does not do. */
  peer: SideResult | null;
  /** three.js; null with --no-three. `animgraphWindowsMs`: animgraph's windows interleaved with it. */
  three: (SideResult & { sameWork: boolean; reference: string; animgraphWindowsMs: number[] }) | null;
  allocation: { animgraph: AllocationResult };
  /**
   * The same crowd as one Crowd on the calling thread and `workers` worker threads; null with
   * --workers 0. ratio: its ms/frame over the instances' (single thread); threeRatio: over three.js's,
   * in the three.js phase; bytesPerFrame: the calling thread's.
   */
  threaded: {
    workers: number; msPerFrame: number; ratio: number; bytesPerFrame: number; maxDifference: number;
    windowsMs: number[]; threeRatio: number | null; threeWindowsMs: number[];
  } | null;
  /** When animgraph allocates: bytes per frame of each phase of the frame measured alone. */
  animgraphBreakdown?: Record<string, number>;
  /** The bench's own time per step of the case (setup, warm-up, windows, ...), seconds. */
  stepSeconds?: Record<string, number>;
}

interface Budget {
  warmupMs: number;
  windowMs: number;
  /** Window pairs (or rounds) of animgraph against the peer. */
  windows: number;
  /** Window pairs of animgraph against three.js. */
  threeWindows: number;
  allocWindows: number;
}

interface Side {
  runner: Runner;
  frames: number;
  ms: number[];
}

async function runCase(
  def: CaseDefinition, count: number, budget: Budget, graphs: Map<CrowdGraphKind, AnimGraph>,
  threeClips: Map<CrowdGraphKind, readonly [THREE.AnimationClip, THREE.AnimationClip]> | null, threeDiffs: Map<string, number>,
  workers: number,
): Promise<{ result: CaseResult; crowd: GraphCrowd }> {
  // Where the bench's own time goes, for the JSON (seconds per step of this case).
  const steps: Record<string, number> = {};
  let stepStart = performance.now();
  const step = (name: string): void => {
    const now = performance.now();
    steps[name] = (now - stepStart) / 1000;
    stepStart = now;
  };
  const graph = graphs.get(def.kind)!;
  const clipA = graph.clipBindings.get('clipA')!.clip;
  const clipB = graph.clipBindings.get('clipB')!.clip;
  const phases = crowdPhases(count, clipA.duration);
  const crowd = new GraphCrowd(createCrowd(graph, count, phases), def.component, def.switchEvery);
  def.start?.(crowd.instances);
  const peer = def.peer ? new PeerCrowd(graph.skeleton, clipA, clipB, count, phases, def.kind === 'blend', def.component) : null;
  const threaded = workers > 0 ? await ThreadedCrowd.create(def, count, phases, workers) : null;
  const bones = count * graph.skeleton.boneCount;
  gc();
  step('setup');

  // Warm-up (and calibration): animgraph runs for warmupMs; the peer then runs as many frames, so
  // both stay on the same frame and their poses can be compared at the end.
  let warmFrames = 0;
  const warmStart = performance.now();
  const minWarmFrames = Math.max(3, (def.switchEvery ?? 0) + 2);
  while (performance.now() - warmStart < budget.warmupMs || warmFrames < minWarmFrames) {
    crowd.frames(1);
    warmFrames++;
  }
  const warmMsPerFrame = (performance.now() - warmStart) / warmFrames;
  def.check?.(crowd.instances[0]);
  peer?.frames(warmFrames);
  threaded?.frames(warmFrames);
  if (threaded) def.check?.(threaded.crowd.instanceOf(0)!);
  const framesPerWindow = Math.max(1, Math.round(budget.windowMs / warmMsPerFrame));
  step('warm-up');

  // Phase 1, before any three.js object exists: animgraph (and the peer) in interleaved windows.
  // three.js makes megabytes of garbage per frame; its GC work (concurrent marking, sweeping) and
  // its heap would otherwise slow whatever runs after its windows by up to a half.
  const ag: Side = { runner: crowd, frames: framesPerWindow, ms: [] };
  const peerSide: Side | null = peer ? { runner: peer, frames: framesPerWindow, ms: [] } : null;
  const threadedSide: Side | null = threaded ? { runner: threaded, frames: framesPerWindow, ms: [] } : null;
  interleave([ag, ...(peerSide ? [peerSide] : []), ...(threadedSide ? [threadedSide] : [])], budget.windows);
  step('windows');
  const side = (s: Side, reference: Side, allocation: AllocationResult, difference: number): SideResult => {
    const msPerFrame = median(s.ms);
    return {
      msPerFrame, mbonesPerSecond: bones / msPerFrame / 1000, bytesPerFrame: allocation.bytesPerFrame,
      ratio: median(reference.ms.map((g, w) => g / s.ms[w])), framesPerWindow: s.frames, windowsMs: s.ms, allocation, maxDifference: difference,
    };
  };

  // animgraph and the peer have run the same frames: their poses must agree (the peer does the same
  // work). Compared before the allocation windows below run more frames on each side.
  const peerDifference = peer ? maxDifference(crowd, peer, def.component) : Number.NaN;
  const threadedDifference = threaded ? crowdDifference(crowd, threaded, def.component) : Number.NaN;
  // Enough frames that a byte per character per frame shows, few enough to keep the run short.
  const allocFrames = Math.max(4, Math.min(framesPerWindow, 30, Math.round(8000 / count)));
  // Fewer pairs for big crowds: each window starts with two full GCs of a heap that is then large.
  const allocWindows = count >= 500 ? Math.min(3, budget.allocWindows) : budget.allocWindows;
  const graphAlloc = measureAllocation(crowd, allocFrames, allocWindows);
  step('allocation');
  let peerResult: SideResult | null = null;
  if (peer && peerSide) peerResult = side(peerSide, ag, measureAllocation(peer, allocFrames, allocWindows), peerDifference);
  step('peer allocation');
  const threadedAlloc = threaded ? measureAllocation(threaded, allocFrames, allocWindows) : null;
  step('Crowd allocation');
  let breakdown: Record<string, number> | undefined;
  if (!(graphAlloc.bytesPerFrame < 1)) breakdown = allocationBreakdown(crowd, allocFrames, Math.min(3, budget.allocWindows), def, graphAlloc.bytesPerFrame);
  step('allocation breakdown');

  // Phase 2: the three.js crowd, warmed up and calibrated on its own, in windows interleaved with
  // animgraph's again; ag/three is the median of those per-window ratios. animgraph runs those
  // windows among three.js's garbage, so the ratio errs in three.js's favour.
  let threeResult: CaseResult['three'] = null;
  const threadedAgain: Side | null = threaded ? { runner: threaded, frames: framesPerWindow, ms: [] } : null;
  const clips = threeClips?.get(def.kind);
  if (clips) {
    let three: ThreeCrowd | null = new ThreeCrowd(graph.skeleton, clips[0], clips[1], count, phases, DT, { ...def.three, strideScale: CROWD_STRIDE_SCALE, legs: CROWD_LEGS });
    step('three setup');
    let frames = 0;
    const start = performance.now();
    while (performance.now() - start < budget.warmupMs || frames < 2) {
      three.frames(1);
      frames++;
    }
    const threeSide: Side = { runner: three, frames: Math.max(1, Math.round(budget.windowMs / ((performance.now() - start) / frames))), ms: [] };
    step('three warm-up');
    const agAgain: Side = { runner: crowd, frames: framesPerWindow, ms: [] };
    interleave([agAgain, threeSide, ...(threadedAgain ? [threadedAgain] : [])], budget.threeWindows);
    step('three windows');
    // three.js allocates enough per frame for GCs to run inside any window: counted across them.
    const allocation = measureAllocation(three, Math.max(1, Math.min(threeSide.frames, 4)), 2, true);
    threeSide.runner = { frames() {} };
    three = null; // let it go before the next case's gc() calls
    step('three allocation');
    let difference = Number.NaN;
    if (def.three.same) {
      difference = threeDiffs.get(def.name) ?? threeDifference(def, graph, clips);
      threeDiffs.set(def.name, difference);
    }
    threeResult = { ...side(threeSide, agAgain, allocation, difference), sameWork: def.three.same, reference: def.three.note, animgraphWindowsMs: agAgain.ms };
    step('three difference');
  }

  const animgraphMsPerFrame = median(ag.ms);
  let threadedResult: CaseResult['threaded'] = null;
  if (threaded && threadedSide && threadedAlloc) {
    const three = threeResult as { windowsMs: number[] } | null;
    threadedResult = {
      workers, msPerFrame: median(threadedSide.ms), ratio: median(threadedSide.ms.map((t, w) => t / ag.ms[w])),
      bytesPerFrame: threadedAlloc.bytesPerFrame, maxDifference: threadedDifference, windowsMs: threadedSide.ms,
      threeRatio: three && threadedAgain ? median(threadedAgain.ms.map((t, w) => t / three.windowsMs[w])) : null,
      threeWindowsMs: threadedAgain?.ms ?? [],
    };
    await threaded.crowd.close();
  }
  const result: CaseResult = {
    case: def.name,
    characters: count,
    bones,
    framesPerWindow,
    windows: budget.windows,
    animgraphMsPerFrame,
    animgraphMbonesPerSecond: bones / animgraphMsPerFrame / 1000,
    animgraphBytesPerFrame: graphAlloc.bytesPerFrame,
    animgraphWindowsMs: ag.ms,
    peer: peerResult,
    three: threeResult,
    threaded: threadedResult,
    allocation: { animgraph: graphAlloc },
  };
  if (breakdown) result.animgraphBreakdown = breakdown;
  result.stepSeconds = steps;
  return { result, crowd };
}

/** Timed windows of each side in turn, the order reversed every other round (ABC CBA ...). */
function interleave(sides: readonly Side[], windows: number): void {
  for (let w = 0; w < windows; w++) {
    const order = w % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) side.ms.push(timeWindow(side.runner, side.frames));
  }
}

/** Bytes per frame of update alone, evaluate alone and (by difference) componentPose alone. */
function allocationBreakdown(crowd: GraphCrowd, frames: number, windows: number, def: CaseDefinition, total: number): Record<string, number> {
  const update = measureAllocation(crowd.phase('update'), frames, windows).bytesPerFrame;
  const evaluate = measureAllocation(crowd.phase('evaluate'), frames, windows).bytesPerFrame;
  const breakdown: Record<string, number> = { update, evaluate };
  if (def.component) {
    const both = measureAllocation(crowd.phase('evaluate+componentPose'), frames, windows).bytesPerFrame;
    breakdown.componentPose = Math.max(0, both - evaluate);
  }
  if (def.switchEvery) {
    // update and evaluate alone switch nothing; what a switch starts shows only in the whole frame.
    const set = measureAllocation(crowd.phase('setParameter'), frames, windows).bytesPerFrame;
    breakdown.setParameter = set;
    breakdown['what the switches start (frame - the rest)'] = Math.max(0, total - set - update - evaluate - (breakdown.componentPose ?? 0));
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
  ['case', 10], ['chars', 5], ['ms/frame', 9], ['Mbones/s', 8], ['B/frame', 7],
  ['ms/frame', 9], ['B/frame', 7], ['ag/peer', 7], ['max diff', 8],
  ['ms/frame', 9], ['B/frame', 8], ['ag/three', 8], ['x faster', 8], ['max diff', 8],
] as const;

function row(cells: readonly string[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(COLUMNS[i][1]) : c.padStart(COLUMNS[i][1]))).join('  ');
}

/** The group line above the column names. */
function groupHeader(): string {
  const width = (from: number, to: number): number => COLUMNS.slice(from, to).reduce((sum, [, w]) => sum + w + 2, 0);
  const group = (label: string, from: number, to: number): string => {
    const w = width(from, to);
    const dashes = Math.max(2, w - label.length - 4);
    return `${'-'.repeat(dashes >> 1)} ${label} ${'-'.repeat(dashes - (dashes >> 1))}`.padEnd(w);
  };
  return `${' '.repeat(width(0, 2))}${group('animgraph', 2, 5)}${group('hand-written peer', 5, 9)}${group('three.js', 9, 14)}`.trimEnd();
}

function formatBytes(b: number): string {
  return Number.isNaN(b) ? 'n/a' : b < 10 ? b.toFixed(1) : Math.round(b).toString();
}

function formatRow(r: CaseResult): string {
  const p = r.peer, t = r.three;
  return row([
    r.case, String(r.characters), r.animgraphMsPerFrame.toFixed(3), r.animgraphMbonesPerSecond.toFixed(1), formatBytes(r.animgraphBytesPerFrame),
    p ? p.msPerFrame.toFixed(3) : 'none', p ? formatBytes(p.bytesPerFrame) : '-', p ? `${p.ratio.toFixed(2)}x` : '-', p ? p.maxDifference.toExponential(0) : '-',
    t ? t.msPerFrame.toFixed(2) : 'skipped', t ? formatBytes(t.bytesPerFrame) : '-', t ? `${t.ratio.toFixed(3)}x` : '-',
    t ? `${(1 / t.ratio).toFixed(1)}${t.sameWork ? '' : '*'}` : '-', t ? (t.sameWork ? t.maxDifference.toExponential(0) : 'n/a') : '-',
  ]);
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const budget: Budget = options.quick
    ? { warmupMs: 100, windowMs: 15, windows: 4, threeWindows: 4, allocWindows: 3 }
    : { warmupMs: 400, windowMs: 60, windows: 10, threeWindows: 8, allocWindows: 5 };
  const graphs = new Map<CrowdGraphKind, AnimGraph>();
  const pending: string[] = [];
  const cases = ALL_CASES.filter((def) => {
    if (!options.cases.includes(def.name)) return false;
    if (graphs.has(def.kind)) return true;
    try {
      graphs.set(def.kind, buildCrowdGraph(def.kind));
      return true;
    } catch (error) {
      pending.push(pendingNote(def, error));
      return false;
    }
  });
  const kinds = [...graphs.keys()];
  if (kinds.length === 0) throw new Error(`no case to run:\n${pending.join('\n')}`);
  const threeClips = options.three
    ? new Map(kinds.map((kind) => {
      const bindings = graphs.get(kind)!.clipBindings;
      return [kind, [makeThreeClip(bindings.get('clipA')!.clip), makeThreeClip(bindings.get('clipB')!.clip)] as const];
    }))
    : null;
  const boneCount = graphs.get(kinds[0])!.skeleton.boneCount;
  const started = performance.now();

  console.log(`animgraph crowd bench: ${boneCount}-bone skeleton, 2 clips x 61 keys (30 fps, T+R track per bone), dt 1/60 s, looping`);
  const threeText = options.three ? `, then ${budget.threeWindows} against three.js r${(await import('three')).REVISION}` : ', three.js skipped (--no-three)';
  console.log(`node ${process.version}, ${options.quick ? 'quick' : 'full'} run: per case ${budget.windows} interleaved windows of ~${budget.windowMs} ms per side after ${budget.warmupMs} ms warm-up${threeText}`);
  console.log('');
  const header = row(COLUMNS.map(([name]) => name));
  console.log(groupHeader());
  console.log(header);
  console.log('-'.repeat(header.length));

  // A first pass over every case on a small crowd, so that the first case measured does not also
  // pay for the JIT's first tiering (code running before it is optimised boxes numbers and allocates).
  for (const def of cases) {
    const graph = graphs.get(def.kind)!;
    const phases = crowdPhases(50, 2, 7);
    const warm = new GraphCrowd(createCrowd(graph, 50, phases), def.component, def.switchEvery);
    def.start?.(warm.instances);
    const clipA = graph.clipBindings.get('clipA')!.clip, clipB = graph.clipBindings.get('clipB')!.clip;
    const peer = def.peer ? new PeerCrowd(graph.skeleton, clipA, clipB, 50, phases, def.kind === 'blend', def.component) : null;
    const clips = threeClips?.get(def.kind);
    const three = clips ? new ThreeCrowd(graph.skeleton, clips[0], clips[1], 50, phases, DT, { ...def.three, strideScale: CROWD_STRIDE_SCALE, legs: CROWD_LEGS }) : null;
    const until = performance.now() + budget.warmupMs / 2;
    while (performance.now() < until) {
      warm.frames(5);
      peer?.frames(5);
      three?.frames(1);
    }
  }

  const results: CaseResult[] = [];
  const sites: Record<string, AllocationSite[]> = {};
  const profiles: string[] = [];
  const threeDiffs = new Map<string, number>();
  for (const count of options.counts) {
    for (const def of cases) {
      const { result, crowd } = await runCase(def, count, budget, graphs, threeClips, threeDiffs, options.workers);
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
  for (const line of pending) console.log(line);
  const threadedRows = results.filter((r) => r.threaded !== null);
  if (threadedRows.length > 0) {
    const w = threadedRows[0].threaded!.workers;
    console.log('');
    console.log(`The same crowds as one Crowd (runtime/crowd.ts) on ${w + 1} threads: the calling thread and ${w} worker thread${w === 1 ? '' : 's'} (${availableParallelism()} cores):`);
    const head = `${'case'.padEnd(11)} ${'chars'.padStart(5)}  ${'ms/frame'.padStart(8)}  ${'vs 1 thread'.padStart(11)}  ${'x faster than three.js'.padStart(22)}  ${'B/frame'.padStart(7)}  ${'max diff'.padStart(8)}`;
    console.log(head);
    console.log('-'.repeat(head.length));
    for (const r of threadedRows) {
      const t = r.threaded!;
      const faster = t.threeRatio === null ? '-' : `${(1 / t.threeRatio).toFixed(1)}${r.three?.sameWork === false ? '*' : ''}`;
      console.log(`${r.case.padEnd(11)} ${String(r.characters).padStart(5)}  ${t.msPerFrame.toFixed(3).padStart(8)}  ${`${(1 / t.ratio).toFixed(2)}x`.padStart(11)}  ${faster.padStart(22)}  ${formatBytes(t.bytesPerFrame).padStart(7)}  ${t.maxDifference.toExponential(0).padStart(8)}`);
    }
    console.log('vs 1 thread: median of per-window ratios against the instances above (interleaved); x faster than three.js:');
    console.log("  likewise against three.js's windows in the three.js phase; B/frame: the calling thread's; max diff: against");
    console.log('  the instances after the same frames (0: bit-identical).');
  }
  const seconds = (performance.now() - started) / 1000;
  console.log('');
  console.log('ms/frame: median over windows; ag/peer, ag/three: median of per-window ratios of animgraph ms/frame to the');
  console.log("  reference's (interleaved windows; against three.js in a second phase, where animgraph runs among three.js's");
  console.log("  garbage, so ag/three errs in three.js's favour); x faster: 1 / ag/three.");
  console.log('B/frame: steady-state allocation per frame: growth of V8 new + large-object space over GC-free windows of 2f');
  console.log(`  frames minus f frames, divided by f (the ${windowOverhead()} bytes a window itself costs cancel).`);
  console.log("peer max diff: largest difference between animgraph's and the peer's poses after the same frames;");
  console.log("  three max diff: the same against three.js on 16 characters after 150 frames (float32 keys; component");
  console.log('  translations for +cs cases). A few B/frame on one case only is JIT tiering, not steady state.');
  console.log('peer: none for inertial, stride+cs, posesearch and bendroll+cs (a hand-written equivalent would re-write the nodes).');
  if (options.three) {
    console.log('three.js: player = one AnimationMixer action; blend = crossFadeTo held at half way (weights 0.5);');
    console.log('  +cs = root.updateMatrixWorld(true). * = nearest equivalent, not the same work: inertial and posesearch');
    console.log('  against the crossfade; stride+cs against player + updateMatrixWorld + CCDIKSolver to stride-scaled feet');
    console.log('  (no pelvis adjustment or thigh correction); bendroll+cs against player + updateMatrixWorld. three.js');
    console.log(`  windows: ~${budget.windowMs} ms each (at least one frame), not the same frame count; B/frame counted across GCs.`);
  }
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
      pending,
      allocationSites: sites,
    };
    writeFileSync(options.json, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${options.json}`);
  }
}

await main();
