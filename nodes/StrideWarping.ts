import { ComponentPose } from '../runtime/component-pose.ts';
import { quatFromTo, quatMultiply, quatRotateVec3 } from '../runtime/math.ts';
import {
  ZERO_WEIGHT, readVec3,
  type CacheBonesContext, type ComponentPoseLink, type DebugNode, type NodeType, type ScalarProperty, type UpdateContext, type Vec3Property,
} from '../runtime/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/skeletal-control.ts';
import { IK_HINT, solveTwoBoneIK, twoBoneIKOptions } from '../runtime/two-bone-ik.ts';
import { defineNodeType } from '../runtime/node-type.ts';

/** Per-frame scratch, module-wide: nodes never run concurrently. */
const v = new Float64Array(64);
// Offsets into v for named 3-vectors.
const N = 0, G = 3, D = 6, F = 9, H = 12, O = 15, W = 18, P0 = 21, P = 24, TMP = 27, TMP2 = 30, Q = 36, K = 40, R = 43, TMP3 = 47;

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

// Per-frame settings (StrideWarping.settings), each a literal or a bound parameter read every frame.
const STRIDE_SCALE = 0, LOCOMOTION_SPEED = 1, MIN_ROOT_MOTION_SPEED = 2, ROOT_MOTION_WINDOW = 3, ROOT_MOTION_SMOOTHING = 4;
const MIN_SCALE = 5, MAX_SCALE = 6, SCALE_SMOOTHING = 7, PELVIS_SMOOTHING = 8, PELVIS_MAX_SPEED = 9, PELVIS_ALPHA = 10;
const SETTINGS = 11;
/** Settings that are lengths of time, speeds or scales: a negative or NaN value is taken as 0. */
const NON_NEGATIVE = Int32Array.of(MIN_ROOT_MOTION_SPEED, ROOT_MOTION_WINDOW, ROOT_MOTION_SMOOTHING, MIN_SCALE, SCALE_SMOOTHING, PELVIS_SMOOTHING, PELVIS_MAX_SPEED);
/** The properties behind the settings, in slot order. */
const SETTING_NAMES = [
  'strideScale', 'locomotionSpeed', 'minRootMotionSpeed', 'rootMotionWindow', 'rootMotionSmoothingTime',
  'minScale', 'maxScale', 'scaleSmoothingTime', 'pelvisSmoothingTime', 'pelvisMaxSpeed', 'pelvisAlpha',
] as const;

/** The automatic minimum root-motion speed (minRootMotionSpeed 0): this fraction of a leg length per second. */
const AUTO_MIN_SPEED = 0.01;
/**
 * A foot is planted when its FK height above the lowest it has recently been is at most this
 * fraction of its leg length (5%: about 4 cm on a human, the ankle's rise at heel-off).
 */
const PLANTED_HEIGHT = 0.05;
/** Half-life (s) with which a foot's lowest height rises back toward it, so a raised floor is followed. */
const LOWEST_HALF_LIFE = 2;
/**
 * An FK knee whose offset from its hip-foot line is at least this fraction of the thigh (a bend of
 * about 11 degrees) shows the knee's bend direction clearly enough to learn it from.
 */
const KNEE_BENT = 0.1;

/**
 * Default half-life of the scale's approach to a new target (s). A change of scale moves a planted
 * foot by the change times its offset from its scale origin: from 1 to 1.5 at once, 8 to 13 cm on
 * a CMU walk. Spread over a tenth of a second, most of a stance (0.3 to 0.6 s) still takes the
 * new scale, and the foot creeps by about 2 cm instead of jumping.
 */
const DEFAULT_SCALE_SMOOTHING = 0.1;
/**
 * Default half-life of the pelvis spring (s): about Unreal's (a critically damped spring of
 * stiffness 100, so 10 rad/s, whose half-life in this parameterisation is 2 ln 2 / 10 = 0.14 s).
 */
const DEFAULT_PELVIS_SMOOTHING = 0.14;
/** Default cap on the pelvis adjustment's speed, in leg lengths per second. */
const DEFAULT_PELVIS_MAX_SPEED = 0.5;

