/**
 * animgraph/three's binding: drives three.js skinned meshes from a graph instance.
 *
 *   const binding = bindThree(character, gltf.scene);   // or a SkinnedMesh, a Skeleton, a list of bones
 *   // each frame, after moving the character's root Object3D:
 *   character.update(dt);
 *   binding.apply();
 *   renderer.render(scene, camera);
 *
 * apply() writes each bound Skeleton's skinning matrices (root's world matrix × the bone's component
 * transform × its inverse bind matrix, rounded once to single precision) straight into
 * skeleton.boneMatrices, in one pass over the pose (the local pose while nobody has composed the
 * component pose, else the component pose), instead of copying local transforms into every Bone and
 * recomposing the hierarchy (a Euler update per quaternion write, a compose and a product per bone,
 * across objects spread over the heap). On apply()'s shortest path (bare bones) that pass runs in
 * the WebAssembly kernel where the engine has it, with the same numbers, two bones to a vector:
 * SamplingKernel.skin over a crowd's component pose in the kernel's memory, SamplingKernel.skinLocal
 * over a copy of a local pose (or, with precision 'single', SamplingKernel.skinLocalSingle: the same
 * composition in float32); the matrices are then copied into boneMatrices at once. It computes
 * root's world matrix as three would, without
 * writing it: three's walk (the renderer's) does. The bound Skeletons' update(), which
 * three's renderers call once per frame before drawing, then only marks the bone texture for upload
 * (or, when three keeps last frame's matrices for motion vectors, installs this frame's first).
 *
 * The bound bones are kept out of three's per-frame world-matrix walk: each topmost bound bone's
 * updateMatrixWorld is replaced by one that walks only what hangs under the bones (attachments,
 * bones the graph lacks), whose parents' matrixWorld apply() writes. Other bones' matrixWorld is
 * written on request (updateBoneWorlds), every frame for the bones named in boneWorldMatrices, or
 * for all of them with boneWorldMatrices: true.
 *
 * Only `three`'s types are imported: this module does not load three itself.
 */
import type { Object3D, Skeleton as ThreeSkeleton } from 'three';
import type { ComponentPose } from '../runtime/core/component-pose.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { EPSILON } from '../runtime/core/math.ts';
import { kernelOf, type Pose, type PoseStorage } from '../runtime/core/pose.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';
import { SamplingKernel } from '../runtime/kernel/sampling-kernel.ts';
import { targetParts, type ThreeBindTarget } from './target.ts';

