import type { ComponentPose } from '../runtime/core/component-pose.ts';
import { quatFromEulerDegrees, quatMultiply, transformCompose, transformRelative } from '../runtime/core/math.ts';
import {
  readVec3, type CacheBonesContext, type ComponentPoseLink, type NodeType, type ScalarProperty, type Vec3Property,
} from '../runtime/node/node.ts';
import { SkeletalControlNode, type BoneTransforms } from '../runtime/node/skeletal-control.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

const MODES = ['ignore', 'additive', 'replace'] as const;
const SPACES = ['component', 'parent', 'bone'] as const;
const IGNORE = 0, ADDITIVE = 1;
const COMPONENT = 0, PARENT = 1;

/** One channel of a ModifyBone node: its value, and how and in which space it applies. */
export interface ModifyBoneChannel {
  value: Vec3Property;
  /** An index of MODES. */
  mode: number;
  /** An index of SPACES. */
  space: number;
}

/** A ModifyBone node's resolved properties. */
export interface ModifyBoneNodeSettings {
  bone: string;
  translation: ModifyBoneChannel;
  /** Euler angles in degrees, [x, y, z]: the rotation Rx·Ry·Rz. */
  rotation: ModifyBoneChannel;
  scale: ModifyBoneChannel;
}

// Transforms in the work arrays, by slot: the one being edited, and the space it is expressed in.
const EDIT = 0, SPACE = 1;

/**
 * Work arrays every ModifyBone on the thread shares, used within one evaluation (see CONTRIBUTING.md,
 * "Objects per character"): the transforms by slot, a channel's value as read, and the rotation it makes.
 */
const t = new Float64Array(6), r = new Float64Array(8), s = new Float64Array(6);
const value = new Float64Array(3), ROTATION = new Float64Array(4);

/**
 * Unreal's Transform (Modify) Bone: sets or adds to one bone's scale, rotation and translation (in
 * that order, as Unreal), each in component space, in its parent's space (its local transform) or
 * in its own space (relative to its transform in the input pose). The bone's children follow it.
 */
export class ModifyBone extends SkeletalControlNode {
  private bone = -1;
  private parent = -1;

  constructor(id: string, input: ComponentPoseLink, alpha: ScalarProperty, private readonly settings: ModifyBoneNodeSettings) {
    super(id, 'ModifyBone', input, alpha);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    this.bone = ctx.boneIndex(this.id, this.settings.bone);
    this.parent = this.bone >= 0 ? ctx.skeleton.parents[this.bone] : -1;
  }

  protected override isValidToEvaluate(): boolean {
    const { translation, rotation, scale } = this.settings;
    return this.bone >= 0 && (translation.mode !== IGNORE || rotation.mode !== IGNORE || scale.mode !== IGNORE);
  }

  protected evaluateBoneTransforms(pose: ComponentPose, out: BoneTransforms): void {
    const { settings, bone } = this;
    const values = this.graph.parameterValues;
    pose.ensureComponent(bone);
    copyFrom(t, r, s, EDIT, pose, bone);
    const scale = settings.scale;
    if (scale.mode !== IGNORE) {
      this.enter(pose, scale.space);
      readVec3(value, 0, values, scale.value);
      // Held to ±1e6 per axis: a vec3 parameter may hold any finite numbers, and a scale of 1e308
      // overflows the children's positions. (Literals: see CONTRIBUTING.md, "Numbers in the frame loop".)
      for (let i = 0; i < 3; i++) {
        if (value[i] > 1e6) value[i] = 1e6;
        else if (value[i] < -1e6) value[i] = -1e6;
      }
      if (scale.mode === ADDITIVE) for (let i = 0; i < 3; i++) s[i] *= value[i];
      else for (let i = 0; i < 3; i++) s[i] = value[i];
      this.leave(scale.space);
    }
    const rotation = settings.rotation;
    if (rotation.mode !== IGNORE) {
      this.enter(pose, rotation.space);
      readVec3(value, 0, values, rotation.value);
      quatFromEulerDegrees(ROTATION, 0, 'XYZ', value);
      if (rotation.mode === ADDITIVE) quatMultiply(r, 0, ROTATION, 0, r, 0);
      else for (let i = 0; i < 4; i++) r[i] = ROTATION[i];
      this.leave(rotation.space);
    }
    const translation = settings.translation;
    if (translation.mode !== IGNORE) {
      this.enter(pose, translation.space);
      readVec3(value, 0, values, translation.value);
      // Held to ±1e9 per axis (TwoBoneIK's bound on targets), so that moving into and out of a space does not overflow.
      for (let i = 0; i < 3; i++) {
        if (value[i] > 1e9) value[i] = 1e9;
        else if (value[i] < -1e9) value[i] = -1e9;
      }
      if (translation.mode === ADDITIVE) for (let i = 0; i < 3; i++) t[i] += value[i];
      else for (let i = 0; i < 3; i++) t[i] = value[i];
      this.leave(translation.space);
    }
    const k = out.add(bone, pose);
    for (let i = 0; i < 3; i++) {
      out.translations[k * 3 + i] = t[i];
      out.scales[k * 3 + i] = s[i];
    }
    for (let i = 0; i < 4; i++) out.rotations[k * 4 + i] = r[i];
  }

