import type { Clip } from '../runtime/clip.ts';
import type { ComponentPose } from '../runtime/component-pose.ts';
import { quatFromTo, quatMultiply } from '../runtime/math.ts';
import {
  ZERO_WEIGHT, readVec3,
  type CacheBonesContext, type ComponentPoseLink, type DebugNode, type Link, type NodeType, type PoseNode, type ScalarProperty, type UpdateContext, type Vec3Property,
} from '../runtime/node.ts';
import { sampleRootMotion } from '../runtime/root-motion.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/skeletal-control.ts';
import { solveTwoBoneIK, twoBoneIKOptions } from '../runtime/two-bone-ik.ts';
import { SequenceEvaluator } from './SequenceEvaluator.ts';
import { SequencePlayer } from './SequencePlayer.ts';

/** Per-frame scratch, module-wide: nodes never run concurrently. */
const v = new Float64Array(64);
// Offsets into v for named 3-vectors.
const N = 0, G = 3, D = 6, F = 9, H = 12, O = 15, W = 18, P0 = 21, P = 24, TMP = 27, TMP2 = 30, Q = 36;

/** A bone's component transform being edited: read with loadBone, write back with setComponent(bone, xf.t, xf.r, xf.s, 0). */
const xf = { t: new Float64Array(3), r: new Float64Array(4), s: new Float64Array(3) };

function loadBone(pose: ComponentPose, bone: number): void {
  pose.ensureComponent(bone);
  for (let k = 0; k < 3; k++) {
    xf.t[k] = pose.translations[bone * 3 + k];
    xf.s[k] = pose.scales[bone * 3 + k];
  }
  for (let k = 0; k < 4; k++) xf.r[k] = pose.rotations[bone * 4 + k];
}

/*
 * Lengths are written out as Math.sqrt of sums: Math.hypot allocates its arguments in V8.
 * Helpers here return booleans or nothing, never numbers: the big functions below exhaust V8's
 * inlining budget, and a number returned from a call that is not inlined is boxed (allocated).
 */

/** Normalises a[o..o+2] in place; false (and unchanged) when its length is 1e-9 or less. */
function normalize3(a: Float64Array, o: number): boolean {
  const len = Math.sqrt(a[o] * a[o] + a[o + 1] * a[o + 1] + a[o + 2] * a[o + 2]);
  if (!(len > 1e-9)) return false;
  a[o] /= len; a[o + 1] /= len; a[o + 2] /= len;
  return true;
}

interface Leg {
  foot: string;
  calf: string;
  thigh: string;
}

/** The players and evaluators of root-motion clips below a node, each kind in a list of its own. */
interface RootMotionSources {
  players: SequencePlayer[];
  evaluators: SequenceEvaluator[];
}

/**
 * Finds the root-motion sources in the branch below `node`, once, when the node is built:
 * AnimNode keeps its links protected, and this walk is their only outside reader.
 */
function findRootMotionSources(node: PoseNode, out: RootMotionSources): RootMotionSources {
  if (node instanceof SequencePlayer && node.clip.clip.rootMotion !== null) out.players.push(node);
  if (node instanceof SequenceEvaluator && node.clip.clip.rootMotion !== null) out.evaluators.push(node);
  for (const link of (node as unknown as { links: readonly Link[] }).links) findRootMotionSources(link.node, out);
  return out;
}

/**
 * Each source's absolute weight, play time and (evaluators only; NaN for players) clip time moved
 * in its last update into weights, times and steps, players first. A function that returns nothing,
 * with one loop per class: V8 inlines the getters here, where each access sees one class, instead
 * of boxing the numbers they would return to a caller out of inlining budget.
 */
function readSources(sources: RootMotionSources, weights: Float64Array, times: Float64Array, steps: Float64Array): void {
  const players = sources.players, evaluators = sources.evaluators, n = players.length;
  for (let i = 0; i < n; i++) {
    weights[i] = players[i].weight;
    times[i] = players[i].time;
    steps[i] = NaN;
  }
  for (let i = 0; i < evaluators.length; i++) {
    weights[n + i] = evaluators[i].weight;
    times[n + i] = evaluators[i].time;
    steps[n + i] = evaluators[i].timeStep;
  }
}

/** Scratch for root-motion windows: clip times [window start, window end, play time], and the root at each. */
const clipTimes = new Float64Array(3);
const rootAt = new Float64Array(12);

