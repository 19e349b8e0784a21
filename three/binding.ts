/**
 * animgraph/three's binding: drives three.js skinned meshes from a graph instance.
 *
 *   const binding = bindThree(character, gltf.scene);   // or a SkinnedMesh, a Skeleton, a list of bones
 *   // each frame, after moving the character's root Object3D:
 *   character.update(dt);
 *   binding.apply();
 *   renderer.render(scene, camera);
 *
 * apply() computes each bone's world matrix straight from the instance's component pose
 * (root.matrixWorld × the bone's component transform), in arrays of its own, and the skinning
 * matrices (world × inverse bind matrix) from them into a Float32Array per Skeleton, instead of
 * copying local transforms into every Bone and recomposing the hierarchy with updateMatrixWorld
 * (a Euler update per quaternion write, a compose and a product per bone, across objects spread
 * over the heap). The bound Skeletons' update() (which three's renderers call once per frame
 * before drawing, after keeping last frame's matrices for motion vectors) is replaced by a copy of
 * those matrices into skeleton.boneMatrices; release() restores it.
 *
 * Bones' own matrixWorld is written only with `boneWorldMatrices: true` (for objects attached to
 * bones, SkinnedMesh.applyBoneTransform, raycasts); either way bound bones get matrixAutoUpdate
 * and matrixWorldAutoUpdate set to false, so the scene's updateMatrixWorld spends nothing on them.
 *
 * Only `three`'s types are imported: this module does not load three itself.
 */
import type { Matrix4, Object3D, Skeleton as ThreeSkeleton } from 'three';
import type { ComponentPose } from '../runtime/core/component-pose.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';
import { targetParts, type ThreeBindTarget } from './target.ts';

/** What a binding reads its pose from: an AnimGraphInstance, or anything with its skeleton and component pose. */
export interface ThreePoseSource {
  readonly skeleton: Skeleton;
  /** The current pose in component space; called once per apply(). */
  componentPose(): ComponentPose;
}

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
   * Also write every bone's matrixWorld (default false; always on for a list of bones): for
   * objects attached to bones, SkinnedMesh.applyBoneTransform and raycasts. Without it the
   * bones' matrixWorld keeps whatever it last held.
   */
  boneWorldMatrices?: boolean;
  /**
   * Compute bone matrices from the component pose (default true). False leaves the bones'
   * matrices to three (the naive path: writeLocal, then updateMatrixWorld or the renderer), and
   * the binding changes no flags and no Skeleton.
   */
  writeMatrices?: boolean;
  /**
   * Also copy the graph's local pose into each bound bone's position, quaternion and scale, for
   * code that reads them (default false). Every quaternion write makes three update the bone's
   * Euler rotation, which is most of the naive path's cost.
   */
  writeLocal?: boolean;
}

/** One bound Skeleton: where each of its slots takes its world matrix, and its inverse bind matrices. */
interface BoundSkeleton {
  readonly skeleton: ThreeSkeleton;
  /** Per slot of skeleton.bones: the binding's bone index, or -1 for an empty slot (three skins it with the identity). */
  readonly boneOf: Int32Array;
  /** skeleton.boneInverses as read at binding, 16 per slot (column-major, as three stores them). */
  readonly inverses: Float64Array;
  /** This frame's skinning matrices, copied into skeleton.boneMatrices by skeleton.update(). */
  readonly pending: Float32Array;
}

/**
 * A graph instance bound to three.js bones by name. Bone names are resolved once, here; apply()
 * allocates nothing.
 *
 * - A three bone whose name the graph's skeleton has is bound (every three bone of that name, when
 *   several share it): its world matrix is root × its component transform.
 * - A three bone the graph lacks keeps three's pose: its local transform (position, quaternion,
 *   scale) under its parent's world matrix, the parent bound or not.
 * - A graph bone three lacks is ignored (it still shapes its children's component transforms).
 *
 * The world matrices follow the graph's hierarchy and its component-space composition (scales
 * multiply per axis, as in the runtime: no shear), which equals three's matrix chain whenever
 * the two hierarchies agree on the bound bones and no bone under a rotated child has a
 * non-uniform scale. The inverse bind matrices are read once: bind again after
 * skeleton.calculateInverses(). Binding bones or Skeletons another live binding drives releases that
 * binding first (a bone has one driver; the bones' flags are saved as three had them). Binding to
 * bones none of whose names the graph has throws an AnimGraphError (`unknown-name`).
 */
