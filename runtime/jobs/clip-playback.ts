import { type ClipBinding } from '../core/clip.ts';
import { ClipCursor, sampleClipAt, sampleClipBlendInto } from '../core/sampling.ts';
import type { Pose } from '../core/pose.ts';
import type { UpdateContext } from '../node/node.ts';
import { addRootMotion, addRootVelocity } from './root-motion.ts';
import { ZERO_WEIGHT } from '../node/anim-node.ts';
import { NOTIFY_POINT, NOTIFY_RANGE_START, type ClipNotifyTrack } from '../core/clip-events.ts';

/** advance() flag: a looping clip wrapped past its end (or, backwards, its start) this frame. */
export const CLIP_LOOPED = 1;
/** advance() flag: a non-looping clip arrived at the end it plays toward this frame. */
export const CLIP_ENDED = 2;

/**
 * The most whole loops of a clip whose notifies one move fires, besides the two loops it starts and
 * ends in. A move that wraps more often (a delta time of 1e6 s over a 0.1 s clip is ten million
 * wraps) fires the loop it starts in, this many whole loops, then the loop it ends in: the whole
 * loops past these are skipped, every notify of each, so that ranges stay balanced. At 256 the cap
 * holds off every schedule the update rate allows (255 frames skipped at 30 fps is 8.5 s, some 85
 * loops of a 0.1 s clip at play rate 1), and bounds a frame's events at 258 loops' worth.
 */
export const MAX_NOTIFY_LOOPS = 256;

/** ClipPlayback's numbers, by index into its clock array. */
const TIME = 0, RATE = 1, SEEK_TIME = 2, WEIGHT = 3, PREVIOUS_TIME = 4, PACE = 5, TIME_STEP = 6, PREVIOUS_SEEK_TIME = 7;
/** How many numbers a clip clock keeps (what a node reserves for one: NodeBuild.numbers). */
export const CLOCK_NUMBERS = 8;

/**
 * What sample() hands the sampler: one cursor for every playback (sampling is synchronous), so that
 * the sampler sees one shape of cursor and a playback carries no cursor of its own.
 */
const cursor = new ClipCursor();
/**
 * reportRootMotion's arguments to root-motion.ts, shared likewise (nothing it calls reports again):
 * [time before, time after, wrapped, direction, weight], the delta it computes, and [time, pace,
 * window, weight] for addRootVelocity. Three typed arrays fewer per playback, for a crowd's memory.
 */
const motionSpan = new Float64Array(6);
const motionDelta = new Float64Array(4);
const velocityArgs = new Float64Array(4);

/** ClipPlayback's flags, bits of one field. */
const FLAG_LOOPING = 1, FLAG_WRAPPED = 2, FLAG_BACKWARD = 4, FLAG_AT_END = 8, FLAG_MOVED = 16, FLAG_PACE_KNOWN = 32,
  FLAG_START_PENDING = 64, FLAG_FROM_START = 128, FLAG_SEEDED = 256, FLAG_NO_CURVES = 512, FLAG_NO_NOTIFIES = 1024;

/**
 * The clock of one playing clip, shared by every node that plays or scrubs clips (SequencePlayer,
 * SequenceEvaluator, PoseSearchBlend's clips; a state machine's or blend space's would be the same):
 * a job in ozz's sense, inputs and outputs as fields, owning no clip and allocating nothing.
 *
 * Inputs: `binding` (the clip), `rate`, `looping`, and `seekTime` for seek(). advance() moves `time`
 * by delta time × rate and wraps (looping) or holds it at the ends; seek() puts it at an explicit
 * time. Both leave `previousTime`, whether the move crossed the clip's end (`wrapped`) and the clip
 * time it covered, whole loops included (`timeStep`), for reportRootMotion(), which reports what
 * the move produced, times the branch weight and `weight`:
 * the root motion of that span to the branch's report, the clip's notifies it crossed to the
 * instance's events (named as played by `owner`), and the clip's curves at `time` to the
 * instance's curve values; sample() samples the clip at `time`.
 */
