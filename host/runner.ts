import type { AnimGraph } from '../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../runtime/graph/instance.ts';
import type { DebugNode } from '../runtime/node/node.ts';
import { AnimGraphError, type AnimGraphErrorCode } from '../runtime/core/errors.ts';
import { describeValue, type ParameterValue } from '../runtime/node/parameters.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { integrateRootMotion, type UpAxis } from '../runtime/jobs/root-motion.ts';

/** A parameter change at a time: applied before the first frame whose time is at or after `time`. */
export interface ParameterChange {
  name: string;
  value: ParameterValue;
  /** Seconds from the start of the run; 0 (the default) applies before frame 0. */
  time?: number;
}

/** A montage played at a time (AnimGraphInstance.playMontage): before the first frame at or after `time`. */
export interface MontageStart {
  montage: string;
  /** The section to start at (default the montage's first). */
  section?: string;
  /** Seconds from the start of the run (default 0). */
  time?: number;
}

export interface RunOptions {
  /** Number of frames to evaluate (default 30). Ignored when `seconds` is given. */
  frames?: number;
  /** Run length in seconds; frames = floor(seconds × fps) + 1, so both ends are included. */
  seconds?: number;
  /** Fixed step rate in frames per second (default 30). */
  fps?: number;
  timeline?: readonly ParameterChange[];
  /** Montages played during the run, each at its time (after that frame's parameter changes). */
  montages?: readonly MontageStart[];
  /** Collect each frame's local and component-space pose (default true). */
  poses?: boolean;
  /** Collect each frame's debug tree (default true). */
  debug?: boolean;
  /**
   * Update the graph on one frame in this many (AnimGraphInstance.setUpdateRate; default 1): to see
   * what a level of detail does to a character's poses, events and debug tree.
   */
  updateRate?: number;
  /** With updateRate: hold the pose on skipped frames instead of interpolating ({ interpolate: false }). */
  holdSkippedFrames?: boolean;
}

/** Ten numbers per bone: translation xyz, rotation quaternion xyzw, scale xyz. */
export type BoneRow = [number, number, number, number, number, number, number, number, number, number];

export interface FrameResult {
  frame: number;
  /** Seconds since the start of the run. */
  time: number;
  /** The character's world transform after this frame's root motion: [tx, ty, tz, qx, qy, qz, qw]. */
  root?: number[];
  local?: BoneRow[];
  component?: BoneRow[];
  debug?: DebugNode;
}

export interface RunResult {
  bones: string[];
  parents: number[];
  fps: number;
  frames: FrameResult[];
}

/**
 * How far a time may fall past a frame's time (frame / fps, rounded) and still count as at it: a
 * change at 1 s applies on frame 30 at 30 fps, and a run of 1 s has that frame, however the
 * division rounds. The run's length, each change's frame and the check of a change against the
 * last frame all use it, so they agree.
 */
const TIME_TOLERANCE = 1e-9;

/**
 * A parameter timeline entry a GraphRunner cannot apply, found before the run starts (code
 * `invalid-argument`): its index in the timeline as given, and why (not an entry, an unknown
 * parameter, a value of the wrong type, a time that is not seconds from 0, or after the run's last
 * frame, where it would never apply). For an unknown parameter or a value of the wrong type, its
 * `cause` is setParameter's error (code `unknown-name` or `invalid-argument`).
 */
export class TimelineError extends AnimGraphError {
  constructor(readonly index: number, readonly reason: string, options?: ErrorOptions) {
    super('invalid-argument', `timeline[${index}]: ${reason}`, options);
    this.name = 'TimelineError';
  }
}

/** A run option that is not a number is the wrong argument; a number is out of range. */
const optionCode = (value: unknown): AnimGraphErrorCode => (typeof value === 'number' ? 'out-of-range' : 'invalid-argument');

/**
 * Steps a graph instance at a fixed rate, applying a parameter timeline: frame 0 is the initial
 * pose (an update of 0 s), frame n follows n updates of 1/fps. The CLI and runGraph both use it,
 * so a user's test sees exactly what `animgraph run` prints.
 */