/** What a binding reads its pose from: an AnimGraphInstance, or anything with its skeleton and component pose. */
export interface ThreePoseSource {
  readonly skeleton: Skeleton;
  /** The current pose in component space; called once per apply() unless uncomposedPose gives the pose. */
  componentPose(): ComponentPose;
  /**
   * Optional (an AnimGraphInstance has it): the current local pose, evaluated if need be, while its
   * component pose is not computed, else null. apply() then composes the skinning matrices from
   * the local pose in one pass and leaves the component pose to whoever asks for it.
   */
  uncomposedPose?(): Pose | null;
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
   * Compute root's world matrix from its and its ancestors' position, quaternion and scale at the
   * start of each apply(), as root.updateWorldMatrix(true, false) would (without writing it: three's
   * walk, the renderer's, does), so that a character moved this frame is drawn where it now is.
   * Default true; false to use root.matrixWorld as it stands (a scene.updateMatrixWorld() just before).
   */
  updateRoot?: boolean;
  /**
   * Which bones' matrixWorld apply() writes besides those that carry objects (default none):
   * true for every bone (always so for a list of bones), or the names of some (a bone's name in
   * three or in the graph), for code that reads them every frame. Other bones' matrixWorld is
   * written by updateBoneWorlds(), on request.
   */
  boneWorldMatrices?: boolean | readonly string[];
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
  /**
   * What apply() composes the skinning matrices in when it starts from the local pose on its
   * shortest path (bare bones, one Skeleton; see docs/three.md): 'double' (the default), rounded
   * once to float32 at the end, or 'single', in float32 throughout, in the WebAssembly kernel
   * (SamplingKernel.skinLocalSingle), faster and within a float32's rounding of 'double'. Where
   * that kernel path cannot run (no WebAssembly SIMD, a binding off the shortest path: several
   * Skeletons, a bone the graph lacks, boneWorldMatrices, writeLocal; more models than the kernel
   * holds), apply() composes in double precision: `binding.precision` says which. The component-pose
   * path (a crowd made with componentSpace) and frames with objects hung under the bones stay in
   * double precision.
   */
  precision?: 'double' | 'single';
}

/** One bound Skeleton: where each of its slots takes its matrix, and its inverse bind matrices. */
interface BoundSkeleton {
  readonly skeleton: ThreeSkeleton;
  /** Per slot of skeleton.bones: the binding's bone index, or -1 for an empty slot (three skins it with the identity). */
  readonly boneOf: Int32Array;
  /** Per slot: the graph bone of a bound bone (skinned from the pose), else -1 (skinned from `worlds`). */
  readonly graphBoneOf: Int32Array;
  /** Whether some slot is not a bound bone (an empty slot, or a bone the graph lacks). */
  readonly mixed: boolean;
  /** skeleton.boneInverses as read at binding, 16 per slot (column-major, as three stores them). */
  readonly inverses: Float64Array;
  /** Whether every inverse bind matrix's last row is 0 0 0 1 (as three computes them). */
  readonly affine: boolean;
  /** This frame's skinning matrices while three keeps last frame's for motion vectors (previousBoneMatrices). */
  readonly pending: Float32Array;
  /** Whether `pending` holds matrices that update() is still to install. */
  deferred: boolean;
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
  // What most characters' apply() reads, declared first so that it lies in the binding object's first
  // cache lines together: in a crowd each binding is a cache miss, and each further line of it another.
  /** Whether apply() takes its shortest path (see updateShortest): the fields below it are all it reads then. */
  private shortest = false;
  private readonly source: ThreePoseSource;
  /** Whether the source has uncomposedPose: apply() then composes from the local pose while nobody has composed the component pose. */
  private readonly readsLocal: boolean;
  private readonly updateRoot: boolean;
  /** The Object3D whose world matrix is the component space, or null for the world origin. */
  readonly root: Object3D | null;
  /**
   * The Skeleton apply() skins straight from the pose, while no bone's world matrix is asked for:
   * the only one bound, its inverse bind matrices affine, each slot a bound bone (each graph bone in
   * one slot at most), and the binding not asked for every bone's matrixWorld. Else null.
   */
  private readonly direct: ThreeSkeleton | null;
  /** direct's slots and inverse bind matrices: one object for every binding of a clone of one model (see directShapeOf). */
  private readonly shape: DirectShape;
  /**
   * The component pose whose arrays lie in a sampling kernel's memory (a crowd's character), which
   * apply()'s shortest path then skins in the kernel (SamplingKernel.skin), or null; kernelSought
   * once looked for.
   */
  private kernelPose: ComponentPose | null = null;
  private kernel: SamplingKernel | null = null;
  /** kernelPose's shape in the kernel (SamplingKernel.skinShape) and its arrays' byte addresses there. */
  private kernelShape = 0;
  private kernelT = 0;
  private kernelR = 0;
  private kernelS = 0;
  private kernelSought = false;
  /**
   * The kernel that skins this binding's local poses (SamplingKernel.skinLocal: a character made on
   * its own, or a crowd's without componentSpace) and its shape there (-1: none, skinFromLocal in
   * JavaScript); localSought once looked for.
   */
  private localKernel: SamplingKernel | null = null;
  private localShape = -1;
  private localSought = false;
  /** Whether localShape is a skinLocalSingle shape (precision 'single'), else a skinLocal one. */
  private localSingle = false;
  /** Whether precision 'single' was asked for. */
  private readonly wantsSingle: boolean;
  /** The graph skeleton's parents (parents before children). */
  private readonly parents: Int32Array;
  /** The component pose the last apply() drew, for updateBoneWorlds (null when it drew lastLocal). */
  private lastPose: ComponentPose | null = null;
  /** The local pose the last apply() drew, for updateBoneWorlds (null when it drew lastPose). */
  private lastLocal: Pose | null = null;
  private released = false;
  /** Whether apply() has written every bone's matrixWorld once (so that three's first bounding sphere sees the pose). */
  private firstWritten = false;
  private readonly writeMatrices: boolean;
  private readonly writeLocal: boolean;
  /** How many bound bones have pinned or foreign set: whose world apply() computes. */
  private worldBones = 0;
  /** Every bone the binding drives or keeps: the bound ones first, in the graph's order, then the others, parents first. */
  readonly bones: readonly Object3D[];
  /** How many of `bones` (the first ones) are bound; boneIndices[k] is bone k's graph bone. */
  readonly boundCount: number;
  readonly boneIndices: Int32Array;
  /** Names of the three bones the graph's skeleton lacks (they keep three's pose). */
  readonly unboundThreeBones: readonly string[];
  /** Names of the graph bones no three bone has (ignored). */
  readonly unusedGraphBones: readonly string[];
  /** The Skeletons whose boneMatrices the binding fills. */
  readonly skeletons: readonly ThreeSkeleton[];
  /** Per unbound bone (bones[boundCount + u]): its parent's index in `bones`, or -1 for a parent outside them. */
  private readonly unboundParents: Int32Array;
  /** World matrix of each of `bones`, 16 per bone, column-major: written for the bones whose matrixWorld is written or read. */
  private readonly worlds: Float64Array;
  private readonly bound: readonly BoundSkeleton[];
  /** boneWorldMatrices: true (or a list of bones): every bone's matrixWorld each apply(). */
  private readonly writeAllWorlds: boolean;
  /**
   * Per bone of `bones`: 1 when apply() writes its matrixWorld whatever hangs under it (named in
   * boneWorldMatrices), 2 when it only computes its world (the parent of a bone the graph lacks), 3 both.
   */
  private readonly pinned: Uint8Array;
  /** Per bound bone: how many of its children are not bound bones (attachments, bones the graph lacks); kept by childadded/childremoved. */
  private readonly foreign: Uint16Array;
  /** The sum of `foreign`: whether anything hangs under the bound bones. */
  private foreignTotal = 0;
  /** Per bound bone: the index (in `tops`) of the topmost bound bone above it through bound parents. */
  private readonly topOf: Int32Array;
  /** The bound bones whose parent is not a bound bone: their updateMatrixWorld is the binding's. */
  private readonly tops: readonly Object3D[];
  /** Per top bone: its updateMatrixWorld while something hangs under the bound bones. */
  private walks: (() => void)[] = [];
  /** Each of `bones` by object, to its index. */
  private readonly position: ReadonlyMap<Object3D, number>;
  /** The bound bones' matrixAutoUpdate and matrixWorldAutoUpdate before binding, for release(). */
  private readonly savedFlags: Uint8Array;
  /** Whether some bound Skeleton's inverse bind matrices are not affine: skinned from every bone's world matrix. */
  private readonly projective: boolean;

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
    this.readsLocal = typeof source.uncomposedPose === 'function';
    this.wantsSingle = options.precision === 'single';
    if (options.precision !== undefined && options.precision !== 'double' && options.precision !== 'single') {
      throw new AnimGraphError('invalid-argument', `bindThree: precision is '${String(options.precision)}', not 'double' or 'single'`);
    }
    this.parents = skeleton.parents;
    if (localWorlds.length < (skeleton.boneCount + 1) * WORLD) localWorlds = new Float64Array((skeleton.boneCount + 1) * WORLD);
    this.bones = [...bound.map((b) => b.bone), ...unbound];
    this.boundCount = bound.length;
    this.boneIndices = Int32Array.from(bound, (b) => b.index);
    const position = new Map(this.bones.map((b, k) => [b, k]));
    this.position = position;
    this.unboundParents = Int32Array.from(unbound, (b) => (b.parent === null ? -1 : position.get(b.parent) ?? -1));
    this.root = options.root !== undefined ? options.root : bound[0].bone.parent;
    this.unboundThreeBones = unbound.map((b) => b.name);
    this.unusedGraphBones = skeleton.boneNames.filter((_, i) => used[i] === 0);
    this.updateRoot = options.updateRoot ?? true;
    this.skeletons = this.writeMatrices ? skeletons : [];
    this.writeAllWorlds = this.writeMatrices && (options.boneWorldMatrices === true || skeletons.length === 0);
    this.worlds = new Float64Array(this.bones.length * 16);
    this.pinned = this.pinBones(options.boneWorldMatrices, skeleton);
    this.foreign = new Uint16Array(this.boundCount);
    this.topOf = new Int32Array(this.boundCount);
    const tops: Object3D[] = [];
    for (let k = 0; k < this.boundCount; k++) {
      const bone = this.bones[k];
      for (const child of bone.children) if ((position.get(child) ?? this.boundCount) >= this.boundCount) this.foreign[k]++;
      let top = bone;
      while (top.parent !== null && (position.get(top.parent) ?? this.boundCount) < this.boundCount) top = top.parent;
      if (top === bone) tops.push(bone);
    }
    for (let k = 0; k < this.boundCount; k++) {
      let top = this.bones[k];
      while (top.parent !== null && (position.get(top.parent) ?? this.boundCount) < this.boundCount) top = top.parent;
      this.topOf[k] = tops.indexOf(top);
    }
    this.tops = tops;
    for (let k = 0; k < this.boundCount; k++) {
      this.foreignTotal += this.foreign[k];
      if (this.pinned[k] !== 0 || this.foreign[k] > 0) this.worldBones++;
    }
    // Another binding of these bones or Skeletons would go on writing them, and its release() would
    // undo this one's flags and update(): it lets go first, so the flags saved below are three's.
    if (this.writeMatrices) {
      for (const part of [...this.bones.slice(0, this.boundCount), ...this.skeletons]) drivers.get(part)?.release();
    }
    this.bound = this.skeletons.map((s) => this.bindSkeleton(s, position));
    const only = this.bound.length === 1 ? this.bound[0] : null;
    const slotOf = only === null ? null : slotsOfBones(only.graphBoneOf, skeleton.boneCount);
    const direct = only !== null && only.affine && !only.mixed && slotOf !== null && this.unboundParents.length === 0 && !this.writeAllWorlds;
    this.direct = direct ? only.skeleton : null;
    this.shape = direct ? directShapeOf(only.graphBoneOf, shared(slotOf!), only.inverses) : NO_SHAPE;
    this.projective = this.bound.some((b) => !b.affine);
    // Decided now, so that `precision` tells before the first apply() what it will run; only for a
    // binding that can take the shortest path (writeLocal and bones named in boneWorldMatrices keep it off).
    if (this.wantsSingle && direct && this.readsLocal && !this.writeLocal && this.pinned.every((p) => p === 0)) this.seekLocalKernel();
    this.savedFlags = new Uint8Array(this.boundCount * 2);
    if (this.writeMatrices) {
      for (const part of [...this.bones.slice(0, this.boundCount), ...this.skeletons]) drivers.set(part, this);
      for (let k = 0; k < this.boundCount; k++) {
        const bone = this.bones[k];
        this.savedFlags[k * 2] = bone.matrixAutoUpdate ? 1 : 0;
        this.savedFlags[k * 2 + 1] = bone.matrixWorldAutoUpdate ? 1 : 0;
        bone.matrixAutoUpdate = false;
        bone.matrixWorldAutoUpdate = false;
        bone.addEventListener('childadded', this.childAdded);
        bone.addEventListener('childremoved', this.childRemoved);
      }
      this.walks = tops.map((_, t) => () => this.updateAttachments(t));
      this.installWalks();
    }
  }