/**
 * Stride warping (Unreal 5's AnimationWarping, with the seed's fix): lengthens or shortens each
 * step instead of changing the play rate. In component space, per frame:
 * 1. the stride direction is made tangent to the floor;
 * 2. each FK foot is scaled about its scale origin (the thigh's gravity line meeting the floor
 *    plane through the foot, projected onto the plane normal to the stride direction): only the
 *    foot's offset along the stride direction is scaled, so heights are kept;
 * 3. the pelvis is moved toward the warped feet so each leg keeps its FK length (1 to 10
 *    iterations, averaged over the feet, as Unreal), then lowered along gravity until every planted
 *    foot is within reach (a foot in the air may fall short: lowering the pelvis for a swinging
 *    foot ahead of a long stride dips the whole body for a step that touches nothing), never
 *    upward; smoothed by a critically damped spring, its speed capped, and blended in by
 *    `pelvisAlpha`;
 * 4. each thigh is turned by the rotation between its FK leg direction and its warped one;
 * 5. the foot target is clamped to the FK leg length from the moved thigh and the leg is solved
 *    with the two-bone IK solver, the foot keeping its FK component-space rotation and the knee
 *    bending toward its FK side (see kneePole).
 * Each step can be switched off. Warping starts from the FK foot, not an IK bone (the seed shows
 * why: warping an IK bone that already follows the foot makes the feet tread in place).
 *
 * In `fromRootMotion` mode the scale is the locomotion speed over the root-motion speed of the
 * branch below, and only the root motion that branch reports (UpdateContext.rootMotion) is scaled
 * by it: a sibling's share under a blend is left alone. The speed is that of the branch at full
 * weight, so the node's own blend weight does not enter it. It is the branch's reported
 * root-motion velocity (UpdateContext.rootVelocity): each clip's mean root velocity over a window
 * of clip time (`rootMotionWindow`, the whole clip by default) at the pace and share of weight it
 * plays at. The root's speed rises and falls within each step, and a scale following it would
 * slide the feet, while a running average of it needs seconds to settle and still ripples (by ±5%
 * on the CMU slow walk). Root motion from nodes that report no velocity is measured from the
 * branch's delta itself, averaged with half-life `rootMotionSmoothingTime`.
 */
export class StrideWarping extends SkeletalControlNode {
  private pelvis = -1;
  private readonly legBones: Int32Array;
  /** Mean length (thigh to calf to foot) of the legs in the reference pose: the node's sense of scale. */
  private readonly legLength = new Float64Array(1);
  /** [scale in use, smoothed scale, target scale, has smoothed value, dt]. */
  private readonly scale = new Float64Array(5);
  /** Stride direction in use (component space). */
  private readonly direction = new Float64Array(3);
  /** fromRootMotion: the branch's root-motion velocity at full weight [x, y, z, has value, speed]. */
  private readonly velocity = new Float64Array(5);
  /** This frame's settings (see SETTING_NAMES), read from parameters or literals. */
  private readonly settings = new Float64Array(SETTINGS);
  private readonly settingSlots: Int32Array;
  private readonly settingLiterals: Float64Array;
  /** Pelvis adjustment spring [position xyz, velocity xyz, has value]. */
  private readonly spring = new Float64Array(7);
  /** Per leg: the lowest FK foot height recently seen (along the floor normal), and whether it is set. */
  private readonly lowest = new Float64Array(8 * 2);
  /** Per leg: 1 when the FK foot counts as planted this frame. */
  private readonly planted = new Uint8Array(8);
  /** Per leg: the knee's bend direction in the thigh's local frame, learned from a bent FK knee, and whether it is set. */
  private readonly kneeAxes = new Float64Array(8 * 4);
  /** Per leg: this frame's bend direction for the IK (component space). */
  private readonly kneePoles = new Float64Array(8 * 3);
  /** Debug: per leg scale origin (3) then adjusted pelvis (3) and offset (3). */
  readonly debugPoints: Float64Array;

