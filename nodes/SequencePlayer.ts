import { ClipCursor, sampleClipAt, sampleClipBlendInto, type ClipBinding } from '../runtime/clip.ts';
import { addRootMotion, addRootVelocity } from '../runtime/root-motion.ts';
import { LocalPoseNode, NO_LINKS, readScalar, type DebugNode, type Link, type NodeType, type ScalarProperty, type UpdateContext } from '../runtime/node.ts';
import type { Pose } from '../runtime/pose.ts';
import { defineNodeType } from '../runtime/node-type.ts';

/**
 * Plays a clip: advances its play time by delta time × play rate and samples it. Looping wraps
 * the time (emitting sequenceLooped); otherwise the time holds at either end (emitting
 * sequenceEnded once per arrival). A negative play rate plays backwards. Play rate, loop and
 * start time may be bound to parameters. A clip with root motion reports this frame's root-motion
 * delta, times the player's absolute weight, to its branch (UpdateContext.rootMotion): blends blend
 * it by weight.
 */
export class SequencePlayer extends LocalPoseNode {
  private readonly cursor = new ClipCursor();
  /** [time before, time after, looping, play rate, weight] of this frame's advance, for root motion. */
  private readonly span = new Float64Array(5);
  private readonly delta = new Float64Array(4);
  /** [play time, clip seconds per second, window, weight] for the root-velocity report. */
  private readonly velocityArgs = new Float64Array(4);
  private rate = 1;
  private atEnd = false;

  constructor(
    id: string,
    readonly clip: ClipBinding,
    private readonly playRate: ScalarProperty,
    private readonly loop: ScalarProperty,
    private readonly startTime: ScalarProperty,
  ) {
    super(id, 'SequencePlayer');
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  /** Current play time in seconds, within [0, clip duration]. */
  get time(): number {
    return this.cursor.time;
  }

  protected override onInitialize(): void {
    const duration = this.clip.clip.duration;
    const start = readScalar(this.graph.parameterValues, this.startTime);
    this.cursor.time = Number.isFinite(start) ? Math.min(Math.max(start, 0), duration) : 0;
    this.cursor.looping = readScalar(this.graph.parameterValues, this.loop) !== 0;
    this.atEnd = false;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const motion = this.clip.clip.rootMotion;
    this.span[0] = this.cursor.time;
    this.advance(ctx);
    if (motion === null) return;
    // Root motion of this frame's advance, reported to this branch by its weight.
    this.span[1] = this.cursor.time;
    this.span[2] = this.cursor.looping ? 1 : 0;
    this.span[3] = this.rate;
    this.span[4] = ctx.weight;
    addRootMotion(ctx.rootMotion, this.delta, this.clip.clip, motion, this.span);
    if (ctx.rootVelocityWindow >= 0) {
      // The pace it plays at: the play rate, known even in a frame of no time (the first one), or
      // nothing once a non-looping clip is held at the end it plays toward.
      const duration = this.clip.clip.duration, time = this.cursor.time;
      const held = !this.cursor.looping && ((this.rate > 0 && time >= duration) || (this.rate < 0 && time <= 0));
      const v = this.velocityArgs;
      // Written apart: a conditional joining 0 with the double field would box it.
      v[0] = time; v[1] = this.rate; v[2] = ctx.rootVelocityWindow; v[3] = ctx.weight;
      if (held) v[1] = 0;
      addRootVelocity(ctx.rootVelocity, this.clip.clip, motion, v);
    }
  }

  private advance(ctx: UpdateContext): void {
    const values = this.graph.parameterValues;
    const rate = readScalar(values, this.playRate);
    this.rate = Number.isFinite(rate) ? rate : 0;
    const looping = readScalar(values, this.loop) !== 0;
    const duration = this.clip.clip.duration;
    const cursor = this.cursor;
    cursor.looping = looping;
    if (!(duration > 0)) {
      cursor.time = 0;
      return;
    }
    let next = cursor.time + ctx.deltaTime * this.rate;
    if (looping) {
      if (next >= duration || next < 0) {
        // A huge rate over a long frame overflows to ±Infinity, whose remainder is NaN: the
        // advance modulo the clip is then taken from the delta time modulo one loop's period.
        if (next - next !== 0) next = cursor.time + (ctx.deltaTime % (duration / Math.abs(this.rate))) * this.rate;
        const wrapped = next % duration;
        const time = wrapped < 0 ? wrapped + duration : wrapped;
        cursor.time = time - time === 0 ? time : 0;
        if (this.graph.events.has('sequenceLooped')) this.graph.events.emit('sequenceLooped', this.id, this.clip.clip.name, cursor.time);
      } else cursor.time = next;
      this.atEnd = false;
      return;
    }
    const clamped = next < 0 ? 0 : next > duration ? duration : next;
    const arrived = (this.rate > 0 && clamped === duration) || (this.rate < 0 && clamped === 0);
    if (arrived && !this.atEnd && this.graph.events.has('sequenceEnded')) this.graph.events.emit('sequenceEnded', this.id, this.clip.clip.name, clamped);
    this.atEnd = arrived;
    cursor.time = clamped;
  }

  protected onEvaluate(out: Pose): void {
    sampleClipAt(out, this.clip, this.cursor);
  }

  protected override onEvaluateBlendedInto(out: Pose, weights: Float64Array): void {
    sampleClipBlendInto(out, this.clip, this.cursor, weights);
  }

  protected override debugDescription(): string {
    return `'${this.clip.clip.name}' Play Time: ${this.time.toFixed(3)}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.poseSource = true;
    node.values = { clip: this.clip.clip.name, time: this.time, playRate: this.rate, duration: this.clip.clip.duration };
  }
}

export const SequencePlayerType: NodeType = defineNodeType({
  type: 'SequencePlayer',
  space: 'local',
  properties: {
    clip: { kind: 'clip' },
    playRate: { kind: 'float', default: 1 },
    loop: { kind: 'bool', default: true },
    startTime: { kind: 'float', default: 0, min: 0 },
  },
  inputs: [],
  create: ({ id, properties: p }) =>
    new SequencePlayer(id, p.clip, p.playRate, p.loop, p.startTime),
});
