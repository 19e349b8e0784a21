import { sampleClip, type ClipBinding } from '../runtime/clip.ts';
import { LocalPoseNode, NO_LINKS, readScalar, type DebugNode, type Link, type NodeType, type ScalarProperty, type UpdateContext } from '../runtime/node.ts';
import type { Pose } from '../runtime/pose.ts';

/**
 * Plays a clip: advances its play time by delta time × play rate and samples it. Looping wraps
 * the time (emitting sequenceLooped); otherwise the time holds at either end (emitting
 * sequenceEnded once per arrival). A negative play rate plays backwards. Play rate, loop and
 * start time may be bound to parameters.
 */
export class SequencePlayer extends LocalPoseNode {
  /** Current play time in seconds, within [0, clip duration]. */
  time = 0;
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

  protected override onInitialize(): void {
    const duration = this.clip.clip.duration;
    const start = readScalar(this.graph.parameterValues, this.startTime);
    this.time = Number.isFinite(start) ? Math.min(Math.max(start, 0), duration) : 0;
    this.atEnd = false;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const values = this.graph.parameterValues;
    const rate = readScalar(values, this.playRate);
    this.rate = Number.isFinite(rate) ? rate : 0;
    const looping = readScalar(values, this.loop) !== 0;
    const duration = this.clip.clip.duration;
    if (!(duration > 0)) {
      this.time = 0;
      return;
    }
    const next = this.time + ctx.deltaTime * this.rate;
    if (looping) {
      if (next >= duration || next < 0) {
        const wrapped = next % duration;
        this.time = wrapped < 0 ? wrapped + duration : wrapped;
        this.graph.events.emit('sequenceLooped', this.id, this.clip.clip.name, this.time);
      } else this.time = next;
      this.atEnd = false;
      return;
    }
    const clamped = next < 0 ? 0 : next > duration ? duration : next;
    const arrived = (this.rate > 0 && clamped === duration) || (this.rate < 0 && clamped === 0);
    if (arrived && !this.atEnd) this.graph.events.emit('sequenceEnded', this.id, this.clip.clip.name, clamped);
    this.atEnd = arrived;
    this.time = clamped;
  }

  protected onEvaluate(out: Pose): void {
    sampleClip(out, this.clip, this.time, readScalar(this.graph.parameterValues, this.loop) !== 0);
  }

  protected override debugDescription(): string {
    return `'${this.clip.clip.name}' Play Time: ${this.time.toFixed(3)}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.poseSource = true;
    node.values = { clip: this.clip.clip.name, time: this.time, playRate: this.rate, duration: this.clip.clip.duration };
  }
}

export const SequencePlayerType: NodeType = {
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
    new SequencePlayer(id, p.clip('clip'), p.scalar('playRate'), p.scalar('loop'), p.scalar('startTime')),
};
