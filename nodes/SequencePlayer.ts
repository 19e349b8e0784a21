import type { ClipBinding } from '../runtime/core/clip.ts';
import { CLIP_LOOPED, CLOCK_NUMBERS, ClipPlayback } from '../runtime/jobs/clip-playback.ts';
import { LocalPoseNode, NO_LINKS, readFlag, readScalar, type DebugNode, type Link, type NodeType, type ScalarProperty, type UpdateContext } from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { followSyncPosition, readSyncPosition, syncGroupOf, type SyncGroup, type SyncGroupMember, type SyncPosition } from '../runtime/jobs/sync-group.ts';
import * as z from 'zod';
import { lazy } from '../runtime/core/lazy.ts';

/**
 * Plays a clip: advances its play time by delta time × play rate and samples it. Looping wraps
 * the time (emitting sequenceLooped); otherwise the time holds at either end (emitting
 * sequenceEnded once per arrival). A negative play rate plays backwards. Play rate, loop and
 * start time may be bound to parameters. A clip with root motion reports this frame's root-motion
 * delta, times the player's absolute weight, to its branch (UpdateContext.rootMotion): blends blend
 * it by weight.
 *
 * With `mirror` the player plays its clip mirrored (runtime/core/mirror.ts), root motion included:
 * the loader mirrors the clip once, so the frame costs what an unmirrored one does.
 *
 * In a sync group (`syncGroup`), the player leads or follows (see runtime/jobs/sync-group.ts): a follower
 * takes the leader's position instead of advancing by its own rate.
 */
export class SequencePlayer extends LocalPoseNode implements SyncGroupMember {
  private readonly playback: ClipPlayback;
  private group: SyncGroup | null = null;
  /** What the last advance or follow returned (CLIP_LOOPED...), for this player's own update to report. */
  private flags = 0;
  /**
   * The constant start time, clamped into the clip, and the constant loop flag, found once, so that
   * a state's entry, cold code, copies the number without reading it (see CONTRIBUTING.md,
   * "Numbers in the frame loop").
   * Bound ones are read (and boxed) at each restart.
   */
  private readonly constantStart = new Float64Array(1);
  private readonly constantLoop: boolean;

  constructor(
    id: string,
    readonly clip: ClipBinding,
    private readonly playRate: ScalarProperty,
    private readonly loop: ScalarProperty,
    private readonly startTime: ScalarProperty,
    private readonly syncGroupName = '',
    /** Where the clip clock's numbers go in the instance's per-frame numbers (NodeBuild.numbers), -1: its own. */
    private readonly clockNumbers = -1,
  ) {
    super(id, 'SequencePlayer');
    this.playback = new ClipPlayback(clip);
    this.playback.owner = id;
    this.constantStart[0] = clampStart(startTime.constant, clip.clip.duration);
    this.constantLoop = loop.constant !== 0;
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  /** Current play time in seconds, within [0, clip duration]. */
  get time(): number {
    return this.playback.time;
  }

  protected override onInitialize(): void {
    const values = this.graph.parameterValues, start = this.startTime, loop = this.loop, p = this.playback;
    p.useNumbers(this.graph.frameNumbers, this.clockNumbers);
    p.looping = loop.slot >= 0 ? values[loop.slot] !== 0 : this.constantLoop;
    if (start.slot >= 0) {
      p.time = clampStart(values[start.slot], this.clip.clip.duration);
      p.restart();
    } else p.restartAt(this.constantStart);
    this.flags = 0;
    this.group = this.syncGroupName === '' ? null : syncGroupOf(this.graph, this.syncGroupName);
  }

  syncAdvance(ctx: UpdateContext): void {
    const values = this.graph.parameterValues, p = this.playback;
    const rate = readScalar(values, this.playRate);
    p.rate = Number.isFinite(rate) ? rate : 0;
    p.looping = readFlag(values, this.loop);
    this.flags = p.advance(ctx);
  }

  syncRead(out: SyncPosition): void {
    readSyncPosition(this.playback, out);
  }

  syncFollow(pos: SyncPosition, ctx: UpdateContext): void {
    const p = this.playback;
    p.looping = readFlag(this.graph.parameterValues, this.loop);
    this.flags = followSyncPosition(p, pos, ctx);
  }

  protected onUpdate(ctx: UpdateContext): void {
    const p = this.playback;
    if (this.group === null) this.syncAdvance(ctx);
    else this.group.update(this, ctx);
    const flags = this.flags;
    this.flags = 0;
    if (flags !== 0) {
      const events = this.graph.events, event = flags === CLIP_LOOPED ? 'sequenceLooped' : 'sequenceEnded';
      if (events.has(event)) events.emit(event, this.id, this.clip.clip.name, p.time);
    }
    p.reportRootMotion(ctx);
  }

  protected onEvaluate(out: Pose): void {
    this.playback.sample(out);
  }

  protected override onEvaluateBlendedInto(out: Pose, weights: Float64Array): void {
    this.playback.sampleBlendInto(out, weights);
  }

  protected override debugDescription(): string {
    const group = this.group;
    return `'${this.clip.clip.name}' Play Time: ${this.time.toFixed(3)}${group ? ` Sync: ${group.name} (${group.leaderId === this.id ? 'leader' : 'follower'})` : ''}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.poseSource = true;
    node.values = { clip: this.clip.clip.name, time: this.time, playRate: this.playback.rate, duration: this.clip.clip.duration };
    if (this.group) {
      node.values.syncGroup = this.group.name;
      node.values.syncLeader = this.group.leaderId === this.id;
    }
  }
}

/** A start time inside a clip of `duration` seconds: clamped to it, 0 when not finite. */
function clampStart(t: number, duration: number): number {
  return t - t === 0 ? Math.min(Math.max(t, 0), duration) : 0;
}

export const SequencePlayerType: NodeType = defineBuiltInNodeType({
  type: 'SequencePlayer',
  space: 'local',
  // A clip marked additive in the asset plays deltas, which ApplyAdditive takes.
  additiveOutput: (p, additiveClips) => additiveClips.get(p.clip as string),
  properties: {
    clip: { kind: 'clip' },
    playRate: { kind: 'float', default: 1 },
    loop: { kind: 'bool', default: true },
    startTime: { kind: 'float', default: 0, min: 0 },
    syncGroup: { kind: 'object', schema: lazy(() => z.string().min(1)) },
    // Read at load: the loader binds the player to the clip mirrored once (graphs/loader/clips.ts).
    mirror: { kind: 'bool', default: false, bindable: false },
  },
  inputs: [],
  create: ({ id, properties: p, numbers }) => {
    // A graph built in code passes a mirrored clip itself (mirrorClip); refusing an unmirrored one
    // keeps `mirror: true` from doing nothing silently.
    if (p.mirror && !p.clip.clip.mirrored) {
      throw new AnimGraphError('invalid-data', `SequencePlayer '${id}': mirror is true but clip '${p.clip.clip.name}' is not mirrored (the loader mirrors it; in code, pass mirrorClip's clip)`);
    }
    return new SequencePlayer(id, p.clip, p.playRate, p.loop, p.startTime, p.syncGroup ?? '', numbers(CLOCK_NUMBERS));
  },
});
