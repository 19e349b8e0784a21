import type { ClipBinding } from '../core/clip.ts';
import { CLIP_LOOPED, ClipPlayback, usePlaybackNumbers } from './clip-playback.ts';
import { MAX_KEY_MAGNITUDE, MAX_KEY_MAGNITUDE_TEXT } from '../core/math.ts';
import { LocalPoseNode, NO_LINKS, ZERO_WEIGHT, readFlag, readScalar, type DebugNode, type Link, type NodeCheckContext, type ScalarProperty, type UpdateContext } from '../node/node.ts';
import { poseAccumulate, poseNormalizeRotations, poseScaleInto, type Pose } from '../core/pose.ts';
import { followSyncPosition, readSyncPosition, SyncPosition, syncGroupOf, type SyncGroup, type SyncGroupMember } from './sync-group.ts';

/**
 * Reports each sample coordinate (`axes` of each of `samples`) beyond ±MAX_KEY_MAGNITUDE, at its
 * path, and returns whether there was one. Weights divide differences of coordinates, which
 * overflow to Infinity near the largest double: samples at (-1e308, 0), (1e308, 0) and (0, 1e308)
 * were called collinear, and a 1D input between ±1e308 weighed NaN.
 */
export function reportSampleRange(ctx: NodeCheckContext, samples: unknown, axes: readonly ('x' | 'y')[]): boolean {
  if (!Array.isArray(samples)) return false;
  let found = false;
  samples.forEach((s: unknown, i) => {
    for (const axis of axes) {
      const v = typeof s === 'object' && s !== null ? (s as Record<string, unknown>)[axis] : undefined;
      if (typeof v !== 'number' || Math.abs(v) <= MAX_KEY_MAGNITUDE) continue;
      ctx.report(['samples', i, axis], 'value-range', `sample ${i} is at ${axis} = ${v}, beyond ±${MAX_KEY_MAGNITUDE_TEXT}`);
      found = true;
    }
  });
  return found;
}

/**
 * What BlendSpace1D and BlendSpace2D share (Unreal's blend spaces): the input coordinates, smoothed
 * per axis; a player per sample; and playback in step. The subclass turns the smoothed coordinates
 * into sample weights (sampleWeights). Each frame the sample of highest weight leads: it advances
 * by delta time × play rate × its length / the weighted mean length of the samples, so the blend's
 * cycle takes the weighted mean length (a walk–run blend at half and half strides at a cadence
 * between the two), and every other sample takes the leader's position, by sync markers where both
 * clips have them, else by normalised time. Root motion is every sample's, times its weight.
 *
 * In a sync group the blend space is one member: as leader its own leading sample sets the group's
 * position; as follower its leading sample takes the group's, and the other samples follow it.
 */
export abstract class BlendSpaceNode extends LocalPoseNode implements SyncGroupMember {
  /** Each sample's weight this frame (in the order written), summing to 1. */
  readonly weights: Float64Array;
  /** The input coordinates after smoothing, [x, y]. */
  readonly coordinates = new Float64Array(2);
  protected readonly players: ClipPlayback[];
  /** [x, y] as read this frame (the smoothing target). */
  private readonly target = new Float64Array(2);
  /** Smoothing half-lives per axis, seconds. */
  private readonly halfLives = new Float64Array(2);
  private readonly position = new SyncPosition();
  private group: SyncGroup | null = null;
  private leader = 0;
  private weightsAt = -1;
  private smoothed = false;
  /** What the leader's last advance returned (CLIP_LOOPED...), for this node's own update to report. */
  private flags = 0;