/**
 * Stride warping (Unreal 5's AnimationWarping, with the seed's fix): lengthens or shortens each
 * step instead of changing the play rate. In component space, per frame:
 * 1. the stride direction is made tangent to the floor;
 * 2. each FK foot is scaled about its scale origin (the thigh's gravity line meeting the floor
 *    plane through the foot, projected onto the plane normal to the stride direction): only the
 *    foot's offset along the stride direction is scaled, so heights are kept;
 * 3. the pelvis is moved toward the warped feet so each leg keeps its FK length (1 to 10
 *    iterations, averaged over the feet), then lowered along gravity until every warped foot is
 *    within reach, never upward, optionally smoothed by a critically damped spring, and blended in
 *    by `pelvisAlpha`;
 * 4. each thigh is turned by the rotation between its FK leg direction and its warped one;
 * 5. the foot target is clamped to the FK leg length from the moved thigh and the leg is solved
 *    with the two-bone IK solver, the foot keeping its FK component-space rotation.
 * Each step can be switched off. Warping starts from the FK foot, not an IK bone (the seed shows
 * why: warping an IK bone that already follows the foot makes the feet tread in place).
 *
 * In `fromRootMotion` mode the scale is the locomotion speed over the root-motion speed of the
 * branch below, and only the root motion that branch adds (this frame's minus what was there
 * before its update) is scaled by it: a sibling's share under a blend is left alone. The speed is
 * that of the branch at full weight, so the node's own blend weight does not enter it. It is
 * measured over a window of clip time (`rootMotionWindow`, the whole clip by default) of each
 * root-motion clip played below, at the rate and share of weight it plays at: the root's speed
 * rises and falls within each step, and a scale following it would slide the feet, while a
 * running average of it needs seconds to settle and still ripples (by ±5% on the CMU slow walk).
 * Root motion from nodes it cannot see into (PoseSearchBlend) is measured from the branch's share
 * itself, averaged with half-life `rootMotionSmoothingTime`.
 */
export class StrideWarping extends SkeletalControlNode {
  private pelvis = -1;
  private readonly legBones: Int32Array;
  /** [scale in use, smoothed scale, target scale, has smoothed value, dt]. */
  private readonly scale = new Float64Array(5);
  /** Stride direction in use (component space). */
  private readonly direction = new Float64Array(3);
  /** fromRootMotion: the branch's root-motion velocity at full weight [x, y, z, has value, speed]. */
  private readonly velocity = new Float64Array(5);
  /** The graph's root-motion translation before the branch below was updated this frame. */
  private readonly rootMotionBefore = new Float64Array(3);
  private readonly sources: RootMotionSources;
  /** The sources' clips, players first (as readSources orders them). */
  private readonly sourceClips: readonly Clip[];
  /** Each source's play time before the branch below was updated this frame. */
  private readonly sourceTimes: Float64Array;
  /** After it: each source's absolute weight, play time and (evaluators) clip time moved. */
  private readonly sourceWeights: Float64Array;
  private readonly sourceTimesAfter: Float64Array;
  private readonly sourceSteps: Float64Array;
  /** Pelvis adjustment spring [position xyz, velocity xyz]. */
  private readonly spring = new Float64Array(6);
  /** Debug: per leg scale origin (3) then adjusted pelvis (3) and offset (3). */
  readonly debugPoints: Float64Array;

  constructor(
    id: string,
    input: ComponentPoseLink,
    alpha: ScalarProperty,
    private readonly props: {
      fromRootMotion: boolean;
      strideScale: ScalarProperty;
      strideDirection: Vec3Property;
      locomotionSpeed: ScalarProperty;
      minRootMotionSpeed: number;
      rootMotionWindow: number;
      rootMotionSmoothingTime: number;
      minScale: number;
      maxScale: number;
      scaleSmoothingTime: number;
      floorNormal: Vec3Property;
      gravityDirection: Vec3Property;
      pelvisBone: string;
      legs: readonly Leg[];
      warpFeet: boolean;
      adjustPelvis: boolean;
      pelvisIterations: number;
      pelvisSmoothingTime: number;
      pelvisAlpha: ScalarProperty;
      correctThighs: boolean;
      clampLegLength: boolean;
      solveIk: boolean;
    },
  ) {
    super(id, 'StrideWarping', input, alpha);
    this.legBones = new Int32Array(props.legs.length * 3).fill(-1);
    this.debugPoints = new Float64Array(props.legs.length * 3 + 6);
    const none: RootMotionSources = { players: [], evaluators: [] };
    this.sources = props.fromRootMotion ? findRootMotionSources(input.node, none) : none;
    this.sourceClips = [...this.sources.players, ...this.sources.evaluators].map((node) => node.clip.clip);
    const count = this.sourceClips.length;
    this.sourceTimes = new Float64Array(count);
    this.sourceWeights = new Float64Array(count);
    this.sourceTimesAfter = new Float64Array(count);
    this.sourceSteps = new Float64Array(count);
  }