export class ClipPlayback {
  /**
   * The clock's numbers, behind the accessors below: eight doubles in one array rather than eight
   * fields, its own or, after useNumbers, its instance's per-frame numbers (see CONTRIBUTING.md,
   * "Numbers in the frame loop", and "Objects per character" in docs/performance.md).
   */
  private numbers: Float64Array = new Float64Array(CLOCK_NUMBERS);
  /** Where the clock's numbers start in `numbers`. */
  private base = 0;
  /**
   * The clock's flags, one bit each (the FLAG_ constants), behind the accessors below: one field
   * rather than nine, so that the object a crowd's frame reads per clock is two lines, not three.
   */
  private bits = FLAG_START_PENDING;
  private flag(flag: number): boolean {
    return (this.bits & flag) !== 0;
  }
  private setFlag(flag: number, on: boolean): void {
    this.bits = on ? this.bits | flag : this.bits & ~flag;
  }
  /** Play time in seconds, within [0, duration]. */
  get time(): number { return this.numbers[this.base + TIME]; }
  set time(value: number) { this.numbers[this.base + TIME] = value; }
  get looping(): boolean { return this.flag(FLAG_LOOPING); }
  set looping(value: boolean) { this.setFlag(FLAG_LOOPING, value); }
  /** Clip seconds per second; negative plays backwards. Finite (the caller reads it so). */
  get rate(): number { return this.numbers[this.base + RATE]; }
  set rate(value: number) { this.numbers[this.base + RATE] = value; }
  /** The time seek() goes to, unwrapped (an explicit time may run past the clip: it wraps or clamps). */
  get seekTime(): number { return this.numbers[this.base + SEEK_TIME]; }
  set seekTime(value: number) { this.numbers[this.base + SEEK_TIME] = value; }
  /** This playback's share of its branch's weight, for root motion (a crossfade's slot weight). */
  get weight(): number { return this.numbers[this.base + WEIGHT]; }
  set weight(value: number) { this.numbers[this.base + WEIGHT] = value; }
  /** Play time before the last advance or seek. */
  get previousTime(): number { return this.numbers[this.base + PREVIOUS_TIME]; }
  set previousTime(value: number) { this.numbers[this.base + PREVIOUS_TIME] = value; }
  /** Whether the last move crossed the clip's end or start (a loop wrap). */
  get wrapped(): boolean { return this.flag(FLAG_WRAPPED); }
  set wrapped(value: boolean) { this.setFlag(FLAG_WRAPPED, value); }
  /** Which way the last move went through the clip: 1 forward, -1 backward. */
  get direction(): number { return this.flag(FLAG_BACKWARD) ? -1 : 1; }
  set direction(value: number) { this.setFlag(FLAG_BACKWARD, value < 0); }
  /** Whether a non-looping clip is held at the end it plays toward (its arrival already reported). */
  get atEnd(): boolean { return this.flag(FLAG_AT_END); }
  set atEnd(value: boolean) { this.setFlag(FLAG_AT_END, value); }
  /** Whether the last move spans motion to report (false before a seek has a predecessor). */
  get moved(): boolean { return this.flag(FLAG_MOVED); }
  set moved(value: boolean) { this.setFlag(FLAG_MOVED, value); }
  /** Clip seconds the clip advances per second, for the root-velocity report; `paceKnown` says whether it is. */
  get pace(): number { return this.numbers[this.base + PACE]; }
  set pace(value: number) { this.numbers[this.base + PACE] = value; }
  get paceKnown(): boolean { return this.flag(FLAG_PACE_KNOWN); }
  set paceKnown(value: boolean) { this.setFlag(FLAG_PACE_KNOWN, value); }
  /**
   * Clip seconds the last move (advance, seek or a sync group's follow) covered, signed; looping, it
   * counts the whole loops a wrap hides, which is how the notifies of every loop crossed are fired.
   */
  get timeStep(): number { return this.numbers[this.base + TIME_STEP]; }
  set timeStep(value: number) { this.numbers[this.base + TIME_STEP] = value; }
  /** The id of the node that plays the clip, which notify events name. */
  owner = '';
  /** Whether the next advance starts where the clip was (re)started, so a notify at that very time fires. */
  private get startPending(): boolean { return this.flag(FLAG_START_PENDING); }
  private set startPending(value: boolean) { this.setFlag(FLAG_START_PENDING, value); }
  /** Whether the last move started there. */
  private get fromStart(): boolean { return this.flag(FLAG_FROM_START); }
  private set fromStart(value: boolean) { this.setFlag(FLAG_FROM_START, value); }
  /** [lowest time, highest time, weight] of the span notifies are fired over (see fireNotifies). */
  private notifySpan: Float64Array | null;
  /** Whether `seekTime` of the last seek was finite, so the next seek has a predecessor. */
  private get seeded(): boolean { return this.flag(FLAG_SEEDED); }
  private set seeded(value: boolean) { this.setFlag(FLAG_SEEDED, value); }
  private get previousSeekTime(): number { return this.numbers[this.base + PREVIOUS_SEEK_TIME]; }
  private set previousSeekTime(value: number) { this.numbers[this.base + PREVIOUS_SEEK_TIME] = value; }