  /** `pinned` from boneWorldMatrices' names and the parents of unbound bones (see the field). */
  private pinBones(names: boolean | readonly string[] | undefined, skeleton: Skeleton): Uint8Array {
    const pinned = new Uint8Array(this.bones.length);
    for (let u = 0; u < this.unboundParents.length; u++) {
      const p = this.unboundParents[u];
      if (p >= 0) pinned[p] |= 2;
    }
    if (Array.isArray(names)) {
      for (const name of names as readonly string[]) {
        const graphBone = skeleton.indexOf(name);
        let found = false;
        this.bones.forEach((bone, k) => {
          if (bone.name === name || bone.userData.name === name || (k < this.boundCount && this.boneIndices[k] === graphBone)) {
            pinned[k] |= 1;
            found = true;
          }
        });
        if (!found) throw new AnimGraphError('unknown-name', `bindThree: boneWorldMatrices names '${name}', which is no bone of the target`);
      }
    }
    return pinned;
  }

  private bindSkeleton(skeleton: ThreeSkeleton, position: ReadonlyMap<Object3D, number>): BoundSkeleton {
    const n = skeleton.bones.length;
    const boneOf = new Int32Array(n).fill(-1);
    const graphBoneOf = new Int32Array(n).fill(-1);
    const inverses = new Float64Array(n * 16);
    let mixed = false, affine = true;
    for (let i = 0; i < n; i++) {
      const bone = skeleton.bones[i] as Object3D | undefined;
      if (bone) boneOf[i] = position.get(bone)!;
      if (boneOf[i] >= 0 && boneOf[i] < this.boundCount) graphBoneOf[i] = this.boneIndices[boneOf[i]];
      else mixed = true;
      const e = skeleton.boneInverses[i].elements;
      inverses.set(e, i * 16);
      if (e[3] !== 0 || e[7] !== 0 || e[11] !== 0 || e[15] !== 1) affine = false;
    }
    const bound: BoundSkeleton = {
      skeleton, boneOf, graphBoneOf: shared(graphBoneOf), mixed, inverses: shared(inverses), affine, pending: new Float32Array(n * 16), deferred: false,
    };
    // An own property, so release() can delete it; one function for every Skeleton (see updateFromGraph).
    skeleton.update = updateFromGraph;
    boundSkeletons.set(skeleton, bound);
    return bound;
  }

  /**
   * Writes the instance's current pose into the bound skeletons' skinning matrices and the
   * matrixWorld of the bones that carry objects (or are named in boneWorldMatrices) and, with
   * writeLocal, into the bones' local transforms; evaluates the instance first if it has not been
   * evaluated since its last update. Call after instance.update(dt) and after moving the root,
   * before rendering. Allocates nothing.
   */
  apply(): void {
    const shortest = this.shortest;
    if (!shortest && this.released) return;
    // While nobody has composed the component pose this frame (a character made on its own, no node
    // or caller asking), the skinning matrices are composed from the local pose, and the component
    // pass is left to whoever asks for it.
    const local = this.readsLocal ? this.source.uncomposedPose!() : null;
    const pose = local === null ? this.source.componentPose() : null;
    // Most characters: one Skeleton, nothing hanging under its bones, no bone's world asked for.
    if (shortest) {
      const direct = this.direct!, previous = direct.previousBoneMatrices;
      if (previous === null || previous === undefined) {
        this.lastLocal = local;
        this.lastPose = pose;
        const shape = this.shape;
        if (local !== null) {
          // (A source's pose of another bone count than its skeleton's stays out of the kernel's rows.)
          if ((this.localShape >= 0 || (!this.localSought && this.seekLocalKernel())) && local.boneCount === this.parents.length) {
            const kernel = this.localKernel!;
            this.rootWorld(kernel.skinRoot);
            if (this.localSingle) kernel.skinLocalSingle(this.localShape, local, direct.boneMatrices!);
            else kernel.skinLocal(this.localShape, local, direct.boneMatrices!);
          } else skinFromLocal(this.parents, local, this.rootWorld(ROOT_WORLD), shape.slotOf, shape.inverses, direct.boneMatrices!);
        } else if (pose === this.kernelPose || (!this.kernelSought && this.seekKernel(pose!))) {
          const kernel = this.kernel!;
          this.rootWorld(kernel.skinRoot);
          kernel.skin(this.kernelShape, this.kernelT, this.kernelR, this.kernelS, direct.boneMatrices!);
        } else skinAffine(shape.slots, shape.inverses, pose!, this.rootWorld(ROOT_WORLD), direct.boneMatrices!);
        return;
      }
    }
    if (this.writeLocal) this.applyLocal(local !== null ? local : pose!.ensureAllLocal());
    if (!this.writeMatrices) return;
    this.lastLocal = local;
    this.lastPose = pose;
    const rootWorld = this.rootWorld(ROOT_WORLD);
    const all = this.writeAllWorlds || !this.firstWritten;
    if (!this.firstWritten) {
      this.firstWritten = true;
      this.updateShortest();
    }
    if (local !== null) this.drawLocal(local, rootWorld, all);
    else this.drawComponent(pose!, rootWorld, all);
  }

  /**
   * apply()'s shortest path: skinning `direct` straight from the pose, and nothing else. Taken once the
   * first apply() has written every bone's matrixWorld, while nothing hangs under the bones and no
   * bone's world is asked for, until release(); without writeLocal.
   */
  private updateShortest(): void {
    this.shortest = this.direct !== null && this.firstWritten && this.worldBones === 0 && !this.released && this.writeMatrices && !this.writeLocal;
  }

  /**
   * Whether `pose` lies in a sampling kernel's memory (a crowd's character, its component pass in
   * the kernel) whose skin can hold this binding's shape: then it is kernelPose, and apply()'s
   * shortest path skins it there, with the same numbers as skinAffine, two slots to a vector.
   */
  private seekKernel(pose: ComponentPose): boolean {
    this.kernelSought = true;
    const kernel = kernelOf(pose.translations, pose.rotations, pose.scales);
    if (!(kernel instanceof SamplingKernel)) return false;
    const shape = kernel.skinShape(this.shape.slots, this.shape.inverses);
    if (shape < 0) return false;
    this.kernel = kernel;
    this.kernelShape = shape;
    this.kernelT = pose.translations.byteOffset;
    this.kernelR = pose.rotations.byteOffset;
    this.kernelS = pose.scales.byteOffset;
    this.kernelPose = pose;
    return true;
  }