export class ThreeBinding {
  /** Every bone the binding drives or keeps: the bound ones first, in the graph's order, then the others, parents first. */
  readonly bones: readonly Object3D[];
  /** How many of `bones` (the first ones) are bound; boneIndices[k] is bone k's graph bone. */
  readonly boundCount: number;
  readonly boneIndices: Int32Array;
  /** Names of the three bones the graph's skeleton lacks (they keep three's pose). */
  readonly unboundThreeBones: readonly string[];
  /** Names of the graph bones no three bone has (ignored). */
  readonly unusedGraphBones: readonly string[];
  /** The Object3D whose world matrix is the component space, or null for the world origin. */
  readonly root: Object3D | null;
  /** The Skeletons whose boneMatrices the binding fills. */
  readonly skeletons: readonly ThreeSkeleton[];
  private readonly source: ThreePoseSource;
  /** Per unbound bone (bones[boundCount + u]): its parent's index in `bones`, or -1 for a parent outside them. */
  private readonly unboundParents: Int32Array;
  /** World matrix of each of `bones`, 16 per bone, column-major. */
  private readonly worlds: Float64Array;
  private readonly bound: readonly BoundSkeleton[];
  private readonly updateRoot: boolean;
  private readonly writeMatrices: boolean;
  private readonly writeWorlds: boolean;
  private readonly writeLocal: boolean;
  /** The bound bones' matrixAutoUpdate and matrixWorldAutoUpdate before binding, for release(). */
  private readonly savedFlags: Uint8Array;
  private released = false;

  constructor(source: ThreePoseSource, target: ThreeBindTarget, options: ThreeBindingOptions = {}) {
    const skeleton = source.skeleton;
    const { skeletons, bones: threeBones } = targetParts(target);
    const bound: { bone: Object3D; index: number }[] = [];
    const unbound: Object3D[] = [];
    const used = new Uint8Array(skeleton.boneCount);
    for (const bone of threeBones) {
      // three's GLTFLoader strips characters such as '.' from node names ('Foot.L' becomes
      // 'FootL') and keeps the name as written in userData.name, which is what a graph loaded from
      // the same glTF calls the bone: try it first.
      const written = typeof bone.userData.name === 'string' ? skeleton.indexOf(bone.userData.name) : -1;
      const index = written >= 0 ? written : skeleton.indexOf(bone.name);
      if (index < 0) unbound.push(bone);
      else {
        bound.push({ bone, index });
        used[index] = 1;
      }
    }
    if (bound.length === 0) {
      throw new AnimGraphError(
        'unknown-name',
        `bindThree: none of the ${threeBones.length} three.js bones (${threeBones.slice(0, 5).map((b) => `'${b.name}'`).join(', ')}${threeBones.length > 5 ? ', …' : ''}) ` +
        `has the name of a bone of the graph's skeleton ('${skeleton.boneNames.slice(0, 5).join("', '")}'${skeleton.boneCount > 5 ? ', …' : ''})`,
      );
    }
    this.writeMatrices = options.writeMatrices ?? true;
    this.writeLocal = options.writeLocal ?? false;
    if (!this.writeMatrices && !this.writeLocal) throw new AnimGraphError('invalid-argument', 'bindThree: writeMatrices and writeLocal are both false: the binding would write nothing');
    bound.sort((a, b) => a.index - b.index);
    // Parents before children: an unbound bone's parent may be another unbound bone.
    unbound.sort((a, b) => depthOf(a) - depthOf(b));
    this.source = source;
    this.bones = [...bound.map((b) => b.bone), ...unbound];
    this.boundCount = bound.length;
    this.boneIndices = Int32Array.from(bound, (b) => b.index);
    const position = new Map(this.bones.map((b, k) => [b, k]));
    this.unboundParents = Int32Array.from(unbound, (b) => (b.parent === null ? -1 : position.get(b.parent) ?? -1));
    this.root = options.root !== undefined ? options.root : bound[0].bone.parent;
    this.unboundThreeBones = unbound.map((b) => b.name);
    this.unusedGraphBones = skeleton.boneNames.filter((_, i) => used[i] === 0);
    this.updateRoot = options.updateRoot ?? true;
    this.skeletons = this.writeMatrices ? skeletons : [];
    this.writeWorlds = this.writeMatrices && (options.boneWorldMatrices === true || skeletons.length === 0);
    this.worlds = new Float64Array(this.bones.length * 16);
    // Another binding of these bones or Skeletons would go on writing them, and its release() would
    // undo this one's flags and update(): it lets go first, so the flags saved below are three's.
    if (this.writeMatrices) {
      for (const part of [...this.bones.slice(0, this.boundCount), ...this.skeletons]) drivers.get(part)?.release();
    }
    this.bound = this.skeletons.map((s) => this.bindSkeleton(s, position));
    this.savedFlags = new Uint8Array(this.boundCount * 2);
    if (this.writeMatrices) {
      for (const part of [...this.bones.slice(0, this.boundCount), ...this.skeletons]) drivers.set(part, this);
      for (let k = 0; k < this.boundCount; k++) {
        const bone = this.bones[k];
        this.savedFlags[k * 2] = bone.matrixAutoUpdate ? 1 : 0;
        this.savedFlags[k * 2 + 1] = bone.matrixWorldAutoUpdate ? 1 : 0;
        bone.matrixAutoUpdate = false;
        bone.matrixWorldAutoUpdate = false;
      }
    }
  }

