import type { BlendProfile } from '../core/blend-profile.ts';
import type { ClipBinding } from '../core/clip.ts';
import type { PoseNode } from './anim-node.ts';

/*
 * A node's properties as its code reads them: resolved once per graph (by the graph from the
 * asset and the node type's specs, node-type.ts), and read every frame with readScalar, readFlag
 * and readVec3, so that a bound property follows its parameter.
 */

/** A bound property, resolved at build time: read `slot` of the parameter values, or `constant`. */
export interface ScalarProperty {
  readonly slot: number;
  readonly constant: number;
}

export interface Vec3Property {
  readonly slot: number;
  readonly constant: Float64Array;
}

export function readScalar(values: Float64Array, p: ScalarProperty): number {
  return p.slot >= 0 ? values[p.slot] : p.constant;
}

/**
 * readScalar(values, p) !== 0, for bool properties: a boolean crosses the call rather than a double,
 * which V8 boxes (16 bytes) wherever it does not inline readScalar; node code called at state entries
 * and switches is not always inlined (see CONTRIBUTING.md, "Numbers in the frame loop").
 */
export function readFlag(values: Float64Array, p: ScalarProperty): boolean {
  return p.slot >= 0 ? values[p.slot] !== 0 : p.constant !== 0;
}

/**
 * Writes a scalar property into out[o], by two separate statements: read into a local, a bound
 * value joined with the literal would be boxed (see CONTRIBUTING.md, "Numbers in the frame loop").
 */
export function readScalarInto(out: Float64Array, o: number, values: Float64Array, p: ScalarProperty): void {
  if (p.slot >= 0) out[o] = values[p.slot];
  else out[o] = p.constant;
}

/** Reads a vec3 property into out[o..o+2]. */
export function readVec3(out: Float64Array, o: number, values: Float64Array, p: Vec3Property): Float64Array {
  if (p.slot >= 0) {
    out[o] = values[p.slot]; out[o + 1] = values[p.slot + 1]; out[o + 2] = values[p.slot + 2];
  } else {
    out[o] = p.constant[0]; out[o + 1] = p.constant[1]; out[o + 2] = p.constant[2];
  }
  return out;
}

/** The properties of one node, resolved for one graph instance. */
export interface ResolvedProperties {
  scalar(name: string): ScalarProperty;
  vec3(name: string): Vec3Property;
  enumValue(name: string): string;
  clip(name: string): ClipBinding;
  bone(name: string): string;
  floatList(name: string): number[];
  /** The clips of a clipList property, in order. */
  clipList(name: string): ClipBinding[];
  /** The literal value of an `object` or `file` property as validated, or undefined when absent. */
  literal(name: string): unknown;
  /** The items of a list property, each resolved like a node's properties (by the item's field names). */
  list(name: string): ResolvedProperties[];
  /** The built node a `node` property names (built before this one). */
  node(name: string): PoseNode;
  /** The blend profile a `blendProfile` property names, bound to the skeleton; null when absent. */
  blendProfile(name: string): BlendProfile | null;
}

/**
 * One copy per graph of what each instance of a node resolves for itself in cacheBones (bone
 * indices, masks: every instance resolves, so each reports its own unknown bones): the first
 * instance's `own` becomes `holder[key]`, and an instance whose `own` is the same (`same`) gets that
 * copy back, any other its own. A crowd's characters then read one copy from the cache. `holder` is
 * what the node type's `prepare` returned.
 */
export function sharedWhenSame<H, K extends keyof H>(
  holder: H, key: K, own: NonNullable<H[K]>, same: (a: NonNullable<H[K]>, b: NonNullable<H[K]>) => boolean,
): NonNullable<H[K]> {
  const first = (holder[key] ??= own) as NonNullable<H[K]>;
  return first === own || same(first, own) ? first : own;
}

/** Whether two arrays hold the same numbers, in order. */
export function sameNumbers(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
