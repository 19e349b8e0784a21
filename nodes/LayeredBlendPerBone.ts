import { boneMaskProblems, boneMaskWeights, boneWeightsSchema, branchFiltersSchema, maskedBones, type BoneMaskSpec } from '../runtime/core/bone-mask.ts';
import { MASK_PROFILE_MODES, type BlendProfile } from '../runtime/core/blend-profile.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { quatConjugateMultiply, quatMultiply, quatNormalize } from '../runtime/core/math.ts';
import {
  LocalPoseNode,
  type CacheBonesContext, type DebugNode, type Link, type NodeCheckContext, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext,
} from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { poseLayerBones } from '../runtime/core/pose-bones.ts';
import { defineBuiltInNodeType, sameNumbers, sharedWhenSame } from '../runtime/node/node-type.ts';
import { ScratchNumbers } from '../runtime/core/scratch.ts';

/** The mesh-space blend's component rotations, used within one call: every instance's (see ScratchNumbers). */
const MESH_ROTATIONS = new ScratchNumbers();

/** One layer, as the node is built with it. */
export interface LayerSpec {
  readonly mask: BoneMaskSpec;
  /** A blendMask profile of the asset, bound to the skeleton: its scales are the mask, instead of `mask`. */
  readonly profile?: BlendProfile | null;
  /** The layer's weight, multiplied into every bone's mask weight (literal or bound). */
  readonly weight: ScalarProperty;
}

/**
 * What every instance of one LayeredBlendPerBone node in a graph shares (the type's `prepare`): its
 * layers' specs and their masks, which are the same for all of them (one skeleton, one asset), so
 * that a crowd's characters read one copy from the cache rather than each its own.
 */
export class LayerMasks {
  specs: readonly LayerSpec[] | null = null;
  /** Per layer, per bone mask weights, and the bones with a weight above 0; null until an instance built them. */
  masks: { readonly weights: readonly Float64Array[]; readonly bones: readonly Int32Array[] } | null = null;
}

/**
 * Unreal's Layered blend per bone: a base pose with layers over it, each driving the bones its mask
 * selects (branch filters or explicit weights, see runtime/core/bone-mask.ts) by the mask weight times
 * the layer's weight. Layers apply in order, each blending over the result so far (a later layer
 * wins where masks overlap), so per bone the weights never sum above 1 and the base keeps what the
 * layers leave.
 *
 * Translations and scales blend in local space. Rotations blend in local space, or, with
 * `meshSpaceRotationBlend`, in component space (Unreal's bMeshSpaceRotationBlend): the layer's
 * component rotation is blended into the base's and brought back to local under the blended
 * parent, so an upper body layered over a leaning base keeps the layer's orientation in the world
 * rather than its orientation relative to the base's spine. A bone below a blended bone that its
 * own mask leaves out then keeps the base's component rotation, as in Unreal.
 *
 * The base is updated with this node's weight, each layer with this node's weight times its own
 * (a layer at zero weight is neither updated nor evaluated). Root motion is blended by each
 * layer's weight on the skeleton's first bone: a layer that leaves the root out adds none.
 * Mask weights are built in cacheBones, never per frame.
 */
export class LayeredBlendPerBone extends LocalPoseNode {
  private readonly inputLinks: readonly Link[];
  private readonly count: number;
  /** Each layer's weight this frame, clamped to [0, 1]. */
  private readonly alphas: Float64Array;
  /** 1 where the layer was updated this frame (and so is evaluated). */
  private readonly updated: Uint8Array;
  /** What each input's root-motion report is scaled by: [base, layer 0, layer 1, ...]. */
  private readonly rootScale: Float64Array;
  /** Per layer, per bone mask weights, and the bones with a weight above 0 (parents first): the graph's shared ones. */
  private maskWeights: readonly Float64Array[] = [];
  private maskBones: readonly Int32Array[] = [];
  // Component-space rotations for the mesh-space blend: the base's, the layer's, the result's (views of MESH_ROTATIONS).
  private baseRotations = new Float64Array(0);
  private layerRotations = new Float64Array(0);
  private blendedRotations = new Float64Array(0);
  /** 1 where the result's local rotation differs from the base's, so its children must be re-parented. */
  private touched = new Uint8Array(0);
  private parents: Int32Array<ArrayBufferLike> = new Int32Array(0);

