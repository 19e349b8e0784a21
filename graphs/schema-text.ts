// Messages for values that match none of a union's shapes. zod says "Invalid input" for them, or,
// when one shape got further than the others, names a key that shape does not take ("Unrecognized
// key: start" for a notify written with both `time` and `start`): neither says what is accepted.
// Here a union's message lists its shapes, read from the schema itself, so that every union of
// the asset format (and of node properties) is described the same way without a text of its own.
import type * as z from 'zod';
import { nameList } from '../runtime/core/names.ts';
import { unlazy } from '../runtime/core/lazy.ts';

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

const NOUNS = new WeakMap<object, string>();

/**
 * `schema`, named `noun` where a message lists the shapes a value may take (`{"bvh": path}`, "a
 * node id"); others are named by their type. Name the instance that is used: `.describe()` and
 * the like return a new one.
 */
export function named<T extends z.ZodType>(schema: T, noun: string): T {
  NOUNS.set(schema, noun);
  return schema;
}

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nonoptional', 'readonly', 'catch']);

function unwrap(schema: unknown): unknown {
  let s = schema;
  for (;;) {
    if (NOUNS.has(unlazy(s) as object)) return s;
    const def = defOf(s);
    if (WRAPPERS.has(def.type)) s = def.innerType;
    else if (def.type === 'pipe') s = def.in;
    else return s;
  }
}

const isInteger = (def: Def) => ((def.checks ?? []) as { _zod: { def: { check: string } } }[]).some((c) => c._zod.def.check === 'number_format');
const json = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v));

/** How a value of `schema` is written inside a shape: `string`, `[number, number]`, `{"param": name}`. */
function word(schema: unknown): string {
  const s = unwrap(schema);
  const noun = NOUNS.get(unlazy(s) as object);
  if (noun !== undefined) return noun;
  const def = defOf(s);
  switch (def.type) {
    case 'literal': return json(def.values as unknown[]).join(' | ');
    case 'enum': return json(Object.values(def.entries as object)).join(' | ');
    case 'boolean': return 'true | false';
    case 'number': return isInteger(def) ? 'integer' : 'number';
    case 'string': return 'string';
    case 'null': return 'null';
    case 'nullable': return `${word(def.innerType)} | null`;
    case 'array': return `[${word(def.element)}, …]`;
    case 'tuple': return `[${(def.items as unknown[]).map(word).join(', ')}]`;
    case 'union': return (def.options as unknown[]).map(word).join(' | ');
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      const optional = (v: unknown) => (v as { _zod: { optin?: string } })._zod.optin !== undefined;
      return `{${Object.entries(shape).map(([k, v]) => `${JSON.stringify(k)}${optional(v) ? '?' : ''}: ${word(v)}`).join(', ')}}`;
    }
    case 'record': return '{…}';
    default: return '…';
  }
}

/** The shapes a value of `schema` may take, each as a message names it: "a number", `{"param": name}`. */
function alternatives(schema: unknown): string[] {
  const s = unwrap(schema);
  const noun = NOUNS.get(unlazy(s) as object);
  if (noun !== undefined) return [`${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}`];
  const def = defOf(s);
  switch (def.type) {
    case 'union': return (def.options as unknown[]).flatMap(alternatives);
    case 'literal': return json(def.values as unknown[]);
    case 'enum': return json(Object.values(def.entries as object));
    case 'boolean': return ['true', 'false'];
    case 'number': return [isInteger(def) ? 'an integer' : 'a number'];
    case 'string': return ['a string'];
    case 'array': {
      const item = word(def.element);
      return [/^[a-z ]+$/.test(item) ? `a list of ${item}s` : `a list of ${item}`];
    }
    default: return [word(s)];
  }
}

/** "expected A, B or C": what a value of `schema` (a union) may be. */
export function acceptedShapes(schema: z.ZodType): string {
  const list = [...new Set(alternatives(schema))];
  return `expected ${list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list.at(-1)}` : list[0]}`;
}

/** Each object that is one of a union's shapes, with the union: an unexpected key there is the union's problem. */
const UNION_OF = new WeakMap<object, z.ZodType>();
const WALKED = new WeakSet<object>();

/** Records the unions within `root` (iteratively: schemas nest, and may share parts). */
function findUnions(root: unknown): void {
  const stack = [root];
  while (stack.length > 0) {
    const s = stack.pop() as object;
    if (WALKED.has(s)) continue;
    WALKED.add(s);
    const def = defOf(s);
    const children: unknown[] = [];
    switch (def.type) {
      case 'object': children.push(...Object.values(def.shape as object), def.catchall); break;
      case 'array': children.push(def.element); break;
      case 'record': children.push(def.valueType); break;
      case 'tuple': children.push(...(def.items as unknown[]), def.rest); break;
      case 'pipe': children.push(def.in, def.out); break;
      case 'intersection': children.push(def.left, def.right); break;
      case 'union':
        for (const option of def.options as object[]) if (!UNION_OF.has(option)) UNION_OF.set(option, s as z.ZodType);
        children.push(...(def.options as unknown[]));
        break;
      default: if (def.innerType !== undefined) children.push(def.innerType);
    }
    for (const child of children) if (child !== undefined && child !== null) stack.push(child);
  }
}

type RawIssue = { code: string; inst?: unknown; keys?: string[]; discriminator?: unknown };

function unionMessage(issue: RawIssue): string | undefined {
  // A discriminated union's unknown tag is reported at the tag, with the tags zod lists.
  if (issue.code === 'invalid_union' && issue.inst !== undefined && issue.discriminator === undefined) return acceptedShapes(issue.inst as z.ZodType);
  if (issue.code === 'unrecognized_keys' && issue.inst !== undefined) {
    const union = UNION_OF.get(issue.inst as object);
    const keys = issue.keys ?? [];
    if (union) return `unexpected key${keys.length === 1 ? '' : 's'} ${nameList(keys, 'none', (k) => `"${k}"`)}: ${acceptedShapes(union)}`;
  }
  return undefined;
}

/** Options for `root.safeParse` under which every union within `root` says what it accepts. */
export function parseOptions(root: z.ZodType): { error: (issue: RawIssue) => string | undefined } {
  findUnions(root);
  return PARSE_OPTIONS;
}
const PARSE_OPTIONS = { error: unionMessage };
