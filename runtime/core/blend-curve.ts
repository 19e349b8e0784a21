import * as z from 'zod';
import type { ClipCurve } from './clip-events.ts';
import { lazy } from './lazy.ts';

/*
 * The curves a blend follows over its time (Unreal's EAlphaBlendOption and
 * FAlphaBlend::AlphaToBlendOption): a blend's linear progress p in [0, 1] (time elapsed over its
 * duration) becomes the weight the entered input has, curve(p), clamped to [0, 1]. Every node that
 * takes a blend time takes one of these (StateMachine transitions, BlendList, BlendByBool,
 * PoseSearchBlend), so an asset names them the same way everywhere.
 *
 *   linear          p
 *   cubic           3p² − 2p³ (Unreal's CubicInterp(0, 0, 1, 0, p), its "Cubic In")
 *   hermiteCubic    3p² − 2p³ (Unreal's SmoothStep: the same curve; kept apart because a state
 *                   machine shortens a re-entry by a different inverse for it, as Unreal does)
 *   sinusoidal      (sin(πp − π/2) + 1) / 2
 *   quadraticInOut, cubicInOut, quarticInOut, quinticInOut
 *                   (2p)ⁿ / 2 below p = 1/2, 1 − (2 − 2p)ⁿ / 2 above (n = 2, 3, 4, 5)
 *   circularIn      1 − √(1 − p²)
 *   circularOut     √(1 − (p − 1)²)
 *   circularInOut   circularIn(2p) / 2 below 1/2, circularOut(2p − 1) / 2 + 1/2 above
 *   expIn           2^(10(p − 1)), 0 at p = 0
 *   expOut          1 − 2^(−10p), 1 at p = 1
 *   expInOut        expIn(2p) / 2 below 1/2, expOut(2p − 1) / 2 + 1/2 above
 *   custom          a float curve's value at time t0 + (t1 − t0) p, where [t0, t1] are its first
 *                   and last keys' times (linear between keys): a clip's curve or keys written inline
 */

/** The named curves, in Unreal's order (EAlphaBlendOption without Custom). */
export const BLEND_CURVES = [
  'linear', 'cubic', 'hermiteCubic', 'sinusoidal', 'quadraticInOut', 'cubicInOut', 'quarticInOut', 'quinticInOut',
  'circularIn', 'circularOut', 'circularInOut', 'expIn', 'expOut', 'expInOut',
] as const;
export type BlendCurveName = (typeof BLEND_CURVES)[number];

const CUSTOM = BLEND_CURVES.length;
const HERMITE_CUBIC = 2;

/** The most keys an inline custom curve may have. */
export const MAX_BLEND_CURVE_KEYS = 1000;

/** A blend curve as an asset writes it: a name, keys, or a curve of one of the asset's clips. */
export type BlendCurveJson = BlendCurveName | { keys: [number, number][] } | { clip: string; curve: string };

/** How an asset writes a blend curve (a transition's `curve`, BlendList's `blendCurve`...). */
export const blendCurveSchema = lazy(() => z.union([
  z.enum(BLEND_CURVES).describe('A named curve (Unreal\'s blend options): linear, cubic, hermiteCubic, sinusoidal, quadratic/cubic/quartic/quinticInOut, circular and exp In, Out, InOut.'),
  z.object({
    keys: z.array(z.tuple([z.number().min(-1e6).max(1e6), z.number().min(-1e6).max(1e6)])).min(1).max(MAX_BLEND_CURVE_KEYS)
      .describe('A custom curve: [time, value] keys with increasing times, read from the first key\'s time to the last\'s over the blend, the value clamped to [0, 1].'),
  }).strict(),
  z.object({
    clip: z.string().min(1).describe('A clip of the asset.'),
    curve: z.string().min(1).describe('One of that clip\'s float `curves`, read over its keys\' time span as for inline keys.'),
  }).strict(),
]));

/**
 * A blend curve, built once per graph and shared. Number fields of one class, read by easeAt (see
 * CONTRIBUTING.md, "Numbers in the frame loop").
 */
export class BlendCurve {
  constructor(
    /** Index into BLEND_CURVES, or BLEND_CURVES.length for a custom curve. */
    readonly kind: number,
    /** A custom curve's key times and values (empty otherwise). */
    readonly times: Float64Array,
    readonly values: Float64Array,
    /** The name an asset gives it ('custom' for keys or a clip's curve). */
    readonly name: string,
  ) {}
}

const NONE = new Float64Array(0);
const NAMED = BLEND_CURVES.map((name, kind) => new BlendCurve(kind, NONE, NONE, name));

/** The linear curve: what a blend follows when its asset names none. */
export const LINEAR_BLEND: BlendCurve = NAMED[0];

/** The named curve. */
export function namedBlendCurve(name: BlendCurveName): BlendCurve {
  return NAMED[BLEND_CURVES.indexOf(name)];
}

/**
 * The curve `json` (checked by blendCurveSchema) describes, or a message saying what is wrong with
 * it: keys whose times do not increase, an unknown clip or curve. `clipCurves` gives a clip's float
 * curves by its name (undefined when the asset has no such clip). Undefined is linear.
 */
