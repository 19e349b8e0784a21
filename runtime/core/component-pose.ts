import { transformRelative, quatNormalize } from './math.ts';
import { checkStorage, kernelOf, Pose, poseCopy, type PoseKernel, type PoseStorage } from './pose.ts';
import type { Skeleton } from './skeleton.ts';
import { FreeList } from './free-list.ts';

/**
 * A pose that skeletal controls read and write in component space (relative to the skeleton's
 * root, the mesh component in Unreal's terms), kept lazily in step with its local-space pose.
 *
 * Invariant: every bone has a valid local transform, a valid component transform, or both.
 * Reading a component transform composes up the parent chain only as far as it is stale; writing
 * one first pins the local transforms of the bone's descendants (so they follow it, as children do
 * in Unreal's FCSPose) and marks their component transforms stale. Converting back to local space
 * touches only bones whose local transform is stale.
 */
export class ComponentPose {
  readonly skeleton: Skeleton;
  /** The local-space pose; valid for bone i when localValid[i] is 1. See also attachLocal. */
  local: Pose;
  private readonly ownLocal: Pose;
  readonly translations: Float64Array;
  readonly rotations: Float64Array;
  readonly scales: Float64Array;
  private readonly localValid: Uint8Array;
  private readonly componentValid: Uint8Array;
  /**
   * Whether markComposed has set every flag above to 1 and nothing has cleared one since: a crowd's
   * character marked composed every frame then touches neither array (two objects fewer per
   * character). False whenever in doubt (a bone made valid again one at a time does not set it).
   */
  private allValid = false;
  /** Scratch for ensureComponent: the stale bones from one up to its first valid ancestor. */
  private readonly chain: Int32Array;
  /**
   * The sampling kernel whose memory holds both the own local pose and the component arrays (an
   * InstanceBatch's output), which then composes them in recomposeAll; else null.
   */
  private readonly kernel: PoseKernel | null;

  /**
   * `storage`: arrays the caller owns for the local pose and for the component transforms (see
   * Pose's constructor), or for the local pose a Pose to use as it is; new arrays for whichever is
   * left out.
   */
  constructor(skeleton: Skeleton, storage: { local?: PoseStorage; component?: PoseStorage } = {}) {
    const n = skeleton.boneCount;
    this.skeleton = skeleton;
    this.local = storage.local instanceof Pose && storage.local.boneCount === n ? storage.local : new Pose(n, storage.local);
    this.ownLocal = this.local;
    const component = storage.component;
    if (component !== undefined) checkStorage(component, n, 'component pose');
    this.translations = component?.translations ?? new Float64Array(n * 3);
    this.rotations = component?.rotations ?? new Float64Array(n * 4);
    this.scales = component?.scales ?? new Float64Array(n * 3);
    this.localValid = new Uint8Array(n).fill(1);
    this.componentValid = new Uint8Array(n);
    this.chain = new Int32Array(n);
    const kernel = this.local.kernel;
    this.kernel = kernel !== null && kernel.skeleton === skeleton && kernelOf(this.translations, this.rotations, this.scales) === kernel ? kernel : null;
  }

  /**
   * After the local pose changed as a whole (an evaluation): every component transform composed
   * anew from it, as markLocalChanged then ensureAllComponent (in the sampling kernel where both
   * poses are in its memory, with the same numbers).
   */
  recomposeAll(): void {
    const kernel = this.kernel;
    if (kernel !== null && this.local === this.ownLocal) {
      kernel.compose(this.local, this);
      this.markComposed();
      return;
    }
    this.markLocalChanged();
    this.ensureAllComponent();
  }

  /**
   * Every transform is valid: the component ones were just composed from the local ones
   * elsewhere (an InstanceBatch's sampling kernel composing its characters together).
   */
  markComposed(): void {
    if (this.allValid) return;
    this.localValid.fill(1);
    this.componentValid.fill(1);
    this.allValid = true;
  }

  /**
   * Uses `pose` as the local-space buffer until detachLocal: a component-space branch evaluated
   * for a local-space output then works in the output itself, and converting back (ensureAllLocal)
   * copies nothing.
   */
  attachLocal(pose: Pose): void {
    this.local = pose;
  }

  /** Goes back to this pose's own local-space buffer (its contents are then stale: load it). */
  detachLocal(): void {
    this.local = this.ownLocal;
  }

