import { firstBeyond, MAX_KEY_MAGNITUDE, MAX_KEY_MAGNITUDE_TEXT, quatNormalize } from './math.ts';
import { Pose } from './pose.ts';
import { AnimGraphError } from './errors.ts';
import { quoted } from './names.ts';

/** One bone of a skeleton as authored: its parent by name and its reference (bind) local transform. */
export interface BoneDefinition {
  name: string;
  /** Name of the parent bone; null or absent for a root. */
  parent?: string | null;
  translation?: [number, number, number];
  rotation?: [number, number, number, number];
  scale?: [number, number, number];
}

/**
 * The length unit of a skeleton's translations (and of everything measured in them: root motion,
 * IK targets, thresholds). BVH captures are usually in centimetres (the CMU ones are), glTF in metres.
 */
export type LengthUnit = 'cm' | 'm';

/**
 * The most bones a skeleton may have, helper bones included: some ten times the largest rigs in
 * use (a film face rig has a few thousand). Every pose holds 80 bytes a bone, every instance
 * several poses, and a profiled state machine's crossfade 24 bytes a bone per state. Each skeleton
 * source checks it before building the bones (a glTF skin's joints, a BVH's joints, a skeleton
 * file's list), and a Skeleton refuses more.
 */
export const MAX_BONES = 10_000;

/** Metres per unit of each length unit. */
const METRES: Record<LengthUnit, number> = { cm: 0.01, m: 1 };

/**
 * legLength over the skeleton's span (its length along the bones between its two most distant
 * bones): on the humanoids at hand, the span runs fingertip to toe and is 2.6 to 2.7 leg lengths
 * (CMU subjects 2 and 7: span 257.2 cm, hip to ankle 97.5; three.js pirouette: 221.1, 82.2; the
 * built-in biped: 218.4, 85).
 */
const LEG_PER_SPAN = 0.38;

/**
 * What a skinned mesh needs besides the bones (imported from a glTF skin): each bone's inverse bind
 * matrix, 4x4 column-major as glTF stores it, 16 numbers per bone in skeleton order (the identity
 * for a bone that is not one of the skin's joints), and the bone of each skin joint, so that a
 * mesh's joint indices (JOINTS_0) find their bone: jointBones[joint] = bone index.
 */
export interface SkeletonSkin {
  readonly inverseBindMatrices: Float64Array;
  readonly jointBones: Int32Array;
}

/**
 * How a skeleton's poses mirror (an asset's `mirror` block; see runtime/core/mirror.ts): the
 * plane's normal axis in component space and pairs of bones given by hand, both optional.
 */
export interface MirrorSettings {
  readonly plane?: 'x' | 'y' | 'z';
  readonly pairs?: readonly (readonly [string, string])[];
}

export interface SkeletonProblem {
  /** Index of the bone in the list given to the skeleton. */
  bone: number;
  /** The field of the bone's definition at fault, when one is. */
  field?: 'name' | 'parent';
  message: string;
}

/**
 * Bone names, parent indices and the reference pose. Bones are ordered parents before children
 * (every parent index is lower than its child's), which is what lets component-space passes run in
 * one forward loop.
 */
export class Skeleton {
  readonly boneNames: readonly string[];
  /** parents[i] is the parent of bone i, or -1 for a root. */
  readonly parents: Int32Array;
  readonly referencePose: Pose;
  /**
   * Every bone in depth-first pre-order (each bone, then its children's subtrees in bone order), so
   * that a bone's descendants are the contiguous run descendants[descendantStart[i] ..
   * descendantEnd[i]), parents before children. One entry per bone, however deep the hierarchy: a
   * list per bone of its descendants held n²/2 entries for a chain of n bones (a 10,000-bone chain
   * took 50 million). Component-space writes, masks and blend profiles walk these instead of
   * every later bone.
   */
  readonly descendants: Int32Array;
  readonly descendantStart: Int32Array;
  readonly descendantEnd: Int32Array;
  /** Each bone's depth in the hierarchy: 0 for a root, its parent's plus one for the others. */
  readonly depths: Int32Array;
  /**
   * The unit of the skeleton's lengths, as the graph asset declares it (`units`, default 'cm':
   * BVH files carry no unit, and the captures at hand are in centimetres). Nothing converts
   * lengths: the unit says what the numbers mean, so that thresholds can be set in metres.
   */
  readonly units: LengthUnit;
  /** The skin this skeleton was imported with (glTF), or null. */
  readonly skin: SkeletonSkin | null;
  /** How its poses mirror, as the asset declares it; null: found from the bone names (see mirror.ts). */
  readonly mirror: MirrorSettings | null;
  private readonly indexByName: Map<string, number>;
  private legLengthCache: number;

