import type { ComponentPose } from '../runtime/core/component-pose.ts';
import { quatMultiply, quatRotateVec3 } from '../runtime/core/math.ts';
import {
  readFlag, readScalarInto, readVec3,
  type CacheBonesContext, type ComponentPoseLink, type DebugNode, type InitializeContext, type NodeCheckContext, type NodeType,
  type ScalarProperty, type UpdateContext, type Vec3Property,
} from '../runtime/node/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/node/skeletal-control.ts';
import {
  LOOK_ANGLE, LOOK_AT_INTERPOLATIONS, LOOK_AT_OPTIONS, LOOK_AXIS, LOOK_CLAMP, LOOK_ORIGIN, LOOK_TARGET, LOOK_UP, LOOK_USE_UP,
  easeInPlace, solveLookAt,
} from '../runtime/jobs/look-at.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/** A LookAt node's resolved properties. */
export interface LookAtNodeSettings {
  bone: string;
  /** '' unless targetMode is 'bone'. */
  targetBone: string;
  target: Vec3Property;
  /** Unit axes in the bone's local space. */
  lookAxis: Float64Array;
  upAxis: Float64Array;
  useUpAxis: ScalarProperty;
  clampAngle: ScalarProperty;
  /** An index of LOOK_AT_INTERPOLATIONS. */
  interpolation: number;
  interpolationTime: ScalarProperty;
  interpolationTriggerThreshold: ScalarProperty;
}

// The node's numbers (one array; see CONTRIBUTING.md, "Objects per character"), after the solver's options.
const PREVIOUS = LOOK_AT_OPTIONS; // where the interpolation starts, 3
const CURRENT = PREVIOUS + 3; // where it goes, 3
const ELAPSED = CURRENT + 3; // seconds since it started, held to the interpolation time
const TIME = ELAPSED + 1; // the interpolation time read this frame
const FRACTION = TIME + 1; // eased fraction of the interpolation
const THRESHOLD = FRACTION + 1;
const STARTED = THRESHOLD + 1; // 1 once a target was tracked since initialize
const DELTA = STARTED + 1; // the rotation applied, 4
const NUMBERS = DELTA + 4;

const DEG = Math.PI / 180;

/**
 * Unreal's LookAt: one bone turns in component space so that its look axis points at a target (a
 * vector, usually a vec3 parameter, or a bone with an offset in its space: a socket), optionally
 * only about its up axis, at most by a clamp angle, following a moving target through an eased
 * interpolation. The aim is runtime/jobs/look-at.ts; the bone's children follow it.
 */
export class LookAt extends SkeletalControlNode {
  private bone = -1;
  private targetBoneIndex = -1;
  private readonly n = new Float64Array(NUMBERS);
  /** The update counter of the last solve, for the debug values. */
  private solvedAt = -1;

  constructor(id: string, input: ComponentPoseLink, alpha: ScalarProperty, private readonly settings: LookAtNodeSettings) {
    super(id, 'LookAt', input, alpha);
  }

  protected override onInitialize(_ctx?: InitializeContext): void {
    this.n[STARTED] = 0;
    this.n[ELAPSED] = 0;
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    this.bone = ctx.boneIndex(this.id, this.settings.bone);
    this.targetBoneIndex = this.settings.targetBone !== '' ? ctx.boneIndex(this.id, this.settings.targetBone) : -1;
  }

  protected override isValidToEvaluate(): boolean {
    return this.bone >= 0 && (this.settings.targetBone === '' || this.targetBoneIndex >= 0);
  }

  protected override updateControl(ctx: UpdateContext): void {
    const n = this.n, values = this.graph.parameterValues;
    readScalarInto(n, TIME, values, this.settings.interpolationTime);
    // Held to [0, 1e6] (NaN: 0), and the elapsed time to [0, the interpolation time] (Unreal's clamp).
    n[TIME] = n[TIME] > 0 ? (n[TIME] < 1e6 ? n[TIME] : 1e6) : 0;
    n[ELAPSED] += ctx.deltaTime;
    if (!(n[ELAPSED] < n[TIME])) n[ELAPSED] = n[TIME];
  }

  protected evaluateBoneTransforms(pose: ComponentPose, out: BoneTransforms): void {
    const n = this.n, values = this.graph.parameterValues, settings = this.settings, bone = this.bone;
    pose.ensureComponent(bone);
    readVec3(n, LOOK_TARGET, values, settings.target);
    const tb = this.targetBoneIndex;
    if (tb >= 0) {
      // Bone mode: `target` is an offset in the target bone's space (a socket; zero: the bone itself).
      pose.ensureComponent(tb);
      for (let i = 0; i < 3; i++) n[LOOK_TARGET + i] *= pose.scales[tb * 3 + i];
      quatRotateVec3(n, LOOK_TARGET, pose.rotations, tb * 4, n, LOOK_TARGET);
      for (let i = 0; i < 3; i++) n[LOOK_TARGET + i] += pose.translations[tb * 3 + i];
    }
    this.track();
    for (let i = 0; i < 3; i++) n[LOOK_ORIGIN + i] = pose.translations[bone * 3 + i];
    quatRotateVec3(n, LOOK_AXIS, pose.rotations, bone * 4, settings.lookAxis, 0);
    quatRotateVec3(n, LOOK_UP, pose.rotations, bone * 4, settings.upAxis, 0);
    n[LOOK_USE_UP] = readFlag(values, settings.useUpAxis) ? 1 : 0;
    readScalarInto(n, LOOK_CLAMP, values, settings.clampAngle);
    // Degrees to radians, held to [0, 180] (NaN: 0, no clamp).
    n[LOOK_CLAMP] = n[LOOK_CLAMP] > 0 ? (n[LOOK_CLAMP] < 180 ? n[LOOK_CLAMP] : 180) * DEG : 0;
    solveLookAt(n, DELTA, n);
    this.solvedAt = this.graph.updateCounter;
    const k = out.add(bone, pose);
    quatMultiply(out.rotations, k * 4, n, DELTA, out.rotations, k * 4);
  }

