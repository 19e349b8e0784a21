/**
 * animgraph/three: drives a three.js skeleton from a graph instance.
 *
 *   const binding = bindThree(character, skinnedMesh);
 *   // each frame, after moving the character's root Object3D:
 *   character.update(dt);
 *   binding.apply();
 *   renderer.render(scene, camera);
 *
 * apply() writes each bound bone's world matrix straight from the instance's component pose
 * (root.matrixWorld × the bone's component transform), instead of copying local transforms into
 * every Bone and recomposing the hierarchy with updateMatrixWorld: per bone that is one matrix
 * built and one multiplied, where three's path is a Euler update per quaternion write, a compose
 * and a product per bone plus the traversal. three's renderer then builds skeleton.boneMatrices
 * from bone.matrixWorld × boneInverses (skeleton.update(), once per frame per skeleton), so
 * skinning, SkinnedMesh.applyBoneTransform, raycasts and objects attached to bones all see the
 * written matrices. Bound bones get matrixAutoUpdate and matrixWorldAutoUpdate set to false, so
 * the scene's own updateMatrixWorld leaves their matrices alone (release() restores the flags).
 *
 * Only `three`'s types are imported: this module does not load three itself.
 */
import type { AnimationClip, Bone, Interpolant, Matrix4, Object3D, Skeleton as ThreeSkeleton, SkinnedMesh } from 'three';
import { Clip, type TrackLayout } from '../runtime/clip.ts';
import type { ComponentPose } from '../runtime/component-pose.ts';
import { quatNormalize } from '../runtime/math.ts';
import { Pose } from '../runtime/pose.ts';
import { Skeleton } from '../runtime/skeleton.ts';

/** What a binding reads its pose from: an AnimGraphInstance, or anything with its skeleton and component pose. */
export interface ThreePoseSource {
  readonly skeleton: Skeleton;
  /** The current pose in component space; called once per apply(). */
  componentPose(): ComponentPose;
}

/** The bones to drive: a SkinnedMesh's skeleton, a Skeleton, or bones (any Object3Ds) in a list. */
export type ThreeBindTarget = SkinnedMesh | ThreeSkeleton | readonly Object3D[];

export interface ThreeBindingOptions {
  /**
   * The Object3D whose world matrix is the graph's component space: the character's world
   * transform, which root motion moves. Default: the parent of the bound bone that comes first in
   * the graph's skeleton (the topmost one: for a glTF, the armature node; for bones built under a
   * Group, that group), or the world origin when that bone has no parent. null: the world origin.
   */
  root?: Object3D | null;
  /**
   * Update root's world matrix (and its ancestors') from their position, quaternion and scale at
   * the start of each apply(), so that a character moved this frame is drawn where it now is.
   * Default true; false when the caller has already done so (a scene.updateMatrixWorld() before).
   */
  updateRoot?: boolean;
  /**
   * Write each bound bone's world matrix from the component pose (default true). False leaves the
   * bones' matrices to three (the naive path: writeLocal, then updateMatrixWorld or the renderer),
   * and the binding changes no flags.
   */
  writeMatrices?: boolean;
  /**
   * Also copy the graph's local pose into each bound bone's position, quaternion and scale, for
   * code that reads them (default false). Every quaternion write makes three update the bone's
   * Euler rotation, which is most of the naive path's cost.
   */
  writeLocal?: boolean;
  /**
   * Recompute, in apply(), the world matrices of bones three has and the graph lacks, from their
   * own local transforms under their (possibly bound) parents, so that they are right before the
   * renderer's updateMatrixWorld too (for applyBoneTransform and raycasts). Default true.
   */
  updateUnboundBones?: boolean;
}