export function compileBlendCurve(json: unknown, clipCurves: (clip: string) => readonly ClipCurve[] | undefined): BlendCurve | string {
  if (json === undefined) return LINEAR_BLEND;
  if (typeof json === 'string') {
    const kind = BLEND_CURVES.indexOf(json as BlendCurveName);
    return kind >= 0 ? NAMED[kind] : `unknown blend curve '${json}' (one of ${BLEND_CURVES.join(', ')}, {"keys": [[t, v], ...]} or {"clip", "curve"})`;
  }
  if (typeof json !== 'object' || json === null) return 'a blend curve is a name, {"keys": [[t, v], ...]} or {"clip", "curve"}';
  const o = json as Record<string, unknown>;
  if (Array.isArray(o.keys)) {
    const keys = o.keys as [number, number][];
    for (let i = 1; i < keys.length; i++) {
      if (!(keys[i][0] > keys[i - 1][0])) return `the keys' times must increase (key ${i} at ${keys[i][0]} after ${keys[i - 1][0]})`;
    }
    return new BlendCurve(CUSTOM, Float64Array.from(keys, (k) => k[0]), Float64Array.from(keys, (k) => k[1]), 'custom');
  }
  if (typeof o.clip === 'string' && typeof o.curve === 'string') {
    const curves = clipCurves(o.clip);
    if (curves === undefined) return `unknown clip '${o.clip}'`;
    const curve = curves.find((c) => c.name === o.curve);
    if (curve === undefined) {
      return `clip '${o.clip}' has no curve '${o.curve}' (${curves.length > 0 ? `its curves: ${curves.map((c) => `'${c.name}'`).join(', ')}` : 'it has none'})`;
    }
    return new BlendCurve(CUSTOM, curve.times, curve.values, 'custom');
  }
  return 'a blend curve is a name, {"keys": [[t, v], ...]} or {"clip", "curve"}';
}

/**
 * Writes curve(values[index]) into values[index]: the eased weight of a blend at linear progress
 * values[index], clamped to [0, 1] (NaN reads as 0). The progress crosses the call inside the array
 * and no double is returned, so nothing is boxed whether or not V8 inlines it.
 */
export function easeAt(curve: BlendCurve, values: Float64Array, index: number): void {
  const raw = values[index];
  const p = raw > 0 ? (raw < 1 ? raw : 1) : 0;
  let q = p;
  switch (curve.kind) {
    case 0: break;
    case 1:
    case 2: q = p * p * (3 - 2 * p); break;
    case 3: q = (Math.sin(p * Math.PI - Math.PI / 2) + 1) / 2; break;
    case 4:
    case 5:
    case 6:
    case 7: {
      const n = curve.kind - 2;
      q = p < 0.5 ? Math.pow(p * 2, n) * 0.5 : (1 - Math.pow(1 - (p * 2 - 1), n)) * 0.5 + 0.5;
      break;
    }
    case 8: q = 1 - Math.sqrt(1 - p * p); break;
    case 9: q = Math.sqrt(1 - (p - 1) * (p - 1)); break;
    case 10: {
      const a = p * 2;
      q = p < 0.5 ? (1 - Math.sqrt(1 - a * a)) * 0.5 : Math.sqrt(1 - (a - 2) * (a - 2)) * 0.5 + 0.5;
      break;
    }
    case 11: q = p === 0 ? 0 : Math.pow(2, 10 * (p - 1)); break;
    case 12: q = p === 1 ? 1 : 1 - Math.pow(2, -10 * p); break;
    case 13: {
      const a = p * 2;
      q = p < 0.5 ? (a === 0 ? 0 : Math.pow(2, 10 * (a - 1))) * 0.5 : (a - 1 === 1 ? 1 : 1 - Math.pow(2, -10 * (a - 1))) * 0.5 + 0.5;
      break;
    }
    default: {
      const t = curve.times, v = curve.values, last = t.length - 1;
      const time = t[0] + (t[last] - t[0]) * p;
      if (!(time > t[0])) q = v[0];
      else if (time >= t[last]) q = v[last];
      else {
        let i = 1;
        while (t[i] < time) i++;
        q = v[i - 1] + (v[i] - v[i - 1]) * ((time - t[i - 1]) / (t[i] - t[i - 1]));
      }
    }
  }
  values[index] = q > 0 ? (q < 1 ? q : 1) : 0;
}

/**
 * Writes into values[index] the share of its duration a blend into an input that already has weight
 * values[index] takes (Unreal's FAnimationActiveTransitionEntry::CalculateInverseAlpha of 1 − w):
 * 1 − w for every curve but hermiteCubic, which takes the cubic (4/3)f³ − 2f² + (5/3)f of f = 1 − w.
 */
export function reentryShareAt(curve: BlendCurve, values: Float64Array, index: number): void {
  const w = values[index];
  const f = w > 0 ? (w < 1 ? 1 - w : 0) : 1;
  values[index] = curve.kind === HERMITE_CUBIC ? f * f * f * (4 / 3) - 2 * f * f + (5 / 3) * f : f;
}