  constructor(public binding: ClipBinding) {
    // Made only for a clip that has notifies or curves (else when a new binding first has them):
    // most of a crowd's clocks never fire one, and each small typed array is two objects of V8's.
    const clip = binding.clip;
    this.notifySpan = clip.notifies !== null || clip.curves.length > 0 ? new Float64Array(3) : null;
    this.numbers[this.base + RATE] = 1;
    this.numbers[this.base + WEIGHT] = 1;
  }

  /**
   * Keeps the clock's numbers in `numbers` from `base` on (a node's reservation in its instance's
   * per-frame numbers), carrying over their values; a negative base keeps them where they are.
   */
  useNumbers(numbers: Float64Array, base: number): void {
    if (base < 0 || (numbers === this.numbers && base === this.base)) return;
    for (let i = 0; i < CLOCK_NUMBERS; i++) numbers[base + i] = this.numbers[this.base + i];
    this.numbers = numbers;
    this.base = base;
  }

  /** Samples the clip at `time` into `out` (see sampleClipAt). */
  sample(out: Pose): void {
    cursor.time = this.numbers[this.base + TIME];
    cursor.looping = this.looping;
    sampleClipAt(out, this.binding, cursor);
  }

  /** Samples the clip at `time` and blends it into `out` by weights (see sampleClipBlendInto). */
  sampleBlendInto(out: Pose, weights: Float64Array): void {
    cursor.time = this.numbers[this.base + TIME];
    cursor.looping = this.looping;
    sampleClipBlendInto(out, this.binding, cursor, weights);
  }

  /** restart() at start[0] (inside the clip), copied rather than read, as restart() copies. */
  restartAt(start: Float64Array): void {
    this.numbers.set(start, this.base + TIME);
    this.restart();
  }

  /** Starts over at `time` (already inside the clip) with no arrival reported and no seek predecessor. */
  restart(): void {
    // Copied, not read: a restart runs at a state's entry, which is cold code (see CONTRIBUTING.md,
    // "Numbers in the frame loop").
    const at = this.base + TIME;
    this.numbers.copyWithin(this.base + PREVIOUS_TIME, at, at + 1);
    this.startPending = true;
    this.atEnd = false;
    this.seeded = false;
    this.moved = false;
    this.timeStep = 0;
  }

  /**
   * Makes the last move the span spans[at] to spans[at + 1] (clip seconds, forwards, no wrap), for
   * a montage, whose frame may be several spans (one per section it plays in): spans[at + 2] is 1
   * when a notify at the span's start fires (a section entered), and `curves` false reports no
   * curves for it (they are reported once, at the frame's last span). The numbers are copied, not
   * passed (see CONTRIBUTING.md, "Numbers in the frame loop"). No root velocity is reported for it.
   */
  moveSpan(spans: Float64Array, at: number, curves: boolean): void {
    const b = this.base, numbers = this.numbers;
    numbers[b + PREVIOUS_TIME] = spans[at];
    numbers[b + TIME] = spans[at + 1];
    this.bits = (this.bits & (FLAG_LOOPING | FLAG_SEEDED)) | FLAG_MOVED | (spans[at + 2] > 0 ? FLAG_FROM_START : 0) | (curves ? 0 : FLAG_NO_CURVES);
    numbers[b + TIME_STEP] = spans[at + 1] - spans[at];
  }

  /** Forgets the last seek: the next one is a jump, not motion (after a pause in updates). */
  forgetSeek(): void {
    this.seeded = false;
  }