  constructor(
    id: string,
    input: ComponentPoseLink,
    alpha: ScalarProperty,
    private readonly props: {
      fromRootMotion: boolean;
      /** Bound or literal per-frame settings, by name (SETTING_NAMES). */
      settings: Readonly<Record<(typeof SETTING_NAMES)[number], ScalarProperty>>;
      strideDirection: Vec3Property;
      floorNormal: Vec3Property;
      gravityDirection: Vec3Property;
      pelvisBone: string;
      legs: readonly Leg[];
      warpFeet: boolean;
      adjustPelvis: boolean;
      pelvisIterations: number;
      correctThighs: boolean;
      clampLegLength: boolean;
      solveIk: boolean;
    },
  ) {
    super(id, 'StrideWarping', input, alpha);
    this.legBones = new Int32Array(props.legs.length * 3).fill(-1);
    this.debugPoints = new Float64Array(props.legs.length * 3 + 6);
    this.settingSlots = Int32Array.from(SETTING_NAMES, (name) => props.settings[name].slot);
    this.settingLiterals = Float64Array.from(SETTING_NAMES, (name) => props.settings[name].constant);
  }

  protected override onInitialize(): void {
    super.onInitialize();
    this.scale.fill(0);
    this.scale[0] = 1;
    this.velocity.fill(0);
    this.kneeAxes.fill(0);
    this.restart();
  }

  protected override onBecomeRelevant(): void {
    // A velocity averaged before a pause describes motion that is over; the scale, the pelvis and
    // the feet start again from what they are now rather than from where they were.
    this.velocity.fill(0);
    this.restart();
  }