  constructor(boneNames: readonly string[], parents: ArrayLike<number>, referencePose?: Pose, options: { units?: LengthUnit; legLength?: number; skin?: SkeletonSkin; mirror?: MirrorSettings } = {}) {
    const problems = Skeleton.validate(boneNames, parents);
    if (problems.length > 0) {
      throw new SkeletonError(problems);
    }
    this.boneNames = [...boneNames];
    this.parents = Int32Array.from(parents);
    this.referencePose = referencePose ?? new Pose(boneNames.length);
    if (this.referencePose.boneCount !== boneNames.length) {
      throw new SkeletonError([{ bone: -1, message: `reference pose has ${this.referencePose.boneCount} bones, skeleton has ${boneNames.length}` }]);
    }
    // Every bone without a track samples its reference: a NaN there would reach every frame.
    const notFinite = referenceProblems(boneNames, this.referencePose);
    if (notFinite.length > 0) throw new SkeletonError(notFinite);
    const skin = options.skin;
    if (skin !== undefined && skin.inverseBindMatrices.length !== boneNames.length * 16) {
      throw new SkeletonError([{ bone: -1, message: `${skin.inverseBindMatrices.length / 16} inverse bind matrices for ${boneNames.length} bones` }]);
    }
    this.skin = skin ?? null;
    this.mirror = options.mirror ?? null;
    this.indexByName = new Map(boneNames.map((n, i) => [n, i]));
    this.units = options.units ?? 'cm';
    this.legLengthCache = options.legLength ?? NaN;
    const order = preOrder(this.parents);
    this.descendants = order.order;
    this.descendantStart = order.start;
    this.descendantEnd = order.end;
    this.depths = order.depths;
  }

  get boneCount(): number {
    return this.boneNames.length;
  }

  /** Metres per unit of the skeleton's lengths (0.01 for centimetres). */
  get metresPerUnit(): number {
    return METRES[this.units];
  }

  /**
   * The character's size, in the skeleton's units, for thresholds that must not depend on the
   * unit or the character's scale (a root-motion speed below which a character counts as
   * standing: so many leg lengths per second). An estimate of the hip-to-ankle length from the
   * reference pose: 0.38 times the skeleton's span, its length along the bones between its two
   * most distant bones (fingertip to toe on a humanoid). It reads only bone lengths (as composed:
   * scaled by their ancestors' reference scales), so it holds whatever the rest pose's rotations (a
   * BVH's zero pose of a Z-up rig is lying down, a glTF bind pose stands), the bone names and the up axis. 0.9 m in the skeleton's units when the bones have no length (a
   * single bone). Computed once; a skeleton with helper bones keeps its base skeleton's, since a
   * weapon bone does not make the legs longer.
   */
  get legLength(): number {
    if (!(this.legLengthCache > 0)) this.legLengthCache = legLengthEstimate(this);
    return this.legLengthCache;
  }

  /** This skeleton with its lengths declared in `units` (the numbers are unchanged). */
  withUnits(units: LengthUnit): Skeleton {
    if (units === this.units) return this;
    return new Skeleton(this.boneNames, this.parents, this.referencePose, { units, skin: this.skin ?? undefined, mirror: this.mirror ?? undefined });
  }