export class GraphRunner {
  readonly instance: AnimGraphInstance;
  readonly fps: number;
  readonly frameCount: number;
  private readonly changes: ParameterChange[];
  private nextChange = 0;
  private readonly montages: readonly MontageStart[];
  private nextMontage = 0;
  private pose: Pose | null = null;
  /** The character's world transform [tx, ty, tz, qx, qy, qz, qw], moved by root motion each frame. */
  readonly world = Float64Array.of(0, 0, 0, 0, 0, 0, 1);
  private readonly up: UpAxis;

  constructor(graph: AnimGraph, options: Pick<RunOptions, 'frames' | 'seconds' | 'fps' | 'timeline' | 'montages' | 'updateRate' | 'holdSkippedFrames'> = {}) {
    const fps = options.fps ?? 30;
    if (typeof fps !== 'number' || !(fps > 0) || !Number.isFinite(fps)) throw new AnimGraphError(optionCode(fps), `fps must be a positive number, got ${describeValue(fps)}`);
    const seconds = options.seconds;
    if (seconds !== undefined && !(typeof seconds === 'number' && seconds >= 0 && seconds < Infinity)) {
      throw new AnimGraphError(optionCode(seconds), `seconds must be a finite number from 0, got ${describeValue(seconds)}`);
    }
    const frames = seconds !== undefined ? Math.floor(seconds * fps + TIME_TOLERANCE) + 1 : options.frames ?? 30;
    if (!Number.isInteger(frames) || frames < 1) throw new AnimGraphError(optionCode(frames), `frames must be a whole number from 1, got ${describeValue(frames)}`);
    this.fps = fps;
    this.frameCount = frames;
    this.instance = graph.createInstance();
    // Throws a RangeError for a rate out of range, before the run starts.
    if (options.updateRate !== undefined) this.instance.setUpdateRate(options.updateRate, 0, { interpolate: !(options.holdSkippedFrames ?? false) });
    this.up = [...graph.clipBindings.values()].find((b) => b.clip.rootMotion)?.clip.rootMotion?.up ?? 'y';
    // Every entry checked before anything runs: a NaN time sorted first and held back every later
    // change, a wrong value threw only at its frame, and a time past the end never applied.
    const timeline = options.timeline ?? [];
    const lastTime = (frames - 1) / fps;
    timeline.forEach((change, i) => {
      if (typeof change !== 'object' || change === null) throw new TimelineError(i, `expected { name, value, time? }, got ${describeValue(change)}`);
      try {
        this.instance.parameters.check(change.name, change.value);
      } catch (e) {
        throw new TimelineError(i, (e as Error).message, { cause: e });
      }
      const time = change.time ?? 0;
      if (!(typeof time === 'number' && time >= 0 && time < Infinity)) throw new TimelineError(i, `'${change.name}' time must be seconds from 0, got ${describeValue(time)}`);
      if (time > lastTime + TIME_TOLERANCE) {
        throw new TimelineError(i, `'${change.name}' at ${time} s is after the run's last frame (frame ${frames - 1} at ${+lastTime.toFixed(6)} s), so it would never apply`);
      }
    });
    // Montages checked likewise: a name, a section and a time the run reaches.
    const montages = options.montages ?? [];
    montages.forEach((start, i) => {
      const m = graph.montages.get(start.montage);
      if (m === undefined) throw new AnimGraphError('unknown-name', `montages[${i}]: no montage '${start.montage}' (montages: ${[...graph.montages.keys()].join(', ') || 'none'})`);
      if (start.section !== undefined && m.sectionIndex(start.section) < 0) {
        throw new AnimGraphError('unknown-name', `montages[${i}]: montage '${start.montage}' has no section '${start.section}' (sections: ${m.sectionNames.join(', ')})`);
      }
      const time = start.time ?? 0;
      if (!(typeof time === 'number' && time >= 0 && time <= lastTime + TIME_TOLERANCE)) {
        throw new AnimGraphError('out-of-range', `montages[${i}]: '${start.montage}' time must be seconds from 0 to the run's last frame (${+lastTime.toFixed(6)} s), got ${describeValue(time)}`);
      }
    });
    this.montages = montages.map((c, i) => ({ c, i })).sort((a, b) => (a.c.time ?? 0) - (b.c.time ?? 0) || a.i - b.i).map(({ c }) => c);
    // Stable sort: changes at the same time apply in the order given.
    this.changes = timeline.map((c, i) => ({ c, i }))
      .sort((a, b) => (a.c.time ?? 0) - (b.c.time ?? 0) || a.i - b.i).map(({ c }) => c);
  }

