import { ClipCursor, clipLocalTime, sampleClipAt, type ClipBinding } from '../runtime/clip.ts';
import { LocalPoseNode, NO_LINKS, readScalar, type DebugNode, type Link, type NodeType, type ScalarProperty } from '../runtime/node.ts';
import type { Pose } from '../runtime/pose.ts';

/**
 * Samples a clip at an explicit time (usually bound to a parameter) instead of advancing it:
 * for aim offsets, scrubbing and poses driven by gameplay values. Outside the clip the time is
 * clamped, or wrapped when `loop` is set.
 */
export class SequenceEvaluator extends LocalPoseNode {
  private readonly cursor = new ClipCursor();

  constructor(
    id: string,
    readonly clip: ClipBinding,
    private readonly explicitTime: ScalarProperty,
    private readonly loop: ScalarProperty,
  ) {
    super(id, 'SequenceEvaluator');
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  protected onUpdate(): void {
    const values = this.graph.parameterValues;
    // sampleClipAt wraps or clamps the raw time the same way clipLocalTime does.
    this.cursor.time = readScalar(values, this.explicitTime);
    this.cursor.looping = readScalar(values, this.loop) !== 0;
  }

  protected onEvaluate(out: Pose): void {
    sampleClipAt(out, this.clip, this.cursor);
  }

  /** The time sampled, after wrapping or clamping to the clip. */
  get time(): number {
    return clipLocalTime(this.clip.clip, this.cursor.time, this.cursor.looping);
  }

  protected override debugDescription(): string {
    return `'${this.clip.clip.name}' Explicit Time: ${this.time.toFixed(3)}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.poseSource = true;
    node.values = { clip: this.clip.clip.name, time: this.time };
  }
}

export const SequenceEvaluatorType: NodeType = {
  type: 'SequenceEvaluator',
  space: 'local',
  properties: {
    clip: { kind: 'clip' },
    explicitTime: { kind: 'float', default: 0 },
    loop: { kind: 'bool', default: false },
  },
  inputs: [],
  create: ({ id, properties: p }) => new SequenceEvaluator(id, p.clip('clip'), p.scalar('explicitTime'), p.scalar('loop')),
};