  protected override onInitialize(): void {
    super.onInitialize();
    this.scale.fill(0);
    this.scale[0] = 1;
    this.spring.fill(0);
    this.velocity.fill(0);
  }

  protected override onBecomeRelevant(): void {
    // A velocity averaged before a pause describes motion that is over.
    this.velocity.fill(0);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    this.pelvis = ctx.boneIndex(this.id, this.props.pelvisBone);
    this.props.legs.forEach((leg, i) => {
      this.legBones[i * 3] = ctx.boneIndex(this.id, leg.thigh);
      this.legBones[i * 3 + 1] = ctx.boneIndex(this.id, leg.calf);
      this.legBones[i * 3 + 2] = ctx.boneIndex(this.id, leg.foot);
    });
  }

  protected override isValidToEvaluate(): boolean {
    if (this.pelvis < 0) return false;
    for (let i = 0; i < this.legBones.length; i++) if (this.legBones[i] < 0) return false;
    return true;
  }

  protected override onUpdate(ctx: UpdateContext): void {
    if (this.props.fromRootMotion) {
      // What the graph holds before the branch below is updated is a sibling's (or nothing): the
      // difference after is this branch's own share, the only part to measure and scale.
      const rm = this.graph.rootMotion, before = this.rootMotionBefore;
      before[0] = rm[0]; before[1] = rm[1]; before[2] = rm[2];
      readSources(this.sources, this.sourceWeights, this.sourceTimes, this.sourceSteps);
    }
    super.onUpdate(ctx);
  }

