/**
 * Update-rate optimisation (Unreal's URO, ozz's LOD practice): a character far from the camera
 * updates and evaluates its graph on one frame in N and shows, on every frame, a pose
 * interpolated between its last two evaluations. AnimGraphInstance.setUpdateRate sets N; this
 * file holds the clock that decides, frame by frame, whether the graph runs and by how much time,
 * and the interpolation weight of the frame.
 *
 * Semantics (see docs/api.md, "Update rate"):
 * - The graph runs ahead of the displayed time (Unreal's look-ahead mode, which its engine uses
 *   when root motion matters; its trail mode shows a pose behind instead). An evaluation frame
 *   advances the graph by the time the display has moved since the last evaluation plus the
 *   time until the next evaluation frame ((k - 1) frames of the last positive delta time, k the
 *   frames to the next scheduled evaluation), so the interval the display will cross is already
 *   evaluated: every frame shows the previous and the target pose blended by where the displayed
 *   time lies between their graph times (Unreal's look-ahead alpha, dt / (ahead + dt), is this
 *   linear interpolation written incrementally). At rate 1 this is the plain update, exactly.
 * - Evaluation frames: a frame whose displayed time has passed the target's by more than half a
 *   delta time. The look-ahead lands that on the frames where (frame + phase) % N is 0, so a
 *   crowd's characters spread by their phases (Unreal's UpdateRateShift); a longer delta time than
 *   predicted brings the evaluation earlier rather than holding the pose.
 * - Delta times of 0 (and negative or NaN, which count as 0) move nothing and evaluate nothing.
 */

import { AnimGraphError } from '../core/errors.ts';

/** How AnimGraphInstance.setUpdateRate treats the frames it skips. */
export interface UpdateRateOptions {
  /** Interpolate toward a look-ahead evaluation (true, the default) or hold the last pose (false). */
  interpolate?: boolean;
}

/**
 * The options setUpdateRate takes when given none: one shared object, since a default of `{}` makes
 * a new object (56 bytes) on every call that omits them, which a level of detail does every frame
 * it changes a rate.
 */
export const DEFAULT_UPDATE_RATE_OPTIONS: UpdateRateOptions = Object.freeze({});

/** The largest update rate (Unreal keeps its URO frame counter in a byte). */
export const MAX_UPDATE_RATE = 255;

/**
 * Throws an AnimGraphError unless `rate` is a whole number from 1 to MAX_UPDATE_RATE and `phase` a
 * whole number: `out-of-range` for a number, `invalid-argument` for anything else.
 */
export function checkUpdateRate(rate: number, phase: number): void {
  if (!Number.isInteger(rate) || rate < 1 || rate > MAX_UPDATE_RATE) {
    throw new AnimGraphError(typeof rate === 'number' ? 'out-of-range' : 'invalid-argument', `an update rate is a whole number of frames from 1 (every frame) to ${MAX_UPDATE_RATE}; got ${rate}`);
  }
  if (!Number.isSafeInteger(phase)) throw new AnimGraphError(typeof phase === 'number' ? 'out-of-range' : 'invalid-argument', `an update phase is a whole number of frames; got ${phase}`);
}

/**
 * Whether `options` interpolates skipped frames (its `interpolate`, default true); an AnimGraphError
 * (`invalid-argument`) for options that are not an object or an `interpolate` that is not a boolean
 * ('no' read as true, and null options threw a bare "Cannot read properties of null").
 */
export function interpolatesSkipped(options: UpdateRateOptions): boolean {
  if (typeof options !== 'object' || options === null) throw new AnimGraphError('invalid-argument', `update rate options are an object ({ interpolate }); got ${options === null ? 'null' : typeof options}`);
  const interpolate = options.interpolate;
  if (interpolate !== undefined && typeof interpolate !== 'boolean') throw new AnimGraphError('invalid-argument', `update rate option interpolate is true or false; got ${JSON.stringify(interpolate) ?? String(interpolate)}`);
  return interpolate ?? true;
}

/** `phase` as the frame offset in [0, rate) it stands for. */
export function normalizePhase(phase: number, rate: number): number {
  return ((phase % rate) + rate) % rate;
}

/**
 * Where an UpdateRateClock keeps its numbers, from its `at` in its array (the instance's frame
 * numbers: frame-layout.ts, UPDATE_RATE), by index: `ahead`, `span`, `step`, `previousStep`,
 * `graphDelta`, `share`, the two weights (WEIGHTS, WEIGHTS + 1) and the root motion the
 * interpolation holds back (PENDING_MOTION to PENDING_MOTION + 4: Interpolation).
 */
export const AHEAD = 0, SPAN = 1, STEP = 2, PREVIOUS_STEP = 3, GRAPH_DELTA_AHEAD = 4, SHARE = 5, WEIGHTS = 6, PENDING_MOTION = 8, UPDATE_RATE_NUMBERS = 12;

/**
 * One character's update-rate clock. Times are kept relative to the displayed time (what the
 * delta times add up to), so they stay precise however long the character lives. Its numbers are
 * in the instance's frame numbers (in a batch, the character's row in the kernel's memory) rather
 * than fields and arrays of its own: a crowd's skipped frame then reads one row per character
 * where it read three objects (see CONTRIBUTING.md, "Numbers in the frame loop").
 */