  /**
   * Moves the time by ctx.deltaTime × rate. Looping wraps it; otherwise it holds at either end.
   * Returns CLIP_LOOPED on a wrap, CLIP_ENDED on the frame it arrives at the end it plays toward
   * (once per arrival), else 0. A clip of no length stays at 0.
   */
  advance(ctx: UpdateContext): number {
    const duration = this.binding.clip.duration;
    const before = this.time, rate = this.rate, dt = ctx.deltaTime;
    this.previousTime = before;
    // Not wrapped, moved, pace known, started from where startPending says; the rest kept.
    const bits = this.bits;
    this.bits = (bits & (FLAG_LOOPING | FLAG_AT_END | FLAG_SEEDED)) | FLAG_MOVED | FLAG_PACE_KNOWN
      | (rate >= 0 ? 0 : FLAG_BACKWARD) | ((bits & FLAG_START_PENDING) !== 0 ? FLAG_FROM_START : 0);
    this.pace = rate;
    if (!(duration > 0)) {
      this.time = 0;
      this.timeStep = 0;
      return 0;
    }
    const step = dt * rate;
    let next = before + step;
    if (this.looping) {
      this.atEnd = false;
      // Whole loops included (±Infinity for an advance that overflows, see below).
      this.timeStep = step;
      if (next >= duration || next < 0) {
        // A huge rate over a long frame overflows to ±Infinity, whose remainder is NaN: the
        // advance modulo the clip is then taken from the delta time modulo one loop's period.
        if (next - next !== 0) next = before + (dt % (duration / Math.abs(rate))) * rate;
        const wrapped = next % duration;
        const time = wrapped < 0 ? wrapped + duration : wrapped;
        this.time = time - time === 0 ? time : 0;
        this.wrapped = true;
        return CLIP_LOOPED;
      }
      this.time = next;
      return 0;
    }
    // Math.min/max rather than a conditional that can yield `duration` untouched: see sampleClipAt.
    const clamped = Math.min(Math.max(next, 0), duration);
    const arrived = (rate > 0 && clamped === duration) || (rate < 0 && clamped === 0);
    const ended = arrived && !this.atEnd;
    this.atEnd = arrived;
    this.time = clamped;
    this.timeStep = clamped - before;
    // Held at the end it plays toward, it no longer moves.
    if (arrived) this.pace = 0;
    return ended ? CLIP_ENDED : 0;
  }

  /**
   * Puts the time at `seekTime`, wrapped (looping) or clamped into the clip, 0 when it is not
   * finite or the clip has no length. The move from the last seek's time is the span of root motion
   * (none for the first seek after restart() or forgetSeek()): looping, it wraps when the explicit
   * time enters another loop (`wrapped`, for root motion, once however many loops, as an advance's;
   * notifies fire every loop, counted from timeStep); its pace is the clip time moved per second,
   * unknown in a frame of no time.
   */
  seek(ctx: UpdateContext): void {
    const raw = this.seekTime, duration = this.binding.clip.duration, looping = this.looping;
    const previousRaw = this.previousSeekTime, previous = this.time, hadPrevious = this.seeded;
    let local = 0;
    const finite = raw - raw === 0;
    if (duration > 0 && finite) {
      if (looping) {
        local = raw % duration;
        if (local < 0) local += duration;
      } else local = raw < 0 ? 0 : raw > duration ? duration : raw;
    }
    this.previousSeekTime = raw;
    this.previousTime = previous;
    this.time = local;
    this.seeded = finite;
    this.fromStart = false;
    this.startPending = false;
    this.timeStep = hadPrevious && finite ? (looping ? raw - previousRaw : local - previous) : 0;
    this.moved = hadPrevious && finite && duration > 0;
    this.direction = raw >= previousRaw ? 1 : -1;
    this.wrapped = this.moved && looping && Math.floor(raw / duration) !== Math.floor(previousRaw / duration);
    this.paceKnown = ctx.deltaTime > 0;
    if (this.paceKnown) this.pace = this.timeStep / ctx.deltaTime;
  }