  private bindSkeleton(skeleton: ThreeSkeleton, position: ReadonlyMap<Object3D, number>): BoundSkeleton {
    const n = skeleton.bones.length;
    const boneOf = new Int32Array(n).fill(-1);
    const inverses = new Float64Array(n * 16);
    for (let i = 0; i < n; i++) {
      const bone = skeleton.bones[i] as Object3D | undefined;
      if (bone) boneOf[i] = position.get(bone)!;
      inverses.set(skeleton.boneInverses[i].elements, i * 16);
    }
    const pending = new Float32Array(n * 16);
    const bound: BoundSkeleton = { skeleton, boneOf, inverses, pending };
    // The renderer keeps last frame's matrices (motion vectors), then calls update(): installing
    // this frame's there keeps that order. An own property, so release() can delete it.
    skeleton.update = function updateFromGraph(this: ThreeSkeleton): void {
      this.boneMatrices!.set(pending);
      if (this.boneTexture !== null) this.boneTexture.needsUpdate = true;
    };
    return bound;
  }

  /**
   * Computes the instance's current pose into the bound skeletons' skinning matrices (installed by
   * skeleton.update(), which the renderer calls) and, as the options say, into the bones'
   * matrixWorld and local transforms; evaluates the instance first if it has not been evaluated
   * since its last update. Call after instance.update(dt) and after moving the root, before
   * rendering. Allocates nothing.
   */
  apply(): void {
    if (this.released) return;
    const pose = this.source.componentPose();
    if (this.writeLocal) this.applyLocal(pose);
    if (!this.writeMatrices) return;
    const root = this.root;
    if (root !== null && this.updateRoot) root.updateWorldMatrix(true, false);
    this.computeBoundWorlds(pose, root === null ? null : root.matrixWorld);
    this.computeUnboundWorlds();
    if (this.writeWorlds) this.writeBoneWorlds();
    const bound = this.bound;
    for (let s = 0; s < bound.length; s++) this.computeSkinning(bound[s]);
  }

