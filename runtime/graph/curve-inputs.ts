/**
 * Curves that drive the graph: node properties bound to a curve (`{ "curve": name }`) and
 * parameters declared with a `curve`. Each reads the curve's value as the graph's previous update
 * left it (Unreal's curves, read by the AnimGraph from the previous evaluation), so that a frame
 * reads one value from its update through its evaluation, whatever order its nodes run in.
 *
 * Every such value has a slot in an instance's parameter values, so nodes read it as they read a
 * bound parameter (readScalar, readFlag) and state machines' rules as they read a parameter: the
 * declared parameter's own slot, or for a property binding an implicit slot after the declared
 * parameters, one per curve name. After those, a latch per entry holds what the last update's
 * curves were: written at the end of each graph update, copied to the slots at the start of the
 * next. The latches live in the parameter values rather than being read from the instance's curve
 * values at the start of an update because below full update rate those are the interpolated ones
 * the display shows, not the graph's own.
 */
import { AnimGraphError } from '../core/errors.ts';
import { quoted, nameList } from '../core/names.ts';
import type { PropertySpec } from '../node/node.ts';
import { PARAMETER_WIDTH, type ParameterDefinition } from '../node/parameters.ts';
import type { CompiledNode, PropertyValue } from './definition.ts';

/** The curve a property value binds, `{ "curve": name }`, or undefined for anything else. */
export function curveBindingOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const curve = (value as { curve?: unknown }).curve;
  return typeof curve === 'string' ? curve : undefined;
}

/** A graph's curve-driven slots, laid out once and shared by every instance (see the file's comment). */
export class CurveInputs {
  /** Slots of the parameter values before the implicit ones: the declared parameters'. */
  readonly declaredSize: number;
  /** How many slots instances add after the declared parameters: implicit slots, then latches. */
  readonly extraSlots: number;
  /** Per entry: the curve's slot in the instance's curve values. */
  private readonly curves: Int32Array;
  /** Per entry: the slot in the parameter values that nodes and rules read. */
  private readonly targets: Int32Array;
  /** Per entry: 1 when the target is a bool parameter (stored as 1 when the curve is not 0, else 0). */
  private readonly bools: Uint8Array;
  /** Per entry: what the latch holds before the first update (the parameter's default, or 0). */
  private readonly initial: Float64Array;
  /** Where the latches start in the parameter values. */
  private readonly latchAt: number;
  /** The implicit slot of each curve a property binds. */
  private readonly implicit: ReadonlyMap<string, number>;
  /** Per declared slot, 1 for a slot a curve drives: what a crowd copies its rows around. */
  readonly drivenSlots: Uint8Array;

  /**
   * Lays out the curve inputs of a graph; null when nothing binds a curve (most graphs: their
   * instances then do nothing more per frame). Throws an AnimGraphError for a curve no clip carries
   * (`unknown-name`) or a binding to a property or parameter of a type a curve cannot drive
   * (`invalid-data`): the loader reports both at their paths first.
   */
  static of(
    parameters: Readonly<Record<string, ParameterDefinition>>, nodes: readonly CompiledNode[], curveSlots: ReadonlyMap<string, number>, graphName: string,
  ): CurveInputs | null {
    const slotOf = (curve: string, where: string): number => {
      const slot = curveSlots.get(curve);
      if (slot === undefined) {
        throw new AnimGraphError('unknown-name', `${where} follows curve ${quoted(curve)}, which no clip of graph ${quoted(graphName)} carries (curves: ${nameList([...curveSlots.keys()])})`);
      }
      return slot;
    };
    let declaredSize = 0;
    const entries: { curve: number; target: number; bool: boolean; initial: number }[] = [];
    const drivenDeclared: number[] = [];
    for (const [name, def] of Object.entries(parameters)) {
      const at = declaredSize;
      declaredSize += PARAMETER_WIDTH[def.type];
      if (def.curve === undefined) continue;
      if (def.type !== 'float' && def.type !== 'bool') {
        throw new AnimGraphError('invalid-data', `parameter ${quoted(name)} is ${def.type}; only float and bool parameters follow a curve`);
      }
      const initial = def.default === undefined ? 0 : def.type === 'bool' ? (def.default ? 1 : 0) : Number(def.default);
      entries.push({ curve: slotOf(def.curve, `parameter ${quoted(name)}`), target: at, bool: def.type === 'bool', initial });
      drivenDeclared.push(at);
    }
    const implicit = new Map<string, number>();
    const bind = (curve: string, where: string): void => {
      const slot = slotOf(curve, where);
      if (implicit.has(curve)) return;
      implicit.set(curve, declaredSize + implicit.size);
      entries.push({ curve: slot, target: -1, bool: false, initial: 0 });
    };
    for (const node of nodes) walkBindings(node.nodeType.properties, node.properties, `node ${quoted(node.id)}`, bind);
    if (entries.length === 0) return null;
    return new CurveInputs(declaredSize, entries, implicit, drivenDeclared);
  }

