import type { AnimGraph } from '../runtime/graph/graph.ts';
import type { DebugNode } from '../runtime/node/node.ts';
import type { ParameterValue } from '../runtime/node/parameters.ts';
import { GraphRunner, type ParameterChange, type RunOptions } from '../host/runner.ts';
import { checkOutputFiles, loadGraphForOutputs, parseOptions, parseSet, runLength, updateRateOptions, UsageError, withSetTexts } from './common.ts';
import { writeOutputFile } from './output-file.ts';
import type { Io } from './io.ts';
import { fixed, renderPlotSvg, type PlotDocument, type PlotPanel, type PlotPoints, type PlotSeries } from './plot-svg.ts';

export interface PlotRunOptions extends Pick<RunOptions, 'frames' | 'seconds' | 'fps' | 'timeline' | 'updateRate' | 'holdSkippedFrames'> {
  /** The bone whose channels are plotted (default: defaultPlotBone). */
  bone?: string;
  /** Space of the bone's channels (default 'component'). */
  space?: 'component' | 'local';
  /** Title of the plot (default: the graph's name). */
  title?: string;
}

/**
 * The bone plotted when none is named: the first bone (parents come first) named like a pelvis
 * or hips, which is what moves the whole body, else the second bone (the first under the root).
 */
export function defaultPlotBone(boneNames: readonly string[]): number {
  const pelvis = boneNames.findIndex((name) => /pelvis|hips?$/i.test(name));
  return pelvis >= 0 ? pelvis : Math.min(1, boneNames.length - 1);
}

/**
 * A quaternion as Euler angles in degrees, [x, y, z], for q = qz·qy·qx (rotate about X, then Y,
 * then Z, all about the parent's fixed axes). The Y angle is clamped at ±90°. The angles are named by
 * axis only: which of them is a roll, a pitch or a yaw depends on the skeleton's up and forward axes.
 */
export function quatToEulerDegrees(x: number, y: number, z: number, w: number, out: number[] = [0, 0, 0]): number[] {
  const toDeg = 180 / Math.PI;
  const sinPitch = Math.min(1, Math.max(-1, 2 * (w * y - z * x)));
  out[0] = Math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)) * toDeg;
  out[1] = Math.asin(sinPitch) * toDeg;
  out[2] = Math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)) * toDeg;
  return out;
}

/** `v` moved by whole turns to within 180° of `previous`, so a plotted angle does not jump at ±180°. */
export function unwrapDegrees(v: number, previous: number): number {
  return v - 360 * Math.round((v - previous) / 360);
}

function formatValue(value: ParameterValue): string {
  return typeof value === 'object' ? value.join(',') : String(value);
}

/** Pre-order walk of a debug tree; a node linked from two parents is taken once (its first visit). */
function collectNodes(node: DebugNode, out: Map<string, DebugNode>): Map<string, DebugNode> {
  if (!out.has(node.id)) out.set(node.id, node);
  for (const child of node.children) collectNodes(child, out);
  return out;
}

/** A series that may first appear after frame 0: earlier frames are gaps. */
class SeriesBuilder {
  private readonly byKey = new Map<string, PlotSeries & { values: (number | null)[] }>();

  constructor(private readonly frameCount: number) {}

  /** `before` fills the frames before the series first appears (default null: a gap). */
  set(key: string, label: string, frame: number, value: number | null, before: number | null = null): void {
    let s = this.byKey.get(key);
    if (!s) {
      s = { key, label, values: new Array<number | null>(this.frameCount).fill(null) };
      s.values.fill(before, 0, frame);
      this.byKey.set(key, s);
    }
    s.values[frame] = value !== null && Number.isFinite(value) ? value : null;
  }

  list(prefix: string): PlotSeries[] {
    return [...this.byKey.values()].filter((s) => s.key.startsWith(prefix));
  }
}

/**
 * Runs `graph` as `animgraph run` does (GraphRunner: same frames, times and parameter timeline) and
 * gathers what the plot shows. Per frame: the bone's translation and rotation (Euler degrees,
 * see quatToEulerDegrees) in component or local space; every node's absolute weight from the
 * debug tree; and what the nodes report in their debug `values`: an inertializing node's time
 * left in its transition (duration − elapsed, 0 when idle), an Inertialization's deficit and the
 * largest offset it adds (translation and rotation, over the bones); a
 * StrideWarping node's strideScale and the offset it moves the pelvis by (pelvisOffset, x y z); a
 * PoseSearchBlend's match cost (and runner-up's) at each frame whose motion changed. Throws
 * UsageError for an unknown bone.
 */
