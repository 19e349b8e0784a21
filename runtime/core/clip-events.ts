/*
 * What a clip carries besides its keys: notifies (named events at clip times, or over a range of
 * clip time) and float curves. Both are authored in the asset (a clip's `notifies` and `curves`),
 * checked by the loader and immutable once built; ClipPlayback fires the notifies a move crosses
 * and reports the curves' values, weighted, to the graph instance.
 */

import { AnimGraphError } from './errors.ts';

/** A notify as written in an asset: a point at `time`, or a range from `start` to `end` (seconds of clip time). */
export type ClipNotifyDefinition = { name: string; time: number } | { name: string; start: number; end: number };

/** An edge of the notify track: a point notify. */
export const NOTIFY_POINT = 0;
/** An edge of the notify track: the start of a range (notifyBegin when crossed forwards, notifyEnd backwards). */
export const NOTIFY_RANGE_START = 1;
/** An edge of the notify track: the end of a range (notifyEnd when crossed forwards, notifyBegin backwards). */
export const NOTIFY_RANGE_END = 2;

/**
 * A clip's notifies as edges sorted by clip time (a range is two edges), so that a move through
 * the clip fires them in the order it crosses them with one pass over typed arrays. Edges at the
 * same time keep the asset's order forwards and the reverse order backwards, so a range of no
 * length begins before it ends either way.
 */
export class ClipNotifyTrack {
  readonly times: Float64Array;
  /** NOTIFY_POINT, NOTIFY_RANGE_START or NOTIFY_RANGE_END per edge. */
  readonly kinds: Uint8Array;
  /** The notify's name per edge (the strings the events pass on, built once). */
  readonly names: readonly string[];

  constructor(definitions: readonly ClipNotifyDefinition[]) {
    const edges: { time: number; kind: number; name: string; order: number }[] = [];
    for (const d of definitions) {
      if ('time' in d) edges.push({ time: d.time, kind: NOTIFY_POINT, name: d.name, order: edges.length });
      else {
        edges.push({ time: d.start, kind: NOTIFY_RANGE_START, name: d.name, order: edges.length });
        edges.push({ time: d.end, kind: NOTIFY_RANGE_END, name: d.name, order: edges.length });
      }
    }
    edges.sort((a, b) => a.time - b.time || a.order - b.order);
    this.times = Float64Array.from(edges, (e) => e.time);
    this.kinds = Uint8Array.from(edges, (e) => e.kind);
    this.names = edges.map((e) => e.name);
  }
}

/**
 * A float curve over clip time: keys (time, value) with strictly increasing times, linear between
 * them and held before the first and after the last.
 */
export class ClipCurve {
  constructor(readonly name: string, readonly times: Float64Array, readonly values: Float64Array) {
    if (times.length === 0 || times.length !== values.length) throw new AnimGraphError('invalid-data', `curve '${name}': needs as many values as times, at least one`);
    for (let i = 1; i < times.length; i++) {
      if (!(times[i] > times[i - 1])) throw new AnimGraphError('invalid-data', `curve '${name}': key times must increase (key ${i})`);
    }
  }

  /** The curve's value at `time` (for tools and tests; the frame loop samples inline, see ClipPlayback). */
  valueAt(time: number): number {
    const t = this.times, v = this.values, n = t.length;
    if (!(time > t[0])) return v[0];
    if (time >= t[n - 1]) return v[n - 1];
    let i = 1;
    while (t[i] < time) i++;
    const a = t[i - 1], f = (time - a) / (t[i] - a), gap = v[i] - v[i - 1];
    // Keys of opposite sign near the largest double: see ClipPlayback's curves, which this matches.
    return gap - gap === 0 ? v[i - 1] + gap * f : v[i - 1] * (1 - f) + v[i] * f;
  }
}

/** Builds a clip's curves from the asset's `curves` block: name → [[time, value], ...]. */
export function clipCurves(curves: Readonly<Record<string, readonly (readonly [number, number])[]>>): ClipCurve[] {
  return Object.entries(curves).map(([name, keys]) =>
    new ClipCurve(name, Float64Array.from(keys, (k) => k[0]), Float64Array.from(keys, (k) => k[1])));
}