  private constructor(
    declaredSize: number, entries: readonly { curve: number; target: number; bool: boolean; initial: number }[],
    implicit: ReadonlyMap<string, number>, drivenDeclared: readonly number[],
  ) {
    this.declaredSize = declaredSize;
    this.implicit = implicit;
    this.latchAt = declaredSize + implicit.size;
    this.extraSlots = implicit.size + entries.length;
    this.curves = Int32Array.from(entries, (e) => e.curve);
    let next = declaredSize;
    // An implicit entry's target (-1 here) is the next slot after the declared ones, in implicit's order.
    this.targets = Int32Array.from(entries, (e) => (e.target >= 0 ? e.target : next++));
    this.bools = Uint8Array.from(entries, (e) => (e.bool ? 1 : 0));
    this.initial = Float64Array.from(entries, (e) => e.initial);
    this.drivenSlots = new Uint8Array(declaredSize);
    for (const at of drivenDeclared) this.drivenSlots[at] = 1;
  }

  /** The implicit slot a property bound to `curve` reads, -1 for a curve no property binds. */
  slotOf(curve: string): number {
    return this.implicit.get(curve) ?? -1;
  }

  /** Each latch and its slot back to its value before any update: a new instance's, or a reset one's. */
  restart(values: Float64Array): void {
    const targets = this.targets, initial = this.initial, latchAt = this.latchAt;
    for (let i = 0; i < targets.length; i++) {
      values[latchAt + i] = initial[i];
      values[targets[i]] = initial[i];
    }
  }

  /** At the start of a graph update: each slot takes its latch (the previous update's curve value). */
  apply(values: Float64Array): void {
    const targets = this.targets, bools = this.bools, latchAt = this.latchAt;
    for (let i = 0; i < targets.length; i++) {
      const v = values[latchAt + i];
      if (bools[i] === 1) values[targets[i]] = v !== 0 ? 1 : 0;
      else values[targets[i]] = v;
    }
  }

  /** At the end of a graph update: each latch takes its curve's value as the update left it. */
  latch(values: Float64Array, curveValues: Float64Array): void {
    const curves = this.curves, latchAt = this.latchAt;
    for (let i = 0; i < curves.length; i++) values[latchAt + i] = curveValues[curves[i]];
  }
}

/**
 * Calls `bind` for every `{ "curve": name }` among `values` described by `specs` (a node's
 * properties, or an item of a list property), by the specs as property resolution reads them: an
 * `object` property's own fields (a transition's "curve": a blend curve) are not bindings.
 */
function walkBindings(
  specs: Readonly<Record<string, PropertySpec>>, values: Readonly<Record<string, PropertyValue | undefined>>, where: string,
  bind: (curve: string, where: string) => void,
): void {
  for (const [name, spec] of Object.entries(specs)) {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (spec.kind === 'list') {
      if (Array.isArray(value)) for (const item of value) if (typeof item === 'object' && item !== null) walkBindings(spec.item, item as Record<string, PropertyValue>, where, bind);
      continue;
    }
    const curve = curveBindingOf(value);
    if (curve === undefined) continue;
    if (spec.kind !== 'float' && spec.kind !== 'bool') {
      throw new AnimGraphError('invalid-data', `${where}: property ${quoted(name)} is ${spec.kind}; a curve drives float and bool properties only`);
    }
    bind(curve, `${where}, property ${quoted(name)},`);
  }
}