  protected override updateControl(ctx: UpdateContext): void {
    const p = this.props, values = this.graph.parameterValues, s = this.scale;
    s[4] = ctx.deltaTime;
    let target = 1;
    if (p.fromRootMotion) {
      this.measureRootMotion(ctx);
      const vel = this.velocity;
      const speed = vel[3] === 1 ? Math.sqrt(vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]) : 0;
      vel[4] = speed;
      // Bound properties are read inline here and below: readScalar (runtime/node.ts) is not inlined into this big
      // function, and a double it returns from the parameter array is boxed (16 bytes a frame). The
      // literal goes through arithmetic (* 1) so that both arms are unboxed doubles: joining a double
      // from the array with the boxed field as it is makes V8 box the double.
      const ls = p.locomotionSpeed;
      const wanted = ls.slot >= 0 ? values[ls.slot] : ls.constant * 1;
      if (speed >= p.minRootMotionSpeed && speed > 0 && wanted === wanted) {
        target = wanted / speed;
        this.direction[0] = vel[0] / speed; this.direction[1] = vel[1] / speed; this.direction[2] = vel[2] / speed;
      } else readVec3(this.direction, 0, values, p.strideDirection);
    } else {
      const ss = p.strideScale;
      target = ss.slot >= 0 ? values[ss.slot] : ss.constant * 1;
      readVec3(this.direction, 0, values, p.strideDirection);
    }
    if (!(target === target)) target = 1;
    // Math.min/max rather than a conditional that can yield p.minScale itself: that would join a
    // double from the parameter array with a boxed field, and V8 boxes the double to do so.
    target = Math.min(Math.max(target, p.minScale), p.maxScale);
    s[2] = target;
    if (p.scaleSmoothingTime > 0 && s[3] === 1) {
      // Exponential approach with the given half-life.
      const k = 1 - Math.pow(0.5, ctx.deltaTime / p.scaleSmoothingTime);
      s[1] += (target - s[1]) * k;
    } else {
      s[1] = target;
      s[3] = 1;
    }
    s[0] = s[1];
    if (p.fromRootMotion) {
      // Scale only what the branch below added, so the character moves at the locomotion speed
      // while a sibling's share (added before, or after, this branch) keeps its own.
      const rm = this.graph.rootMotion, before = this.rootMotionBefore, scale = s[0];
      for (let k = 0; k < 3; k++) rm[k] = before[k] + (rm[k] - before[k]) * scale;
    }
  }

  /**
   * The branch's root-motion velocity at full weight into `velocity` (kept as it was when there is
   * nothing to measure: no time passed). Each source contributes its clip's mean root velocity over
   * the window of clip time around its play time, turned into the character's frame at that time,
   * times the clip seconds it advanced per second this frame and its weight over this node's.
   */
  private measureRootMotion(ctx: UpdateContext): void {
    const dt = ctx.deltaTime, weight = ctx.weight, vel = this.velocity;
    if (!(dt > 0) || !(weight > ZERO_WEIGHT)) return;
    const clips = this.sourceClips, times = this.sourceTimes, window = this.props.rootMotionWindow;
    const weights = this.sourceWeights, timesAfter = this.sourceTimesAfter, steps = this.sourceSteps;
    readSources(this.sources, weights, timesAfter, steps);
    let measured = false, vx = 0, vy = 0, vz = 0;
    for (let i = 0; i < clips.length; i++) {
      const share = weights[i] / weight;
      const clip = clips[i], motion = clip.rootMotion!, duration = clip.duration;
      if (!(share > 0) || !(duration > 0)) continue;
      measured = true;
      const time = timesAfter[i];
      // Clip time advanced: an evaluator reports it; for a player, a change of more than half the
      // clip is a looping player's wrap.
      let advance = steps[i];
      if (!(advance === advance)) {
        advance = time - times[i];
        if (advance > duration * 0.5) advance -= duration;
        else if (advance < -duration * 0.5) advance += duration;
      }
      // The window is kept inside the clip (shifted at its ends, not wrapped), so no player's
      // looping flag is needed; the whole clip when the window is 0 or longer than the clip.
      const length = window > 0 && window < duration ? window : duration;
      let start = time - length * 0.5;
      start = start < 0 ? 0 : start > duration - length ? duration - length : start;
      clipTimes[0] = start; clipTimes[1] = start + length; clipTimes[2] = time;
      sampleRootMotion(rootAt, 0, clip, motion, clipTimes, 0);
      sampleRootMotion(rootAt, 4, clip, motion, clipTimes, 1);
      sampleRootMotion(rootAt, 8, clip, motion, clipTimes, 2);
      // The window's displacement in the character's frame at the play time: the clip's root path
      // turned by minus the heading there.
      const dx = rootAt[4] - rootAt[0], dy = rootAt[5] - rootAt[1], dz = rootAt[6] - rootAt[2];
      const c = Math.cos(-rootAt[11]), sn = Math.sin(-rootAt[11]), k = (share * advance) / (dt * length);
      if (motion.up === 'y') {
        vx += (c * dx + sn * dz) * k; vy += dy * k; vz += (c * dz - sn * dx) * k;
      } else {
        vx += (c * dx - sn * dy) * k; vy += (sn * dx + c * dy) * k; vz += dz * k;
      }
    }
    if (measured) {
      vel[0] = vx; vel[1] = vy; vel[2] = vz; vel[3] = 1;
      return;
    }
    // No clip to read: the branch's own share of this frame's root motion over its weight,
    // averaged (exponentially, half-life rootMotionSmoothingTime) from its first value.
    const rm = this.graph.rootMotion, before = this.rootMotionBefore, half = this.props.rootMotionSmoothingTime;
    const k = vel[3] === 0 || !(half > 0) ? 1 : 1 - Math.pow(0.5, dt / half);
    for (let j = 0; j < 3; j++) vel[j] += ((rm[j] - before[j]) / (weight * dt) - vel[j]) * k;
    vel[3] = 1;
  }

  protected evaluateBoneTransforms(input: ComponentPose, out: BoneTransforms): void {
    // Work on a copy, so that the base class can blend the result into the input by alpha.
    const pool = this.graph.componentPosePool;
    const pose = pool.acquire();
    pose.setFromLocal(input.ensureAllLocal());
    this.warpPose(pose);
    const legs = this.props.legs.length;
    out.add(this.pelvis, pose);
    for (let i = 0; i < legs * 3; i++) out.add(this.legBones[i], pose);
    pool.release(pose);
  }

  /** At full alpha the warp edits the pose itself: the same writes, without a copy to make them on. */
  protected override evaluateInPlace(pose: ComponentPose): boolean {
    this.warpPose(pose);
    return true;
  }

  /** Steps 1 to 5 on `pose`, in place. */
  private warpPose(pose: ComponentPose): void {
    const p = this.props, values = this.graph.parameterValues;
    // With the feet step off, the later steps see the FK feet (the scale still reaches root motion).
    const scale = p.warpFeet ? this.scale[0] : 1;
    readVec3(v, N, values, p.floorNormal);
    readVec3(v, G, values, p.gravityDirection);
    if (!normalize3(v, N)) { v[N] = 0; v[N + 1] = 1; v[N + 2] = 0; }
    if (!normalize3(v, G)) { v[G] = -v[N]; v[G + 1] = -v[N + 1]; v[G + 2] = -v[N + 2]; }
    // 1. Stride direction tangent to the floor.
    v[D] = this.direction[0]; v[D + 1] = this.direction[1]; v[D + 2] = this.direction[2];
    const along = v[D] * v[N] + v[D + 1] * v[N + 1] + v[D + 2] * v[N + 2];
    v[D] -= along * v[N]; v[D + 1] -= along * v[N + 1]; v[D + 2] -= along * v[N + 2];
    const warp = normalize3(v, D);
    const legs = p.legs.length;
    const pelvis = this.pelvis;
    pose.ensureComponent(pelvis);
    for (let k = 0; k < 3; k++) v[P0 + k] = pose.translations[pelvis * 3 + k];
    const warped = this.warpedFeet;
    const fkLength = this.fkLengths;
    // 2. Warp each FK foot about its scale origin.
    for (let i = 0; i < legs; i++) {
      const thigh = this.legBones[i * 3], foot = this.legBones[i * 3 + 2];
      pose.ensureComponent(foot);
      pose.ensureComponent(thigh);
      for (let k = 0; k < 3; k++) {
        v[F + k] = pose.translations[foot * 3 + k];
        v[H + k] = pose.translations[thigh * 3 + k];
      }
      for (let k = 0; k < 4; k++) this.fkFootRotations[i * 4 + k] = pose.rotations[foot * 4 + k];
      fkLength[i] = Math.sqrt((v[F] - v[H]) * (v[F] - v[H]) + (v[F + 1] - v[H + 1]) * (v[F + 1] - v[H + 1]) + (v[F + 2] - v[H + 2]) * (v[F + 2] - v[H + 2]));
      this.fkPelvisDistances[i] = Math.sqrt((v[F] - v[P0]) * (v[F] - v[P0]) + (v[F + 1] - v[P0 + 1]) * (v[F + 1] - v[P0 + 1]) + (v[F + 2] - v[P0 + 2]) * (v[F + 2] - v[P0 + 2]));
      // Plane origin: the thigh's gravity line meeting the floor plane through the foot.
      const gn = v[G] * v[N] + v[G + 1] * v[N + 1] + v[G + 2] * v[N + 2];
      if (Math.abs(gn) > 1e-6) {
        const t = ((v[F] - v[H]) * v[N] + (v[F + 1] - v[H + 1]) * v[N + 1] + (v[F + 2] - v[H + 2]) * v[N + 2]) / gn;
        for (let k = 0; k < 3; k++) v[O + k] = v[H + k] + v[G + k] * t;
      } else for (let k = 0; k < 3; k++) v[O + k] = v[F + k];
      // Scale origin: the foot projected on the plane through O normal to the stride direction.
      const offset = warp ? (v[F] - v[O]) * v[D] + (v[F + 1] - v[O + 1]) * v[D + 1] + (v[F + 2] - v[O + 2]) * v[D + 2] : 0;
      for (let k = 0; k < 3; k++) {
        const origin = v[F + k] - offset * v[D + k];
        this.debugPoints[i * 3 + k] = origin;
        warped[i * 3 + k] = origin + (v[F + k] - origin) * scale;
      }
    }
    // 3. Pelvis adjustment: toward each warped foot to its FK distance, averaged.
    for (let k = 0; k < 3; k++) v[P + k] = v[P0 + k];
    if (p.adjustPelvis && legs > 0) {
      const iterations = Math.min(Math.max(Math.round(p.pelvisIterations), 1), 10);
      for (let it = 0; it < iterations; it++) {
        for (let k = 0; k < 3; k++) v[TMP + k] = 0;
        for (let i = 0; i < legs; i++) {
          const fx = warped[i * 3], fy = warped[i * 3 + 1], fz = warped[i * 3 + 2];
          const dist = this.fkPelvisDistances[i];
          let dx = v[P] - fx, dy = v[P + 1] - fy, dz = v[P + 2] - fz;
          const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (len > 1e-9) { dx /= len; dy /= len; dz /= len; } else { dx = -v[G]; dy = -v[G + 1]; dz = -v[G + 2]; }
          v[TMP] += (fx + dx * dist) / legs;
          v[TMP + 1] += (fy + dy * dist) / legs;
          v[TMP + 2] += (fz + dz * dist) / legs;
        }
        for (let k = 0; k < 3; k++) v[P + k] = v[TMP + k];
      }
      // The average can leave one foot out of reach: lower the pelvis (along gravity) until every
      // warped foot is within its FK distance.
      let drop = 0;
      for (let i = 0; i < legs; i++) {
        const ex = v[P] - warped[i * 3], ey = v[P + 1] - warped[i * 3 + 1], ez = v[P + 2] - warped[i * 3 + 2];
        const eg = ex * v[G] + ey * v[G + 1] + ez * v[G + 2];
        const excess = ex * ex + ey * ey + ez * ez - this.fkPelvisDistances[i] * this.fkPelvisDistances[i];
        if (excess <= 0) continue;
        const disc = eg * eg - excess;
        // The first point on the way down at which the foot is in reach (or the closest one).
        const t = disc >= 0 ? -eg - Math.sqrt(disc) : -eg;
        if (t > drop) drop = t;
      }
      for (let k = 0; k < 3; k++) v[P + k] += drop * v[G + k];
      // Never raise the pelvis: shorter strides are reached by bending the legs, and a raised
      // pelvis would leave the averaged-out foot unable to reach the floor.
      const rise = -((v[P] - v[P0]) * v[G] + (v[P + 1] - v[P0 + 1]) * v[G + 1] + (v[P + 2] - v[P0 + 2]) * v[G + 2]);
      if (rise > 0) for (let k = 0; k < 3; k++) v[P + k] += rise * v[G + k];
      // Smooth the adjustment (critically damped spring with the given half-life), then blend by alpha.
      const dt = this.scale[4], sp = this.spring;
      for (let k = 0; k < 3; k++) {
        const targetOffset = v[P + k] - v[P0 + k];
        const y = (4 * Math.LN2) / p.pelvisSmoothingTime / 2, e = Math.exp(-y * dt);
        // Below a microsecond, or settled within the frame (e = 0), the spring is skipped: its
        // y² (from a half-life of 1e-151 s) or j1 × dt would overflow and give 0 × Infinity.
        if (p.pelvisSmoothingTime >= 1e-6 && dt > 0 && e > 0) {
          const j0 = sp[k] - targetOffset, j1 = sp[3 + k] + j0 * y;
          sp[k] = e * (j0 + j1 * dt) + targetOffset;
          sp[3 + k] = e * (sp[3 + k] - j1 * y * dt);
        } else {
          sp[k] = targetOffset;
          sp[3 + k] = 0;
        }
      }
      const pa = p.pelvisAlpha;
      const alpha = Math.min(Math.max(pa.slot >= 0 ? values[pa.slot] : pa.constant * 1, 0), 1);
      for (let k = 0; k < 3; k++) v[P + k] = v[P0 + k] + sp[k] * alpha;
    }
    for (let k = 0; k < 3; k++) {
      this.debugPoints[legs * 3 + k] = v[P + k];
      this.debugPoints[legs * 3 + 3 + k] = v[P + k] - v[P0 + k];
    }
    loadBone(pose, pelvis);
    for (let k = 0; k < 3; k++) xf.t[k] = v[P + k];
    pose.setComponent(pelvis, xf.t, xf.r, xf.s, 0);
    // 4 and 5, per leg: thigh correction, then IK to the warped foot.
    for (let i = 0; i < legs; i++) {
      const thigh = this.legBones[i * 3], calf = this.legBones[i * 3 + 1], foot = this.legBones[i * 3 + 2];
      pose.ensureComponent(thigh);
      pose.ensureComponent(foot);
      for (let k = 0; k < 3; k++) {
        v[H + k] = pose.translations[thigh * 3 + k];
        v[W + k] = warped[i * 3 + k];
      }
      if (p.correctThighs) {
        // FK leg direction (from the moved thigh to the current foot) to the warped leg direction.
        for (let k = 0; k < 3; k++) {
          v[TMP + k] = pose.translations[foot * 3 + k] - v[H + k];
          v[TMP2 + k] = v[W + k] - v[H + k];
        }
        if (normalize3(v, TMP) && normalize3(v, TMP2)) {
          // A half turn (never for a leg within one frame) would turn about the floor normal.
          quatFromTo(v, Q, v, TMP, v, TMP2, v, N);
          loadBone(pose, thigh);
          quatMultiply(xf.r, 0, v, Q, xf.r, 0);
          pose.setComponent(thigh, xf.t, xf.r, xf.s, 0);
        }
      }
      if (p.clampLegLength) {
        const dx = v[W] - v[H], dy = v[W + 1] - v[H + 1], dz = v[W + 2] - v[H + 2];
        const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
        if (len > fkLength[i] && len > 1e-9) {
          const k = fkLength[i] / len;
          v[W] = v[H] + dx * k; v[W + 1] = v[H + 1] + dy * k; v[W + 2] = v[H + 2] + dz * k;
        }
      }
      if (p.solveIk) solveLeg(pose, thigh, calf, foot, v, W, this.fkFootRotations, i * 4);
    }
  }

  private readonly warpedFeet = new Float64Array(8 * 3);
  private readonly fkLengths = new Float64Array(8);
  private readonly fkPelvisDistances = new Float64Array(8);
  private readonly fkFootRotations = new Float64Array(8 * 4);

  protected override debugDescription(): string {
    const legs = this.props.legs.length, d = this.debugPoints;
    const origins = this.props.legs.map((leg, i) => `${leg.foot} origin (${fmt(d, i * 3)})`).join(' ');
    return `Scale: ${this.scale[0].toFixed(3)} ${origins} Pelvis (${fmt(d, legs * 3)}) offset (${fmt(d, legs * 3 + 3)})`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    super.onGatherDebug(node);
    const legs = this.props.legs.length, d = this.debugPoints;
    const values: Record<string, number | number[]> = {
      strideScale: this.scale[0],
      strideDirection: Array.from(this.direction),
      ...(this.props.fromRootMotion ? { rootMotionSpeed: this.velocity[4] } : {}),
      pelvis: Array.from(d.subarray(legs * 3, legs * 3 + 3)),
      pelvisOffset: Array.from(d.subarray(legs * 3 + 3, legs * 3 + 6)),
    };
    this.props.legs.forEach((leg, i) => { values[`scaleOrigin.${leg.foot}`] = Array.from(d.subarray(i * 3, i * 3 + 3)); });
    node.values = values;
  }
}