/**
 * A graph instance bound to three.js bones by name. Bone names are resolved once, here; apply()
 * allocates nothing.
 *
 * - A three bone whose name the graph's skeleton has is bound (every three bone of that name, when
 *   several share it, as meshes that each have their own bone objects).
 * - A three bone the graph lacks keeps three's pose: its local transform is kept, under its parent.
 * - A graph bone three lacks is ignored (it still shapes its children's component transforms).
 *
 * The world matrices follow the graph's hierarchy and its component-space composition (scales
 * multiply per axis, as in the runtime: no shear), which equals three's matrix chain whenever
 * the two hierarchies agree on the bound bones and no bone under a rotated child has a
 * non-uniform scale. Binding to bones none of whose names the graph has throws a RangeError.
 */
export class ThreeBinding {
  /** The bound three bones, and per bone the graph bone index it takes its pose from. */
  readonly bones: readonly Object3D[];
  readonly boneIndices: Int32Array;
  /** Names of the three bones the graph's skeleton lacks (they keep three's pose). */
  readonly unboundThreeBones: readonly string[];
  /** Names of the graph bones no three bone has (ignored). */
  readonly unusedGraphBones: readonly string[];
  /** The Object3D whose world matrix is the component space, or null for the world origin. */
  readonly root: Object3D | null;
  private readonly source: ThreePoseSource;
  private readonly unbound: readonly Object3D[];
  private readonly updateRoot: boolean;
  private readonly writeMatrices: boolean;
  private readonly writeLocal: boolean;
  private readonly updateUnboundBones: boolean;
  /** The bound bones' matrixAutoUpdate and matrixWorldAutoUpdate before binding, for release(). */
  private readonly savedFlags: Uint8Array;
  private released = false;

  constructor(source: ThreePoseSource, target: ThreeBindTarget, options: ThreeBindingOptions = {}) {
    const skeleton = source.skeleton;
    const threeBones = bonesOf(target);
    const bound: { bone: Object3D; index: number }[] = [];
    const unbound: Object3D[] = [];
    const used = new Uint8Array(skeleton.boneCount);
    const seen = new Set<Object3D>();
    for (const bone of threeBones) {
      // A Skeleton may hold undefined slots (three skins them with the identity) and a list may repeat a bone.
      if (bone === undefined || bone === null || seen.has(bone)) continue;
      seen.add(bone);
      const index = skeleton.indexOf(bone.name);
      if (index < 0) unbound.push(bone);
      else {
        bound.push({ bone, index });
        used[index] = 1;
      }
    }
    if (bound.length === 0) {
      throw new RangeError(
        `bindThree: none of the ${seen.size} three.js bones (${[...seen].slice(0, 5).map((b) => `'${b.name}'`).join(', ')}${seen.size > 5 ? ', …' : ''}) ` +
        `has the name of a bone of the graph's skeleton ('${skeleton.boneNames.slice(0, 5).join("', '")}'${skeleton.boneCount > 5 ? ', …' : ''})`,
      );
    }
    // Graph order is parents before children, so writing in it keeps a bound parent's matrix
    // ready before anything that reads it.
    bound.sort((a, b) => a.index - b.index);
    this.source = source;
    this.bones = bound.map((b) => b.bone);
    this.boneIndices = Int32Array.from(bound, (b) => b.index);
    this.root = options.root !== undefined ? options.root : bound[0].bone.parent;
    const rootAncestry = new Set<Object3D>();
    for (let o = this.root; o !== null; o = o.parent) rootAncestry.add(o);
    // Parents before children: an unbound bone's parent may be another unbound bone.
    this.unbound = unbound.filter((b) => !rootAncestry.has(b)).sort((a, b) => depthOf(a) - depthOf(b));
    this.unboundThreeBones = unbound.map((b) => b.name);
    this.unusedGraphBones = skeleton.boneNames.filter((_, i) => used[i] === 0);
    this.updateRoot = options.updateRoot ?? true;
    this.writeMatrices = options.writeMatrices ?? true;
    this.writeLocal = options.writeLocal ?? false;
    this.updateUnboundBones = options.updateUnboundBones ?? true;
    if (!this.writeMatrices && !this.writeLocal) throw new RangeError('bindThree: writeMatrices and writeLocal are both false: the binding would write nothing');
    this.savedFlags = new Uint8Array(this.bones.length * 2);
    if (this.writeMatrices) {
      this.bones.forEach((bone, k) => {
        this.savedFlags[k * 2] = bone.matrixAutoUpdate ? 1 : 0;
        this.savedFlags[k * 2 + 1] = bone.matrixWorldAutoUpdate ? 1 : 0;
        bone.matrixAutoUpdate = false;
        bone.matrixWorldAutoUpdate = false;
      });
    }
  }