  /** Call after writing `local` directly: every component transform becomes stale. */
  markLocalChanged(): void {
    this.allValid = false;
    this.localValid.fill(1);
    this.componentValid.fill(0);
  }

  /** Loads a local pose (copying it) and invalidates component space. */
  setFromLocal(source: Pose): void {
    if (source !== this.local) poseCopy(this.local, source);
    this.markLocalChanged();
  }

  /** Makes bone's component transform valid; afterwards read it from translations/rotations/scales. */
  ensureComponent(bone: number): void {
    const valid = this.componentValid;
    if (valid[bone] === 1) return;
    // Up the chain to the first valid ancestor (or past the root), then compose back down: a loop,
    // not a recursion, and the composition written out (see ensureAllComponent).
    const parents = this.skeleton.parents, chain = this.chain;
    let depth = 0;
    for (let b = bone; b >= 0 && valid[b] === 0; b = parents[b]) chain[depth++] = b;
    const l = this.local;
    const lt = l.translations, lr = l.rotations, ls = l.scales;
    const ct = this.translations, cr = this.rotations, cs = this.scales;
    for (let k = depth - 1; k >= 0; k--) {
      const b = chain[k], parent = parents[b];
      if (parent < 0) copyTransform(ct, cr, cs, lt, lr, ls, b);
      else composeBone(ct, cr, cs, lt, lr, ls, b, parent);
      valid[b] = 1;
    }
  }

  /**
   * Makes every bone's component transform valid in one forward pass: parents come before
   * children, so each parent is already valid when its child is composed.
   */
  ensureAllComponent(): void {
    const n = this.skeleton.boneCount;
    const parents = this.skeleton.parents;
    const valid = this.componentValid;
    const l = this.local;
    const lt = l.translations, lr = l.rotations, ls = l.scales;
    const ct = this.translations, cr = this.rotations, cs = this.scales;
    for (let bone = 0; bone < n; bone++) {
      if (valid[bone] === 1) continue;
      const parent = parents[bone];
      if (parent < 0) copyTransform(ct, cr, cs, lt, lr, ls, bone);
      else composeBone(ct, cr, cs, lt, lr, ls, bone, parent);
      valid[bone] = 1;
    }
  }

  private ensureLocal(bone: number): void {
    if (this.localValid[bone] === 1) return;
    const parent = this.skeleton.parents[bone];
    const l = this.local;
    if (parent < 0) {
      copyTransform(l.translations, l.rotations, l.scales, this.translations, this.rotations, this.scales, bone);
    } else {
      this.ensureComponent(parent);
      transformRelative(
        l.translations, l.rotations, l.scales, bone,
        this.translations, this.rotations, this.scales, parent,
        this.translations, this.rotations, this.scales, bone,
      );
    }
    this.localValid[bone] = 1;
  }

  /**
   * Sets bone's component-space transform (translation xyz, rotation xyzw, scale xyz read from the
   * given arrays at bone offset `from`). Descendants keep their local transforms and so move with it.
   */
  setComponent(bone: number, t: Float64Array, r: Float64Array, s: Float64Array, from: number): void {
    const descendants = this.skeleton.descendants;
    const first = this.skeleton.descendantStart[bone], end = this.skeleton.descendantEnd[bone];
    // Pin descendants' locals (parents first) while their old parents' component transforms are
    // still correct.
    const localValid = this.localValid;
    for (let i = first; i < end; i++) {
      const d = descendants[i];
      if (localValid[d] === 0) this.ensureLocal(d);
    }
    this.ensureComponent(bone); // so that a partial write below starts from the current transform
    const b3 = bone * 3, b4 = bone * 4, f3 = from * 3, f4 = from * 4;
    this.translations[b3] = t[f3]; this.translations[b3 + 1] = t[f3 + 1]; this.translations[b3 + 2] = t[f3 + 2];
    this.rotations[b4] = r[f4]; this.rotations[b4 + 1] = r[f4 + 1]; this.rotations[b4 + 2] = r[f4 + 2]; this.rotations[b4 + 3] = r[f4 + 3];
    quatNormalize(this.rotations, b4);
    this.scales[b3] = s[f3]; this.scales[b3 + 1] = s[f3 + 1]; this.scales[b3 + 2] = s[f3 + 2];
    this.componentValid[bone] = 1;
    this.localValid[bone] = 0;
    this.allValid = false;
    const valid = this.componentValid;
    for (let i = first; i < end; i++) valid[descendants[i]] = 0;
  }