export function recordPlot(graph: AnimGraph, options: PlotRunOptions = {}): PlotDocument {
  const skeleton = graph.skeleton;
  let bone: number;
  if (options.bone !== undefined) {
    bone = skeleton.boneNames.indexOf(options.bone);
    if (bone < 0) throw new UsageError(`--bone '${options.bone}': no such bone (bones: ${skeleton.boneNames.join(', ')})`);
  } else bone = defaultPlotBone(skeleton.boneNames);
  const boneName = skeleton.boneNames[bone];
  const space = options.space ?? 'component';
  const runner = new GraphRunner(graph, options);
  const n = runner.frameCount;
  const times: number[] = [];
  const channels = new SeriesBuilder(n), weights = new SeriesBuilder(n), inertial = new SeriesBuilder(n), stride = new SeriesBuilder(n);
  const offsets = new SeriesBuilder(n), pelvis = new SeriesBuilder(n);
  const costs = new Map<string, { match: PlotPoints['points'][number][]; runnerUp: PlotPoints['points'][number][] }>();
  const lastMotion = new Map<string, unknown>();
  const seenMotions = new Map<string, number[]>();
  const euler = [0, 0, 0], previousEuler = [0, 0, 0];

  for (let f = 0; f < n; f++) {
    const time = runner.step(f);
    times.push(time);
    const row = space === 'component' ? runner.componentRows()[bone] : runner.localRows()[bone];
    const t = row, r = row.slice(3, 7);
    channels.set('bone.tx', `${boneName} translation x`, f, t[0]);
    channels.set('bone.ty', `${boneName} translation y`, f, t[1]);
    channels.set('bone.tz', `${boneName} translation z`, f, t[2]);
    quatToEulerDegrees(r[0], r[1], r[2], r[3], euler);
    for (let k = 0; k < 3; k++) {
      if (f > 0) euler[k] = unwrapDegrees(euler[k], previousEuler[k]);
      previousEuler[k] = euler[k];
    }
    channels.set('bone.rx', `${boneName} rotation x`, f, euler[0]);
    channels.set('bone.ry', `${boneName} rotation y`, f, euler[1]);
    channels.set('bone.rz', `${boneName} rotation z`, f, euler[2]);

    for (const node of collectNodes(runner.instance.gatherDebug(), new Map()).values()) {
      if (node.type !== 'Output') weights.set(`weight.${node.id}`, `${node.id} (${node.type})`, f, node.weight);
      const v = node.values;
      if (!v) continue;
      // A PoseSearchBlend crossfades clips inside one node: its share of each motion.
      if (Array.isArray(v.clips) && Array.isArray(v.weights) && v.clips.length === v.weights.length) {
        const slotWeights = v.weights, shares = new Map<number, number>();
        for (const m of seenMotions.get(node.id) ?? []) shares.set(m, 0);
        v.clips.forEach((m, i) => shares.set(m, (shares.get(m) ?? 0) + slotWeights[i] * node.weight));
        seenMotions.set(node.id, [...shares.keys()]);
        // A motion first played after frame 0 had no share before it.
        for (const [m, share] of shares) weights.set(`weight.${node.id}.motion${m}`, `${node.id}: motion ${m}`, f, share, 0);
      }
      if (typeof v.active === 'boolean' && typeof v.elapsed === 'number' && typeof v.duration === 'number') {
        inertial.set(`inertial.${node.id}.remaining`, `${node.id}: time left`, f, v.active ? v.duration - v.elapsed : 0);
        if (typeof v.deficit === 'number') inertial.set(`inertial.${node.id}.deficit`, `${node.id}: deficit`, f, v.deficit);
        if (typeof v.offsetTranslation === 'number') offsets.set(`offset.${node.id}.translation`, `${node.id}: translation offset`, f, v.offsetTranslation);
        if (typeof v.offsetRotation === 'number') offsets.set(`offset.${node.id}.rotation`, `${node.id}: rotation offset (degrees)`, f, v.offsetRotation);
      }
      if (typeof v.strideScale === 'number') stride.set(`stride.${node.id}.scale`, `${node.id}: stride scale`, f, v.strideScale);
      if (typeof v.strideScale === 'number' && Array.isArray(v.pelvisOffset) && v.pelvisOffset.length === 3) {
        const offset = v.pelvisOffset;
        for (let k = 0; k < 3; k++) pelvis.set(`pelvisOffset.${node.id}.${'xyz'[k]}`, `${node.id}: pelvis offset ${'xyz'[k]}`, f, offset[k]);
      }
      if (typeof v.matchCost === 'number' || 'requestedMotion' in v) {
        let c = costs.get(node.id);
        if (!c) costs.set(node.id, c = { match: [], runnerUp: [] });
        // A switch is a frame whose motion differs from the last frame's; its search result is
        // what the debug values report from then on.
        const switched = f > 0 && lastMotion.get(node.id) !== v.motion;
        lastMotion.set(node.id, v.motion);
        if (switched && typeof v.matchCost === 'number') {
          c.match.push({ time, value: v.matchCost, label: `${fixed(v.matchCost, 3)} (motion ${String(v.motion)})` });
          if (typeof v.runnerUpCost === 'number' && typeof v.runnerUpFrame === 'number' && v.runnerUpFrame >= 0) {
            c.runnerUp.push({ time, value: v.runnerUpCost });
          }
        }
      }
    }
  }

  const panels: PlotPanel[] = [];
  const units = skeleton.units;
  // One panel per channel: in a shared panel the pelvis height (near 100 cm) flattens its sway.
  const axisColors = ['#d62728', '#2ca02c', '#1f77b4'];
  channels.list('bone.t').forEach((s, i) => panels.push({
    key: s.key, title: `${boneName}: translation ${'xyz'[i]} (${space} space)`, unit: units, series: [{ ...s, color: axisColors[i] }], height: 80,
  }));
  channels.list('bone.r').forEach((s, i) => panels.push({
    key: s.key, title: `${boneName}: rotation ${'xyz'[i]} (${space} space; Euler angles, X then Y then Z about fixed axes)`,
    unit: 'degrees', series: [{ ...s, color: axisColors[i] }], height: 80,
  }));
  panels.push({ key: 'weights', title: 'Node weights (absolute)', unit: 'weight', series: weights.list('weight.'), range: [0, 1] });
  const inertialSeries = inertial.list('inertial.');
  if (inertialSeries.length > 0) {
    panels.push({ key: 'inertialization', title: 'Inertialization: time left in the transition (and deficit)', unit: 'seconds', series: inertialSeries });
  }
  const offsetSeries = offsets.list('offset.');
  if (offsetSeries.length > 0) {
    panels.push({ key: 'inertialOffsets', title: 'Inertialization offsets: the largest over the bones (translation in skeleton units, rotation in degrees)', unit: 'offset', series: offsetSeries });
  }
  const strideSeries = stride.list('stride.');
  if (strideSeries.length > 0) panels.push({ key: 'stride', title: 'Stride warping: stride scale', unit: 'scale', series: strideSeries });
  const pelvisSeries = pelvis.list('pelvisOffset.');
  if (pelvisSeries.length > 0) {
    panels.push({ key: 'pelvisOffset', title: `Stride warping: pelvis offset (component space, ${units})`, unit: units, series: pelvisSeries });
  }
  if (costs.size > 0) {
    const points: PlotPoints[] = [];
    for (const [id, c] of costs) {
      points.push({ key: `poseSearch.${id}.cost`, label: `${id}: match cost`, points: c.match });
      points.push({ key: `poseSearch.${id}.runnerUpCost`, label: `${id}: runner-up cost`, points: c.runnerUp, hollow: true });
    }
    panels.push({ key: 'pose-search', title: 'Pose search: cost of the chosen frame at each switch', unit: 'cost', series: [], points, emptyNote: 'no switch in this run' });
  }
  const markers = (options.timeline ?? []).map((c) => ({ time: c.time ?? 0, label: `${c.name}=${formatValue(c.value)}` }));
  const seconds = (n - 1) / runner.fps;
  return {
    title: options.title ?? graph.name,
    subtitle: `${n} frames (${fixed(seconds, 3)} s at ${runner.fps} fps); bone ${boneName}`,
    times, panels, markers,
  };
}