  /** How many three bones are bound (a bone object counted once). */
  get boundCount(): number {
    return this.bones.length;
  }

  /**
   * Writes the instance's current pose into the bound bones (evaluating the instance first if it
   * has not been evaluated since its last update). Call after instance.update(dt) and after moving
   * the root, before rendering. Allocates nothing.
   */
  apply(): void {
    if (this.released) return;
    const pose = this.source.componentPose();
    if (this.writeLocal) this.applyLocal(pose);
    if (this.writeMatrices) {
      const root = this.root;
      if (root !== null && this.updateRoot) root.updateWorldMatrix(true, false);
      this.applyMatrices(pose, root === null ? null : root.matrixWorld);
      if (this.updateUnboundBones) this.applyUnbound();
    }
  }

  /**
   * Gives the bound bones back to three: restores their matrixAutoUpdate and matrixWorldAutoUpdate.
   * Their matrices keep the last pose written until three recomputes them from position,
   * quaternion and scale (which hold the last local pose only with writeLocal). apply() then does nothing.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (!this.writeMatrices) return;
    this.bones.forEach((bone, k) => {
      bone.matrixAutoUpdate = this.savedFlags[k * 2] === 1;
      bone.matrixWorldAutoUpdate = this.savedFlags[k * 2 + 1] === 1;
      bone.matrixWorldNeedsUpdate = true;
    });
  }

  /** World matrix of each bound bone = rootWorld × compose(component T, R, S), written out. */
  private applyMatrices(pose: ComponentPose, rootWorld: Matrix4 | null): void {
    const ct = pose.translations, cr = pose.rotations, cs = pose.scales;
    // The root's world matrix is affine (an Object3D's always is): its last row is 0 0 0 1.
    let m0 = 1, m1 = 0, m2 = 0, m4 = 0, m5 = 1, m6 = 0, m8 = 0, m9 = 0, m10 = 1, m12 = 0, m13 = 0, m14 = 0;
    if (rootWorld !== null) {
      const m = rootWorld.elements;
      m0 = m[0]; m1 = m[1]; m2 = m[2]; m4 = m[4]; m5 = m[5]; m6 = m[6];
      m8 = m[8]; m9 = m[9]; m10 = m[10]; m12 = m[12]; m13 = m[13]; m14 = m[14];
    }
    const bones = this.bones, indices = this.boneIndices;
    for (let k = 0; k < bones.length; k++) {
      const b = indices[k], b3 = b * 3, b4 = b * 4;
      // The component transform as a matrix, as Matrix4.compose builds one.
      const x = cr[b4], y = cr[b4 + 1], z = cr[b4 + 2], w = cr[b4 + 3];
      const x2 = x + x, y2 = y + y, z2 = z + z;
      const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
      const wx = w * x2, wy = w * y2, wz = w * z2;
      const sx = cs[b3], sy = cs[b3 + 1], sz = cs[b3 + 2];
      const c0 = (1 - (yy + zz)) * sx, c1 = (xy + wz) * sx, c2 = (xz - wy) * sx;
      const c4 = (xy - wz) * sy, c5 = (1 - (xx + zz)) * sy, c6 = (yz + wx) * sy;
      const c8 = (xz + wy) * sz, c9 = (yz - wx) * sz, c10 = (1 - (xx + yy)) * sz;
      const c12 = ct[b3], c13 = ct[b3 + 1], c14 = ct[b3 + 2];
      const e = bones[k].matrixWorld.elements;
      e[0] = m0 * c0 + m4 * c1 + m8 * c2;
      e[1] = m1 * c0 + m5 * c1 + m9 * c2;
      e[2] = m2 * c0 + m6 * c1 + m10 * c2;
      e[3] = 0;
      e[4] = m0 * c4 + m4 * c5 + m8 * c6;
      e[5] = m1 * c4 + m5 * c5 + m9 * c6;
      e[6] = m2 * c4 + m6 * c5 + m10 * c6;
      e[7] = 0;
      e[8] = m0 * c8 + m4 * c9 + m8 * c10;
      e[9] = m1 * c8 + m5 * c9 + m9 * c10;
      e[10] = m2 * c8 + m6 * c9 + m10 * c10;
      e[11] = 0;
      e[12] = m0 * c12 + m4 * c13 + m8 * c14 + m12;
      e[13] = m1 * c12 + m5 * c13 + m9 * c14 + m13;
      e[14] = m2 * c12 + m6 * c13 + m10 * c14 + m14;
      e[15] = 1;
    }
  }