  constructor(
    id: string,
    private readonly base: PoseLink,
    private readonly layers: readonly PoseLink[],
    private readonly specs: readonly LayerSpec[],
    readonly meshSpaceRotationBlend: boolean,
    /** Where instances of this node in one graph share their masks (LayerMasks); one of its own by default. */
    private readonly shared: LayerMasks = new LayerMasks(),
  ) {
    super(id, 'LayeredBlendPerBone');
    if (layers.length !== specs.length) {
      throw new AnimGraphError('invalid-data', `LayeredBlendPerBone '${id}': ${layers.length} layer poses for ${specs.length} layers`);
    }
    this.inputLinks = [base, ...layers];
    this.count = layers.length;
    this.alphas = new Float64Array(this.count);
    this.updated = new Uint8Array(this.count);
    this.rootScale = new Float64Array(this.count + 1);
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  /**
   * A copy of the per-bone weights of layer `index`'s mask (before the layer's weight), for tools
   * and tests: the node's own are the graph's, shared by every instance whose masks come out the same.
   */
  layerMask(index: number): Float64Array {
    return this.maskWeights[index].slice();
  }

  protected override onInitialize(): void {
    this.alphas.fill(0);
    this.updated.fill(0);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    const skeleton = ctx.skeleton;
    const n = skeleton.boneCount;
    // Built by every instance (so each reports its unknown bones), kept once: the first instance's
    // become the graph's, and an instance whose masks came out the same reads those (sharedWhenSame).
    const weights = this.specs.map((spec) => (spec.profile
      ? Float64Array.from(spec.profile.scales)
      : boneMaskWeights(skeleton, spec.mask, new Float64Array(n), (bone) => ctx.boneIndex(this.id, bone))));
    const masks = sharedWhenSame(this.shared, 'masks', { weights, bones: weights.map(maskedBones) },
      (a, b) => a.weights.length === b.weights.length && a.weights.every((w, i) => sameNumbers(w, b.weights[i])));
    this.maskWeights = masks.weights;
    this.maskBones = masks.bones;
    this.parents = skeleton.parents;
    if (this.meshSpaceRotationBlend) {
      const scratch = MESH_ROTATIONS.atLeast(n * 12);
      this.baseRotations = scratch.subarray(0, n * 4);
      this.layerRotations = scratch.subarray(n * 4, n * 8);
      this.blendedRotations = scratch.subarray(n * 8, n * 12);
      this.touched = new Uint8Array(n);
    }
  }

  protected onUpdate(ctx: UpdateContext): void {
    const values = this.graph.parameterValues;
    const alphas = this.alphas, rootScale = this.rootScale;
    for (let i = 0; i < this.count; i++) {
      // Two statements, not one conditional: see CONTRIBUTING.md, "Numbers in the frame loop".
      const p = this.specs[i].weight;
      if (p.slot >= 0) alphas[i] = values[p.slot];
      else alphas[i] = p.constant;
      const a = alphas[i];
      alphas[i] = a > 0 ? (a < 1 ? a : 1) : 0; // NaN too
    }
    // Root motion: each input's share of the root, layers stacking in order over the base.
    let above = 1;
    for (let i = this.count - 1; i >= 0; i--) {
      // The layer's report already carries its weight (it was updated with it).
      const rootMask = this.maskWeights[i].length > 0 ? this.maskWeights[i][0] : 0;
      rootScale[i + 1] = above * rootMask;
      above *= 1 - rootMask * alphas[i];
    }
    rootScale[0] = above;

    let child = ctx.child();
    this.base.update(child);
    scaleReport(child, rootScale, 0);
    for (let i = 0; i < this.count; i++) {
      child = ctx.child();
      child.weight *= alphas[i];
      // The link decides relevance on the absolute weight (see Link.update).
      this.updated[i] = this.layers[i].update(child) ? 1 : 0;
      scaleReport(child, rootScale, i + 1);
    }
  }

  protected onEvaluate(out: Pose): void {
    this.base.evaluate(out);
    let scratch: Pose | null = null;
    for (let i = 0; i < this.count; i++) {
      if (this.updated[i] === 0 || this.maskBones[i].length === 0) continue;
      scratch ??= this.graph.posePool.acquire();
      this.layers[i].evaluate(scratch);
      if (this.meshSpaceRotationBlend) this.blendMeshSpace(out, scratch, i);
      else this.blendLocal(out, scratch, i);
    }
    if (scratch !== null) this.graph.posePool.release(scratch);
  }

  /** out = lerp(out, layer, mask × alpha) per masked bone, rotations by normalised lerp on the shorter arc. */
  private blendLocal(out: Pose, layer: Pose, index: number): void {
    poseLayerBones(out, layer, this.maskBones[index], this.maskWeights[index], this.alphas, index);
  }

  /**
   * Translations and scales as blendLocal; rotations blended between the base's and the layer's
   * component rotations, then made local again under the blended parent. Walks every bone (parents
   * first): component rotations need the whole chain above a masked bone.
   */
  private blendMeshSpace(out: Pose, layer: Pose, index: number): void {
    const mask = this.maskWeights[index], alpha = this.alphas[index], parents = this.parents;
    const base = this.baseRotations, lay = this.layerRotations, blended = this.blendedRotations, touched = this.touched;
    const or = out.rotations, lr = layer.rotations;
    const ot = out.translations, os = out.scales, lt = layer.translations, ls = layer.scales;
    for (let bone = 0; bone < parents.length; bone++) {
      const parent = parents[bone];
      const o = bone * 4, po = parent * 4;
      if (parent < 0) {
        for (let c = 0; c < 4; c++) { base[o + c] = or[o + c]; lay[o + c] = lr[o + c]; }
      } else {
        quatMultiply(base, o, base, po, or, o);
        quatMultiply(lay, o, lay, po, lr, o);
      }
      const w = mask[bone] * alpha;
      if (w > 0) {
        const s = 1 - w;
        const wl = base[o] * lay[o] + base[o + 1] * lay[o + 1] + base[o + 2] * lay[o + 2] + base[o + 3] * lay[o + 3] < 0 ? -w : w;
        for (let c = 0; c < 4; c++) blended[o + c] = base[o + c] * s + lay[o + c] * wl;
        quatNormalize(blended, o);
        if (parent < 0) for (let c = 0; c < 4; c++) or[o + c] = blended[o + c];
        else quatConjugateMultiply(or, o, blended, po, blended, o);
        quatNormalize(or, o);
        const t = bone * 3;
        ot[t] = ot[t] * s + lt[t] * w; ot[t + 1] = ot[t + 1] * s + lt[t + 1] * w; ot[t + 2] = ot[t + 2] * s + lt[t + 2] * w;
        os[t] = os[t] * s + ls[t] * w; os[t + 1] = os[t + 1] * s + ls[t + 1] * w; os[t + 2] = os[t + 2] * s + ls[t + 2] * w;
        touched[bone] = 1;
      } else {
        for (let c = 0; c < 4; c++) blended[o + c] = base[o + c];
        if (parent >= 0 && touched[parent] === 1) {
          // The parent moved: keep this bone's component rotation, the base's.
          quatConjugateMultiply(or, o, blended, po, blended, o);
          quatNormalize(or, o);
          touched[bone] = 1;
        } else touched[bone] = 0;
      }
    }
  }

  protected override debugDescription(): string {
    const weights = Array.from(this.alphas, (a, i) => `${(a * 100).toFixed(1)}%${this.updated[i] === 1 ? '' : ' (skipped)'}`).join(', ');
    return `Layers: ${weights}${this.meshSpaceRotationBlend ? ' Mesh Space Rotations' : ''}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.values = { layerWeights: Array.from(this.alphas), meshSpaceRotationBlend: this.meshSpaceRotationBlend };
  }
}

/** Scales what a child branch reported (root motion and velocity) by scale[index]. */
function scaleReport(child: UpdateContext, scale: Float64Array, index: number): void {
  const rm = child.rootMotion, rv = child.rootVelocity;
  for (let k = 0; k < 4; k++) {
    rm[k] *= scale[index];
    rv[k] *= scale[index];
  }
}

function checkLayers(ctx: NodeCheckContext): void {
  const layers = ctx.properties.layers;
  const linked = ctx.inputs?.layers;
  if (Array.isArray(layers) && Array.isArray(linked) && linked.length !== layers.length) {
    ctx.report(['layers'], 'schema', `has ${layers.length} layers but input 'layers' has ${linked.length} poses: one pose per layer, in order`);
  }
  if (!Array.isArray(layers)) return;
  layers.forEach((layer: unknown, i) => {
    if (typeof layer !== 'object' || layer === null) return;
    const { filters, mask, blendProfile } = layer as { filters?: unknown; mask?: unknown; blendProfile?: unknown };
    const raw = (ctx.rawProperties.layers as unknown[] | undefined)?.[i] as Record<string, unknown> | undefined;
    // A malformed filters or mask is left out of the well-formed properties but was still written.
    const wroteFilters = filters !== undefined || raw?.filters !== undefined;
    const wroteMask = mask !== undefined || raw?.mask !== undefined;
    const wroteProfile = blendProfile !== undefined || raw?.blendProfile !== undefined;
    const written = Number(wroteFilters) + Number(wroteMask) + Number(wroteProfile);
    if (written !== 1) {
      ctx.report(['layers', i], 'schema', written > 1
        ? 'has more than one of filters, mask and blendProfile: give one (branch filters, explicit per-bone weights, or a blendMask profile)'
        : 'needs filters (branch filters: [{ bone, depth }]), mask ({ bone: weight }) or blendProfile (a blendMask profile\'s name)');
    }
    if (wroteProfile && !wroteFilters && !wroteMask) return;
    if (ctx.skeleton === undefined) return;
    // Names are checked as written, so an unknown bone is reported next to a weight out of range.
    const rawFilters = Array.isArray(raw?.filters) ? raw.filters : [];
    const named = rawFilters.map((f: unknown) => ({ bone: (f as { bone?: unknown } | null)?.bone, depth: 0 }));
    const spec: BoneMaskSpec = wroteFilters
      ? { filters: named.filter((f): f is { bone: string; depth: number } => typeof f.bone === 'string') }
      : { mask: typeof raw?.mask === 'object' && raw.mask !== null && !Array.isArray(raw.mask) ? raw.mask as Record<string, number> : {} };
    for (const problem of boneMaskProblems(ctx.skeleton, spec)) {
      // Filter paths index the filters as written, including malformed ones.
      const path = wroteFilters ? ['filters', named.findIndex((f) => f.bone === problem.bone), 'bone'] : problem.path;
      ctx.report(['layers', i, ...path], 'unknown-bone', problem.message);
    }
  });
}

export const LayeredBlendPerBoneType: NodeType = defineBuiltInNodeType({
  type: 'LayeredBlendPerBone',
  space: 'local',
  properties: {
    layers: {
      kind: 'list',
      minCount: 1,
      item: {
        filters: { kind: 'object', schema: branchFiltersSchema },
        mask: { kind: 'object', schema: boneWeightsSchema },
        weight: { kind: 'float', default: 1, min: 0, max: 1 },
        blendProfile: { kind: 'blendProfile', modes: MASK_PROFILE_MODES },
      },
    },
    meshSpaceRotationBlend: { kind: 'bool', default: false, bindable: false },
  },
  inputs: [
    { name: 'base', kind: 'pose', space: 'local' },
    { name: 'layers', kind: 'poseList', space: 'local', minCount: 1 },
  ],
  check: checkLayers,
  prepare: () => new LayerMasks(),
  create: ({ id, properties: p, inputs, shared }) => {
    // The specs come from the graph's resolved properties (one object per graph each): the first
    // instance's serve every other.
    const masks = shared ?? new LayerMasks();
    masks.specs ??= p.layers.map((layer): LayerSpec => ({
      mask: (layer.filters !== undefined ? { filters: layer.filters } : { mask: layer.mask ?? {} }) as BoneMaskSpec,
      weight: layer.weight,
      profile: layer.blendProfile,
    }));
    return new LayeredBlendPerBone(id, inputs.base, inputs.layers, masks.specs, p.meshSpaceRotationBlend, masks);
  },
});