  /**
   * Whether a sampling kernel for the graph's skeleton (one for every binding of it, made on first
   * use; none where the engine has no WebAssembly SIMD) can hold this binding's shape for skinLocal:
   * then apply()'s shortest path skins local poses there, with the same numbers as skinFromLocal,
   * two bones to a vector; with precision 'single', in skinLocalSingle first (float32), where it holds
   * the shape.
   */
  private seekLocalKernel(): boolean {
    this.localSought = true;
    const skeleton = this.source.skeleton;
    let kernel = localKernels.get(skeleton);
    if (kernel === undefined) localKernels.set(skeleton, kernel = SamplingKernel.forSkinning(skeleton));
    if (kernel === null) return false;
    const single = this.wantsSingle ? kernel.skinLocalSingleShape(this.shape.slotOf, this.shape.inverses) : -1;
    const shape = single >= 0 ? single : kernel.skinLocalShape(this.shape.slotOf, this.shape.inverses);
    if (shape < 0) return false;
    this.localKernel = kernel;
    this.localShape = shape;
    this.localSingle = single >= 0;
    return true;
  }

  /**
   * What apply() composes the skinning matrices in from the local pose on its shortest path:
   * 'single' when precision 'single' was asked for and the WebAssembly kernel holds this binding's
   * shape for it (decided when binding), else 'double' (see ThreeBindingOptions.precision).
   */
  get precision(): 'double' | 'single' {
    return this.localSingle ? 'single' : 'double';
  }

  /**
   * The root's world matrix, into `out` (ROOT_WORLD, or the kernel's skinRoot): with updateRoot, computed as root.updateWorldMatrix(true,
   * false) would make it but without writing it (three's walk, the renderer's, writes it before
   * drawing anyway: computed and written here too, it would be twice the root's and its
   * ancestors' matrices, objects read in no order the cache follows); else root.matrixWorld as it stands.
   */
  private rootWorld(out: Float64Array): Float64Array {
    const root = this.root;
    if (root === null) out.set(IDENTITY);
    else if (this.updateRoot) worldMatrixOf(root, out);
    else out.set(root.matrixWorld.elements);
    return out;
  }

  /** apply() from the local pose, on every path but the shortest. */
  private drawLocal(local: Pose, rootWorld: Float64Array, all: boolean): void {
    skinFromLocal(this.parents, local, rootWorld, null, EMPTY_INVERSES, null);
    // Each bone's world matrix as a Matrix4 only where it is written or read: skinned from, by a
    // Skeleton whose inverse bind matrices are not affine, or under a bone the graph lacks.
    const every = all || this.projective;
    if (every || this.worldBones > 0 || this.unboundParents.length > 0) {
      this.boundWorldsFromLocal(every);
      this.computeUnboundWorlds();
      this.writeBoneWorlds(all);
    }
    const bound = this.bound;
    for (let s = 0; s < bound.length; s++) {
      const b = bound[s], out = this.skinTarget(b);
      if (b.affine) {
        this.skinFromWorldScratch(b.graphBoneOf, b.inverses, out);
        if (b.mixed) this.skinFromWorlds(b, out, false);
      } else this.skinFromWorlds(b, out, true);
    }
  }

  /** apply() from the component pose, on every path but the shortest. */
  private drawComponent(pose: ComponentPose, rootWorld: Float64Array, all: boolean): void {
    // One Skeleton with affine inverse bind matrices (three's own) is skinned straight from the
    // pose; several over the same bones (a glTF's meshes) share each bone's world matrix instead.
    const bound = this.bound;
    const fused = bound.length === 1 && bound[0].affine;
    // Most characters carry nothing, have no bone named and none the graph lacks: no world matrix
    // to compute or write.
    if (all || !fused || this.worldBones > 0 || this.unboundParents.length > 0) {
      this.computeBoundWorlds(pose, rootWorld, all || !fused);
      this.computeUnboundWorlds();
      this.writeBoneWorlds(all);
    }
    for (let s = 0; s < bound.length; s++) {
      const b = bound[s], out = this.skinTarget(b);
      if (fused) {
        skinAffine(b.graphBoneOf, b.inverses, pose, rootWorld, out);
        if (b.mixed) this.skinFromWorlds(b, out, false);
      } else this.skinFromWorlds(b, out, true);
    }
  }

  /** Where a bound Skeleton's matrices go: in place, unless three keeps these as last frame's until update() (motion vectors). */
  private skinTarget(b: BoundSkeleton): Float32Array {
    const previous = b.skeleton.previousBoneMatrices;
    const out = previous === null || previous === undefined ? b.skeleton.boneMatrices! : b.pending;
    b.deferred = out === b.pending;
    return out;
  }

  /**
   * Writes every bone's matrixWorld (bound or not) for the pose the last apply() drew, under the
   * root's matrixWorld as it stands: for code that reads bones now and then (SkinnedMesh.getVertexPosition
   * and computeBoundingSphere, a raycast against the skinned mesh). Does nothing before the first
   * apply() or once released.
   */
  updateBoneWorlds(): void {
    const pose = this.lastPose, local = this.lastLocal;
    if ((pose === null && local === null) || this.released) return;
    const rootWorld = this.rootWorld(ROOT_WORLD);
    if (local !== null) {
      skinFromLocal(this.parents, local, rootWorld, null, EMPTY_INVERSES, null);
      this.boundWorldsFromLocal(true);
    } else this.computeBoundWorlds(pose!, rootWorld, true);
    this.computeUnboundWorlds();
    this.writeBoneWorlds(true);
  }

  /**
   * Gives the bones back to three: restores their matrixAutoUpdate and matrixWorldAutoUpdate, their
   * updateMatrixWorld and the Skeletons' own update(). Their matrices are recomputed from position,
   * quaternion and scale (which hold the last local pose only with writeLocal). apply() then does nothing.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.shortest = false;
    if (!this.writeMatrices) return;
    for (let k = 0; k < this.boundCount; k++) {
      const bone = this.bones[k];
      bone.matrixAutoUpdate = this.savedFlags[k * 2] === 1;
      bone.matrixWorldAutoUpdate = this.savedFlags[k * 2 + 1] === 1;
      bone.matrixWorldNeedsUpdate = true;
      bone.removeEventListener('childadded', this.childAdded);
      bone.removeEventListener('childremoved', this.childRemoved);
    }
    for (const top of this.tops) delete (top as { updateMatrixWorld?: unknown }).updateMatrixWorld;
    for (const { skeleton } of this.bound) {
      delete (skeleton as { update?: unknown }).update;
      boundSkeletons.delete(skeleton);
    }
    for (const part of [...this.bones.slice(0, this.boundCount), ...this.skeletons]) if (drivers.get(part) === this) drivers.delete(part);
  }

  /**
   * The top bones' updateMatrixWorld, own properties that release() deletes. three's walk calls a
   * child's updateMatrixWorld whatever its flags: this stops it at the bound bones, walking only
   * what hangs under them, and while nothing does, a function shared by every binding (which reads
   * nothing of a character's, a cache miss fewer per character in a crowd).
   */
  private installWalks(): void {
    const tops = this.tops, nothing = this.foreignTotal === 0;
    for (let t = 0; t < tops.length; t++) (tops[t] as { updateMatrixWorld(force?: boolean): void }).updateMatrixWorld = nothing ? walkNothing : this.walks[t];
  }

