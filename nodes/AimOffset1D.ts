import type { ClipBinding } from '../runtime/core/clip.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { AimOffsetApplication, checkAimOffsetSamples } from '../runtime/jobs/aim-offset.ts';
import { CLOCK_NUMBERS } from '../runtime/jobs/clip-playback.ts';
import { defineBuiltInNodeType, type DebugNode, type Link, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext } from '../runtime/node/node.ts';
import { BlendSpace1D, BlendSpace1DType, LINE_SAMPLES, lineOrder } from './BlendSpace1D.ts';

/**
 * Unreal's Aim Offset 1D: a BlendSpace1D whose samples are mesh-space additive clips (aiming left
 * to right, each minus the same straight-ahead pose), blended along `x` as a BlendSpace1D blends and
 * applied onto the `base` pose in mesh space at `alpha` (see AimOffsetApplication).
 */
export class AimOffset1D extends BlendSpace1D {
  readonly aim: AimOffsetApplication;

  constructor(
    id: string, base: PoseLink, alpha: ScalarProperty, boneCount: number,
    samples: readonly ClipBinding[], order: Int32Array, xs: Float64Array,
    x: ScalarProperty, smoothingTime: number, playRate: ScalarProperty, loop: ScalarProperty,
    clockNumbers = -1,
  ) {
    super(id, samples, order, xs, x, smoothingTime, playRate, loop, '', clockNumbers, 'AimOffset1D');
    this.aim = new AimOffsetApplication(base, alpha, boneCount);
  }

  protected override get links(): readonly Link[] {
    return this.aim.links;
  }

  protected override onInitialize(): void {
    super.onInitialize();
    this.aim.reset();
  }

  protected override onUpdate(ctx: UpdateContext): void {
    const child = this.aim.updateBase(ctx, this.graph.parameterValues);
    if (child === null) return;
    super.onUpdate(child);
    this.aim.samplesUpdated(child);
  }

  protected override onEvaluate(out: Pose): void {
    const pool = this.graph.posePool, delta = this.aim.evaluateBase(out, pool);
    if (delta === null) return;
    super.onEvaluate(delta);
    this.aim.apply(out, delta, this.graph.skeleton.parents, pool);
  }

  protected override debugDescription(): string {
    return this.aim.describe(super.debugDescription());
  }

  protected override onGatherDebug(node: DebugNode): void {
    super.onGatherDebug(node);
    this.aim.gatherDebug(node);
  }
}

export const AimOffset1DType: NodeType = defineBuiltInNodeType({
  type: 'AimOffset1D',
  space: 'local',
  properties: {
    samples: LINE_SAMPLES,
    x: { kind: 'float', default: 0 },
    smoothingTime: { kind: 'float', default: 0, min: 0, max: 1e6, bindable: false },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
    playRate: { kind: 'float', default: 1 },
    loop: { kind: 'bool', default: true },
  },
  inputs: [{ name: 'base', kind: 'pose', space: 'local' }],
  check(ctx) {
    // The samples' places as a BlendSpace1D's: in range, distinct.
    BlendSpace1DType.check?.(ctx);
    checkAimOffsetSamples(ctx, 'AimOffset1D');
  },
  create: ({ id, boneCount, properties: p, inputs, numbers }) => {
    const { order, xs } = lineOrder(p.samples);
    return new AimOffset1D(
      id, inputs.base, p.alpha, boneCount, p.samples.map((s) => s.clip), order, xs, p.x, p.smoothingTime, p.playRate, p.loop,
      numbers(p.samples.length * CLOCK_NUMBERS),
    );
  },
});