  /**
   * The target the bone looks at, from the one read into LOOK_TARGET, as Unreal's LookAt follows it:
   * a target that moves farther than the trigger threshold from where the interpolation goes starts
   * a new interpolation from there (restarting the clock if the last one had ended), eased over the
   * interpolation time. A threshold of 0 follows every move. The first target after initialize is
   * taken at once.
   */
  private track(): void {
    const n = this.n;
    readScalarInto(n, THRESHOLD, this.graph.parameterValues, this.settings.interpolationTriggerThreshold);
    if (n[STARTED] === 0) {
      n[STARTED] = 1;
      n[ELAPSED] = n[TIME];
      for (let i = 0; i < 3; i++) { n[PREVIOUS + i] = n[LOOK_TARGET + i]; n[CURRENT + i] = n[LOOK_TARGET + i]; }
    }
    const dx = n[LOOK_TARGET] - n[CURRENT], dy = n[LOOK_TARGET + 1] - n[CURRENT + 1], dz = n[LOOK_TARGET + 2] - n[CURRENT + 2];
    if (dx * dx + dy * dy + dz * dz > n[THRESHOLD] * n[THRESHOLD]) {
      if (n[ELAPSED] >= n[TIME]) n[ELAPSED] = 0;
      for (let i = 0; i < 3; i++) { n[PREVIOUS + i] = n[CURRENT + i]; n[CURRENT + i] = n[LOOK_TARGET + i]; }
    }
    if (n[TIME] > 0 && n[ELAPSED] < n[TIME]) {
      n[FRACTION] = n[ELAPSED] / n[TIME];
      easeInPlace(n, FRACTION, this.settings.interpolation);
      for (let i = 0; i < 3; i++) n[LOOK_TARGET + i] = n[PREVIOUS + i] + (n[CURRENT + i] - n[PREVIOUS + i]) * n[FRACTION];
    } else {
      for (let i = 0; i < 3; i++) n[LOOK_TARGET + i] = n[CURRENT + i];
    }
  }

  protected override debugDescription(): string {
    return `${this.settings.bone} -> ${this.settings.targetBone !== '' ? this.settings.targetBone : 'target'}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    super.onGatherDebug(node);
    if (this.solvedAt !== this.graph.updateCounter || !this.relevant) return;
    const n = this.n;
    node.values = {
      /** Where the bone looks this frame (the interpolated target), component space. */
      target: Array.from(n.subarray(LOOK_TARGET, LOOK_TARGET + 3)),
      /** Degrees the look axis turned. */
      angle: n[LOOK_ANGLE] / DEG,
    };
  }
}

/** Load-time checks the property schema cannot express. */
function checkLookAt(ctx: NodeCheckContext): void {
  const p = ctx.properties;
  if (p.targetMode === 'bone' && p.targetBone === undefined) {
    ctx.report(['targetBone'], 'schema', "targetMode 'bone' needs a targetBone");
  }
  // Axes left out are the defaults; a useUpAxis left out is false, a bound one may be true.
  const look = p.lookAxis ?? [0, 0, 1], up = p.upAxis ?? [0, 1, 0];
  if (p.useUpAxis !== undefined && p.useUpAxis !== false && Array.isArray(look) && Array.isArray(up)) {
    const [a, b] = [look as number[], up as number[]];
    const cross = Math.hypot(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
    if (cross <= 1e-6 * Math.hypot(...a) * Math.hypot(...b)) {
      ctx.report(['upAxis'], 'schema', 'upAxis is parallel to lookAxis: the bone turning only about it could never aim the look axis');
    }
  }
}

/** A direction scaled to unit length (the loader has rejected a zero one). */
function unit(v: Float64Array): Float64Array {
  const l = Math.hypot(v[0], v[1], v[2]);
  return Float64Array.of(v[0] / l, v[1] / l, v[2] / l);
}

export const LookAtType: NodeType = defineBuiltInNodeType({
  type: 'LookAt',
  space: 'component',
  properties: {
    bone: { kind: 'bone' },
    targetMode: { kind: 'enum', options: ['vector', 'bone'], default: 'vector' },
    target: { kind: 'vec3', default: [0, 0, 0] },
    targetBone: { kind: 'bone', optional: true },
    lookAxis: { kind: 'direction', default: [0, 0, 1] },
    upAxis: { kind: 'direction', default: [0, 1, 0] },
    useUpAxis: { kind: 'bool', default: false },
    clampAngle: { kind: 'float', default: 0, min: 0, max: 180 },
    interpolation: { kind: 'enum', options: LOOK_AT_INTERPOLATIONS, default: 'linear' },
    interpolationTime: { kind: 'float', default: 0, min: 0, max: 1e6 },
    interpolationTriggerThreshold: { kind: 'float', default: 0, min: 0 },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  check: checkLookAt,
  create: ({ id, properties: p, inputs }) => new LookAt(id, inputs.pose, p.alpha, {
    bone: p.bone,
    targetBone: p.targetMode === 'bone' ? p.targetBone : '',
    target: p.target,
    lookAxis: unit(p.lookAxis),
    upAxis: unit(p.upAxis),
    useUpAxis: p.useUpAxis,
    clampAngle: p.clampAngle,
    interpolation: LOOK_AT_INTERPOLATIONS.indexOf(p.interpolation),
    interpolationTime: p.interpolationTime,
    interpolationTriggerThreshold: p.interpolationTriggerThreshold,
  }),
});