  /** This skeleton with its poses mirrored as `mirror` says (the bones are unchanged). */
  withMirror(mirror: MirrorSettings): Skeleton {
    return new Skeleton(this.boneNames, this.parents, this.referencePose, { units: this.units, legLength: this.legLength, skin: this.skin ?? undefined, mirror });
  }

  /** The bone's index, or -1 if the skeleton has no such bone. Call in cacheBones, never per frame. */
  indexOf(name: string): number {
    return this.indexByName.get(name) ?? -1;
  }

  /**
   * Every rule a skeleton must satisfy, all reported at once:
   * - at least one bone;
   * - bone names are non-empty and unique;
   * - as many parent indices as bones;
   * - each parent index is -1 (a root) or lower than the bone's own index (parents before children).
   */
  static validate(boneNames: readonly string[], parents: ArrayLike<number>): SkeletonProblem[] {
    const problems: SkeletonProblem[] = [];
    if (boneNames.length > MAX_BONES) return [{ bone: -1, message: tooManyBones(boneNames.length) }];
    if (boneNames.length === 0) problems.push({ bone: -1, message: 'a skeleton needs at least one bone' });
    if (parents.length !== boneNames.length) {
      problems.push({ bone: -1, message: `${boneNames.length} bone names but ${parents.length} parent indices` });
    }
    const seen = new Set<string>();
    boneNames.forEach((name, i) => {
      if (name.length === 0) problems.push({ bone: i, message: 'bone name is empty' });
      else if (seen.has(name)) problems.push({ bone: i, message: `bone name ${quoted(name)} is used twice` });
      seen.add(name);
      const p = parents[i];
      if (p === undefined) return;
      if (!Number.isInteger(p) || p < -1 || p >= i) {
        problems.push({ bone: i, message: `bone ${quoted(name)} has parent index ${p}: a parent must come before its children` });
      }
    });
    return problems;
  }

  /**
   * A new skeleton with `bones` appended after this one's (Unreal's virtual bones: helper bones an
   * asset adds to an imported skeleton). Each names a parent among this skeleton's bones or the
   * bones listed before it; its translation, rotation (normalised) and scale are its reference
   * local transform. Throws SkeletonError listing every problem, by index into `bones`: a name
   * that is empty or already used, an unknown parent or one listed after its child.
   */
  withExtraBones(bones: readonly BoneDefinition[]): Skeleton {
    const n = this.boneCount;
    const problems: SkeletonProblem[] = [];
    const seen = new Map<string, number>();
    bones.forEach((bone, i) => {
      const at = this.indexByName.get(bone.name) ?? seen.get(bone.name);
      if (bone.name.length === 0) problems.push({ bone: i, field: 'name', message: 'bone name is empty' });
      else if (at !== undefined) {
        problems.push({
          bone: i, field: 'name',
          message: at < n ? `the skeleton already has a bone ${quoted(bone.name)}` : `bone name ${quoted(bone.name)} is used twice`,
        });
      } else seen.set(bone.name, n + i);
    });
    const parents = linkParents(bones, new Map(this.indexByName), n, problems);
    if (problems.length > 0) throw new SkeletonError(problems);
    const pose = new Pose(n + bones.length);
    pose.translations.set(this.referencePose.translations);
    pose.rotations.set(this.referencePose.rotations);
    pose.scales.set(this.referencePose.scales);
    bones.forEach((bone, i) => {
      if (bone.translation) pose.translations.set(bone.translation, (n + i) * 3);
      if (bone.rotation) {
        pose.rotations.set(bone.rotation, (n + i) * 4);
        quatNormalize(pose.rotations, (n + i) * 4);
      }
      if (bone.scale) pose.scales.set(bone.scale, (n + i) * 3);
    });
    let skin: SkeletonSkin | undefined;
    if (this.skin !== null) {
      // Helper bones skin nothing: identity bind matrices keep the per-bone layout.
      const ibm = new Float64Array((n + bones.length) * 16);
      ibm.set(this.skin.inverseBindMatrices);
      for (let b = n; b < n + bones.length; b++) ibm[b * 16] = ibm[b * 16 + 5] = ibm[b * 16 + 10] = ibm[b * 16 + 15] = 1;
      skin = { inverseBindMatrices: ibm, jointBones: this.skin.jointBones };
    }
    return new Skeleton([...this.boneNames, ...bones.map((b) => b.name)], [...this.parents, ...parents], pose, { units: this.units, legLength: this.legLength, skin, mirror: this.mirror ?? undefined });
  }

