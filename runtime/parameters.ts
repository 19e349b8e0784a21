import type { AnimGraphEventEmitter } from './events.ts';

export type ParameterType = 'float' | 'int' | 'bool' | 'vec3';
export type ParameterValue = number | boolean | readonly number[];

export interface ParameterDefinition {
  type: ParameterType;
  default?: ParameterValue;
}

/** How many float slots each parameter type takes in the value array. */
export const PARAMETER_WIDTH: Record<ParameterType, number> = { float: 1, int: 1, bool: 1, vec3: 3 };

/** Which parameter types may feed a property of a given type. */
export function parameterFits(property: ParameterType, parameter: ParameterType): boolean {
  return property === parameter || (property === 'float' && parameter === 'int');
}

/**
 * A graph instance's typed parameters, stored in one Float64Array (bools as 0 or 1, vec3 as three
 * slots). Nodes read them by slot, resolved when the instance is built, so reading a bound
 * property in the frame loop is one array load.
 */
export class Parameters {
  readonly values: Float64Array;
  private readonly slots = new Map<string, { slot: number; type: ParameterType }>();

  constructor(readonly definitions: Readonly<Record<string, ParameterDefinition>>, private readonly events?: AnimGraphEventEmitter) {
    let size = 0;
    for (const [name, def] of Object.entries(definitions)) {
      this.slots.set(name, { slot: size, type: def.type });
      size += PARAMETER_WIDTH[def.type];
    }
    this.values = new Float64Array(size);
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
   * Sets a parameter between frames. Throws a TypeError for an unknown name or a value of the wrong
   * type (this is user code's call, outside the frame loop). Emits parameterChanged when the value
   * changes.
   */
  set(name: string, value: ParameterValue): void {
    const previous = this.get(name);
    this.write(name, value);
    const now = this.get(name);
    const changed = Array.isArray(now)
      ? (now as number[]).some((x, i) => x !== (previous as number[])[i])
      : now !== previous;
    if (changed) this.events?.emit('parameterChanged', name, now, previous);
  }

  private require(name: string): { slot: number; type: ParameterType } {
    const entry = this.slots.get(name);
    if (!entry) throw new TypeError(`unknown parameter '${name}' (known: ${[...this.slots.keys()].join(', ') || 'none'})`);
    return entry;
  }

  private write(name: string, value: ParameterValue): void {
    const { slot, type } = this.require(name);
    const v = this.values;
    const fail = (): never => { throw new TypeError(`parameter '${name}' is ${type}; cannot set it to ${JSON.stringify(value)}`); };
    switch (type) {
      case 'float':
        if (typeof value !== 'number' || !Number.isFinite(value)) fail();
        v[slot] = value as number;
        break;
      case 'int':
        if (typeof value !== 'number' || !Number.isInteger(value)) fail();
        v[slot] = value as number;
        break;
      case 'bool':
        if (typeof value !== 'boolean') fail();
        v[slot] = value ? 1 : 0;
        break;
      case 'vec3':
        if (!Array.isArray(value) || value.length !== 3 || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) fail();
        v[slot] = (value as number[])[0];
        v[slot + 1] = (value as number[])[1];
        v[slot + 2] = (value as number[])[2];
        break;
    }
  }
}

/**
 * Parses a command-line value for a parameter of the given type: "1.5", "3", "true"/"false",
 * "x,y,z". Returns undefined when the text does not fit the type.
 */
export function parseParameterValue(type: ParameterType, text: string): ParameterValue | undefined {
  switch (type) {
    case 'float': {
      const n = Number(text);
      return text.trim() !== '' && Number.isFinite(n) ? n : undefined;
    }
    case 'int': {
      const n = Number(text);
      return text.trim() !== '' && Number.isInteger(n) ? n : undefined;
    }
    case 'bool':
      return text === 'true' || text === '1' ? true : text === 'false' || text === '0' ? false : undefined;
    case 'vec3': {
      const parts = text.split(',').map((p) => Number(p));
      return parts.length === 3 && parts.every((p) => Number.isFinite(p)) && !text.split(',').some((p) => p.trim() === '') ? parts : undefined;
    }
  }
}