  constructor(
    id: string,
    type: string,
    /** Each sample's clip, in the order written. */
    readonly samples: readonly ClipBinding[],
    private readonly axes: readonly ScalarProperty[],
    smoothingTimes: readonly number[],
    private readonly playRate: ScalarProperty,
    private readonly loop: ScalarProperty,
    private readonly syncGroupName: string,
    /** Where the samples' clip clocks go in the instance's per-frame numbers (NodeBuild.numbers, one per sample), -1: their own. */
    private readonly clockNumbers = -1,
  ) {
    super(id, type);
    this.weights = new Float64Array(samples.length);
    this.players = samples.map((clip) => new ClipPlayback(clip));
    // Notify events name the blend space as the node that fired them.
    for (let i = 0; i < this.players.length; i++) this.players[i].owner = id;
    for (let a = 0; a < smoothingTimes.length; a++) this.halfLives[a] = smoothingTimes[a];
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  /** Writes each sample's weight for the smoothed `coordinates` into `weights` (non-negative, summing to 1). */
  protected abstract sampleWeights(): void;

  /** The index of the sample leading playback this frame. */
  get leaderIndex(): number {
    return this.leader;
  }

  protected override onInitialize(): void {
    usePlaybackNumbers(this.players, this.graph.frameNumbers, this.clockNumbers);
    const looping = readFlag(this.graph.parameterValues, this.loop);
    // Indexed, no for-of: this runs at each entry of a state, in the frame loop (see
    // CONTRIBUTING.md, "Numbers in the frame loop").
    for (let i = 0; i < this.players.length; i++) {
      const p = this.players[i];
      p.time = 0;
      p.looping = looping;
      p.restart();
    }
    this.weights.fill(0);
    this.weightsAt = -1;
    this.smoothed = false;
    this.leader = 0;
    this.flags = 0;
    this.group = this.syncGroupName === '' ? null : syncGroupOf(this.graph, this.syncGroupName);
  }

  /** Reads and smooths the inputs and weighs the samples, once per frame (a sync group may ask first). */
  private prepare(ctx: UpdateContext): void {
    const frame = this.graph.updateCounter;
    if (this.weightsAt === frame) return;
    this.weightsAt = frame;
    const values = this.graph.parameterValues, target = this.target, coordinates = this.coordinates;
    const dt = ctx.deltaTime;
    for (let a = 0; a < this.axes.length; a++) {
      const value = readScalar(values, this.axes[a]);
      // A NaN or infinite input holds the last good one, so no weight is ever NaN.
      if (value - value === 0) target[a] = value;
      const halfLife = this.halfLives[a];
      if (!this.smoothed || !(halfLife > 0)) coordinates[a] = target[a];
      else {
        const k = 1 - Math.pow(2, -dt / halfLife), gap = target[a] - coordinates[a];
        // Inputs of opposite sign near the largest double are further apart than a double holds:
        // the gap is then Infinity, and Infinity × 0 (a zero delta time) a NaN that no later input
        // would clear. Weighing the two ends instead cannot overflow when their signs differ.
        if (gap - gap === 0) coordinates[a] += gap * k;
        else coordinates[a] = coordinates[a] * (1 - k) + target[a] * k;
      }
    }
    this.smoothed = true;
    this.sampleWeights();
    const w = this.weights;
    let leader = 0;
    for (let i = 1; i < w.length; i++) if (w[i] > w[leader]) leader = i;
    this.leader = leader;
    const looping = readFlag(values, this.loop);
    for (let i = 0; i < this.players.length; i++) this.players[i].looping = looping;
  }

  syncAdvance(ctx: UpdateContext): void {
    this.prepare(ctx);
    const w = this.weights, players = this.players;
    let meanLength = 0;
    for (let i = 0; i < w.length; i++) meanLength += w[i] * players[i].binding.clip.duration;
    const lead = players[this.leader];
    const rate = readScalar(this.graph.parameterValues, this.playRate);
    lead.rate = Number.isFinite(rate) ? rate : 0;
    if (meanLength > 0) {
      lead.rate *= lead.binding.clip.duration / meanLength;
      // A rate near the largest double, scaled up for a leader longer than the mean, overflows, and
      // an infinite rate made the leader's time NaN (Infinity × a zero delta time), then every
      // follower's. Held at the largest double, it plays as a SequencePlayer at that rate does
      // (ClipPlayback.advance takes a finite rate and wraps an advance that overflows).
      if (lead.rate - lead.rate !== 0) lead.rate = rate > 0 ? 1.7976931348623157e308 : -1.7976931348623157e308;
    }
    this.flags = lead.advance(ctx);
    this.followLeader(ctx);
  }

  syncRead(out: SyncPosition): void {
    readSyncPosition(this.players[this.leader], out);
  }

  syncFollow(pos: SyncPosition, ctx: UpdateContext): void {
    this.prepare(ctx);
    this.flags = followSyncPosition(this.players[this.leader], pos, ctx);
    this.followLeader(ctx);
  }

  /** Every sample but the leader takes the leader's position. */
  private followLeader(ctx: UpdateContext): void {
    const players = this.players, leader = this.leader;
    readSyncPosition(players[leader], this.position);
    for (let i = 0; i < players.length; i++) if (i !== leader) followSyncPosition(players[i], this.position, ctx);
  }

  protected onUpdate(ctx: UpdateContext): void {
    this.prepare(ctx);
    if (this.group === null) this.syncAdvance(ctx);
    else this.group.update(this, ctx);
    const w = this.weights, players = this.players;
    for (let i = 0; i < players.length; i++) {
      if (!(w[i] > 0)) continue;
      players[i].weight = w[i];
      players[i].reportRootMotion(ctx);
    }
    const flags = this.flags;
    this.flags = 0;
    if (flags === CLIP_LOOPED) {
      const events = this.graph.events;
      if (events.has('sequenceLooped')) events.emit('sequenceLooped', this.id, this.samples[this.leader].clip.name, players[this.leader].time);
    }
  }

  protected onEvaluate(out: Pose): void {
    const w = this.weights, players = this.players;
    let first = true;
    let scratch: Pose | null = null;
    for (let i = 0; i < players.length; i++) {
      // Samples at a negligible weight are skipped as irrelevant branches are; the others' weights
      // still sum to 1 within that threshold, and rotations are renormalised.
      if (!(w[i] > ZERO_WEIGHT)) continue;
      if (first) {
        players[i].sample(out);
        if (w[i] < 1) poseScaleInto(out, out, w, i);
        first = false;
        continue;
      }
      scratch ??= this.graph.posePool.acquire();
      players[i].sample(scratch);
      poseAccumulate(out, scratch, w, i);
    }
    if (scratch !== null) {
      poseNormalizeRotations(out);
      this.graph.posePool.release(scratch);
    }
  }

  protected override debugDescription(): string {
    const axes = this.axes.length === 1 ? `X: ${this.coordinates[0].toFixed(3)}` : `X: ${this.coordinates[0].toFixed(3)} Y: ${this.coordinates[1].toFixed(3)}`;
    const lead = this.players[this.leader];
    return `${axes} Leader: '${this.samples[this.leader].clip.name}' Play Time: ${lead.time.toFixed(3)}${this.group ? ` Sync: ${this.group.name}` : ''}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.poseSource = true;
    node.values = {
      coordinates: Array.from(this.coordinates.subarray(0, this.axes.length)),
      weights: Array.from(this.weights),
      times: this.players.map((p) => p.time),
      leader: this.leader,
      clip: this.samples[this.leader].clip.name,
      time: this.players[this.leader].time,
    };
    if (this.group) node.values.syncGroup = this.group.name;
  }
}