  /** Builds a skeleton from bones listed by parent name (the JSON skeleton asset's form). */
  static fromDefinitions(bones: readonly BoneDefinition[]): Skeleton {
    const problems: SkeletonProblem[] = [];
    const parents = linkParents(bones, new Map(), 0, problems);
    if (problems.length > 0) throw new SkeletonError(problems);
    const pose = new Pose(bones.length);
    bones.forEach((bone, i) => {
      if (bone.translation) pose.translations.set(bone.translation, i * 3);
      if (bone.rotation) pose.rotations.set(bone.rotation, i * 4);
      if (bone.scale) pose.scales.set(bone.scale, i * 3);
    });
    return new Skeleton(bones.map((b) => b.name), parents, pose);
  }
}

/**
 * The bones of a hierarchy (parents before children) in depth-first pre-order, children in bone
 * order, with each bone's run of descendants in it and its depth: linear in the bone count, with
 * no recursion (a chain may be as deep as the skeleton is long).
 */
function preOrder(parents: Int32Array): { order: Int32Array; start: Int32Array; end: Int32Array; depths: Int32Array } {
  const n = parents.length;
  // Each bone's subtree size, children before parents (reverse bone order).
  const size = new Int32Array(n).fill(1);
  for (let bone = n - 1; bone >= 0; bone--) if (parents[bone] >= 0) size[parents[bone]] += size[bone];
  // A bone's place in pre-order: a root after the previous roots' subtrees; a child after its
  // parent and its earlier siblings' subtrees (the next free place below the parent).
  const place = new Int32Array(n);
  const next = new Int32Array(n);
  const depths = new Int32Array(n);
  let free = 0;
  for (let bone = 0; bone < n; bone++) {
    const p = parents[bone];
    if (p < 0) {
      place[bone] = free;
      free += size[bone];
    } else {
      place[bone] = next[p];
      depths[bone] = depths[p] + 1;
    }
    next[bone] = place[bone] + 1;
    if (p >= 0) next[p] += size[bone];
  }
  const order = new Int32Array(n), start = new Int32Array(n), end = new Int32Array(n);
  for (let bone = 0; bone < n; bone++) {
    order[place[bone]] = bone;
    start[bone] = place[bone] + 1;
    end[bone] = place[bone] + size[bone];
  }
  return { order, start, end, depths };
}

/** The message for a skeleton of `count` bones, over MAX_BONES. */
export function tooManyBones(count: number): string {
  return `${count.toLocaleString('en-US')} bones, more than the ${MAX_BONES.toLocaleString('en-US')} a skeleton may have (MAX_BONES)`;
}

/** See Skeleton.legLength. */
function legLengthEstimate(skeleton: Skeleton): number {
  const n = skeleton.boneCount, parents = skeleton.parents, t = skeleton.referencePose.translations, s = skeleton.referencePose.scales;
  // Each bone's length in component space, |parent's component scale * its translation| (as a
  // ComponentPose composes it: rotations keep lengths), so that a rig whose root is scaled (a glTF
  // armature at 100 over bones in hundredths) measures what its poses will show.
  const scale = new Float64Array(n * 3);
  for (let bone = 0; bone < n; bone++) {
    const p = parents[bone];
    for (let k = 0; k < 3; k++) scale[bone * 3 + k] = p < 0 ? s[bone * 3 + k] : scale[p * 3 + k] * s[bone * 3 + k];
  }
  // The tree's diameter: bones in reverse order see all their children first, so `down` (the
  // longest path down from a bone) is complete when a bone adds itself to its parent's.
  const down = new Float64Array(n);
  let span = 0;
  for (let bone = n - 1; bone >= 0; bone--) {
    const p = parents[bone];
    if (p < 0) continue;
    const reach = down[bone] + Math.hypot(scale[p * 3] * t[bone * 3], scale[p * 3 + 1] * t[bone * 3 + 1], scale[p * 3 + 2] * t[bone * 3 + 2]);
    if (down[p] + reach > span) span = down[p] + reach;
    if (reach > down[p]) down[p] = reach;
  }
  return span > 0 && span < Infinity ? LEG_PER_SPAN * span : 0.9 / skeleton.metresPerUnit;
}

