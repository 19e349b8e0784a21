import type { ClipBinding } from '../runtime/core/clip.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { AimOffsetApplication, checkAimOffsetSamples } from '../runtime/jobs/aim-offset.ts';
import { CLOCK_NUMBERS } from '../runtime/jobs/clip-playback.ts';
import { defineBuiltInNodeType, type DebugNode, type Link, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext } from '../runtime/node/node.ts';
import { BlendSpace2D, checkPlaneSamples, PLANE_SAMPLES, planeLayout, type BlendSpace2DLayout } from './BlendSpace2D.ts';

/**
 * Unreal's Aim Offset: a BlendSpace2D whose samples are mesh-space additive clips (a character
 * aiming left, right, up, down, each minus the same straight-ahead pose), blended by (x, y) as a
 * BlendSpace2D blends (yaw and pitch, say) and applied onto the `base` pose in mesh space at `alpha`
 * (see AimOffsetApplication): the spine turns about the character's axes whatever the base's
 * locomotion does with the pelvis.
 */
export class AimOffset extends BlendSpace2D {
  readonly aim: AimOffsetApplication;

  constructor(
    id: string, base: PoseLink, alpha: ScalarProperty, boneCount: number,
    samples: readonly ClipBinding[], layout: BlendSpace2DLayout,
    x: ScalarProperty, y: ScalarProperty, smoothingTimes: readonly number[], playRate: ScalarProperty, loop: ScalarProperty,
    clockNumbers = -1,
    type = 'AimOffset',
  ) {
    super(id, samples, layout, x, y, smoothingTimes, playRate, loop, '', clockNumbers, type);
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
    this.aimAt(out);
    super.onEvaluate(delta);
    this.aim.apply(out, delta, this.graph.skeleton.parents, pool);
  }

  /** Called with the base pose before the samples are evaluated: AimOffsetLookAt weighs them there. */
  protected aimAt(_base: Pose): void {}

  protected override debugDescription(): string {
    return this.aim.describe(super.debugDescription());
  }

  protected override onGatherDebug(node: DebugNode): void {
    super.onGatherDebug(node);
    this.aim.gatherDebug(node);
  }
}

export const AimOffsetType: NodeType = defineBuiltInNodeType({
  type: 'AimOffset',
  space: 'local',
  properties: {
    samples: PLANE_SAMPLES,
    x: { kind: 'float', default: 0 },
    y: { kind: 'float', default: 0 },
    xSmoothingTime: { kind: 'float', default: 0, min: 0, max: 1e6, bindable: false },
    ySmoothingTime: { kind: 'float', default: 0, min: 0, max: 1e6, bindable: false },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
    playRate: { kind: 'float', default: 1 },
    loop: { kind: 'bool', default: true },
  },
  inputs: [{ name: 'base', kind: 'pose', space: 'local' }],
  check(ctx) {
    // The samples' places as a BlendSpace2D's: in range, distinct, not all on one line.
    checkPlaneSamples(ctx, 'AimOffset', 'AimOffset1D');
    checkAimOffsetSamples(ctx, 'AimOffset');
  },
  prepare: (ctx) => planeLayout(ctx.properties.samples),
  create: ({ id, boneCount, properties: p, inputs, shared, numbers }) => {
    if (!shared || shared.triangles.length === 0) throw new AnimGraphError('invalid-data', `AimOffset '${id}': its samples have no triangle (the loader reports why)`);
    return new AimOffset(
      id, inputs.base, p.alpha, boneCount, p.samples.map((s) => s.clip), shared, p.x, p.y, [p.xSmoothingTime, p.ySmoothingTime], p.playRate, p.loop,
      numbers(p.samples.length * CLOCK_NUMBERS),
    );
  },
});