// The leg chain [thigh, calf, foot] for the shared two-bone solver, and its options (keep the
// foot's FK rotation; no hint: keep the leg's own bend plane).
const chainPositions = new Float64Array(9);
const chainRotations = new Float64Array(12);
const ikOptions = twoBoneIKOptions({ keepEndRotation: true });

/** Solves a leg with the two-bone IK solver and writes the three bones back (children follow). */
function solveLeg(pose: ComponentPose, upper: number, middle: number, end: number, target: Float64Array, to: number, footRotation: Float64Array, fo: number): void {
  pose.ensureComponent(upper);
  pose.ensureComponent(middle);
  pose.ensureComponent(end);
  for (let k = 0; k < 3; k++) {
    chainPositions[k] = pose.translations[upper * 3 + k];
    chainPositions[3 + k] = pose.translations[middle * 3 + k];
    chainPositions[6 + k] = pose.translations[end * 3 + k];
  }
  for (let k = 0; k < 4; k++) {
    chainRotations[k] = pose.rotations[upper * 4 + k];
    chainRotations[4 + k] = pose.rotations[middle * 4 + k];
    // The foot's input rotation, not its current one: the thigh correction has turned it with the leg.
    chainRotations[8 + k] = footRotation[fo + k];
  }
  solveTwoBoneIK(chainPositions, chainRotations, chainPositions, chainRotations, target, to, ikOptions);
  writeBone(pose, upper, 0);
  writeBone(pose, middle, 1);
  writeBone(pose, end, 2);
}

