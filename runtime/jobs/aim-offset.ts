import { applyAdditive } from '../core/additive.ts';
import { clamp } from '../core/math.ts';
import { nameList, quoted } from '../core/names.ts';
import type { Pose, PosePool } from '../core/pose.ts';
import { ScratchNumbers } from '../core/scratch.ts';
import { readScalar, ZERO_WEIGHT, type DebugNode, type Link, type NodeCheckContext, type PoseLink, type ScalarProperty, type UpdateContext } from '../node/node.ts';

/** The base's and the result's component-space rotations, used within one call: every instance's (see ScratchNumbers). */
const MESH_ROTATIONS = new ScratchNumbers();

/**
 * What an aim offset (AimOffset, AimOffset1D) adds to the blend space it is built on (Unreal's Aim
 * Offset): a base pose, and the blend of its samples, additive clips made in mesh space, applied
 * onto the base in mesh space at `alpha` (runtime/core/additive.ts's applyAdditive). The node updates
 * its base at its own weight and its samples at its weight × alpha; at or below the relevance
 * threshold the samples are neither updated nor evaluated, so alpha 0 is exactly the base.
 */
export class AimOffsetApplication {
  /** [alpha] this frame, read by applyAdditive (see CONTRIBUTING.md, "Numbers in the frame loop"). */
  readonly alpha = new Float64Array(1);
  /** True when the samples were updated this frame, and so are evaluated and applied. */
  updated = false;
  /** The node's pose links: the base. */
  readonly links: readonly Link[];
  /** MESH_ROTATIONS', 8 per bone. */
  private readonly scratch: Float64Array;

  constructor(
    /** The pose the offset is added onto. */
    readonly base: PoseLink,
    private readonly alphaProperty: ScalarProperty,
    boneCount: number,
  ) {
    this.links = [base];
    this.scratch = MESH_ROTATIONS.atLeast(boneCount * 8);
  }

  reset(): void {
    this.alpha[0] = 0;
    this.updated = false;
  }

  /**
   * Reads alpha and updates the base; returns the context to update the samples in (the node's
   * weight × alpha), or null when alpha is at or below the relevance threshold.
   */
  updateBase(ctx: UpdateContext, parameterValues: Float64Array): UpdateContext | null {
    const alpha = clamp(readScalar(parameterValues, this.alphaProperty), 0, 1);
    this.alpha[0] = alpha === alpha ? alpha : 0;
    this.base.update(ctx.child());
    this.updated = false;
    if (!(this.alpha[0] > ZERO_WEIGHT)) return null;
    const child = ctx.child();
    child.weight *= this.alpha[0];
    return child;
  }

  /** After the samples' update in `child`: the root motion an additive's players report is not the character's. */
  samplesUpdated(child: UpdateContext): void {
    this.updated = true;
    child.rootMotion.fill(0);
    child.rootVelocity.fill(0);
  }

  /**
   * Evaluates the base into `out`; returns a pose of `pool` for the node to blend its samples into,
   * or null when they were not updated this frame (alpha 0: `out` is the result).
   */
  evaluateBase(out: Pose, pool: PosePool): Pose | null {
    this.base.evaluate(out);
    return this.updated ? pool.acquire() : null;
  }

  /**
   * Applies the blended mesh-space additive `delta` (evaluateBase's pose) onto `out` (the base) at
   * this frame's alpha, and gives `delta` back to `pool`.
   */
  apply(out: Pose, delta: Pose, parents: Int32Array, pool: PosePool): void {
    applyAdditive(out, delta, this.alpha, 0, true, parents, this.scratch);
    pool.release(delta);
  }

  /** The node's debug line: its blend space's, and alpha. */
  describe(blendSpace: string): string {
    return `${blendSpace} Alpha: ${(this.alpha[0] * 100).toFixed(1)}%`;
  }

  /** The node's debug values: its blend space's, and alpha; not a pose source (it modifies its base). */
  gatherDebug(node: DebugNode): void {
    node.poseSource = false;
    node.values = { ...node.values, alpha: this.alpha[0] };
  }
}

/**
 * Reports each sample clip that is not an additive clip made in mesh space, at its path: an
 * ordinary clip would be added to the base as if it were a delta (`not-additive`), and a local-space
 * additive applied in mesh space turns bones about the wrong axes (`space-mismatch`).
 */
export function checkAimOffsetSamples(ctx: NodeCheckContext, type: string): void {
  const samples = ctx.properties.samples;
  if (!Array.isArray(samples)) return;
  samples.forEach((s: unknown, i) => {
    const clip = typeof s === 'object' && s !== null ? (s as { clip?: unknown }).clip : undefined;
    // An unknown clip is reported as such by the generic checks.
    if (typeof clip !== 'string' || !ctx.clipNames.has(clip)) return;
    const space = ctx.additiveClips.get(clip);
    if (space === undefined) {
      const additive = [...ctx.additiveClips].filter(([, sp]) => sp === 'mesh').map(([name]) => name);
      ctx.report(['samples', i, 'clip'], 'not-additive',
        `${type} ${quoted(ctx.id)} blends additive poses, but clip ${quoted(clip)} is an ordinary one: mark it additive with "space": "mesh" in the asset's clips (mesh-space additive clips: ${nameList(additive)})`);
    } else if (space !== 'mesh') {
      ctx.report(['samples', i, 'clip'], 'space-mismatch',
        `${type} ${quoted(ctx.id)} applies its samples in mesh space, but clip ${quoted(clip)} is a ${space}-space additive: make it with "space": "mesh"`);
    }
  });
}