  /** three's walk reaching top bone `t`: what hangs under its bound bones, from their matrixWorld (written by apply()). */
  private updateAttachments(t: number): void {
    const foreign = this.foreign, topOf = this.topOf, bones = this.bones, position = this.position, boundCount = this.boundCount;
    for (let k = 0; k < boundCount; k++) {
      if (foreign[k] === 0 || topOf[k] !== t) continue;
      const children = bones[k].children;
      for (let c = 0; c < children.length; c++) {
        const child = children[c];
        const at = position.get(child);
        if (at === undefined || at >= boundCount) child.updateMatrixWorld(true);
      }
    }
  }

  private readonly childAdded = (event: { target: unknown; child: unknown }): void => {
    this.countForeign(event.target as Object3D, event.child as Object3D, 1);
  };

  private readonly childRemoved = (event: { target: unknown; child: unknown }): void => {
    this.countForeign(event.target as Object3D, event.child as Object3D, -1);
  };

  /** A child added to (by 1) or removed from (-1) a bound bone: counted when it is not a bound bone. */
  private countForeign(bone: Object3D, child: Object3D, by: 1 | -1): void {
    const k = this.position.get(bone);
    if (k === undefined || k >= this.boundCount || (this.position.get(child) ?? this.boundCount) < this.boundCount) return;
    if (by < 0 && this.foreign[k] === 0) return;
    const before = this.pinned[k] !== 0 || this.foreign[k] > 0;
    this.foreign[k] += by;
    this.foreignTotal += by;
    const after = this.pinned[k] !== 0 || this.foreign[k] > 0;
    if (before !== after) {
      this.worldBones += after ? 1 : -1;
      this.updateShortest();
    }
    if (this.foreignTotal === (by > 0 ? 1 : 0) && !this.released) this.installWalks();
  }

  /**
   * World matrix of bound bones = root world matrix (m) × compose(component T, R, S), written out: of every
   * one with `all`, else of those whose matrixWorld is written or whose world a bone the graph lacks reads.
   */
  private computeBoundWorlds(pose: ComponentPose, m: Float64Array, all: boolean): void {
    const ct = pose.translations, cr = pose.rotations, cs = pose.scales;
    // The root's world matrix is affine (an Object3D's always is): its last row is 0 0 0 1.
    const m0 = m[0], m1 = m[1], m2 = m[2], m4 = m[4], m5 = m[5], m6 = m[6];
    const m8 = m[8], m9 = m[9], m10 = m[10], m12 = m[12], m13 = m[13], m14 = m[14];
    const indices = this.boneIndices, e = this.worlds, pinned = this.pinned, foreign = this.foreign;
    for (let k = 0; k < indices.length; k++) {
      if (!all && pinned[k] === 0 && foreign[k] === 0) continue;
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
      const p = parents[u], parent = bone.parent;
      // The root's world matrix is apply()'s (root.matrixWorld may be three's of last frame).
      const parentWorld = p >= 0 ? worlds : parent === null ? null : parent === this.root ? ROOT_WORLD : parent.matrixWorld.elements;
      multiplyAffine(worlds, (first + u) * 16, parentWorld, p >= 0 ? p * 16 : 0, bone.matrix.elements);
    }
  }

  /** matrixWorld of every bone with `all`, else of the bones named and the bound ones carrying objects. */
  private writeBoneWorlds(all: boolean): void {
    const bones = this.bones, worlds = this.worlds, pinned = this.pinned, foreign = this.foreign, boundCount = this.boundCount;
    for (let k = 0; k < bones.length; k++) {
      if (!all && (pinned[k] & 1) === 0 && (k >= boundCount || foreign[k] === 0)) continue;
      const bone = bones[k];
      // An unbound bone that three is not to move (matrixWorldAutoUpdate off) keeps its matrix.
      if (k >= boundCount && !bone.matrixWorldAutoUpdate) continue;
      const e = bone.matrixWorld.elements, o = k * 16;
      for (let i = 0; i < 16; i++) e[i] = worlds[o + i];
    }
  }

  /** out[slot] = world matrix × inverse bind matrix (affine) for every slot of a bound bone, from localWorlds (skinFromLocal's). */
  private skinFromWorldScratch(slots: Int32Array, inv: Float64Array, out: Float32Array): void {
    for (let i = 0; i < slots.length; i++) {
      const b = slots[i];
      if (b >= 0) skinSlotFromWorld(localWorlds, (b + 1) * WORLD, inv, i * 16, out);
    }
  }

  /** World matrices (as Matrix4 elements, in `worlds`) of bound bones from localWorlds: of every one with `all`, else of those whose matrixWorld is written or read. */
  private boundWorldsFromLocal(all: boolean): void {
    const indices = this.boneIndices, e = this.worlds, pinned = this.pinned, foreign = this.foreign, f = localWorlds;
    for (let k = 0; k < indices.length; k++) {
      if (!all && pinned[k] === 0 && foreign[k] === 0) continue;
      const i = (indices[k] + 1) * WORLD, o = k * 16;
      const s0 = f[i + 9], s1 = f[i + 10], s2 = f[i + 11];
      e[o] = f[i] * s0; e[o + 1] = f[i + 1] * s0; e[o + 2] = f[i + 2] * s0; e[o + 3] = 0;
      e[o + 4] = f[i + 3] * s1; e[o + 5] = f[i + 4] * s1; e[o + 6] = f[i + 5] * s1; e[o + 7] = 0;
      e[o + 8] = f[i + 6] * s2; e[o + 9] = f[i + 7] * s2; e[o + 10] = f[i + 8] * s2; e[o + 11] = 0;
      e[o + 12] = f[i + 12]; e[o + 13] = f[i + 13]; e[o + 14] = f[i + 14]; e[o + 15] = 1;
    }
  }

