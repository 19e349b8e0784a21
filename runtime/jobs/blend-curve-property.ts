import { compileBlendCurve, LINEAR_BLEND, type BlendCurve } from '../core/blend-curve.ts';
import { quoted } from '../core/names.ts';
import type { NodeCheckContext, NodePrepareContext } from '../node/node-type.ts';

/*
 * A blend curve written in a node's properties (a transition's `curve`, BlendList's `blendCurve`):
 * checked at load by the node type's check, built once per graph by its prepare. The shape itself
 * (a name, keys or a clip's curve) is blendCurveSchema's to check.
 */

/** Reports at `at` inline keys whose times do not increase, and a clip the asset does not have. */
export function checkBlendCurve(json: unknown, at: readonly PropertyKey[], ctx: Pick<NodeCheckContext, 'report' | 'clipNames'>): void {
  if (typeof json !== 'object' || json === null) return;
  const o = json as Record<string, unknown>;
  if (Array.isArray(o.keys)) {
    const keys = o.keys as unknown[];
    for (let i = 1; i < keys.length; i++) {
      const a = keys[i - 1], b = keys[i];
      if (Array.isArray(a) && Array.isArray(b) && !(b[0] > a[0])) {
        ctx.report([...at, 'keys', i, 0], 'schema', `a blend curve's key times must increase (${b[0]} after ${a[0]})`);
        return;
      }
    }
  } else if (typeof o.clip === 'string' && !ctx.clipNames.has(o.clip)) {
    ctx.report([...at, 'clip'], 'unknown-clip', `unknown clip ${quoted(o.clip)}`);
  }
}

/**
 * The curve `json` describes (linear when undefined). A clip without the curve named is reported at
 * `at` (checkBlendCurve reported the rest); the node then blends linearly.
 */
export function prepareBlendCurve(json: unknown, at: readonly PropertyKey[], ctx: Pick<NodePrepareContext, 'report' | 'clip'>): BlendCurve {
  const curve = compileBlendCurve(json, (clip) => ctx.clip(clip)?.clip.curves);
  if (typeof curve !== 'string') return curve;
  const clip = typeof json === 'object' && json !== null ? (json as { clip?: unknown }).clip : undefined;
  if (typeof clip === 'string' && ctx.clip(clip) !== undefined) ctx.report([...at, 'curve'], 'schema', curve);
  return LINEAR_BLEND;
}
