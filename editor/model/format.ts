// The asset as JSON text the way its author writes it, keeping the original text of what is unchanged.
import { clipSchema, graphEnvelopeSchema, nodeEnvelopeSchema } from '../../graphs/schema.ts';
import { transitionSchema } from '../../nodes/StateMachine.ts';
import { DEFAULT_REGISTRY } from '../../graphs/loader/registry.ts';
import { deepEqual, isObject } from './json.ts';
import type { Json, JsonObject } from './types.ts';

/** A line longer than this puts a new or changed one-line value on several lines. */
export const MAX_LINE = 160;

/** Containers written one entry a line even when short, as the examples write them. */
const ALWAYS_MULTILINE = new Set(['clips', 'parameters', 'nodes', 'blendProfiles', 'helperBones', 'states', 'transitions', 'positions']);

/** A value parsed from the original text: where it is, and its parts. */
interface Parsed {
  value: Json;
  start: number;
  end: number;
  multiline: boolean;
  keys?: string[];
  fields?: Map<string, Parsed>;
  items?: Parsed[];
}

interface Style {
  text: string;
  unit: string;
  eol: string;
}

/**
 * The file as the user would have written it: `unit` indentation (two spaces, or the original's),
 * keys in the order the file had them (a new key in the schema's order: a node's `type`,
 * `properties`, `inputs`; a type's properties in its spec's order), unknown keys kept, a line end
 * at the end. Given the original text, every value equal to the original's at the same path keeps
 * its original text exactly, so an unchanged asset saves byte for byte and an edit changes only
 * the lines it touches. A new or changed value goes on one line when the original had it on one
 * line (or, when new, unless it is a list of clips, parameters, nodes, states, transitions...) and
 * the line fits in MAX_LINE characters.
 */
export function formatAsset(asset: JsonObject, originalText?: string): string {
  let parsed: Parsed | undefined;
  if (originalText !== undefined) {
    try {
      parsed = new Parser(originalText).document();
    } catch {
      parsed = undefined; // not JSON: written afresh
    }
  }
  if (parsed && originalText !== undefined && deepEqual(asset, parsed.value)) return originalText;
  const style: Style = {
    text: originalText ?? '',
    unit: (originalText !== undefined ? /^([ \t]+)\S/m.exec(originalText)?.[1] : undefined) ?? '  ',
    eol: originalText?.includes('\r\n') ? '\r\n' : '\n',
  };
  return write(asset, parsed, style, { indent: '', column: 0, key: undefined, parent: undefined, grand: undefined, root: true }) + style.eol;
}

interface Place {
  indent: string;
  /** Characters on the line before the value. */
  column: number;
  /** The key (or index) the value has in its parent. */
  key: string | number | undefined;
  parent: Json | undefined;
  grand: string | number | undefined;
  root: boolean;
}

function write(value: Json, orig: Parsed | undefined, style: Style, place: Place): string {
  if (orig && deepEqual(value, orig.value)) return style.text.slice(orig.start, orig.end);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const isArray = Array.isArray(value);
  const sameKind = orig !== undefined && (isArray ? orig.items !== undefined : orig.fields !== undefined);
  const entries = isArray ? value.map((v, i) => [i, v] as const) : orderedKeys(value, sameKind ? orig!.keys! : undefined, place).map((k) => [k, value[k]] as const);
  if (entries.length === 0) return isArray ? '[]' : '{}';
  const child = (key: string | number): Parsed | undefined => (sameKind ? (typeof key === 'number' ? orig!.items![key] : orig!.fields!.get(key)) : undefined);
  let multiline: boolean;
  if (place.root) multiline = true;
  else if (sameKind && orig!.multiline) multiline = true;
  else if (!sameKind && forcedMultiline(value, place.key)) multiline = true;
  else multiline = place.column + oneLine(value, orig, style, place).length > MAX_LINE;
  if (!multiline) return oneLine(value, orig, style, place);
  const inner = place.indent + style.unit;
  const lines = entries.map(([key, v]) => {
    const head = typeof key === 'number' ? '' : `${JSON.stringify(key)}: `;
    const text = write(v, child(key), style, { indent: inner, column: inner.length + head.length, key, parent: value, grand: place.key, root: false });
    return inner + head + text;
  });
  return `${isArray ? '[' : '{'}${style.eol}${lines.join(`,${style.eol}`)}${style.eol}${place.indent}${isArray ? ']' : '}'}`;
}

/** A value on one line, `{ "a": 1, "b": [1, 2] }`, reusing the original text of unchanged one-line parts. */
function oneLine(value: Json, orig: Parsed | undefined, style: Style, place: Place): string {
  if (orig && !orig.multiline && deepEqual(value, orig.value)) return style.text.slice(orig.start, orig.end);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const at = (key: string | number): Place => ({ indent: '', column: 0, key, parent: value, grand: place.key, root: false });
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = orig?.items;
    return `[${value.map((v, i) => oneLine(v, items?.[i], style, at(i))).join(', ')}]`;
  }
  const keys = orderedKeys(value, orig?.fields ? orig.keys : undefined, place);
  if (keys.length === 0) return '{}';
  return `{ ${keys.map((k) => `${JSON.stringify(k)}: ${oneLine(value[k], orig?.fields?.get(k), style, at(k))}`).join(', ')} }`;
}