  /**
   * out[slot] = world(bone in slot) × inverse bind matrix(slot), as Skeleton.update computes it
   * (an empty slot: the inverse bind matrix, as three's identity × it), from `worlds`: for every
   * slot with `every`, else for the slots of bones the graph lacks and empty ones.
   */
  private skinFromWorlds(s: BoundSkeleton, out: Float32Array, every: boolean): void {
    const boneOf = s.boneOf, inv = s.inverses, worlds = this.worlds, boundCount = this.boundCount;
    for (let i = 0; i < boneOf.length; i++) {
      const k = boneOf[i], o = i * 16;
      if (!every && k >= 0 && k < boundCount) continue;
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

  private applyLocal(local: Pose): void {
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

/**
 * out[slot] = root world matrix (m) × compose(component T, R, S) × inverse bind matrix, for every slot of a
 * bound bone, straight from the pose: what Skeleton.update computes from bone.matrixWorld (both
 * products in double, rounded once to single precision), for inverse bind matrices whose last row
 * is 0 0 0 1, whose terms in it (products by 0, a product by 1) are left out. The kernel's skin
 * (SamplingKernel.skin) repeats it operation for operation: this is its JavaScript twin.
 */
export function skinAffine(slots: Int32Array, inv: Float64Array, pose: PoseStorage, m: Float64Array, out: Float32Array): void {
  const ct = pose.translations, cr = pose.rotations, cs = pose.scales;
  const m0 = m[0], m1 = m[1], m2 = m[2], m4 = m[4], m5 = m[5], m6 = m[6];
  const m8 = m[8], m9 = m[9], m10 = m[10], m12 = m[12], m13 = m[13], m14 = m[14];
  for (let i = 0; i < slots.length; i++) {
    const b = slots[i];
    if (b < 0) continue;
    const b3 = b * 3, b4 = b * 4, o = i * 16;
    const x = cr[b4], y = cr[b4 + 1], z = cr[b4 + 2], w = cr[b4 + 3];
    const x2 = x + x, y2 = y + y, z2 = z + z;
    const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
    const wx = w * x2, wy = w * y2, wz = w * z2;
    const sx = cs[b3], sy = cs[b3 + 1], sz = cs[b3 + 2];
    const c0 = (1 - (yy + zz)) * sx, c1 = (xy + wz) * sx, c2 = (xz - wy) * sx;
    const c4 = (xy - wz) * sy, c5 = (1 - (xx + zz)) * sy, c6 = (yz + wx) * sy;
    const c8 = (xz + wy) * sz, c9 = (yz - wx) * sz, c10 = (1 - (xx + yy)) * sz;
    const c12 = ct[b3], c13 = ct[b3 + 1], c14 = ct[b3 + 2];
    // The bone's world matrix, as computeBoundWorlds writes it.
    const a0 = m0 * c0 + m4 * c1 + m8 * c2, a1 = m1 * c0 + m5 * c1 + m9 * c2, a2 = m2 * c0 + m6 * c1 + m10 * c2;
    const a4 = m0 * c4 + m4 * c5 + m8 * c6, a5 = m1 * c4 + m5 * c5 + m9 * c6, a6 = m2 * c4 + m6 * c5 + m10 * c6;
    const a8 = m0 * c8 + m4 * c9 + m8 * c10, a9 = m1 * c8 + m5 * c9 + m9 * c10, a10 = m2 * c8 + m6 * c9 + m10 * c10;
    const a12 = m0 * c12 + m4 * c13 + m8 * c14 + m12, a13 = m1 * c12 + m5 * c13 + m9 * c14 + m13, a14 = m2 * c12 + m6 * c13 + m10 * c14 + m14;
    // × the inverse bind matrix, column by column (Matrix4.multiplyMatrices' sums, in its order).
    let q0 = inv[o], q1 = inv[o + 1], q2 = inv[o + 2];
    out[o] = a0 * q0 + a4 * q1 + a8 * q2;
    out[o + 1] = a1 * q0 + a5 * q1 + a9 * q2;
    out[o + 2] = a2 * q0 + a6 * q1 + a10 * q2;
    out[o + 3] = 0;
    q0 = inv[o + 4]; q1 = inv[o + 5]; q2 = inv[o + 6];
    out[o + 4] = a0 * q0 + a4 * q1 + a8 * q2;
    out[o + 5] = a1 * q0 + a5 * q1 + a9 * q2;
    out[o + 6] = a2 * q0 + a6 * q1 + a10 * q2;
    out[o + 7] = 0;
    q0 = inv[o + 8]; q1 = inv[o + 9]; q2 = inv[o + 10];
    out[o + 8] = a0 * q0 + a4 * q1 + a8 * q2;
    out[o + 9] = a1 * q0 + a5 * q1 + a9 * q2;
    out[o + 10] = a2 * q0 + a6 * q1 + a10 * q2;
    out[o + 11] = 0;
    q0 = inv[o + 12]; q1 = inv[o + 13]; q2 = inv[o + 14];
    out[o + 12] = a0 * q0 + a4 * q1 + a8 * q2 + a12;
    out[o + 13] = a1 * q0 + a5 * q1 + a9 * q2 + a13;
    out[o + 14] = a2 * q0 + a6 * q1 + a10 * q2 + a14;
    out[o + 15] = 1;
  }
}

/**
 * From the local pose, in one pass down the hierarchy (parents first): each graph bone's world
 * transform, root's world matrix (m) × its component transform as the runtime composes it (rotations
 * and translations through the parents, scales multiplied per axis: no shear), kept in localWorlds
 * as a linear part without the bone's scale (A: m's linear part × the component rotation), the
 * component scale (S) and the world translation (w); and for each bone with a slot in `slotOf`,
 * out[slot] = [A·diag(S) | w] × its inverse bind matrix (affine), rounded once to single precision.
 * The same transforms as componentPose() then skinAffine, with the root's matrix carried down the
 * chain instead of multiplied in per bone, and the rotations as matrices instead of quaternions.
 * `parents`: the graph skeleton's (parents before children). The kernel's skinLocal
 * (SamplingKernel.skinLocal) repeats it operation for operation: this is its JavaScript twin.
 */
export function skinFromLocal(parents: Int32Array, local: PoseStorage, m: Float64Array, slotOf: Int32Array | null, inv: Float64Array, out: Float32Array | null): void {
  const lt = local.translations, lr = local.rotations, ls = local.scales;
  const n = parents.length;
  // Sized when binding (see the constructor): the frame loop never grows it.
  if (localWorlds.length < (n + 1) * WORLD) localWorlds = new Float64Array((n + 1) * WORLD);
  const f = localWorlds;
  // Slot 0 is the parent of root bones: m's linear part, unit scales, m's translation.
  f[0] = m[0]; f[1] = m[1]; f[2] = m[2]; f[3] = m[4]; f[4] = m[5]; f[5] = m[6]; f[6] = m[8]; f[7] = m[9]; f[8] = m[10];
  f[9] = 1; f[10] = 1; f[11] = 1; f[12] = m[12]; f[13] = m[13]; f[14] = m[14];
  for (let b = 0; b < n; b++) {
    const p = (parents[b] + 1) * WORLD, o = (b + 1) * WORLD, b3 = b * 3, b4 = b * 4;
    const p0 = f[p], p1 = f[p + 1], p2 = f[p + 2], p3 = f[p + 3], p4 = f[p + 4], p5 = f[p + 5], p6 = f[p + 6], p7 = f[p + 7], p8 = f[p + 8];
    const ps0 = f[p + 9], ps1 = f[p + 10], ps2 = f[p + 11];
    // The local rotation as a matrix, normalised on the way (2 / |q|², as the component pass
    // normalises each rotation it composes); a degenerate one as the identity, never NaN.
    let x = lr[b4], y = lr[b4 + 1], z = lr[b4 + 2], w = lr[b4 + 3];
    const q2 = x * x + y * y + z * z + w * w;
    let k = 2 / q2;
    if (!(q2 > EPSILON && q2 < Infinity)) { x = 0; y = 0; z = 0; w = 1; k = 2; }
    const xk = x * k, yk = y * k, zk = z * k;
    const xx = x * xk, xy = x * yk, xz = x * zk, yy = y * yk, yz = y * zk, zz = z * zk;
    const wx = w * xk, wy = w * yk, wz = w * zk;
    const r0 = 1 - (yy + zz), r1 = xy + wz, r2 = xz - wy;
    const r3 = xy - wz, r4 = 1 - (xx + zz), r5 = yz + wx;
    const r6 = xz + wy, r7 = yz - wx, r8 = 1 - (xx + yy);
    // A = A(parent) × R; S = S(parent) × local scale; w = w(parent) + A(parent) × (S(parent) × local translation).
    const a0 = p0 * r0 + p3 * r1 + p6 * r2, a1 = p1 * r0 + p4 * r1 + p7 * r2, a2 = p2 * r0 + p5 * r1 + p8 * r2;
    const a3 = p0 * r3 + p3 * r4 + p6 * r5, a4 = p1 * r3 + p4 * r4 + p7 * r5, a5 = p2 * r3 + p5 * r4 + p8 * r5;
    const a6 = p0 * r6 + p3 * r7 + p6 * r8, a7 = p1 * r6 + p4 * r7 + p7 * r8, a8 = p2 * r6 + p5 * r7 + p8 * r8;
    const s0 = ps0 * ls[b3], s1 = ps1 * ls[b3 + 1], s2 = ps2 * ls[b3 + 2];
    const v0 = ps0 * lt[b3], v1 = ps1 * lt[b3 + 1], v2 = ps2 * lt[b3 + 2];
    const w0 = f[p + 12] + (p0 * v0 + p3 * v1 + p6 * v2);
    const w1 = f[p + 13] + (p1 * v0 + p4 * v1 + p7 * v2);
    const w2 = f[p + 14] + (p2 * v0 + p5 * v1 + p8 * v2);
    f[o] = a0; f[o + 1] = a1; f[o + 2] = a2; f[o + 3] = a3; f[o + 4] = a4; f[o + 5] = a5; f[o + 6] = a6; f[o + 7] = a7; f[o + 8] = a8;
    f[o + 9] = s0; f[o + 10] = s1; f[o + 11] = s2; f[o + 12] = w0; f[o + 13] = w1; f[o + 14] = w2;
    if (slotOf === null) continue;
    const slot = slotOf[b];
    if (slot >= 0) skinSlotFromWorld(f, o, inv, slot * 16, out!);
  }
}

/**
 * out[e..e+16] = [A·diag(S) | w] × the inverse bind matrix at inv[e] (affine), for the world
 * transform at f[o] (localWorlds' layout: A, S, w), rounded once to single precision.
 */
function skinSlotFromWorld(f: Float64Array, o: number, inv: Float64Array, e: number, out: Float32Array): void {
  const s0 = f[o + 9], s1 = f[o + 10], s2 = f[o + 11];
  const l0 = f[o] * s0, l1 = f[o + 1] * s0, l2 = f[o + 2] * s0;
  const l3 = f[o + 3] * s1, l4 = f[o + 4] * s1, l5 = f[o + 5] * s1;
  const l6 = f[o + 6] * s2, l7 = f[o + 7] * s2, l8 = f[o + 8] * s2;
  for (let c = 0; c < 12; c += 4) {
    const q0 = inv[e + c], q1 = inv[e + c + 1], q = inv[e + c + 2];
    out[e + c] = l0 * q0 + l3 * q1 + l6 * q;
    out[e + c + 1] = l1 * q0 + l4 * q1 + l7 * q;
    out[e + c + 2] = l2 * q0 + l5 * q1 + l8 * q;
    out[e + c + 3] = 0;
  }
  const q0 = inv[e + 12], q1 = inv[e + 13], q = inv[e + 14];
  out[e + 12] = l0 * q0 + l3 * q1 + l6 * q + f[o + 12];
  out[e + 13] = l1 * q0 + l4 * q1 + l7 * q + f[o + 13];
  out[e + 14] = l2 * q0 + l5 * q1 + l8 * q + f[o + 14];
  out[e + 15] = 1;
}

/** The sampling kernel that skins the local poses of each graph skeleton's bindings (seekLocalKernel), or null where none can run. */
const localKernels = new WeakMap<Skeleton, SamplingKernel | null>();

/** Each bound Skeleton's state, for updateFromGraph. */
const boundSkeletons = new WeakMap<ThreeSkeleton, BoundSkeleton>();

/**
 * A bound Skeleton's update(), which three's renderers call once per frame before drawing: it marks
 * the bone texture for upload. A WebGPU renderer drawing motion vectors first keeps the matrices in
 * place as last frame's (previousBoneMatrices), which is why apply() then writes into `pending`,
 * installed here; while three keeps no previousBoneMatrices (most frames of most characters) this
 * reads nothing of the binding's, a cache miss fewer per character in a crowd.
 */
function updateFromGraph(this: ThreeSkeleton): void {
  const previous = this.previousBoneMatrices;
  if (previous !== null && previous !== undefined) {
    const bound = boundSkeletons.get(this);
    if (bound !== undefined && bound.deferred) {
      this.boneMatrices!.set(bound.pending);
      bound.deferred = false;
    }
  }
  const texture = this.boneTexture;
  if (texture !== null) texture.needsUpdate = true;
}

/** A top bone's updateMatrixWorld while nothing hangs under the bound bones: they are not walked. */
function walkNothing(): void {}

/** Doubles per bone in localWorlds: A (3×3, column-major), S (3), w (3). See skinFromLocal. */
const WORLD = 15;

/**
 * Scratch of skinFromLocal, within one apply(): slot 0 the root's world matrix, then each graph
 * bone's world transform. One array for every binding (sized at binding for the largest skeleton),
 * so that it stays in the cache from one character to the next.
 */
let localWorlds = new Float64Array(0);

const EMPTY_INVERSES = new Float64Array(0);

/** What apply()'s shortest path reads of its Skeleton besides it: see ThreeBinding.direct. */
interface DirectShape {
  /** Per slot, its graph bone. */
  readonly slots: Int32Array;
  /** Per graph bone, its slot or -1. */
  readonly slotOf: Int32Array;
  /** The inverse bind matrices, 16 per slot. */
  readonly inverses: Float64Array;
}

const NO_SHAPE: DirectShape = { slots: new Int32Array(0), slotOf: new Int32Array(0), inverses: new Float64Array(0) };

/** One DirectShape for every binding whose arrays are the same (shared): a crowd of one model reads one, which stays in the cache. */
const directShapes = new WeakMap<Float64Array, DirectShape[]>();

function directShapeOf(slots: Int32Array, slotOf: Int32Array, inverses: Float64Array): DirectShape {
  let list = directShapes.get(inverses);
  if (list === undefined) directShapes.set(inverses, list = []);
  for (const shape of list) if (shape.slots === slots && shape.slotOf === slotOf) return shape;
  const shape = { slots, slotOf, inverses };
  list.push(shape);
  return shape;
}

/**
 * Per graph bone, its slot among `slots` (the graph bone of each slot, -1 for none), -1 for a bone in
 * none; null when a bone is in several slots.
 */
function slotsOfBones(slots: Int32Array, boneCount: number): Int32Array | null {
  const slotOf = new Int32Array(boneCount).fill(-1);
  for (let i = 0; i < slots.length; i++) {
    const b = slots[i];
    if (b < 0) continue;
    if (slotOf[b] >= 0) return null;
    slotOf[b] = i;
  }
  return slotOf;
}

/** The world matrix of `root: null`. */
const IDENTITY: readonly number[] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

/** The root's world matrix as apply() reads it (ThreeBinding.rootWorld), within one apply() or updateBoneWorlds(). */
const ROOT_WORLD = new Float64Array(16);

/**
 * out = the world matrix object.updateWorldMatrix(true, false) would give `object`, with three's
 * operations in three's order (Matrix4.compose, the pivot, Matrix4.multiplyMatrices), so the same
 * bits, but writing no matrix and no flag of three's: up the parents, each object's matrix composed
 * from its position, quaternion and scale (or its matrix, with matrixAutoUpdate off), times its
 * parent's world matrix; an object whose world matrix three would not recompute (matrixWorldAutoUpdate
 * off, or matrixAutoUpdate off and matrixWorldNeedsUpdate not set) gives its matrixWorld as it stands.
 */
function worldMatrixOf(object: Object3D, out: Float64Array): void {
  if (!object.matrixWorldAutoUpdate || (!object.matrixAutoUpdate && !object.matrixWorldNeedsUpdate)) {
    out.set(object.matrixWorld.elements);
    return;
  }
  const parent = object.parent;
  let b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15;
  if (object.matrixAutoUpdate) {
    // Matrix4.compose, then Object3D.updateMatrix's pivot.
    const q = object.quaternion, s = object.scale, p = object.position;
    const x = q.x, y = q.y, z = q.z, w = q.w;
    const x2 = x + x, y2 = y + y, z2 = z + z;
    const xx = x * x2, xy = x * y2, xz = x * z2, yy = y * y2, yz = y * z2, zz = z * z2;
    const wx = w * x2, wy = w * y2, wz = w * z2;
    const sx = s.x, sy = s.y, sz = s.z;
    b0 = (1 - (yy + zz)) * sx; b1 = (xy + wz) * sx; b2 = (xz - wy) * sx; b3 = 0;
    b4 = (xy - wz) * sy; b5 = (1 - (xx + zz)) * sy; b6 = (yz + wx) * sy; b7 = 0;
    b8 = (xz + wy) * sz; b9 = (yz - wx) * sz; b10 = (1 - (xx + yy)) * sz; b11 = 0;
    b12 = p.x; b13 = p.y; b14 = p.z; b15 = 1;
    const pivot = (object as { pivot?: { x: number; y: number; z: number } | null }).pivot;
    if (pivot !== null && pivot !== undefined) {
      const px = pivot.x, py = pivot.y, pz = pivot.z;
      b12 += px - b0 * px - b4 * py - b8 * pz;
      b13 += py - b1 * px - b5 * py - b9 * pz;
      b14 += pz - b2 * px - b6 * py - b10 * pz;
    }
  } else {
    const e = object.matrix.elements;
    b0 = e[0]; b1 = e[1]; b2 = e[2]; b3 = e[3]; b4 = e[4]; b5 = e[5]; b6 = e[6]; b7 = e[7];
    b8 = e[8]; b9 = e[9]; b10 = e[10]; b11 = e[11]; b12 = e[12]; b13 = e[13]; b14 = e[14]; b15 = e[15];
  }
  if (parent === null) {
    out[0] = b0; out[1] = b1; out[2] = b2; out[3] = b3; out[4] = b4; out[5] = b5; out[6] = b6; out[7] = b7;
    out[8] = b8; out[9] = b9; out[10] = b10; out[11] = b11; out[12] = b12; out[13] = b13; out[14] = b14; out[15] = b15;
    return;
  }
  worldMatrixOf(parent, out);
  // Matrix4.multiplyMatrices(parent's world, this matrix), its sums in its order.
  const a11 = out[0], a12 = out[4], a13 = out[8], a14 = out[12];
  const a21 = out[1], a22 = out[5], a23 = out[9], a24 = out[13];
  const a31 = out[2], a32 = out[6], a33 = out[10], a34 = out[14];
  const a41 = out[3], a42 = out[7], a43 = out[11], a44 = out[15];
  out[0] = a11 * b0 + a12 * b1 + a13 * b2 + a14 * b3;
  out[4] = a11 * b4 + a12 * b5 + a13 * b6 + a14 * b7;
  out[8] = a11 * b8 + a12 * b9 + a13 * b10 + a14 * b11;
  out[12] = a11 * b12 + a12 * b13 + a13 * b14 + a14 * b15;
  out[1] = a21 * b0 + a22 * b1 + a23 * b2 + a24 * b3;
  out[5] = a21 * b4 + a22 * b5 + a23 * b6 + a24 * b7;
  out[9] = a21 * b8 + a22 * b9 + a23 * b10 + a24 * b11;
  out[13] = a21 * b12 + a22 * b13 + a23 * b14 + a24 * b15;
  out[2] = a31 * b0 + a32 * b1 + a33 * b2 + a34 * b3;
  out[6] = a31 * b4 + a32 * b5 + a33 * b6 + a34 * b7;
  out[10] = a31 * b8 + a32 * b9 + a33 * b10 + a34 * b11;
  out[14] = a31 * b12 + a32 * b13 + a33 * b14 + a34 * b15;
  out[3] = a41 * b0 + a42 * b1 + a43 * b2 + a44 * b3;
  out[7] = a41 * b4 + a42 * b5 + a43 * b6 + a44 * b7;
  out[11] = a41 * b8 + a42 * b9 + a43 * b10 + a44 * b11;
  out[15] = a41 * b12 + a42 * b13 + a43 * b14 + a44 * b15;
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

/**
 * One array for every binding whose array holds the same values: a crowd of one model (its
 * Skeletons cloned, or bound at the same place) reads one set of inverse bind matrices, which stays
 * in the cache, rather than a copy per character, which does not. Kept while a binding holds it.
 */
const sharedArrays = new Map<number, WeakRef<Float64Array | Int32Array>[]>();
const sharedGone = new FinalizationRegistry<number>((hash) => {
  const list = sharedArrays.get(hash);
  if (list === undefined) return;
  const live = list.filter((ref) => ref.deref() !== undefined);
  if (live.length > 0) sharedArrays.set(hash, live);
  else sharedArrays.delete(hash);
});

function shared<T extends Float64Array | Int32Array>(array: T): T {
  const words = new Uint32Array(array.buffer, array.byteOffset, array.byteLength >> 2);
  let hash = 0x811c9dc5 ^ array.length;
  for (let i = 0; i < words.length; i++) hash = Math.imul(hash ^ words[i], 0x01000193);
  hash = (hash * 2 + (array instanceof Float64Array ? 1 : 0)) | 0;
  const list = sharedArrays.get(hash) ?? [];
  for (const ref of list) {
    const other = ref.deref();
    if (other === undefined || other.constructor !== array.constructor || other.length !== array.length) continue;
    const otherWords = new Uint32Array(other.buffer, other.byteOffset, other.byteLength >> 2);
    let same = true;
    for (let i = 0; i < words.length && same; i++) same = words[i] === otherWords[i];
    if (same) return other as T;
  }
  list.push(new WeakRef(array));
  sharedArrays.set(hash, list);
  sharedGone.register(array, hash);
  return array;
}

/** The live binding driving each bound bone and Skeleton (with writeMatrices), so a new binding of them can release it. */
const drivers = new WeakMap<object, ThreeBinding>();
