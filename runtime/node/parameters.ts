import type { AnimGraphEventEmitter } from './events.ts';
import { AnimGraphError } from '../core/errors.ts';

export type ParameterType = 'float' | 'int' | 'bool' | 'vec3';
export type ParameterValue = number | boolean | readonly number[];

export interface ParameterDefinition {
  type: ParameterType;
  default?: ParameterValue;
  /**
   * A curve of the graph's clips the parameter follows (float and bool parameters only): set from
   * the curve's value at the start of every update, as the previous update left it, and not by
   * setParameter (runtime/graph/curve-inputs.ts).
   */
  curve?: string;
}

/** How many float slots each parameter type takes in the value array. */
export const PARAMETER_WIDTH: Record<ParameterType, number> = { float: 1, int: 1, bool: 1, vec3: 3 };

/** Which parameter types may feed a property of a given type. */
export function parameterFits(property: ParameterType, parameter: ParameterType): boolean {
  return property === parameter || (property === 'float' && parameter === 'int');
}

type ParameterSlots = ReadonlyMap<string, { readonly slot: number; readonly type: ParameterType }>;

/** A parameter record laid out: each parameter's slot and type by name, and the values' length. */
interface ParameterLayout {
  readonly slots: ParameterSlots;
  readonly size: number;
}

/**
 * Parameter records laid out once each: every instance of a graph shares its graph's (a map per
 * character would be memory a crowd carries for nothing).
 */
const layouts = new WeakMap<object, ParameterLayout>();

function layoutOf(definitions: Readonly<Record<string, ParameterDefinition>>): ParameterLayout {
  const known = layouts.get(definitions);
  // A record changed since it was laid out (Parameters is public; a graph's own never changes) is laid out again.
  if (known !== undefined && sameLayout(known.slots, definitions)) return known;
  const slots = new Map<string, { slot: number; type: ParameterType }>();
  let size = 0;
  for (const [name, def] of Object.entries(definitions)) {
    slots.set(name, { slot: size, type: def.type });
    size += PARAMETER_WIDTH[def.type];
  }
  const layout = { slots, size };
  layouts.set(definitions, layout);
  return layout;
}

function sameLayout(slots: ParameterSlots, definitions: Readonly<Record<string, ParameterDefinition>>): boolean {
  const names = Object.keys(definitions);
  if (names.length !== slots.size) return false;
  let at = 0;
  for (const [name, entry] of slots) {
    if (names[at++] !== name || definitions[name].type !== entry.type) return false;
  }
  return true;
}

/**
 * A graph instance's typed parameters, stored in one Float64Array (bools as 0 or 1, vec3 as three
 * slots). Nodes read them by slot, resolved when the instance is built, so reading a bound
 * property in the frame loop is one array load.
 */
export class Parameters {
  readonly values: Float64Array;
  private readonly slots: ParameterSlots;

  /**
   * `extraSlots`: values after the declared parameters' that no name reaches (an instance's
   * curve-driven slots: runtime/graph/curve-inputs.ts).
   */
  constructor(readonly definitions: Readonly<Record<string, ParameterDefinition>>, private readonly events?: AnimGraphEventEmitter, extraSlots = 0) {
    const layout = layoutOf(definitions);
    this.slots = layout.slots;
    this.values = new Float64Array(layout.size + extraSlots);
    for (const [name, def] of Object.entries(definitions)) {
      if (def.default !== undefined) this.write(name, def.default);
    }
  }

  has(name: string): boolean {
    return this.slots.has(name);
  }

  /** The slot of a parameter in `values`, for binding properties; -1 if there is no such parameter. */
  slotOf(name: string): number {
    return this.slots.get(name)?.slot ?? -1;
  }

  typeOf(name: string): ParameterType | undefined {
    return this.slots.get(name)?.type;
  }

  get(name: string): ParameterValue {
    const entry = this.require(name);
    const v = this.values;
    switch (entry.type) {
      case 'bool': return v[entry.slot] !== 0;
      case 'vec3': return [v[entry.slot], v[entry.slot + 1], v[entry.slot + 2]];
      default: return v[entry.slot];
    }
  }

  /**
   * Sets a parameter between frames. Throws an AnimGraphError for an unknown name (`unknown-name`),
   * a value of the wrong type (`invalid-argument`), or a parameter that follows a curve
   * (`invalid-state`: each update sets it from the curve): this is user code's call, outside the
   * frame loop. Emits parameterChanged when the value changes. Allocates nothing for a number or a
   * bool when nobody listens to parameterChanged, so a crowd can set its parameters every frame.
   */
  set(name: string, value: ParameterValue): void {
    this.refuseCurveDriven(name);
    this.write(name, value);
  }

  private write(name: string, value: ParameterValue): void {
    const { slot, type } = this.fit(name, value);
    const v = this.values;
    const listened = this.events !== undefined && this.events.has('parameterChanged');
    const previous = listened ? this.get(name) : undefined;
    let changed = false;
    if (type === 'vec3') {
      const xyz = value as readonly number[];
      for (let i = 0; i < 3; i++) {
        if (v[slot + i] !== xyz[i]) changed = true;
        v[slot + i] = xyz[i];
      }
    } else {
      const x = type === 'bool' ? (value ? 1 : 0) : (value as number);
      changed = v[slot] !== x;
      v[slot] = x;
    }
    if (changed && listened) this.events!.emit('parameterChanged', name, this.get(name), previous!);
  }