  /** Brings every stale local transform up to date; afterwards `local` is the whole pose. */
  ensureAllLocal(): Pose {
    const n = this.skeleton.boneCount;
    for (let i = 0; i < n; i++) this.ensureLocal(i);
    return this.local;
  }

  /** Writes the local-space pose into `out`. */
  toLocal(out: Pose): Pose {
    return poseCopy(out, this.ensureAllLocal());
  }
}

/**
 * Component transform of `bone` from its parent's (already valid) and its own local one:
 * transformCompose (runtime/core/math.ts) with the same operations in the same order, so bit-identical,
 * but on one set of arrays and two indices: as a call of transformCompose per bone, passing twelve
 * arguments, it was a third of a whole component-space pass.
 */
function composeBone(
  ct: Float64Array, cr: Float64Array, cs: Float64Array,
  lt: Float64Array, lr: Float64Array, ls: Float64Array, bone: number, parent: number,
): void {
  const b3 = bone * 3, b4 = bone * 4, p3 = parent * 3, p4 = parent * 4;
  const psx = cs[p3], psy = cs[p3 + 1], psz = cs[p3 + 2];
  const qx = cr[p4], qy = cr[p4 + 1], qz = cr[p4 + 2], qw = cr[p4 + 3];
  // translation = parentT + parentR * (parentS * childT)
  const vx = lt[b3] * psx, vy = lt[b3 + 1] * psy, vz = lt[b3 + 2] * psz;
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  ct[b3] = ct[p3] + (vx + qw * tx + (qy * tz - qz * ty));
  ct[b3 + 1] = ct[p3 + 1] + (vy + qw * ty + (qz * tx - qx * tz));
  ct[b3 + 2] = ct[p3 + 2] + (vz + qw * tz + (qx * ty - qy * tx));
  // rotation = parentR * childR, normalised
  const bx = lr[b4], by = lr[b4 + 1], bz = lr[b4 + 2], bw = lr[b4 + 3];
  cr[b4] = qw * bx + qx * bw + qy * bz - qz * by;
  cr[b4 + 1] = qw * by - qx * bz + qy * bw + qz * bx;
  cr[b4 + 2] = qw * bz + qx * by - qy * bx + qz * bw;
  cr[b4 + 3] = qw * bw - qx * bx - qy * by - qz * bz;
  quatNormalize(cr, b4);
  // scale = parentS * childS
  cs[b3] = psx * ls[b3]; cs[b3 + 1] = psy * ls[b3 + 1]; cs[b3 + 2] = psz * ls[b3 + 2];
}

function copyTransform(
  outT: Float64Array, outR: Float64Array, outS: Float64Array,
  t: Float64Array, r: Float64Array, s: Float64Array, bone: number,
): void {
  const b3 = bone * 3, b4 = bone * 4;
  outT[b3] = t[b3]; outT[b3 + 1] = t[b3 + 1]; outT[b3 + 2] = t[b3 + 2];
  outR[b4] = r[b4]; outR[b4 + 1] = r[b4 + 1]; outR[b4 + 2] = r[b4 + 2]; outR[b4 + 3] = r[b4 + 3];
  outS[b3] = s[b3]; outS[b3 + 1] = s[b3 + 1]; outS[b3 + 2] = s[b3 + 2];
}

/** A stack of component poses for temporaries, like PosePool. */
export class ComponentPosePool {
  private readonly free = new FreeList<ComponentPose>();
  /** Every component pose the pool made, for reclaim. */
  private readonly owned: ComponentPose[] = [];

  constructor(readonly skeleton: Skeleton) {}

  acquire(): ComponentPose {
    const pose = this.free.take();
    if (pose !== undefined) return pose;
    const made = new ComponentPose(this.skeleton);
    this.owned.push(made);
    return made;
  }

  release(pose: ComponentPose): void {
    this.free.put(pose);
  }

  /** How many component poses this pool has ever made. */
  get size(): number {
    return this.owned.length;
  }

  /** How many of its poses are acquired and not yet released. */
  get lent(): number {
    return this.owned.length - this.free.size;
  }

  /**
   * Takes back every pose lent, as PosePool.reclaim does, each back on its own local buffer (a
   * link converting to local space lends one working in the pose it evaluates into).
   */
  reclaim(): void {
    this.free.clear();
    for (let i = this.owned.length - 1; i >= 0; i--) {
      this.owned[i].detachLocal();
      this.free.put(this.owned[i]);
    }
  }
}
