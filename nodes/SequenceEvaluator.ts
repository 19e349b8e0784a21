import type { ClipBinding } from '../runtime/core/clip.ts';
import { CLOCK_NUMBERS, ClipPlayback } from '../runtime/jobs/clip-playback.ts';
import { LocalPoseNode, NO_LINKS, readFlag, type DebugNode, type Link, type NodeType, type ScalarProperty, type UpdateContext } from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

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
  private readonly playback: ClipPlayback;

  constructor(
    id: string,
    readonly clip: ClipBinding,
    private readonly explicitTime: ScalarProperty,
    private readonly loop: ScalarProperty,
    /** Where the clip clock's numbers go in the instance's per-frame numbers (NodeBuild.numbers), -1: its own. */
    private readonly clockNumbers = -1,
  ) {
    super(id, 'SequenceEvaluator');
    this.playback = new ClipPlayback(clip);
    this.playback.owner = id;
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  protected override onInitialize(): void {
    this.playback.useNumbers(this.graph.frameNumbers, this.clockNumbers);
    this.playback.time = 0;
    this.playback.restart();
  }

  protected override onBecomeRelevant(): void {
    // The time held before a pause is no starting point: the jump to the new one is not motion.
    this.playback.forgetSeek();
  }

  protected onUpdate(ctx: UpdateContext): void {
    const values = this.graph.parameterValues, p = this.playback;
    // Written apart, not as one conditional: see CONTRIBUTING.md, "Numbers in the frame loop".
    const slot = this.explicitTime.slot;
    if (slot >= 0) p.seekTime = values[slot];
    else p.seekTime = this.explicitTime.constant;
    p.looping = readFlag(values, this.loop);
    p.seek(ctx);
    p.reportRootMotion(ctx);
  }

  protected onEvaluate(out: Pose): void {
    this.playback.sample(out);
  }

  /** The time sampled, after wrapping or clamping to the clip (as of the last update). */
  get time(): number {
    return this.playback.time;
  }

  /**
   * Clip seconds the time moved in the last update, signed: the span its root motion covers (0 on
   * the first update after becoming relevant). Looping, it counts whole loops a wrapped time hides.
   */
  get timeStep(): number {
    return this.playback.timeStep;
  }

  protected override debugDescription(): string {
    return `'${this.clip.clip.name}' Explicit Time: ${this.time.toFixed(3)}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.poseSource = true;
    node.values = { clip: this.clip.clip.name, time: this.time };
  }
}

export const SequenceEvaluatorType: NodeType = defineBuiltInNodeType({
  type: 'SequenceEvaluator',
  space: 'local',
  // A clip marked additive in the asset plays deltas, which ApplyAdditive takes.
  additiveOutput: (p, additiveClips) => additiveClips.get(p.clip as string),
  properties: {
    clip: { kind: 'clip' },
    explicitTime: { kind: 'float', default: 0 },
    loop: { kind: 'bool', default: false },
  },
  inputs: [],
  create: ({ id, properties: p, numbers }) => new SequenceEvaluator(id, p.clip, p.explicitTime, p.loop, numbers(CLOCK_NUMBERS)),
});