  /**
   * Throws set's AnimGraphError for an unknown name, a value of the wrong type or a parameter that
   * follows a curve, without setting it: to check values that will be set later (a run's parameter
   * timeline) before anything runs.
   */
  check(name: string, value: ParameterValue): { slot: number; type: ParameterType } {
    this.refuseCurveDriven(name);
    return this.fit(name, value);
  }

  /**
   * Throws an AnimGraphError (`invalid-state`) if parameter `name` follows a curve: a value set
   * from code would be replaced at the next update unseen, a mistake to hear of at once.
   */
  refuseCurveDriven(name: string): void {
    const curve = this.definitions[name]?.curve;
    if (curve !== undefined) {
      throw new AnimGraphError('invalid-state', `parameter '${name}' follows curve '${curve}' (its declaration's "curve"): each update sets it from the curve, so it cannot be set`);
    }
  }

  /** The slot and type of `name`, throwing for an unknown name or a value of the wrong type. */
  private fit(name: string, value: ParameterValue): { slot: number; type: ParameterType } {
    const entry = this.require(name);
    if (!valueFits(entry.type, value)) {
      const range = entry.type === 'int' && typeof value === 'number' && Number.isInteger(value) ? ` (an int is a whole number from ${INT_PARAMETER_MIN} to ${INT_PARAMETER_MAX})` : '';
      throw new AnimGraphError('invalid-argument', `parameter '${name}' is ${entry.type}; cannot set it to ${describeValue(value)}${range}`);
    }
    return entry;
  }

  private require(name: string): { slot: number; type: ParameterType } {
    const entry = this.slots.get(name);
    if (!entry) throw new AnimGraphError('unknown-name', `unknown parameter '${name}' (known: ${[...this.slots.keys()].join(', ') || 'none'})`);
    return entry;
  }
}

/**
 * The range of an int parameter: a 32-bit signed integer, as Unreal's int parameters are. Nodes
 * read ints as indices and counts (`| 0`, which wraps anything wider), and 1e308 is an integer to
 * JavaScript.
 */
export const INT_PARAMETER_MIN = -(2 ** 31);
export const INT_PARAMETER_MAX = 2 ** 31 - 1;

/**
 * Whether `value` is one of type `type`: a finite number, an integer from INT_PARAMETER_MIN to
 * INT_PARAMETER_MAX, a boolean, three finite numbers.
 */
function valueFits(type: ParameterType, value: ParameterValue): boolean {
  switch (type) {
    case 'float': return typeof value === 'number' && Number.isFinite(value);
    case 'int': return typeof value === 'number' && Number.isInteger(value) && value >= INT_PARAMETER_MIN && value <= INT_PARAMETER_MAX;
    case 'bool': return typeof value === 'boolean';
    // Written out rather than value.every(...), whose closure allocated 56 bytes a call.
    case 'vec3': return Array.isArray(value) && value.length === 3 && finiteNumber(value[0]) && finiteNumber(value[1]) && finiteNumber(value[2]);
  }
}

function finiteNumber(x: unknown): boolean {
  return typeof x === 'number' && Number.isFinite(x);
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A number written in decimal (`5`, `-2.5`, `.5`, `1e3`), or NaN for any other text: JavaScript's
 * Number also reads `0x10` as 16, `0b11` as 3, ` 5 ` as 5 and '' as 0, none of which a person
 * typing a frame count or a parameter value means. A decimal beyond the float range reads as
 * ±Infinity, for the caller's range check to refuse.
 */
export function parseDecimal(text: string): number {
  return DECIMAL.test(text) ? Number(text) : Number.NaN;
}

/**
 * Parses a command-line value for a parameter of the given type: "1.5", "3", "true"/"false",
 * "x,y,z", numbers in decimal (parseDecimal). Returns undefined when the text does not fit the type
 * (an int out of INT_PARAMETER_MIN..INT_PARAMETER_MAX included).
 */
export function parseParameterValue(type: ParameterType, text: string): ParameterValue | undefined {
  switch (type) {
    case 'float': {
      const n = parseDecimal(text);
      return Number.isFinite(n) ? n : undefined;
    }
    case 'int': {
      const n = parseDecimal(text);
      return valueFits('int', n) ? n : undefined;
    }
    case 'bool':
      return text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : undefined;
    case 'vec3': {
      const parts = text.split(',').map(parseDecimal);
      return parts.length === 3 && parts.every((p) => Number.isFinite(p)) ? parts : undefined;
    }
  }
}

/**
 * A rejected value as the error shows it: NaN, Infinity and -0 as themselves (JSON.stringify gives
 * null and 0), and no exception of its own for values JSON cannot write (a bigint, a cycle).
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value);
  if (Array.isArray(value)) return `[${value.map(describeValue).join(', ')}]`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? `${value}n` : String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return 'an object JSON cannot write';
  }
}