function writeBone(pose: ComponentPose, bone: number, index: number): void {
  loadBone(pose, bone);
  for (let k = 0; k < 3; k++) xf.t[k] = chainPositions[index * 3 + k];
  for (let k = 0; k < 4; k++) xf.r[k] = chainRotations[index * 4 + k];
  pose.setComponent(bone, xf.t, xf.r, xf.s, 0);
}

function fmt(a: Float64Array, o: number): string {
  return `${a[o].toFixed(1)}, ${a[o + 1].toFixed(1)}, ${a[o + 2].toFixed(1)}`;
}

const LEG_SIDES = ['left', 'right'] as const;

export const StrideWarpingType: NodeType = {
  type: 'StrideWarping',
  space: 'component',
  properties: {
    mode: { kind: 'enum', options: ['manual', 'fromRootMotion'], default: 'manual' },
    strideScale: { kind: 'float', default: 1 },
    strideDirection: { kind: 'vec3', default: [0, 0, 1] },
    locomotionSpeed: { kind: 'float', default: 0 },
    minRootMotionSpeed: { kind: 'float', default: 1, min: 0 },
    rootMotionWindow: { kind: 'float', default: 0, min: 0 },
    rootMotionSmoothingTime: { kind: 'float', default: 0.5, min: 0 },
    minScale: { kind: 'float', default: 0.5, min: 0 },
    maxScale: { kind: 'float', default: 2, min: 0 },
    scaleSmoothingTime: { kind: 'float', default: 0, min: 0 },
    floorNormal: { kind: 'vec3', default: [0, 1, 0] },
    gravityDirection: { kind: 'vec3', default: [0, -1, 0] },
    pelvisBone: { kind: 'bone' },
    leftThigh: { kind: 'bone' },
    leftCalf: { kind: 'bone' },
    leftFoot: { kind: 'bone' },
    rightThigh: { kind: 'bone' },
    rightCalf: { kind: 'bone' },
    rightFoot: { kind: 'bone' },
    warpFeet: { kind: 'bool', default: true },
    adjustPelvis: { kind: 'bool', default: true },
    pelvisIterations: { kind: 'int', default: 3, min: 1, max: 10 },
    pelvisSmoothingTime: { kind: 'float', default: 0, min: 0 },
    pelvisAlpha: { kind: 'float', default: 1, min: 0, max: 1 },
    correctThighs: { kind: 'bool', default: true },
    clampLegLength: { kind: 'bool', default: true },
    solveIk: { kind: 'bool', default: true },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  create: ({ id, properties: p, inputs }) =>
    new StrideWarping(id, inputs.pose as ComponentPoseLink, p.scalar('alpha'), {
      fromRootMotion: p.enumValue('mode') === 'fromRootMotion',
      strideScale: p.scalar('strideScale'),
      strideDirection: p.vec3('strideDirection'),
      locomotionSpeed: p.scalar('locomotionSpeed'),
      minRootMotionSpeed: p.scalar('minRootMotionSpeed').constant,
      rootMotionWindow: p.scalar('rootMotionWindow').constant,
      rootMotionSmoothingTime: p.scalar('rootMotionSmoothingTime').constant,
      minScale: p.scalar('minScale').constant,
      maxScale: p.scalar('maxScale').constant,
      scaleSmoothingTime: p.scalar('scaleSmoothingTime').constant,
      floorNormal: p.vec3('floorNormal'),
      gravityDirection: p.vec3('gravityDirection'),
      pelvisBone: p.bone('pelvisBone'),
      legs: LEG_SIDES.map((side) => ({ thigh: p.bone(`${side}Thigh`), calf: p.bone(`${side}Calf`), foot: p.bone(`${side}Foot`) })),
      warpFeet: p.scalar('warpFeet').constant !== 0,
      adjustPelvis: p.scalar('adjustPelvis').constant !== 0,
      pelvisIterations: p.scalar('pelvisIterations').constant,
      pelvisSmoothingTime: p.scalar('pelvisSmoothingTime').constant,
      pelvisAlpha: p.scalar('pelvisAlpha'),
      correctThighs: p.scalar('correctThighs').constant !== 0,
      clampLegLength: p.scalar('clampLegLength').constant !== 0,
      solveIk: p.scalar('solveIk').constant !== 0,
    }),
};