export async function plotCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    out: { type: 'string' },
    bone: { type: 'string' },
    space: { type: 'string' },
    frames: { type: 'string' },
    seconds: { type: 'string' },
    fps: { type: 'string' },
    set: { type: 'string', multiple: true },
    'update-rate': { type: 'string' },
    hold: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('needs exactly one GRAPH file');
  const out = values.out as string | undefined;
  if (out === undefined) throw new UsageError('needs --out FILE.svg');
  checkOutputFiles({ '--out': out }, positionals[0]);
  const space = values.space as string | undefined;
  if (space !== undefined && space !== 'component' && space !== 'local') throw new UsageError(`--space takes 'component' or 'local', got '${space}'`);
  const length = runLength(values);
  const graph = loadGraphForOutputs(positionals[0], { '--out': out });
  const sets = (values.set as string[] | undefined) ?? [];
  const timeline: ParameterChange[] = sets.map((s) => parseSet(s, graph));
  const doc = withSetTexts(sets, () => recordPlot(graph, {
    ...length,
    ...updateRateOptions(values),
    timeline,
    bone: values.bone as string | undefined,
    space: space as 'component' | 'local' | undefined,
    title: graph.name || positionals[0],
  }));
  const svg = renderPlotSvg(doc);
  writeOutputFile(out, svg);
  const series = doc.panels.reduce((sum, p) => sum + p.series.length + (p.points?.length ?? 0), 0);
  io.out(`wrote ${out}: ${doc.panels.length} panels, ${series} series, ${doc.times.length} frames\n`);
  return 0;
}