  private restart(): void {
    this.scale[3] = 0;
    this.spring.fill(0);
    this.lowest.fill(0);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    this.pelvis = ctx.boneIndex(this.id, this.props.pelvisBone);
    this.props.legs.forEach((leg, i) => {
      this.legBones[i * 3] = ctx.boneIndex(this.id, leg.thigh);
      this.legBones[i * 3 + 1] = ctx.boneIndex(this.id, leg.calf);
      this.legBones[i * 3 + 2] = ctx.boneIndex(this.id, leg.foot);
    });
    // The legs' length in the reference pose sizes what the skeleton's units leave open (the
    // automatic minimum speed, the pelvis speed cap, the planted-foot height).
    let sum = 0, count = 0;
    if (this.legBones.every((b) => b >= 0)) {
      const reference = new ComponentPose(ctx.skeleton);
      reference.setFromLocal(ctx.skeleton.referencePose);
      const position = (bone: number) => { reference.ensureComponent(bone); return reference.translations.subarray(bone * 3, bone * 3 + 3); };
      const distance = (a: number, b: number) => { const p = position(a), q = position(b); return Math.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2); };
      for (let i = 0; i < this.props.legs.length; i++) {
        sum += distance(this.legBones[i * 3], this.legBones[i * 3 + 1]) + distance(this.legBones[i * 3 + 1], this.legBones[i * 3 + 2]);
        count++;
      }
    }
    this.legLength[0] = count > 0 && sum > 0 ? sum / count : 0;
  }

  protected override isValidToEvaluate(): boolean {
    if (this.pelvis < 0) return false;
    for (let i = 0; i < this.legBones.length; i++) if (this.legBones[i] < 0) return false;
    return true;
  }

  /**
   * The input is updated with a context of its own, so that what it reports (its root motion, its
   * root-motion velocity) is this node's to read and scale before it joins the branch above.
   */
  protected override onUpdate(ctx: UpdateContext): void {
    this.readSettings();
    const child = ctx.child();
    if (this.props.fromRootMotion) child.rootVelocityWindow = this.settings[ROOT_MOTION_WINDOW];
    super.onUpdate(child);
  }

  /** This frame's settings, each bound value checked: a NaN or out-of-range parameter never reaches the warp. */
  private readSettings(): void {
    const values = this.graph.parameterValues, set = this.settings, slots = this.settingSlots, literals = this.settingLiterals;
    for (let i = 0; i < SETTINGS; i++) {
      const slot = slots[i];
      set[i] = slot >= 0 ? values[slot] : literals[i];
    }
    for (let j = 0; j < NON_NEGATIVE.length; j++) if (!(set[NON_NEGATIVE[j]] >= 0)) set[NON_NEGATIVE[j]] = 0; // NaN too
    if (!(set[ROOT_MOTION_WINDOW] < Infinity)) set[ROOT_MOTION_WINDOW] = 0;
    if (!(set[MAX_SCALE] >= set[MIN_SCALE])) set[MAX_SCALE] = set[MIN_SCALE];
    const pa = set[PELVIS_ALPHA];
    set[PELVIS_ALPHA] = pa > 0 ? (pa < 1 ? pa : 1) : 0;
  }

  protected override updateControl(ctx: UpdateContext): void {
    const p = this.props, values = this.graph.parameterValues, s = this.scale, set = this.settings;
    s[4] = ctx.deltaTime;
    let target = 1;
    if (p.fromRootMotion) {
      this.measureRootMotion(ctx);
      const vel = this.velocity;
      const speed = vel[3] === 1 ? Math.sqrt(vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]) : 0;
      vel[4] = speed;
      const given = set[MIN_ROOT_MOTION_SPEED];
      const minSpeed = given > 0 ? given : AUTO_MIN_SPEED * this.legLength[0];
      const wanted = set[LOCOMOTION_SPEED];
      if (speed >= minSpeed && speed > 0 && wanted === wanted) {
        target = wanted / speed;
        this.direction[0] = vel[0] / speed; this.direction[1] = vel[1] / speed; this.direction[2] = vel[2] / speed;
      } else readVec3(this.direction, 0, values, p.strideDirection);
    } else {
      target = set[STRIDE_SCALE];
      readVec3(this.direction, 0, values, p.strideDirection);
    }
    if (!(target === target)) target = 1;
    target = Math.min(Math.max(target, set[MIN_SCALE]), set[MAX_SCALE]);
    s[2] = target;
    const half = set[SCALE_SMOOTHING];
    if (half > 0 && s[3] === 1) {
      // Exponential approach with the given half-life.
      const k = 1 - Math.pow(0.5, ctx.deltaTime / half);
      s[1] += (target - s[1]) * k;
    } else {
      s[1] = target;
      s[3] = 1;
    }
    s[0] = s[1];
    if (p.fromRootMotion) {
      // Scale what the branch below reported, so the character moves at the locomotion speed while
      // a sibling's share under a blend (reported to the blend by the sibling) keeps its own.
      const rm = ctx.rootMotion, scale = s[0];
      rm[0] *= scale; rm[1] *= scale; rm[2] *= scale;
    }
  }

  /**
   * The branch's root-motion velocity at full weight into `velocity`: what its sources reported
   * (UpdateContext.rootVelocity) over this node's weight; from branches that report none, the
   * root motion they added this frame over weight and time, averaged (half-life
   * rootMotionSmoothingTime) from its first value. Kept as it was when there is nothing to measure.
   */
  private measureRootMotion(ctx: UpdateContext): void {
    const dt = ctx.deltaTime, weight = ctx.weight, vel = this.velocity, rv = ctx.rootVelocity;
    if (!(weight > ZERO_WEIGHT)) return;
    if (rv[3] > 0) {
      vel[0] = rv[0] / weight; vel[1] = rv[1] / weight; vel[2] = rv[2] / weight; vel[3] = 1;
      return;
    }
    if (!(dt > 0)) return;
    const rm = ctx.rootMotion, half = this.settings[ROOT_MOTION_SMOOTHING];
    const k = vel[3] === 0 || !(half > 0) ? 1 : 1 - Math.pow(0.5, dt / half);
    for (let j = 0; j < 3; j++) vel[j] += (rm[j] / (weight * dt) - vel[j]) * k;
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
    const p = this.props, values = this.graph.parameterValues, set = this.settings;
    // With the feet step off, the later steps see the FK feet (the scale still reaches root motion).
    const scale = p.warpFeet ? this.scale[0] : 1;
    const dt = this.scale[4], legLength = this.legLength[0];
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
    const lowest = this.lowest, rise = dt > 0 ? 1 - Math.pow(0.5, dt / LOWEST_HALF_LIFE) : 0;
    // 2. Warp each FK foot about its scale origin.
    for (let i = 0; i < legs; i++) {
      const thigh = this.legBones[i * 3], calf = this.legBones[i * 3 + 1], foot = this.legBones[i * 3 + 2];
      pose.ensureComponent(foot);
      pose.ensureComponent(calf);
      pose.ensureComponent(thigh);
      for (let k = 0; k < 3; k++) {
        v[F + k] = pose.translations[foot * 3 + k];
        v[H + k] = pose.translations[thigh * 3 + k];
        v[K + k] = pose.translations[calf * 3 + k];
      }
      for (let k = 0; k < 4; k++) {
        this.fkFootRotations[i * 4 + k] = pose.rotations[foot * 4 + k];
        v[R + k] = pose.rotations[thigh * 4 + k];
      }
      fkLength[i] = Math.sqrt((v[F] - v[H]) * (v[F] - v[H]) + (v[F + 1] - v[H + 1]) * (v[F + 1] - v[H + 1]) + (v[F + 2] - v[H + 2]) * (v[F + 2] - v[H + 2]));
      this.fkPelvisDistances[i] = Math.sqrt((v[F] - v[P0]) * (v[F] - v[P0]) + (v[F + 1] - v[P0 + 1]) * (v[F + 1] - v[P0 + 1]) + (v[F + 2] - v[P0 + 2]) * (v[F + 2] - v[P0 + 2]));
      this.kneePole(i);
      // Planted: the FK foot near the lowest it has recently been, along the floor normal.
      const height = v[F] * v[N] + v[F + 1] * v[N + 1] + v[F + 2] * v[N + 2];
      if (lowest[i * 2 + 1] === 0 || height < lowest[i * 2]) {
        lowest[i * 2] = height;
        lowest[i * 2 + 1] = 1;
      } else lowest[i * 2] += (height - lowest[i * 2]) * rise;
      this.planted[i] = height - lowest[i * 2] <= PLANTED_HEIGHT * legLength ? 1 : 0;
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
      // The average can leave a foot out of reach: lower the pelvis (along gravity) until every
      // planted warped foot is within its FK distance. A foot in the air is left to the leg clamp.
      this.reachPlantedFeet();
      // Never raise the pelvis: shorter strides are reached by bending the legs, and a raised
      // pelvis would leave the averaged-out foot unable to reach the floor.
      const up = -((v[P] - v[P0]) * v[G] + (v[P + 1] - v[P0 + 1]) * v[G + 1] + (v[P + 2] - v[P0 + 2]) * v[G + 2]);
      if (up > 0) for (let k = 0; k < 3; k++) v[P + k] += up * v[G + k];
      // Smooth the adjustment (critically damped spring with the given half-life; the first frame
      // takes it as it is), cap its speed, then blend by alpha.
      const sp = this.spring, half = set[PELVIS_SMOOTHING];
      if (sp[6] === 0) {
        for (let k = 0; k < 3; k++) { sp[k] = v[P + k] - v[P0 + k]; sp[3 + k] = 0; }
        sp[6] = 1;
      } else if (dt > 0) {
        for (let k = 0; k < 3; k++) v[TMP + k] = sp[k];
        for (let k = 0; k < 3; k++) {
          const targetOffset = v[P + k] - v[P0 + k];
          const y = (2 * Math.LN2) / half, e = Math.exp(-y * dt);
          // Below a microsecond, or settled within the frame (e = 0), the spring is skipped: its
          // y² (from a half-life of 1e-151 s) or j1 × dt would overflow and give 0 × Infinity.
          if (half >= 1e-6 && e > 0) {
            const j0 = sp[k] - targetOffset, j1 = sp[3 + k] + j0 * y;
            sp[k] = e * (j0 + j1 * dt) + targetOffset;
            sp[3 + k] = e * (sp[3 + k] - j1 * y * dt);
          } else {
            sp[k] = targetOffset;
            sp[3 + k] = 0;
          }
        }
        const cap = set[PELVIS_MAX_SPEED] * legLength * dt;
        const mx = sp[0] - v[TMP], my = sp[1] - v[TMP + 1], mz = sp[2] - v[TMP + 2];
        const moved = Math.sqrt(mx * mx + my * my + mz * mz);
        if (cap > 0 && moved > cap) {
          const k = cap / moved;
          sp[0] = v[TMP] + mx * k; sp[1] = v[TMP + 1] + my * k; sp[2] = v[TMP + 2] + mz * k;
          // The spring goes on from the capped motion, not from the speed it wanted.
          sp[3] = (mx * k) / dt; sp[4] = (my * k) / dt; sp[5] = (mz * k) / dt;
        }
      }
      // The spring lags a pelvis that must come down for a foot that has just landed ahead: what it
      // gives is lowered further where a planted foot could not reach (the spring itself goes on
      // undisturbed), so only the way back up, and the adjustment for feet in the air, are eased.
      for (let k = 0; k < 3; k++) v[P + k] = v[P0 + k] + sp[k];
      this.reachPlantedFeet();
      const alpha = set[PELVIS_ALPHA];
      for (let k = 0; k < 3; k++) v[P + k] = v[P0 + k] + (v[P + k] - v[P0 + k]) * alpha;
    }
    for (let k = 0; k < 3; k++) {
      this.debugPoints[legs * 3 + k] = v[P + k];
      this.debugPoints[legs * 3 + 3 + k] = v[P + k] - v[P0 + k];
    }
    loadBone(pose, pelvis);
    for (let k = 0; k < 3; k++) xf.t[k] = v[P + k];
    pose.setComponent(pelvis, xf.t, xf.r, xf.s, 0);
    // 4 and 5, per leg: thigh correction, then IK to the warped foot.
    const poles = this.kneePoles;
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
          // The knee's bend direction turns with the thigh.
          quatRotateVec3(poles, i * 3, v, Q, poles, i * 3);
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
      if (p.solveIk) {
        ikOptions[IK_HINT] = poles[i * 3]; ikOptions[IK_HINT + 1] = poles[i * 3 + 1]; ikOptions[IK_HINT + 2] = poles[i * 3 + 2];
        solveLeg(pose, thigh, calf, foot, v, W, this.fkFootRotations, i * 4);
      }
    }
  }

  /** Lowers the pelvis in v[P] along gravity until every planted warped foot is within its FK distance. */
  private reachPlantedFeet(): void {
    const warped = this.warpedFeet, legs = this.props.legs.length;
    let drop = 0;
    for (let i = 0; i < legs; i++) {
      if (this.planted[i] === 0) continue;
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
  }

  /**
   * Leg i's knee bend direction for the IK into kneePoles (component space, perpendicular to the FK
   * hip-foot line), from the FK leg in v (thigh H with rotation R, knee K, foot F). A bent FK knee
   * gives it: its offset from the hip-foot line, so the warped knee stays in the FK leg's plane,
   * and the direction, in the thigh's frame, is learned. A (nearly) straight FK knee has no plane
   * of its own, and its offset, a few millimetres either way, would flip the knee backward or swing
   * it sideways once the warp makes the leg bend: it takes the learned direction, turned with the
   * thigh, as does a knee bent the other way (hyperextended), so the bend never inverts. Before
   * any bent knee has been seen, the stride direction stands in for it (knees point the way a
   * character walks).
   */
  private kneePole(i: number): void {
    const poles = this.kneePoles, axes = this.kneeAxes, o = i * 3, a = i * 4;
    // Unit hip-foot line in TMP, knee offset from it in TMP2.
    for (let k = 0; k < 3; k++) { v[TMP + k] = v[F + k] - v[H + k]; v[TMP2 + k] = v[K + k] - v[H + k]; }
    const thighLength = Math.sqrt(v[TMP2] * v[TMP2] + v[TMP2 + 1] * v[TMP2 + 1] + v[TMP2 + 2] * v[TMP2 + 2]);
    if (!normalize3(v, TMP)) { poles[o] = 0; poles[o + 1] = 0; poles[o + 2] = 0; return; }
    const kl = v[TMP2] * v[TMP] + v[TMP2 + 1] * v[TMP + 1] + v[TMP2 + 2] * v[TMP + 2];
    for (let k = 0; k < 3; k++) v[TMP2 + k] -= kl * v[TMP + k];
    const bend = Math.sqrt(v[TMP2] * v[TMP2] + v[TMP2 + 1] * v[TMP2 + 1] + v[TMP2 + 2] * v[TMP2 + 2]);
    const learned = axes[a + 3] === 1;
    // The learned direction, in component space, in TMP3.
    if (learned) quatRotateVec3(v, TMP3, v, R, axes, a);
    else for (let k = 0; k < 3; k++) v[TMP3 + k] = v[D + k];
    const agrees = v[TMP2] * v[TMP3] + v[TMP2 + 1] * v[TMP3 + 1] + v[TMP2 + 2] * v[TMP3 + 2] >= 0;
    if (bend > KNEE_BENT * thighLength && (agrees || !learned)) {
      for (let k = 0; k < 3; k++) poles[o + k] = v[TMP2 + k] / bend;
      // Learn it in the thigh's frame: inverse(R) applied to the pole.
      v[R] = -v[R]; v[R + 1] = -v[R + 1]; v[R + 2] = -v[R + 2];
      quatRotateVec3(axes, a, v, R, poles, o);
      v[R] = -v[R]; v[R + 1] = -v[R + 1]; v[R + 2] = -v[R + 2];
      axes[a + 3] = 1;
      return;
    }
    if (!learned && bend > 1e-6 * thighLength && agrees) {
      // Slightly bent, nothing learned: the FK side, which agrees with the direction of travel.
      for (let k = 0; k < 3; k++) poles[o + k] = v[TMP2 + k] / bend;
      return;
    }
    // The learned (or stand-in) direction, made perpendicular to the hip-foot line.
    const kd = v[TMP3] * v[TMP] + v[TMP3 + 1] * v[TMP + 1] + v[TMP3 + 2] * v[TMP + 2];
    for (let k = 0; k < 3; k++) poles[o + k] = v[TMP3 + k] - kd * v[TMP + k];
    if (!normalize3(poles, o)) { poles[o] = 0; poles[o + 1] = 0; poles[o + 2] = 0; }
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
// foot's FK rotation; the hint, each leg's knee pole, is written before each solve).
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

export const StrideWarpingType: NodeType = defineNodeType({
  type: 'StrideWarping',
  space: 'component',
  properties: {
    mode: { kind: 'enum', options: ['manual', 'fromRootMotion'], default: 'manual' },
    strideScale: { kind: 'float', default: 1 },
    strideDirection: { kind: 'vec3', default: [0, 0, 1] },
    locomotionSpeed: { kind: 'float', default: 0 },
    minRootMotionSpeed: { kind: 'float', default: 0, min: 0 },
    rootMotionWindow: { kind: 'float', default: 0, min: 0 },
    rootMotionSmoothingTime: { kind: 'float', default: 0.5, min: 0 },
    minScale: { kind: 'float', default: 0.5, min: 0 },
    maxScale: { kind: 'float', default: 2, min: 0 },
    scaleSmoothingTime: { kind: 'float', default: DEFAULT_SCALE_SMOOTHING, min: 0 },
    floorNormal: { kind: 'vec3', default: [0, 1, 0] },
    gravityDirection: { kind: 'vec3', default: [0, -1, 0] },
    pelvisBone: { kind: 'bone' },
    leftThigh: { kind: 'bone' },
    leftCalf: { kind: 'bone' },
    leftFoot: { kind: 'bone' },
    rightThigh: { kind: 'bone' },
    rightCalf: { kind: 'bone' },
    rightFoot: { kind: 'bone' },
    // Which steps run, and how the pelvis is solved, is the node's set-up: switching a step at run
    // time would pop the pose (alpha and pelvisAlpha fade), so these are read once, not bound.
    warpFeet: { kind: 'bool', default: true, bindable: false },
    adjustPelvis: { kind: 'bool', default: true, bindable: false },
    pelvisIterations: { kind: 'int', default: 3, min: 1, max: 10, bindable: false },
    pelvisSmoothingTime: { kind: 'float', default: DEFAULT_PELVIS_SMOOTHING, min: 0 },
    pelvisMaxSpeed: { kind: 'float', default: DEFAULT_PELVIS_MAX_SPEED, min: 0 },
    pelvisAlpha: { kind: 'float', default: 1, min: 0, max: 1 },
    correctThighs: { kind: 'bool', default: true, bindable: false },
    clampLegLength: { kind: 'bool', default: true, bindable: false },
    solveIk: { kind: 'bool', default: true, bindable: false },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  create: ({ id, properties: p, inputs }) =>
    new StrideWarping(id, inputs.pose, p.alpha, {
      fromRootMotion: p.mode === 'fromRootMotion',
      // The node reads the SETTING_NAMES among them.
      settings: p,
      strideDirection: p.strideDirection,
      floorNormal: p.floorNormal,
      gravityDirection: p.gravityDirection,
      pelvisBone: p.pelvisBone,
      legs: LEG_SIDES.map((side) => ({ thigh: p[`${side}Thigh`], calf: p[`${side}Calf`], foot: p[`${side}Foot`] })),
      // Not bindable (the loader refuses a binding): literals.
      warpFeet: p.warpFeet,
      adjustPelvis: p.adjustPelvis,
      pelvisIterations: p.pelvisIterations,
      correctThighs: p.correctThighs,
      clampLegLength: p.clampLegLength,
      solveIk: p.solveIk,
    }),
});
