import { CLIP_LOOPED, type ClipPlayback } from './clip-playback.ts';
import type { GraphRuntime, UpdateContext } from '../node/anim-node.ts';

/*
 * Sync groups (Unreal's): players that must stay in step, a walk and a run blended, follow one
 * leader. The leader plays by its own clock; every follower takes the leader's position in its own
 * clip: the same normalised time, or, when both clips carry sync markers of the same names, the
 * same fraction of the way between the same two markers (footL to footR), so that feet plant
 * together even when the clips' steps fall at different fractions of their cycles.
 */

/** Where a leader is in its clip, in terms a follower of another length can take. */
export class SyncPosition {
  /** Play time over duration, 0..1. */
  phase = 0;
  /** Whether from/to/fraction hold a marker segment (the clip has markers around its time). */
  hasMarkers = false;
  /** The markers before and after the time (the same one for a looping clip with one marker). */
  from = '';
  to = '';
  /** How far between them, 0..1. */
  fraction = 0;
  /**
   * How far the leader's last move went, in loops of its clip, signed, whole loops included (its
   * timeStep over its duration): a follower moves as many loops, so that it crosses what the
   * leader crosses (its notifies of every loop, its wraps) however long the frame.
   */
  loops = 0;
}

/** Scratch [start, end] of a marker segment, for readSyncPosition and followSyncPosition (neither re-enters). */
const SEGMENT = new Float64Array(2);

/** Writes where `p` is into `out`: its phase and, when its clip has markers around its time, the marker segment. */
export function readSyncPosition(p: ClipPlayback, out: SyncPosition): void {
  const duration = p.binding.clip.duration;
  out.hasMarkers = false;
  out.phase = 0;
  out.loops = 0;
  if (!(duration > 0)) return;
  out.phase = p.time / duration;
  out.loops = p.timeStep / duration;
  // The markers in a function of their own, so that this short path is optimised early: see
  // CONTRIBUTING.md, "Numbers in the frame loop".
  if (p.binding.clip.syncMarkers.length > 0) readMarkerPosition(p, out);
}

/** readSyncPosition's segment between the clip's markers around p.time (the clip has markers and a length). */
function readMarkerPosition(p: ClipPlayback, out: SyncPosition): void {
  const clip = p.binding.clip, duration = clip.duration, markers = clip.syncMarkers, n = markers.length, time = p.time;
  let i = -1;
  for (let k = 0; k < n && markers[k].time <= time; k++) i = k;
  // The segment's start and end go through a typed array: a variable joining a marker's time read
  // untouched with a sum would box the sum (see CONTRIBUTING.md, "Numbers in the frame loop").
  const segment = SEGMENT;
  let next = i + 1;
  if (i < 0) {
    // Before the first marker: a looping clip is still in the segment from the last one of the previous loop.
    if (!p.looping) return;
    i = n - 1;
    next = 0;
    segment[0] = markers[i].time - duration;
    segment[1] = markers[0].time;
  } else {
    segment[0] = markers[i].time;
    if (next < n) segment[1] = markers[next].time;
    else {
      if (!p.looping) return;
      next = 0;
      segment[1] = markers[0].time + duration;
    }
  }
  const start = segment[0], end = segment[1];
  out.hasMarkers = true;
  out.from = markers[i].name;
  out.to = markers[next].name;
  out.fraction = end > start ? (time - start) / (end - start) : 0;
}

/**
 * Moves `p` to the leader's position `pos`: between the same two markers at the same fraction when
 * both have them (of several such segments, the one nearest the follower's own time, so a clip with
 * two strides does not skip one), else to the same phase. The move is recorded as an advance is (for
 * root motion and notifies): looping, of the moves that end there, the one of as many loops as the
 * leader's move (`pos.loops`), whole loops included, so a leader moving a loop and a quarter a frame
 * takes its followers a loop and a quarter, not a quarter. Returns CLIP_LOOPED when it wrapped, else 0.
 */