  /**
   * Reports what the last move produced, at the absolute weight ctx.weight × weight:
   * - the clip's notifies the move crossed, every loop of it up to MAX_NOTIFY_LOOPS, when that
   *   weight is above ZERO_WEIGHT and anyone listens (see fireNotifies);
   * - the clip's curves at the new time, times the weight, added to the instance's curve values;
   * - the root motion of the move, times the weight, added to ctx.rootMotion, and the clip's root
   *   velocity at the new time, times the pace, to ctx.rootVelocity when a node above asks for it.
   *   No root motion for a clip without it or a move with no span.
   */
  reportRootMotion(ctx: UpdateContext): void {
    const clip = this.binding.clip;
    if (clip.notifies !== null || clip.curves.length > 0) this.reportNotifiesAndCurves(ctx);
    const motion = clip.rootMotion;
    if (motion === null || !this.moved) return;
    const span = motionSpan;
    span[0] = this.previousTime;
    span[1] = this.time;
    span[2] = this.wrapped ? 2 : 0;
    span[3] = this.direction;
    span[4] = ctx.weight * this.weight;
    // The whole loops between the loop the move started in and the one it ended in, counted as the
    // notifies count wraps (none for a move that overflowed to an infinite step). Written out here,
    // not returned by a method: a double returned from a call V8 does not inline is boxed.
    span[5] = 0;
    if (this.wrapped) {
      const duration = clip.duration;
      const turns = duration > 0 ? Math.round((this.previousTime + this.timeStep - this.time) / duration) : 0;
      const whole = (this.direction > 0 ? turns : -turns) - 1;
      if (whole > 0 && whole < 2147483648) span[5] = whole;
    }
    addRootMotion(ctx.rootMotion, motionDelta, clip, motion, span);
    if (ctx.rootVelocityWindow >= 0 && this.paceKnown) {
      const v = velocityArgs;
      v[0] = this.time; v[1] = this.pace; v[2] = ctx.rootVelocityWindow; v[3] = span[4];
      addRootVelocity(ctx.rootVelocity, clip, motion, v);
    }
  }

  /**
   * reportRootMotion without the notifies: for a clip whose notifies are fired once elsewhere, by
   * reportNotifiesAlone (a slot's clip, shown by several Slot nodes: nodes/Slot.ts).
   */
  reportMotionAndCurves(ctx: UpdateContext): void {
    this.bits |= FLAG_NO_NOTIFIES;
    this.reportRootMotion(ctx);
    this.bits &= ~FLAG_NO_NOTIFIES;
  }

  /**
   * Fires the clip's notifies the last move crossed at the absolute weight `weight` alone, and
   * nothing else (no curves, no root motion): a slot's clip, whose notifies fire once at its weight
   * in the slot, however many Slot nodes show it, and whether or not one is updated (nodes/Slot.ts).
   */
  reportNotifiesAlone(ctx: UpdateContext): void {
    if (this.binding.clip.notifies === null) return;
    const span = this.notifySpan ??= new Float64Array(3);
    span[2] = this.weight;
    if (span[2] > ZERO_WEIGHT) this.reportNotifies(ctx);
  }

  private reportNotifiesAndCurves(ctx: UpdateContext): void {
    const span = this.notifySpan ??= new Float64Array(3);
    span[2] = ctx.weight * this.weight;
    if (!(span[2] > ZERO_WEIGHT)) return;
    const clip = this.binding.clip, curves = clip.curves;
    if (curves.length > 0 && (this.bits & FLAG_NO_CURVES) === 0) {
      const values = ctx.graph.curveValues, slots = this.binding.curveSlots, time = this.time;
      for (let c = 0; c < curves.length; c++) {
        const slot = slots[c];
        if (slot < 0) continue;
        // ClipCurve.valueAt, written out: see CONTRIBUTING.md, "Numbers in the frame loop".
        const t = curves[c].times, v = curves[c].values, n = t.length;
        let value = v[n - 1];
        if (!(time > t[0])) value = v[0];
        else if (time < t[n - 1]) {
          let i = 1;
          while (t[i] < time) i++;
          const f = (time - t[i - 1]) / (t[i] - t[i - 1]), gap = v[i] - v[i - 1];
          // Keys of opposite sign near the largest double are further apart than a double holds:
          // the gap is then Infinity. Weighing the two keys instead cannot overflow when their
          // signs differ (as BlendSpaceNode smooths its inputs).
          if (gap - gap === 0) value = v[i - 1] + gap * f;
          else value = v[i - 1] * (1 - f) + v[i] * f;
        }
        // Blends weigh by more than 1 in all (an additive or a layer over its base), so values near
        // the largest double sum past it: held there, never Infinity (whose sum with -Infinity, or
        // product with a zero share in a filtered Slot, is NaN).
        const sum = values[slot] + value * span[2];
        if (sum - sum === 0) values[slot] = sum;
        else values[slot] = sum > 0 ? 1.7976931348623157e308 : -1.7976931348623157e308;
      }
    }
    if ((this.bits & FLAG_NO_NOTIFIES) === 0) this.reportNotifies(ctx);
  }