/**
 * Parent indices of `bones` numbered from `first`, after the bones in `index` (name to index, which
 * this extends). Pushes a problem, by index into `bones`, for a parent that is unknown or listed
 * after its child.
 */
function linkParents(bones: readonly BoneDefinition[], index: Map<string, number>, first: number, problems: SkeletonProblem[]): number[] {
  // Where each name is first listed, made at the first unknown parent: a search of the list per
  // bone took time quadratic in the bones when every parent was missing.
  let listed: Map<string, number> | undefined;
  const listedAt = (name: string): number => {
    if (!listed) {
      listed = new Map();
      for (let k = bones.length - 1; k >= 0; k--) listed.set(bones[k].name, k);
    }
    return listed.get(name) ?? -1;
  };
  return bones.map((bone, i) => {
    const parent = bone.parent ?? null;
    let p = -1;
    if (parent !== null) {
      const found = index.get(parent);
      if (found === undefined) {
        const later = listedAt(parent);
        problems.push({
          bone: i, field: 'parent',
          message: later < 0
            ? `bone ${quoted(bone.name)} names unknown parent ${quoted(parent)}`
            : `bone ${quoted(bone.name)} comes before its parent ${quoted(parent)}: list parents before children`,
        });
      } else p = found;
    }
    if (!index.has(bone.name)) index.set(bone.name, first + i);
    return p;
  });
}

/** A skeleton that cannot be built, with every problem found (code `invalid-data`). */
export class SkeletonError extends AnimGraphError {
  constructor(readonly problems: SkeletonProblem[]) {
    super('invalid-data', `invalid skeleton:\n${problems.map((p) => `  ${p.bone >= 0 ? `bone ${p.bone}: ` : ''}${p.message}`).join('\n')}`);
    this.name = 'SkeletonError';
  }
}

/**
 * Each bone whose reference translation or scale is beyond ±MAX_KEY_MAGNITUDE, described ("bone
 * 'hips': reference translation 1e300 is beyond ±1e15"): finite, as the constructor requires, but
 * large enough to overflow when composed.
 */
export function referenceRangeProblems(skeleton: Skeleton): string[] {
  const ref = skeleton.referencePose, messages: string[] = [];
  for (let b = 0; b < skeleton.boneCount; b++) {
    for (const [kind, values] of [['translation', ref.translations], ['scale', ref.scales]] as const) {
      const i = firstBeyond(values, MAX_KEY_MAGNITUDE, b * 3, b * 3 + 3);
      if (i < 0) continue;
      messages.push(`bone ${quoted(skeleton.boneNames[b])}: reference ${kind} ${values[i]} is beyond ±${MAX_KEY_MAGNITUDE_TEXT}`);
      break;
    }
  }
  return messages;
}

/** Each bone whose reference translation, rotation or scale holds a NaN or an infinity. */
function referenceProblems(boneNames: readonly string[], pose: Pose): SkeletonProblem[] {
  const problems: SkeletonProblem[] = [];
  for (let b = 0; b < boneNames.length; b++) {
    for (const [kind, values, width] of [['translation', pose.translations, 3], ['rotation', pose.rotations, 4], ['scale', pose.scales, 3]] as const) {
      if (firstBeyond(values, Number.MAX_VALUE, b * width, (b + 1) * width) < 0) continue;
      problems.push({ bone: b, message: `bone ${quoted(boneNames[b])}: reference ${kind} (${Array.from(values.subarray(b * width, (b + 1) * width)).join(', ')}) is not finite` });
    }
  }
  return problems;
}