export function followSyncPosition(p: ClipPlayback, pos: SyncPosition, ctx: UpdateContext): number {
  const clip = p.binding.clip, duration = clip.duration, markers = clip.syncMarkers, n = markers.length;
  const looping = p.looping, before = p.time;
  let target = 0;
  if (duration > 0) {
    target = pos.phase * duration;
    let best = Infinity;
    if (pos.hasMarkers) {
      for (let j = 0; j < n; j++) {
        if (markers[j].name !== pos.from) continue;
        let next = j + 1;
        if (next >= n) {
          if (!looping) continue;
          next = 0;
        }
        if (markers[next].name !== pos.to) continue;
        // Through SEGMENT, as in readSyncPosition.
        const segment = SEGMENT;
        segment[0] = markers[j].time;
        if (next > j) segment[1] = markers[next].time;
        else segment[1] = markers[next].time + duration;
        const start = segment[0], end = segment[1];
        let t = start + pos.fraction * (end - start);
        if (t >= duration && looping) t -= duration;
        let distance = Math.abs(t - before);
        if (looping && distance > duration - distance) distance = duration - distance;
        if (distance < best) {
          best = distance;
          target = t;
        }
      }
    }
    if (looping) {
      if (target >= duration) target -= duration;
      if (!(target >= 0 && target < duration)) target = 0;
    } else target = Math.min(Math.max(target, 0), duration);
  }
  let step = target - before;
  let wrapped = false;
  if (looping && duration > 0) {
    // Whole loops to add to the step, so that it is as near as it can be to the leader's move.
    const loops = Math.round(pos.loops - step / duration);
    if (loops !== 0) {
      step += loops * duration;
      wrapped = true;
    }
  }
  p.previousTime = before;
  p.time = target;
  p.wrapped = wrapped;
  p.direction = step >= 0 ? 1 : -1;
  p.moved = true;
  p.timeStep = step;
  p.paceKnown = ctx.deltaTime > 0;
  if (ctx.deltaTime > 0) p.pace = step / ctx.deltaTime;
  return wrapped ? CLIP_LOOPED : 0;
}

/** What a node in a sync group does for the group (SequencePlayer, blend spaces). */
export interface SyncGroupMember {
  readonly id: string;
  /** Advances by its own clock this frame, as the leader; keeps what happened for its own update to report. */
  syncAdvance(ctx: UpdateContext): void;
  /** Writes where it is now. */
  syncRead(out: SyncPosition): void;
  /** Moves to the leader's position this frame. */
  syncFollow(pos: SyncPosition, ctx: UpdateContext): void;
}

/**
 * One named group of one graph instance. Each member calls update() from its own update. The leader
 * of a frame is the member with the highest absolute weight in the frame before (the first member
 * updated, when none was updated then): the weights of this frame are known only once the whole
 * graph has been updated, and a follower updated before the leader must already take the leader's
 * new position. So leadership follows the weights one frame late, and the phase never jumps: the
 * new leader goes on from where it was following. The first member updated in a frame advances the
 * leader (whether or not the leader is itself updated this frame).
 */
export class SyncGroup {
  readonly position = new SyncPosition();
  private frame = -1;
  private leader: SyncGroupMember | null = null;
  private led = false;
  private candidate: SyncGroupMember | null = null;
  /** The highest weight so far this frame, in an array: see CONTRIBUTING.md, "Numbers in the frame loop". */
  private readonly candidateWeight = new Float64Array(1);
  private candidateFrame = -1;

  constructor(readonly name: string) {}

  /** The member leading this frame ('' before the first update). */
  get leaderId(): string {
    return this.leader === null ? '' : this.leader.id;
  }

  reset(): void {
    this.frame = -1;
    this.leader = null;
    this.led = false;
    this.candidate = null;
    this.candidateWeight[0] = -1;
    this.candidateFrame = -1;
  }

  update(member: SyncGroupMember, ctx: UpdateContext): void {
    const frame = ctx.graph.updateCounter;
    if (frame !== this.frame) {
      this.leader = this.candidateFrame === frame - 1 ? this.candidate : null;
      this.frame = frame;
      this.led = false;
      this.candidate = null;
      this.candidateWeight[0] = -1;
    }
    // Strictly higher: of equal weights the member updated first leads, so the choice is deterministic.
    if (ctx.weight > this.candidateWeight[0]) {
      this.candidate = member;
      this.candidateWeight[0] = ctx.weight;
      this.candidateFrame = frame;
    }
    if (this.leader === null) this.leader = member;
    if (!this.led) {
      this.led = true;
      this.leader.syncAdvance(ctx);
      this.leader.syncRead(this.position);
    }
    if (member !== this.leader) member.syncFollow(this.position, ctx);
  }
}

/**
 * The groups of each graph instance, by name: kept here rather than on GraphRuntime so that sync
 * groups need nothing of the instance; looked up when a member is initialised, never per frame.
 */
const groupsByInstance = new WeakMap<GraphRuntime, Map<string, SyncGroup>>();

/** The instance's group of this name (made on first use), reset: call from a member's onInitialize. */
export function syncGroupOf(graph: GraphRuntime, name: string): SyncGroup {
  let groups = groupsByInstance.get(graph);
  if (groups === undefined) groupsByInstance.set(graph, groups = new Map());
  let group = groups.get(name);
  if (group === undefined) groups.set(name, group = new SyncGroup(name));
  group.reset();
  return group;
}
