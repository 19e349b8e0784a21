import { ComponentPose } from '../runtime/core/component-pose.ts';
import {
  ZERO_WEIGHT, readVec3,
  type CacheBonesContext, type ComponentPoseLink, type DebugNode, type NodeType, type ScalarProperty, type UpdateContext, type Vec3Property,
} from '../runtime/node/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/node/skeletal-control.ts';
import { StrideWarpingJob, normalize3 } from '../runtime/jobs/stride-warping.ts';
import { readStrideLegs, writeStrideLegs } from '../runtime/jobs/stride-warping-pose.ts';
import { StrideWarpingState } from '../runtime/jobs/stride-warping-state.ts';
import { StrideWarpingNumbers, settingBindings, type SettingBindings, type SettingName } from '../runtime/jobs/stride-warping-numbers.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';
import { ScratchNumbers } from '../runtime/core/scratch.ts';

interface Leg {
  foot: string;
  calf: string;
  thigh: string;
}

/**
 * What every instance of one StrideWarping node in a graph shares (the type's `prepare` gives the
 * holder, the first instance fills it): its properties and where each setting comes from, the same
 * for all of them, so that a crowd's characters read one copy rather than each its own.
 */
interface StrideWarpingShared {
  props: ConstructorParameters<typeof StrideWarping>[3] | null;
  bindings: SettingBindings | null;
  /**
   * The solver and its buffers: inputs filled from the pose, outputs read back, within one
   * warpPose (nodes never run concurrently, and warpPose runs no other node and fires no event),
   * so one serves every instance, each lending it its own state. A crowd's characters then read
   * one job's sixteen arrays, not each their own.
   */
  job: StrideWarpingJob | null;
}

/** Per leg, the FK foot's component-space rotation, which the IK keeps: warpPose's scratch (see ScratchNumbers). */
const FK_FOOT_ROTATIONS = new ScratchNumbers();

/** How many numbers a StrideWarping of `legs` legs reserves (NodeBuild.numbers): its own, then its StrideWarpingState's. */
function strideNumberCount(legs: number): number {
  return StrideWarpingNumbers.numberCount(legs) + StrideWarpingState.numberCount(legs);
}

// Numbers kept across calls live in classes with initialised fields (see SettingBinding).

/** The stride scale in use, smoothed toward each frame's target once `smoothing` has started. */
class StrideScale {
  value = 1;
  smoothing = false;
}

/** fromRootMotion: the branch's root-motion velocity at full weight, once `measured`, and its length. */
class RootMotionSpeed {
  readonly velocity = new Float64Array(3);
  measured = false;
  speed = 0;
}

/** The automatic minimum root-motion speed (minRootMotionSpeed 0): this fraction of a leg length per second. */
const AUTO_MIN_SPEED = 0.01;

/**
 * Default half-life of the scale's approach to a new target (s). A change of scale moves a planted
 * foot by the change times its offset from its scale origin: from 1 to 1.5 at once, 8 to 13 cm on
 * a CMU walk. Spread over a tenth of a second, most of a stance (0.3 to 0.6 s) still takes the
 * new scale, and the foot creeps by about 2 cm instead of jumping.
 */
const DEFAULT_SCALE_SMOOTHING = 0.1;
/**
 * Default stiffness of the pelvis spring (per s² at mass 1): ω = 10 rad/s, half way to a new
 * target in 0.17 s. On the CMU walks sped up to 1.5x it keeps the pelvis height's second
 * difference within 1.25x the input's; a stiffer spring lowers the pelvis sooner (a trailing
 * foot rises less early at heel-off: 1.4 cm rather than 2.2 at 500) and jerks more (1.55x at 500).
 * The damping ratio (1) and mass (1) are Unreal's defaults.
 */
const DEFAULT_PELVIS_STIFFNESS = 100;
/** Default cap on the pelvis adjustment's speed, in leg lengths per second. */
const DEFAULT_PELVIS_MAX_SPEED = 0.5;