/** Whether a new value is written one entry a line: a list of clips, nodes, states... or anything holding one. */
function forcedMultiline(value: Json, key: string | number | undefined): boolean {
  if (value === null || typeof value !== 'object') return false;
  const entries = Array.isArray(value) ? value : Object.values(value);
  if (entries.length === 0) return false;
  if (typeof key === 'string' && ALWAYS_MULTILINE.has(key)) return true;
  return Array.isArray(value) ? false : Object.entries(value).some(([k, v]) => forcedMultiline(v, k));
}

/** The object's keys: those the original had in its order, then each new one where the schema's order puts it. */
function orderedKeys(value: JsonObject, original: readonly string[] | undefined, place: Place): string[] {
  const keys = Object.keys(value);
  if (original === undefined) return keys;
  const out = original.filter((k) => Object.hasOwn(value, k));
  const added = keys.filter((k) => !original.includes(k));
  if (added.length === 0) return out;
  const order = schemaOrder(value, place);
  const rank = (k: string) => {
    const i = order.indexOf(k);
    return i < 0 ? Number.POSITIVE_INFINITY : i;
  };
  for (const k of [...added].sort((a, b) => rank(a) - rank(b))) {
    const r = rank(k);
    const before = out.findIndex((e) => rank(e) > r && rank(e) !== Number.POSITIVE_INFINITY);
    if (before < 0 || r === Number.POSITIVE_INFINITY) out.push(k);
    else out.splice(before, 0, k);
  }
  return out;
}

const ENVELOPE_KEYS = Object.keys(graphEnvelopeSchema.shape);
const NODE_KEYS = Object.keys(nodeEnvelopeSchema.shape);
const CLIP_KEYS = Object.keys(clipSchema.shape);
const PARAMETER_KEYS = ['type', 'default', 'description'];
const TRANSITION_KEYS = Object.keys(transitionSchema.shape);

/** The schema's key order for an object at `place` (empty when unknown). */
function schemaOrder(value: JsonObject, place: Place): readonly string[] {
  if (place.root) return ENVELOPE_KEYS;
  if (place.grand === 'nodes' && typeof value.type === 'string') return NODE_KEYS;
  if (place.key === 'properties' && isObject(place.parent) && typeof place.parent.type === 'string') {
    const type = DEFAULT_REGISTRY.get(place.parent.type);
    return type ? Object.keys(type.properties) : [];
  }
  if (place.grand === 'clips') return CLIP_KEYS;
  if (place.grand === 'parameters') return PARAMETER_KEYS;
  if (place.grand === 'transitions') return TRANSITION_KEYS;
  if (place.grand === 'states') return ['nodes', 'output', 'conduit', 'editor'];
  return [];
}

// Sticky: matched where the parser stands, without copying the rest of the text.
const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/** JSON with the place of every value (the last of repeated keys wins, as JSON.parse has it). */
class Parser {
  private i = 0;
  constructor(private readonly text: string) {}

  document(): Parsed {
    const value = this.value();
    this.space();
    if (this.i !== this.text.length) throw new Error('trailing text');
    return value;
  }

  private space(): void {
    while (this.i < this.text.length && ' \t\r\n'.includes(this.text[this.i])) this.i++;
  }

  private value(): Parsed {
    this.space();
    const start = this.i;
    const c = this.text[this.i];
    if (c === '{') {
      this.i++;
      const fields = new Map<string, Parsed>();
      const keys: string[] = [];
      const value: JsonObject = {};
      this.space();
      if (this.text[this.i] === '}') this.i++;
      else {
        for (;;) {
          this.space();
          const key = this.string();
          this.space();
          this.expect(':');
          const v = this.value();
          if (!fields.has(key)) keys.push(key);
          fields.set(key, v);
          Object.defineProperty(value, key, { value: v.value, enumerable: true, writable: true, configurable: true });
          this.space();
          if (this.text[this.i] === ',') this.i++;
          else {
            this.expect('}');
            break;
          }
        }
      }
      return { value, start, end: this.i, multiline: this.text.slice(start, this.i).includes('\n'), keys, fields };
    }
    if (c === '[') {
      this.i++;
      const items: Parsed[] = [];
      this.space();
      if (this.text[this.i] === ']') this.i++;
      else {
        for (;;) {
          items.push(this.value());
          this.space();
          if (this.text[this.i] === ',') this.i++;
          else {
            this.expect(']');
            break;
          }
        }
      }
      return { value: items.map((p) => p.value), start, end: this.i, multiline: this.text.slice(start, this.i).includes('\n'), items };
    }
    if (c === '"') {
      const value = this.string();
      return { value, start, end: this.i, multiline: false };
    }
    LITERAL.lastIndex = this.i;
    const m = LITERAL.exec(this.text);
    if (!m) throw new Error(`unexpected ${JSON.stringify(c)} at ${this.i}`);
    this.i += m[0].length;
    return { value: JSON.parse(m[0]) as Json, start, end: this.i, multiline: false };
  }

  private string(): string {
    STRING.lastIndex = this.i;
    const m = STRING.exec(this.text);
    if (!m) throw new Error(`expected a string at ${this.i}`);
    this.i += m[0].length;
    return JSON.parse(m[0]) as string;
  }

  private expect(c: string): void {
    if (this.text[this.i] !== c) throw new Error(`expected ${c} at ${this.i}`);
    this.i++;
  }
}