  /** Fires the clip's notifies the last move crossed, at the weight notifySpan[2]. */
  private reportNotifies(ctx: UpdateContext): void {
    const span = this.notifySpan!, clip = this.binding.clip, track = clip.notifies;
    if (track === null || !this.moved) return;
    const events = ctx.graph.events;
    if (!events.has('notify') && !events.has('notifyBegin') && !events.has('notifyEnd')) return;
    const before = this.previousTime, after = this.time, duration = clip.duration, forward = this.direction > 0;
    // How often the move wrapped: the clip seconds it covered, whole loops included, less what the
    // play time shows of them (round: the two differ by a multiple of the duration, to rounding).
    const turns = duration > 0 ? Math.round((before + this.timeStep - after) / duration) : 0;
    const wraps = forward ? turns : -turns;
    // Flags of fireNotifies: 1 includes the lowest time, 2 the highest, 4 goes forwards.
    const startFlag = this.fromStart ? 1 : 0;
    if (!(wraps > 0)) {
      if (forward) {
        // Forwards the span is (before, after]: a notify fires on the frame the play time reaches it.
        span[0] = before; span[1] = after;
        this.fireNotifies(ctx, track, 6 | startFlag);
      } else {
        // Backwards, the mirror image: [after, before).
        span[0] = after; span[1] = before;
        this.fireNotifies(ctx, track, 1 | (startFlag << 1));
      }
      return;
    }
    // A wrap covers both ends of the clip: the loop the move starts in, to the clip's end (its
    // start, backwards); each whole loop between, up to MAX_NOTIFY_LOOPS; then the loop it ends in.
    if (forward) {
      span[0] = before; span[1] = duration;
      this.fireNotifies(ctx, track, 6 | startFlag);
    } else {
      span[0] = 0; span[1] = before;
      this.fireNotifies(ctx, track, 1 | (startFlag << 1));
    }
    const loop = forward ? 7 : 3, whole = wraps - 1 < MAX_NOTIFY_LOOPS ? (wraps - 1) | 0 : MAX_NOTIFY_LOOPS;
    for (let i = 0; i < whole; i++) {
      span[0] = 0; span[1] = duration;
      this.fireNotifies(ctx, track, loop);
    }
    if (forward) {
      span[0] = 0; span[1] = after;
    } else {
      span[0] = after; span[1] = duration;
    }
    this.fireNotifies(ctx, track, loop);
  }

  /**
   * Emits the notify edges within [notifySpan[0], notifySpan[1]] (each end included when `flags`
   * says so), in the order the play time crosses them: a point as `notify`, a range's start and end
   * as `notifyBegin`/`notifyEnd` (swapped backwards), each with the weight notifySpan[2].
   */
  private fireNotifies(ctx: UpdateContext, track: ClipNotifyTrack, flags: number): void {
    const span = this.notifySpan!, lo = span[0], hi = span[1];
    const times = track.times, kinds = track.kinds, names = track.names, n = times.length;
    const loIn = (flags & 1) !== 0, hiIn = (flags & 2) !== 0, forward = (flags & 4) !== 0;
    const events = ctx.graph.events;
    for (let k = 0; k < n; k++) {
      const i = forward ? k : n - 1 - k;
      const t = times[i];
      if (t < lo || (t === lo && !loIn) || t > hi || (t === hi && !hiIn)) continue;
      const kind = kinds[i];
      const event = kind === NOTIFY_POINT ? 'notify' : (kind === NOTIFY_RANGE_START) === forward ? 'notifyBegin' : 'notifyEnd';
      if (events.has(event)) events.emit(event, names[i], this.owner, span[2]);
    }
  }
}

/**
 * Keeps the clocks of `playbacks` in `numbers` one after another from `base` (a node's reservation
 * of playbacks.length * CLOCK_NUMBERS: NodeBuild.numbers), as ClipPlayback.useNumbers does for
 * one; a negative base keeps them where they are. Pass them in the same order every time (a fixed
 * array, not one the node reorders): each call then finds every clock in place.
 */
export function usePlaybackNumbers(playbacks: readonly ClipPlayback[], numbers: Float64Array, base: number): void {
  if (base < 0) return;
  for (let i = 0; i < playbacks.length; i++) playbacks[i].useNumbers(numbers, base + i * CLOCK_NUMBERS);
}