/**
 * Stride warping (Unreal 5's AnimationWarping, warping from the FK foot): lengthens or shortens each
 * step instead of changing the play rate. The solver is runtime/jobs/stride-warping.ts's
 * StrideWarpingJob (steps 1 to 5 are described there); this node reads its settings, measures
 * and scales root motion, and runs the job on its component-space pose. Each step can be switched
 * off. Warping starts from the FK foot, not an IK bone: warping an IK bone that already follows
 * the foot makes the feet tread in place.
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
  private legLength = 0;
  private readonly scale = new StrideScale();
  /** Seconds updated since the last warp, for the next one (updates without an evaluate add up). */
  private deltaTime = 0;
  /** Stride direction in use (component space). */
  private readonly direction = new Float64Array(3);
  private readonly rootMotion = new RootMotionSpeed();
  private readonly bindings: SettingBindings;
  /** The solver, shared by the graph's instances of this node (StrideWarpingShared.job). */
  private readonly job: StrideWarpingJob;
  /** What the solver carries across frames for this character. */
  private readonly state: StrideWarpingState;
  /** FK_FOOT_ROTATIONS' array, long enough for the legs. */
  private readonly fkFootRotations: Float64Array;
  /** This frame's settings and the last warp's results, in the instance's per-frame numbers once initialized. */
  private readonly numbers: StrideWarpingNumbers;

  constructor(
    id: string,
    input: ComponentPoseLink,
    alpha: ScalarProperty,
    private readonly props: {
      fromRootMotion: boolean;
      /** Bound or literal per-frame settings, by name (SETTING_NAMES). */
      settings: Readonly<Record<SettingName, ScalarProperty>>;
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
    /** Where the instances of this node in one graph share what never changes (StrideWarpingShared); one of its own by default. */
    shared: StrideWarpingShared = emptyShared(),
    /** Where its numbers go in the instance's per-frame numbers (NodeBuild.numbers), -1: its own. */
    private readonly numbersAt = -1,
  ) {
    super(id, 'StrideWarping', input, alpha);
    this.bindings = shared.bindings ??= settingBindings(props.settings);
    const legs = props.legs.length;
    this.legBones = new Int32Array(legs * 3).fill(-1);
    this.fkFootRotations = FK_FOOT_ROTATIONS.atLeast(legs * 4);
    this.state = new StrideWarpingState(legs);
    this.numbers = new StrideWarpingNumbers(legs);
    if (shared.job === null) {
      const job = shared.job = new StrideWarpingJob(legs, this.state);
      job.adjustPelvis = props.adjustPelvis;
      job.pelvisIterations = Math.min(Math.max(Math.round(props.pelvisIterations), 1), 10);
    }
    this.job = shared.job;
  }

  protected override onInitialize(): void {
    super.onInitialize();
    const at = this.numbersAt;
    if (at >= 0) {
      const frameNumbers = this.graph.frameNumbers;
      this.numbers.useNumbers(frameNumbers, at);
      this.state.useNumbers(frameNumbers, at + StrideWarpingNumbers.numberCount(this.props.legs.length));
    }
    this.scale.value = 1;
    this.deltaTime = 0;
    this.resetRootMotion();
    this.state.reset();
    this.restart();
  }

  protected override onBecomeRelevant(): void {
    // A velocity averaged before a pause describes motion that is over; the scale, the pelvis and
    // the feet start again from what they are now rather than from where they were.
    this.resetRootMotion();
    this.restart();
  }

  private restart(): void {
    this.scale.smoothing = false;
    this.state.restart();
  }

  private resetRootMotion(): void {
    this.rootMotion.velocity.fill(0);
    this.rootMotion.measured = false;
    this.rootMotion.speed = 0;
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
    this.legLength = count > 0 && sum > 0 ? sum / count : 0;
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
    this.numbers.read(this.graph.parameterValues, this.bindings);
    const child = ctx.child();
    if (this.props.fromRootMotion) child.rootVelocityWindow = this.numbers.rootMotionWindow;
    super.onUpdate(child);
  }

  protected override updateControl(ctx: UpdateContext): void {
    const p = this.props, values = this.graph.parameterValues, scale = this.scale, settings = this.numbers;
    this.deltaTime += ctx.deltaTime;
    let target = 1;
    if (p.fromRootMotion) {
      this.measureRootMotion(ctx);
      const rm = this.rootMotion, vel = rm.velocity;
      const speed = rm.measured ? Math.sqrt(vel[0] * vel[0] + vel[1] * vel[1] + vel[2] * vel[2]) : 0;
      rm.speed = speed;
      const given = settings.minRootMotionSpeed;
      const minSpeed = given > 0 ? given : AUTO_MIN_SPEED * this.legLength;
      const wanted = settings.locomotionSpeed;
      if (speed >= minSpeed && speed > 0 && wanted === wanted) {
        target = wanted / speed;
        this.direction[0] = vel[0] / speed; this.direction[1] = vel[1] / speed; this.direction[2] = vel[2] / speed;
      } else readVec3(this.direction, 0, values, p.strideDirection);
    } else {
      target = settings.strideScale;
      readVec3(this.direction, 0, values, p.strideDirection);
    }
    if (!(target === target)) target = 1;
    target = Math.min(Math.max(target, settings.minScale), settings.maxScale);
    const half = settings.scaleSmoothingTime;
    if (half > 0 && scale.smoothing) {
      // Exponential approach with the given half-life.
      const k = 1 - Math.pow(0.5, ctx.deltaTime / half);
      scale.value += (target - scale.value) * k;
    } else {
      scale.value = target;
      scale.smoothing = true;
    }
    if (p.fromRootMotion) {
      // Scale what the branch below reported, so the character moves at the locomotion speed while
      // a sibling's share under a blend (reported to the blend by the sibling) keeps its own.
      const rm = ctx.rootMotion, s = scale.value;
      rm[0] *= s; rm[1] *= s; rm[2] *= s;
    }
  }

  /**
   * The branch's root-motion velocity at full weight into `rootMotion`: what its sources reported
   * (UpdateContext.rootVelocity) over this node's weight; from branches that report none, the
   * root motion they added this frame over weight and time, averaged (half-life
   * rootMotionSmoothingTime) from its first value. Kept as it was when there is nothing to measure.
   */
  private measureRootMotion(ctx: UpdateContext): void {
    const dt = ctx.deltaTime, weight = ctx.weight, rm = this.rootMotion, vel = rm.velocity, rv = ctx.rootVelocity;
    if (!(weight > ZERO_WEIGHT)) return;
    // A velocity whose speed a double cannot hold is no measurement, and the last one holds: a clip
    // played at a rate near the largest double reports ±Infinity (or NaN, where two such sources
    // moving opposite ways are summed), and root motion over a frame of 5e-324 s divides by a time
    // that underflows to 0. Their speed, and the direction from it, were NaN.
    if (rv[3] > 0) {
      const x = rv[0] / weight, y = rv[1] / weight, z = rv[2] / weight, squared = x * x + y * y + z * z;
      if (squared - squared !== 0) return;
      vel[0] = x; vel[1] = y; vel[2] = z; rm.measured = true;
      return;
    }
    if (!(dt > 0)) return;
    const delta = ctx.rootMotion, half = this.numbers.rootMotionSmoothingTime;
    const x = delta[0] / (weight * dt), y = delta[1] / (weight * dt), z = delta[2] / (weight * dt), squared = x * x + y * y + z * z;
    if (squared - squared !== 0) return;
    const k = !rm.measured || !(half > 0) ? 1 : 1 - Math.pow(0.5, dt / half);
    vel[0] += (x - vel[0]) * k; vel[1] += (y - vel[1]) * k; vel[2] += (z - vel[2]) * k;
    rm.measured = true;
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

  /** The job on `pose`, in place: steps 1 to 3 from the FK pose, then the pelvis moved, then steps 4 and 5 per leg. */
  private warpPose(pose: ComponentPose): void {
    const p = this.props, values = this.graph.parameterValues, numbers = this.numbers, job = this.job;
    const n = job.floorNormal, g = job.gravityDirection, d = this.direction;
    job.state = this.state;
    job.strideDirection = d;
    readVec3(n, 0, values, p.floorNormal);
    readVec3(g, 0, values, p.gravityDirection);
    if (!normalize3(n)) { n[0] = 0; n[1] = 1; n[2] = 0; }
    if (!normalize3(g)) { g[0] = -n[0]; g[1] = -n[1]; g[2] = -n[2]; }
    // A direction that overflowed is no direction: nothing is warped, as for a zero one.
    if (!(Number.isFinite(d[0]) && Number.isFinite(d[1]) && Number.isFinite(d[2]))) { d[0] = 0; d[1] = 0; d[2] = 0; }
    // With the feet step off, the later steps see the FK feet (the scale still reaches root motion).
    job.strideScale = p.warpFeet ? this.scale.value : 1;
    job.deltaTime = this.deltaTime;
    // The pelvis spring moves on by the time updated since it last moved: evaluated again before
    // the next update, the node steps it by 0 and outputs the same pose.
    this.deltaTime = 0;
    job.legLength = this.legLength;
    job.pelvisStiffness = numbers.pelvisStiffness;
    job.pelvisDamping = numbers.pelvisDamping;
    job.pelvisMass = numbers.pelvisMass;
    job.pelvisMaxSpeed = numbers.pelvisMaxSpeed;
    job.pelvisAlpha = numbers.pelvisAlpha;
    readStrideLegs(job, pose, this.pelvis, this.legBones, this.fkFootRotations);
    // Steps 1 to 3. Never false with what is given here; a pose the job refuses (non-finite) is left as it is.
    if (!job.run()) return;
    numbers.keepResults(job.warpedPelvis, job.pelvisOffset, job.scaleOrigins);
    // 4 and 5, per leg, on the pose as the moved pelvis left it.
    writeStrideLegs(job, pose, this.pelvis, this.legBones, this.fkFootRotations, p);
  }

  protected override debugDescription(): string {
    const numbers = this.numbers;
    const origins = this.props.legs.map((leg, i) => `${leg.foot} origin (${fmt(numbers.scaleOrigin(i))})`).join(' ');
    return `Scale: ${this.scale.value.toFixed(3)} ${origins} Pelvis (${fmt(numbers.warpedPelvis())}) offset (${fmt(numbers.pelvisOffset())})`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    super.onGatherDebug(node);
    const values: Record<string, number | number[]> = {
      strideScale: this.scale.value,
      strideDirection: Array.from(this.direction),
      ...(this.props.fromRootMotion ? { rootMotionSpeed: this.rootMotion.speed } : {}),
      pelvis: this.numbers.warpedPelvis(),
      pelvisOffset: this.numbers.pelvisOffset(),
    };
    this.props.legs.forEach((leg, i) => { values[`scaleOrigin.${leg.foot}`] = this.numbers.scaleOrigin(i); });
    node.values = values;
  }
}

function fmt(v: readonly number[]): string {
  return v.map((x) => x.toFixed(1)).join(', ');
}

function emptyShared(): StrideWarpingShared {
  return { props: null, bindings: null, job: null };
}

const LEG_SIDES = ['left', 'right'] as const;

export const StrideWarpingType: NodeType = defineBuiltInNodeType({
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
    minScale: { kind: 'float', default: 0.5, min: 0, max: 1e6 },
    maxScale: { kind: 'float', default: 2, min: 0, max: 1e6 },
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
    pelvisStiffness: { kind: 'float', default: DEFAULT_PELVIS_STIFFNESS, min: 0 },
    pelvisDamping: { kind: 'float', default: 1, min: 0, max: 1e6 },
    pelvisMass: { kind: 'float', default: 1, min: 1e-6, max: 1e6 },
    pelvisMaxSpeed: { kind: 'float', default: DEFAULT_PELVIS_MAX_SPEED, min: 0 },
    pelvisAlpha: { kind: 'float', default: 1, min: 0, max: 1 },
    correctThighs: { kind: 'bool', default: true, bindable: false },
    clampLegLength: { kind: 'bool', default: true, bindable: false },
    solveIk: { kind: 'bool', default: true, bindable: false },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  prepare: emptyShared,
  create: ({ id, properties: p, inputs, shared, numbers }) => {
    // Built from the graph's resolved properties (one object per graph each) and literals: the first instance's serve all.
    const holder = shared ?? emptyShared();
    holder.props ??= {
      fromRootMotion: p.mode === 'fromRootMotion',
      // The node reads the settings (SETTING_NAMES) among them.
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
    };
    return new StrideWarping(id, inputs.pose, p.alpha, holder.props, holder, numbers(strideNumberCount(LEG_SIDES.length)));
  },
});