  /**
   * Gives the bones back to three: restores their matrixAutoUpdate and matrixWorldAutoUpdate and
   * the Skeletons' own update(). Their matrices are recomputed from position, quaternion and scale
   * (which hold the last local pose only with writeLocal). apply() then does nothing.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (!this.writeMatrices) return;
    for (let k = 0; k < this.boundCount; k++) {
      const bone = this.bones[k];
      bone.matrixAutoUpdate = this.savedFlags[k * 2] === 1;
      bone.matrixWorldAutoUpdate = this.savedFlags[k * 2 + 1] === 1;
      bone.matrixWorldNeedsUpdate = true;
    }
    for (const { skeleton } of this.bound) delete (skeleton as { update?: unknown }).update;
    for (const part of [...this.bones.slice(0, this.boundCount), ...this.skeletons]) if (drivers.get(part) === this) drivers.delete(part);
  }

  /** World matrix of each bound bone = rootWorld × compose(component T, R, S), written out. */
  private computeBoundWorlds(pose: ComponentPose, rootWorld: Matrix4 | null): void {
    const ct = pose.translations, cr = pose.rotations, cs = pose.scales;
    // The root's world matrix is affine (an Object3D's always is): its last row is 0 0 0 1.
    let m0 = 1, m1 = 0, m2 = 0, m4 = 0, m5 = 1, m6 = 0, m8 = 0, m9 = 0, m10 = 1, m12 = 0, m13 = 0, m14 = 0;
    if (rootWorld !== null) {
      const m = rootWorld.elements;
      m0 = m[0]; m1 = m[1]; m2 = m[2]; m4 = m[4]; m5 = m[5]; m6 = m[6];
      m8 = m[8]; m9 = m[9]; m10 = m[10]; m12 = m[12]; m13 = m[13]; m14 = m[14];
    }
    const indices = this.boneIndices, e = this.worlds;
    for (let k = 0; k < indices.length; k++) {
      const b = indices[k], b3 = b * 3, b4 = b * 4, o = k * 16;
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
      e[o] = m0 * c0 + m4 * c1 + m8 * c2;
      e[o + 1] = m1 * c0 + m5 * c1 + m9 * c2;
      e[o + 2] = m2 * c0 + m6 * c1 + m10 * c2;
      e[o + 3] = 0;
      e[o + 4] = m0 * c4 + m4 * c5 + m8 * c6;
      e[o + 5] = m1 * c4 + m5 * c5 + m9 * c6;
      e[o + 6] = m2 * c4 + m6 * c5 + m10 * c6;
      e[o + 7] = 0;
      e[o + 8] = m0 * c8 + m4 * c9 + m8 * c10;
      e[o + 9] = m1 * c8 + m5 * c9 + m9 * c10;
      e[o + 10] = m2 * c8 + m6 * c9 + m10 * c10;
      e[o + 11] = 0;
      e[o + 12] = m0 * c12 + m4 * c13 + m8 * c14 + m12;
      e[o + 13] = m1 * c12 + m5 * c13 + m9 * c14 + m13;
      e[o + 14] = m2 * c12 + m6 * c13 + m10 * c14 + m14;
      e[o + 15] = 1;
    }
  }

  /** Bones the graph lacks, parents first: their own local matrix under their parent's world matrix. */
  private computeUnboundWorlds(): void {
    const bones = this.bones, parents = this.unboundParents, worlds = this.worlds, first = this.boundCount;
    for (let u = 0; u < parents.length; u++) {
      const bone = bones[first + u];
      if (bone.matrixAutoUpdate) bone.updateMatrix();
      const p = parents[u];
      const parentWorld = p >= 0 ? worlds : bone.parent === null ? null : bone.parent.matrixWorld.elements;
      multiplyAffine(worlds, (first + u) * 16, parentWorld, p >= 0 ? p * 16 : 0, bone.matrix.elements);
    }
  }

  private writeBoneWorlds(): void {
    const bones = this.bones, worlds = this.worlds;
    for (let k = 0; k < bones.length; k++) {
      const bone = bones[k];
      // An unbound bone that three is not to move (matrixWorldAutoUpdate off) keeps its matrix.
      if (k >= this.boundCount && !bone.matrixWorldAutoUpdate) continue;
      const e = bone.matrixWorld.elements, o = k * 16;
      for (let i = 0; i < 16; i++) e[i] = worlds[o + i];
    }
  }