  private applyLocal(pose: ComponentPose): void {
    const local = pose.ensureAllLocal();
    const lt = local.translations, lr = local.rotations, ls = local.scales;
    const bones = this.bones, indices = this.boneIndices;
    for (let k = 0; k < bones.length; k++) {
      const b = indices[k], b3 = b * 3, b4 = b * 4;
      const bone = bones[k];
      bone.position.set(lt[b3], lt[b3 + 1], lt[b3 + 2]);
      bone.quaternion.set(lr[b4], lr[b4 + 1], lr[b4 + 2], lr[b4 + 3]);
      bone.scale.set(ls[b3], ls[b3 + 1], ls[b3 + 2]);
    }
  }

  /** Bones the graph lacks, parents first: their own local matrix under their parent's world matrix. */
  private applyUnbound(): void {
    const unbound = this.unbound;
    for (let k = 0; k < unbound.length; k++) {
      const bone = unbound[k];
      if (bone.matrixAutoUpdate) bone.updateMatrix();
      if (!bone.matrixWorldAutoUpdate) continue;
      const parent = bone.parent;
      if (parent === null) bone.matrixWorld.copy(bone.matrix);
      else bone.matrixWorld.multiplyMatrices(parent.matrixWorld, bone.matrix);
    }
  }
}

/**
 * Binds `source` (an AnimGraphInstance) to three.js bones by name: see ThreeBinding. Call
 * `binding.apply()` each frame after `instance.update(dt)`.
 */
export function bindThree(source: ThreePoseSource, target: ThreeBindTarget, options?: ThreeBindingOptions): ThreeBinding {
  return new ThreeBinding(source, target, options);
}

function bonesOf(target: ThreeBindTarget): readonly (Object3D | undefined)[] {
  if (Array.isArray(target)) return target as readonly Object3D[];
  const t = target as SkinnedMesh | ThreeSkeleton;
  if ('isSkinnedMesh' in t && t.isSkinnedMesh) {
    if (!t.skeleton) throw new RangeError(`bindThree: SkinnedMesh '${t.name}' has no skeleton (bind it first)`);
    return t.skeleton.bones;
  }
  if ('bones' in t && Array.isArray(t.bones)) return (t as ThreeSkeleton).bones as readonly (Bone | undefined)[];
  throw new TypeError('bindThree: the target must be a SkinnedMesh, a Skeleton or a list of bones');
}

function depthOf(object: Object3D): number {
  let depth = 0;
  for (let o = object.parent; o !== null; o = o.parent) depth++;
  return depth;
}