  /** Advances to frame `frame` (0-based, in order) and evaluates it; returns the frame's time. */
  step(frame: number): number {
    const time = frame / this.fps;
    while (this.nextChange < this.changes.length && (this.changes[this.nextChange].time ?? 0) <= time + TIME_TOLERANCE) {
      const change = this.changes[this.nextChange++];
      this.instance.setParameter(change.name, change.value);
    }
    while (this.nextMontage < this.montages.length && (this.montages[this.nextMontage].time ?? 0) <= time + TIME_TOLERANCE) {
      const start = this.montages[this.nextMontage++];
      this.instance.playMontage(start.montage, start.section === undefined ? undefined : { section: start.section });
    }
    this.instance.update(frame === 0 ? 0 : 1 / this.fps);
    integrateRootMotion(this.world, this.instance.rootMotion, this.up);
    this.pose = this.instance.evaluate();
    return time;
  }

  /** The last evaluated frame's local-space pose as rows. */
  localRows(): BoneRow[] {
    const pose = this.pose!;
    return rows(pose.translations, pose.rotations, pose.scales, pose.boneCount);
  }

  componentRows(): BoneRow[] {
    const cs = this.instance.componentPose();
    return rows(cs.translations, cs.rotations, cs.scales, this.instance.skeleton.boneCount);
  }
}

function rows(t: Float64Array, r: Float64Array, s: Float64Array, n: number): BoneRow[] {
  const out: BoneRow[] = [];
  for (let i = 0; i < n; i++) {
    out.push([t[i * 3], t[i * 3 + 1], t[i * 3 + 2], r[i * 4], r[i * 4 + 1], r[i * 4 + 2], r[i * 4 + 3], s[i * 3], s[i * 3 + 1], s[i * 3 + 2]]);
  }
  return out;
}

/**
 * The most rows runGraph keeps (a root transform, a pose row per bone in local and component
 * space, a debug node, each about a hundred bytes in the heap): a few hundred megabytes.
 */
export const MAX_KEPT_ROWS = 5_000_000;

/**
 * Runs a graph for a number of frames with a parameter timeline and returns every frame's poses
 * and debug tree: the API for users' own tests. Throws an AnimGraphError (`out-of-range`) for a run
 * whose frames would not fit in memory (MAX_KEPT_ROWS); a GraphRunner steps any number of frames.
 */
export function runGraph(graph: AnimGraph, options: RunOptions = {}): RunResult {
  const runner = new GraphRunner(graph, options);
  const skeleton = graph.skeleton;
  // Every frame is kept: refuse a run that cannot fit before it fills the heap and takes the process down.
  const perFrame = 1 + ((options.poses ?? true) ? 2 * skeleton.boneCount : 0) + ((options.debug ?? true) ? graph.nodes.length : 0);
  if (runner.frameCount * perFrame > MAX_KEPT_ROWS) {
    throw new AnimGraphError('out-of-range', `runGraph keeps every frame: ${runner.frameCount} frames of ${perFrame} rows (pose rows, debug nodes) is more than ${MAX_KEPT_ROWS.toLocaleString('en-US')}; `
      + 'run fewer frames, leave out poses or debug, or step a GraphRunner and keep what you need');
  }
  const frames: FrameResult[] = [];
  for (let f = 0; f < runner.frameCount; f++) {
    const time = runner.step(f);
    const result: FrameResult = { frame: f, time, root: Array.from(runner.world) };
    if (options.poses ?? true) {
      result.local = runner.localRows();
      result.component = runner.componentRows();
    }
    if (options.debug ?? true) result.debug = runner.instance.gatherDebug();
    frames.push(result);
  }
  return { bones: [...skeleton.boneNames], parents: Array.from(skeleton.parents), fps: runner.fps, frames };
}

/** Formats a debug tree ShowDebug-style: `Type[id]<W:100.0%> (description)`, children indented. */
export function formatDebugTree(node: DebugNode, indent = 0, lines: string[] = []): string[] {
  const description = node.description ? ` (${node.description})` : '';
  lines.push(`${'  '.repeat(indent)}${node.type}[${node.id}]<W:${(node.weight * 100).toFixed(1)}%>${description}`);
  for (const child of node.children) formatDebugTree(child, indent + 1, lines);
  return lines;
}