export class UpdateRateClock {
  /** Evaluate on one frame in `rate`. */
  rate = 1;
  /** The frame offset of the evaluation frames, in [0, rate). */
  phase = 0;
  /**
   * Whether skipped frames show a pose interpolated toward a look-ahead evaluation (true), or hold
   * the last evaluation, made at the displayed time on the scheduled frames (false: Unreal's
   * bInterpolateSkippedFrames off; a skipped frame then costs nothing).
   */
  interpolate = true;
  /** The array holding the clock's numbers (UPDATE_RATE_NUMBERS of them from `at`, laid out as AHEAD...). */
  readonly numbers: Float64Array;
  readonly at: number;

  /**
   * A clock keeping its numbers in `numbers` from `at` (default: an array of its own), which it
   * leaves as they are (all 0 in an instance's new frame numbers) until restart.
   */
  constructor(numbers: Float64Array = new Float64Array(UPDATE_RATE_NUMBERS), at = 0) {
    this.numbers = numbers;
    this.at = at;
  }

  /** Graph time of the target pose minus the displayed time, seconds: how far the graph runs ahead. */
  get ahead(): number { return this.numbers[this.at + AHEAD]; }
  /** Graph time of the target pose minus that of the previous pose, seconds; 0 shows the target. */
  get span(): number { return this.numbers[this.at + SPAN]; }
  /** What the graph advances by on an evaluation frame, seconds. */
  get graphDelta(): number { return this.numbers[this.at + GRAPH_DELTA_AHEAD]; }
  /** The share of the root motion not yet reported that this frame reports, in [0, 1]. */
  get share(): number { return this.numbers[this.at + SHARE]; }
  /** The previous and the target pose's weights at the displayed time: numbers[weightsAt] and the next. */
  get weightsAt(): number { return this.at + WEIGHTS; }

  /** Forgets the interval: the target is the pose at the displayed time (entering, or a reset). */
  restart(): void {
    const n = this.numbers, at = this.at;
    n[at + AHEAD] = 0;
    n[at + SPAN] = 0;
    n[at + SHARE] = 1;
    n[at + WEIGHTS] = 0;
    n[at + WEIGHTS + 1] = 1;
  }

  /**
   * Moves the displayed time on by deltaTime[index] (0 or more, finite) and sets this frame's
   * weights and share; `frame` is the schedule's count of updates, this one included (the
   * instance's: never reset, so a reset keeps a crowd's spread; kept by the instance so that a
   * character at full rate does not touch its clock). Returns 1 when the graph must be updated by
   * `graphDelta` and evaluated this frame, 0 when the frame shows an interpolated pose only.
   *
   * The last two positive delta times are kept (STEP, PREVIOUS_STEP); the smaller is the estimate
   * of the frames to come, so that one long frame (a hitch) does not stretch the next interval: a
   * look-ahead too short only brings the next evaluation earlier, one too long would interpolate
   * across a longer stretch of motion.
   */
  tick(deltaTime: Float64Array, index: number, frame: number): number {
    const n = this.numbers, at = this.at;
    const dt = deltaTime[index];
    if (dt > 0) {
      n[at + PREVIOUS_STEP] = n[at + STEP];
      n[at + STEP] = dt;
    }
    let ahead = n[at + AHEAD] - dt;
    let evaluate = 0;
    if (!this.interpolate && ahead <= 0) {
      // Holding (once any look-ahead left from interpolating has been shown): the graph catches up
      // with the displayed time on the scheduled frames, and its pose is shown as it is.
      if (dt > 0 && (frame + this.phase) % this.rate === 0) {
        n[at + GRAPH_DELTA_AHEAD] = -ahead;
        ahead = 0;
        evaluate = 1;
      }
      n[at + AHEAD] = ahead;
      n[at + WEIGHTS] = 0;
      n[at + WEIGHTS + 1] = 1;
      n[at + SHARE] = 1;
      return evaluate;
    }
    if (dt > 0 && ahead < -0.5 * dt) {
      // Frames to the next scheduled evaluation (this frame not counted): 1 to rate.
      const k = this.rate - ((frame + this.phase) % this.rate);
      const step = n[at + STEP], previousStep = n[at + PREVIOUS_STEP];
      const lookAhead = (k - 1) * (step < previousStep ? step : previousStep);
      const graphDelta = lookAhead - ahead;
      n[at + GRAPH_DELTA_AHEAD] = graphDelta;
      n[at + SPAN] = graphDelta;
      ahead = lookAhead;
      evaluate = 1;
    }
    n[at + AHEAD] = ahead;
    const span = n[at + SPAN];
    let alpha = 1;
    if (span > 0 && ahead > 0) alpha = ahead < span ? (span - ahead) / span : 0;
    n[at + WEIGHTS] = 1 - alpha;
    n[at + WEIGHTS + 1] = alpha;
    // The display moved over [t - dt, t] of the motion not yet reported, which reaches the target's time.
    n[at + SHARE] = ahead > 0 ? dt / (ahead + dt) : 1;
    return evaluate;
  }
}
