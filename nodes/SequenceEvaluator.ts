import { ClipCursor, sampleClipAt, type ClipBinding } from '../runtime/clip.ts';
import { addRootMotion, addRootVelocity } from '../runtime/root-motion.ts';
import { LocalPoseNode, NO_LINKS, readScalar, type DebugNode, type Link, type NodeType, type ScalarProperty, type UpdateContext } from '../runtime/node.ts';
import type { Pose } from '../runtime/pose.ts';
import { defineNodeType } from '../runtime/node-type.ts';

/**
 * Samples a clip at an explicit time (usually bound to a parameter) instead of advancing it:
 * for aim offsets, scrubbing and poses driven by gameplay values. Outside the clip the time is
 * clamped, or wrapped when `loop` is set. A clip with root motion reports the root-motion delta from
 * the previous frame's explicit time to this one's, times the node's absolute weight, to its
 * branch, as SequencePlayer does for its advance: moving the time forward walks the
 * character forward, back walks it back. The first frame after the node becomes relevant has no
 * previous time and adds nothing.
 */
export class SequenceEvaluator extends LocalPoseNode {
  private readonly cursor = new ClipCursor();
  /** [explicit time as given, time sampled (wrapped or clamped), explicit time has a predecessor, clip time moved]. */
  private readonly times = new Float64Array(4);
  /** [time before, time after, looping, direction, weight] of this frame's change, for root motion. */
  private readonly span = new Float64Array(5);
  private readonly delta = new Float64Array(4);
  /** [time, clip seconds per second, window, weight] for the root-velocity report. */
  private readonly velocityArgs = new Float64Array(4);
  /** The explicit time's literal value (used when it is not bound); see onUpdate. */
  private readonly literalTime = new Float64Array(1);

  constructor(
    id: string,
    readonly clip: ClipBinding,
    private readonly explicitTime: ScalarProperty,
    private readonly loop: ScalarProperty,
  ) {
    super(id, 'SequenceEvaluator');
    this.literalTime[0] = explicitTime.constant;
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  protected override onInitialize(): void {
    this.times.fill(0);
  }

  protected override onBecomeRelevant(): void {
    // The time held before a pause is no starting point: the jump to the new one is not motion.
    this.times[2] = 0;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const values = this.graph.parameterValues;
    // Read inline from typed arrays: readScalar returns the time, which V8 boxes (16 bytes) when
    // it does not inline the call, as under a skeletal control.
    const slot = this.explicitTime.slot;
    const raw = slot >= 0 ? values[slot] : this.literalTime[0];
    const looping = readScalar(values, this.loop) !== 0;
    // sampleClipAt wraps or clamps the raw time the same way as below.
    this.cursor.time = raw;
    this.cursor.looping = looping;
    const clip = this.clip.clip, duration = clip.duration, t = this.times;
    const previousRaw = t[0], previous = t[1], hadPrevious = t[2] === 1;
    // clipLocalTime written out: a number returned from a call V8 does not inline is boxed.
    let local = 0;
    const finite = raw - raw === 0;
    if (duration > 0 && finite) {
      if (looping) {
        local = raw % duration;
        if (local < 0) local += duration;
      } else local = raw < 0 ? 0 : raw > duration ? duration : raw;
    }
    t[0] = raw;
    t[1] = local;
    t[2] = finite ? 1 : 0;
    t[3] = hadPrevious && finite ? (looping ? raw - previousRaw : local - previous) : 0;
    const motion = clip.rootMotion;
    if (motion === null || !hadPrevious || !finite || !(duration > 0)) return;
    const span = this.span;
    span[0] = previous;
    span[1] = local;
    span[3] = raw >= previousRaw ? 1 : -1;
    // Looping, the motion crosses the clip's end when the explicit time enters another loop (at
    // most once per frame, as for a player's advance).
    span[2] = looping && Math.floor(raw / duration) !== Math.floor(previousRaw / duration) ? 1 : 0;
    span[4] = ctx.weight;
    addRootMotion(ctx.rootMotion, this.delta, clip, motion, span);
    if (ctx.rootVelocityWindow >= 0 && ctx.deltaTime > 0) {
      // The pace is the clip time the explicit time moved per second: unknown in a frame of no time.
      const v = this.velocityArgs;
      v[0] = local; v[1] = t[3] / ctx.deltaTime; v[2] = ctx.rootVelocityWindow; v[3] = ctx.weight;
      addRootVelocity(ctx.rootVelocity, clip, motion, v);
    }
  }

  protected onEvaluate(out: Pose): void {
    sampleClipAt(out, this.clip, this.cursor);
  }

  /** The time sampled, after wrapping or clamping to the clip (as of the last update). */
  get time(): number {
    return this.times[1];
  }

  /**
   * Clip seconds the time moved in the last update, signed: the span its root motion covers (0 on
   * the first update after becoming relevant). Looping, it counts whole loops a wrapped time hides.
   */
  get timeStep(): number {
    return this.times[3];
  }

  protected override debugDescription(): string {
    return `'${this.clip.clip.name}' Explicit Time: ${this.time.toFixed(3)}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.poseSource = true;
    node.values = { clip: this.clip.clip.name, time: this.time };
  }
}

export const SequenceEvaluatorType: NodeType = defineNodeType({
  type: 'SequenceEvaluator',
  space: 'local',
  properties: {
    clip: { kind: 'clip' },
    explicitTime: { kind: 'float', default: 0 },
    loop: { kind: 'bool', default: false },
  },
  inputs: [],
  create: ({ id, properties: p }) => new SequenceEvaluator(id, p.clip, p.explicitTime, p.loop),
});