/**
 * A graph skeleton with three.js bones' names and hierarchy, and their current local transforms
 * (position, quaternion, scale) as its reference pose: for driving a model loaded with three
 * (GLTFLoader) by a graph. Bones are reordered parents before children where three lists them
 * otherwise; a bone whose parent is not among them is a root. Throws SkeletonError for an empty
 * or repeated name.
 */
export function skeletonFromThree(target: ThreeBindTarget): Skeleton {
  const listed = bonesOf(target).filter((b): b is Object3D => b !== undefined && b !== null);
  const inList = new Set(listed);
  const ordered: Object3D[] = [];
  const placed = new Set<Object3D>();
  const place = (bone: Object3D): void => {
    if (placed.has(bone)) return;
    if (bone.parent !== null && inList.has(bone.parent)) place(bone.parent);
    placed.add(bone);
    ordered.push(bone);
  };
  listed.forEach(place);
  const index = new Map(ordered.map((b, i) => [b, i]));
  const pose = new Pose(ordered.length);
  ordered.forEach((bone, i) => {
    bone.position.toArray(pose.translations, i * 3);
    bone.quaternion.toArray(pose.rotations, i * 4);
    quatNormalize(pose.rotations, i * 4);
    bone.scale.toArray(pose.scales, i * 3);
  });
  return new Skeleton(ordered.map((b) => b.name), ordered.map((b) => (b.parent === null ? -1 : index.get(b.parent) ?? -1)), pose);
}

/**
 * A three.js AnimationClip's bone tracks (`Bone.position`, `.quaternion`, `.scale`) resampled
 * with three's own interpolants into an animgraph Clip at `frameRate` keys per second (default
 * 30; give the clip's own key rate to keep its keys exactly), from time 0 to the clip's duration.
 * Tracks of bones the skeleton lacks and other properties (morph target influences) are left out.
 */
export function clipFromThree(clip: AnimationClip, skeleton: Skeleton, options: { frameRate?: number } = {}): Clip {
  const frameRate = options.frameRate ?? 30;
  const frameCount = Math.max(1, Math.round(clip.duration * frameRate) + 1);
  const byBone = new Map<string, { translation?: Interpolant; rotation?: Interpolant; scale?: Interpolant }>();
  for (const track of clip.tracks) {
    const dot = track.name.lastIndexOf('.');
    const bone = track.name.slice(0, dot), property = track.name.slice(dot + 1);
    const attribute = property === 'position' ? 'translation' : property === 'quaternion' ? 'rotation' : property === 'scale' ? 'scale' : null;
    if (attribute === null || skeleton.indexOf(bone) < 0) continue;
    const entry = byBone.get(bone) ?? {};
    entry[attribute] = (track as unknown as { createInterpolant(): Interpolant }).createInterpolant();
    byBone.set(bone, entry);
  }
  const tracks: TrackLayout[] = [...byBone].map(([bone, e]) => ({ bone, translation: !!e.translation, rotation: !!e.rotation, scale: !!e.scale }));
  const n = tracks.length;
  const translations = new Float64Array(frameCount * n * 3), rotations = new Float64Array(frameCount * n * 4);
  const scales = new Float64Array(frameCount * n * 3).fill(1);
  const interpolants = [...byBone.values()];
  for (let f = 0; f < frameCount; f++) {
    const time = Math.min(f / frameRate, clip.duration);
    interpolants.forEach((e, t) => {
      const o3 = (f * n + t) * 3, o4 = (f * n + t) * 4;
      if (e.translation) translations.set(e.translation.evaluate(time).subarray(0, 3), o3);
      if (e.rotation) {
        rotations.set(e.rotation.evaluate(time).subarray(0, 4), o4);
        quatNormalize(rotations, o4);
      } else rotations[o4 + 3] = 1;
      if (e.scale) scales.set(e.scale.evaluate(time).subarray(0, 3), o3);
    });
  }
  return new Clip({ name: clip.name, frameRate, frameCount, tracks, translations, rotations, scales });
}