  /** pending[slot] = world(bone in slot) × inverse bind matrix(slot), as Skeleton.update computes it. */
  private computeSkinning(s: BoundSkeleton): void {
    const boneOf = s.boneOf, inv = s.inverses, out = s.pending, worlds = this.worlds;
    for (let i = 0; i < boneOf.length; i++) {
      const k = boneOf[i], o = i * 16;
      if (k < 0) {
        for (let j = 0; j < 16; j++) out[o + j] = inv[o + j];
        continue;
      }
      const w = k * 16;
      const a0 = worlds[w], a1 = worlds[w + 1], a2 = worlds[w + 2];
      const a4 = worlds[w + 4], a5 = worlds[w + 5], a6 = worlds[w + 6];
      const a8 = worlds[w + 8], a9 = worlds[w + 9], a10 = worlds[w + 10];
      const a12 = worlds[w + 12], a13 = worlds[w + 13], a14 = worlds[w + 14];
      for (let c = 0; c < 16; c += 4) {
        const b0 = inv[o + c], b1 = inv[o + c + 1], b2 = inv[o + c + 2], b3 = inv[o + c + 3];
        out[o + c] = a0 * b0 + a4 * b1 + a8 * b2 + a12 * b3;
        out[o + c + 1] = a1 * b0 + a5 * b1 + a9 * b2 + a13 * b3;
        out[o + c + 2] = a2 * b0 + a6 * b1 + a10 * b2 + a14 * b3;
        out[o + c + 3] = b3;
      }
    }
  }

  private applyLocal(pose: ComponentPose): void {
    const local = pose.ensureAllLocal();
    const lt = local.translations, lr = local.rotations, ls = local.scales;
    const bones = this.bones, indices = this.boneIndices;
    for (let k = 0; k < indices.length; k++) {
      const b = indices[k], b3 = b * 3, b4 = b * 4;
      const bone = bones[k];
      bone.position.set(lt[b3], lt[b3 + 1], lt[b3 + 2]);
      bone.quaternion.set(lr[b4], lr[b4 + 1], lr[b4 + 2], lr[b4 + 3]);
      bone.scale.set(ls[b3], ls[b3 + 1], ls[b3 + 2]);
    }
  }
}

/** out[o..o+16) = a[ao..] × b (a null: the identity), both affine, column-major. */
function multiplyAffine(out: Float64Array, o: number, a: ArrayLike<number> | null, ao: number, b: ArrayLike<number>): void {
  if (a === null) {
    for (let i = 0; i < 16; i++) out[o + i] = b[i];
    return;
  }
  const a0 = a[ao], a1 = a[ao + 1], a2 = a[ao + 2], a4 = a[ao + 4], a5 = a[ao + 5], a6 = a[ao + 6];
  const a8 = a[ao + 8], a9 = a[ao + 9], a10 = a[ao + 10], a12 = a[ao + 12], a13 = a[ao + 13], a14 = a[ao + 14];
  for (let c = 0; c < 16; c += 4) {
    const b0 = b[c], b1 = b[c + 1], b2 = b[c + 2], b3 = b[c + 3];
    out[o + c] = a0 * b0 + a4 * b1 + a8 * b2 + a12 * b3;
    out[o + c + 1] = a1 * b0 + a5 * b1 + a9 * b2 + a13 * b3;
    out[o + c + 2] = a2 * b0 + a6 * b1 + a10 * b2 + a14 * b3;
    out[o + c + 3] = b3;
  }
}

/**
 * Binds `source` (an AnimGraphInstance) to three.js bones by name: see ThreeBinding. Call
 * `binding.apply()` each frame after `instance.update(dt)`.
 */
export function bindThree(source: ThreePoseSource, target: ThreeBindTarget, options?: ThreeBindingOptions): ThreeBinding {
  return new ThreeBinding(source, target, options);
}

function depthOf(object: Object3D): number {
  let depth = 0;
  for (let o = object.parent; o !== null; o = o.parent) depth++;
  return depth;
}

/** The live binding driving each bound bone and Skeleton (with writeMatrices), so a new binding of them can release it. */
const drivers = new WeakMap<object, ThreeBinding>();