  /**
   * Expresses the edited transform in `space` (Unreal's ConvertCSTransformToBoneSpace): relative
   * to the parent's component transform, or to the bone's own in the input pose. The root's parent
   * space is component space.
   */
  private enter(pose: ComponentPose, space: number): void {
    if (space === COMPONENT) return;
    const from = space === PARENT ? this.parent : this.bone;
    if (from < 0) return;
    pose.ensureComponent(from);
    copyFrom(t, r, s, SPACE, pose, from);
    transformRelative(t, r, s, EDIT, t, r, s, SPACE, t, r, s, EDIT);
  }

  /** Back to component space from `space` (the transform enter used is still in the SPACE slot). */
  private leave(space: number): void {
    if (space === COMPONENT || (space === PARENT && this.parent < 0)) return;
    transformCompose(t, r, s, EDIT, t, r, s, SPACE, t, r, s, EDIT);
  }

  protected override debugDescription(): string {
    return this.settings.bone;
  }
}

function copyFrom(t: Float64Array, r: Float64Array, s: Float64Array, slot: number, pose: ComponentPose, bone: number): void {
  for (let i = 0; i < 3; i++) {
    t[slot * 3 + i] = pose.translations[bone * 3 + i];
    s[slot * 3 + i] = pose.scales[bone * 3 + i];
  }
  for (let i = 0; i < 4; i++) r[slot * 4 + i] = pose.rotations[bone * 4 + i];
}

export const ModifyBoneType: NodeType = defineBuiltInNodeType({
  type: 'ModifyBone',
  space: 'component',
  properties: {
    bone: { kind: 'bone' },
    translation: { kind: 'vec3', default: [0, 0, 0] },
    translationMode: { kind: 'enum', options: MODES, default: 'ignore' },
    translationSpace: { kind: 'enum', options: SPACES, default: 'component' },
    rotation: { kind: 'vec3', default: [0, 0, 0] },
    rotationMode: { kind: 'enum', options: MODES, default: 'ignore' },
    rotationSpace: { kind: 'enum', options: SPACES, default: 'component' },
    scale: { kind: 'vec3', default: [1, 1, 1] },
    scaleMode: { kind: 'enum', options: MODES, default: 'ignore' },
    scaleSpace: { kind: 'enum', options: SPACES, default: 'component' },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  create: ({ id, properties: p, inputs }) => new ModifyBone(id, inputs.pose, p.alpha, {
    bone: p.bone,
    translation: { value: p.translation, mode: MODES.indexOf(p.translationMode), space: SPACES.indexOf(p.translationSpace) },
    rotation: { value: p.rotation, mode: MODES.indexOf(p.rotationMode), space: SPACES.indexOf(p.rotationSpace) },
    scale: { value: p.scale, mode: MODES.indexOf(p.scaleMode), space: SPACES.indexOf(p.scaleSpace) },
  }),
});
