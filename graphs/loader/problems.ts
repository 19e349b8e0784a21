import type { z } from 'zod';
import { jsonPath, nameList } from '../../runtime/core/names.ts';
import { AnimGraphError } from '../../runtime/core/errors.ts';

export { jsonPath };

export type ProblemCode =
  | 'schema' | 'unknown-node-type' | 'missing-link' | 'dangling-link' | 'unknown-input' | 'shared-link' | 'cycle'
  | 'space-mismatch' | 'unknown-parameter' | 'parameter-type' | 'unknown-bone' | 'unknown-clip' | 'clip-file'
  | 'clip-frames' | 'bvh' | 'skeleton' | 'file' | 'no-inertialization' | 'stale-index' | 'no-root-motion'
  | 'gltf' | 'unknown-skin' | 'unknown-animation' | 'empty-animation' | 'not-bindable' | 'too-deep'
  | 'not-additive' | 'duplicate-sample' | 'collinear-samples'
  | 'not-linkable' | 'wrong-node-type'
  | 'notify-time' | 'curve-keys'
  | 'unknown-state'
  | 'unknown-slot' | 'unknown-section' | 'section-time'
  | 'unknown-blend-profile' | 'blend-profile-mode'
  | 'value-range' | 'duplicate-key'
  | 'node-type-failed'
  | 'too-large'
  | 'unknown-curve' | 'curve-type';

/** One problem with a graph asset: where (a JSON path such as `$.nodes.blend.inputs.A`), what and why. */
export interface GraphProblem {
  path: string;
  code: ProblemCode;
  message: string;
}

/**
 * Every problem found in a graph asset, reported at once: code `load-failed`, and each of the
 * `problems` with its own code and JSON path.
 */
export class GraphLoadError extends AnimGraphError {
  constructor(readonly source: string, readonly problems: readonly GraphProblem[]) {
    super('load-failed', `${source}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n${problems.map((p) => `  ${shortJsonPath(p.path)}: ${p.message}`).join('\n')}`);
    this.name = 'GraphLoadError';
  }
}


/** The longest JSON path shortJsonPath shows whole. */
const SHOWN_PATH_LENGTH = 160;

/**
 * A JSON path as shown in a message: whole when it is short, else its start and its end around a
 * count of the characters cut, at key boundaries (`$.nodes.sm.properties.states.s.nodes.sm…(4,870
 * characters cut)….states.s.nodes`): a value too deep is 1,000 keys down, and its full path, some
 * 5,000 characters, is kept in the problem's `path` for tools, not printed in every message.
 */
export function shortJsonPath(path: string): string {
  if (path.length <= SHOWN_PATH_LENGTH) return path;
  const boundary = /[.[]/g;
  let head = 0, tail = path.length;
  for (let m = boundary.exec(path); m !== null; m = boundary.exec(path)) {
    if (m.index <= 90) head = m.index;
    else if (m.index >= path.length - 60) {
      tail = m.index;
      break;
    }
  }
  if (head === 0) head = 90;
  if (tail === path.length) tail = path.length - 60;
  return `${path.slice(0, head)}…(${(tail - head).toLocaleString('en-US')} characters cut)…${path.slice(tail)}`;
}

/**
 * The most problems a check reports. An asset can hold a problem per value, and a value 1,000 keys
 * deep has a path of some 5,000 characters: 10,000 keys repeated that deep took 7 s and 700 MB to
 * report, 400,000 of them (a 2.4 MB text) ran out of memory. Past this many, the rest are counted
 * in one last problem (`too-large`, at `$`).
 */
export const MAX_PROBLEMS = 1000;

/** The problem that stands for `count` more problems than MAX_PROBLEMS, not listed. */
export function moreProblems(count: number): GraphProblem {
  return {
    path: '$', code: 'too-large',
    message: `${count > 0 ? `${count.toLocaleString('en-US')} more problem${count === 1 ? '' : 's'}` : 'more problems'} not listed: a check reports at most ${MAX_PROBLEMS.toLocaleString('en-US')} (MAX_PROBLEMS)`,
  };
}

/** The problems a check finds: the first MAX_PROBLEMS, and a count of the rest. */
export class Problems {
  private readonly kept: GraphProblem[] = [];
  private dropped = 0;

  /** Whether no more problems are kept (so a caller can skip building their paths). */
  get full(): boolean {
    return this.kept.length >= MAX_PROBLEMS;
  }

  /** How many problems were added, kept or not. */
  get count(): number {
    return this.kept.length + this.dropped;
  }

  /** The problems kept, then one counting those that were not. */
  get list(): readonly GraphProblem[] {
    return this.dropped === 0 ? this.kept : [...this.kept, moreProblems(this.dropped)];
  }

  add(keys: readonly PropertyKey[], code: ProblemCode, message: string): void {
    if (this.full) this.dropped++;
    else this.kept.push({ path: jsonPath(keys), code, message });
  }

  /** Adds a problem already made (a sub-graph's, its path moved inside the asset). */
  push(problem: GraphProblem): void {
    if (this.full) this.dropped++;
    else this.kept.push(problem);
  }
  /** Reports zod's issues for `input`, the value parsed at `prefix`. */
  addZod(prefix: readonly PropertyKey[], error: z.ZodError, input: unknown): void {
    const seen = new Set<string>();
    for (const issue of error.issues) {
      // Reported once, at the key itself, by checkAssetData.
      if (issue.code === 'unrecognized_keys' && issue.keys.every((k) => k === '__proto__')) continue;
      // JSON.parse turns a number beyond the float range (1e400) into ±Infinity, which zod reports
      // as a bare "Invalid input" when the value may also be a binding: name the number instead.
      const value = valueAt(input, issue.path);
      const inner = nonFinitePath(value);
      const keys = inner ? [...prefix, ...issue.path, ...inner] : [...prefix, ...issue.path];
      // A binding where the schema takes only a literal: a property its node reads once (bindable: false).
      const refused = !inner && issue.code === 'invalid_type' && isBinding(value);
      const message = inner ? 'not a finite number (a JSON number beyond ±1.8e308 reads as Infinity)'
        : refused ? `cannot be bound to a ${Object.hasOwn(value as object, 'curve') ? 'curve' : 'parameter'} (the node reads it once, when it is built): give a literal (${issue.message})`
          : issue.code === 'unrecognized_keys' && issue.message.startsWith('Unrecognized key') ? unrecognizedKeys(issue.keys)
            : issue.message;
      const key = `${jsonPath(keys)}\n${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.add(keys, refused ? 'not-bindable' : 'schema', message);
    }
  }
}

/** zod's message for keys a strict object does not take, with the keys shortened and counted past 20 as any name a message echoes. */
function unrecognizedKeys(keys: readonly string[]): string {
  return `Unrecognized key${keys.length === 1 ? '' : 's'}: ${nameList(keys, 'none', (k) => `"${k}"`)}`;
}

/** Whether a value is written as a binding, `{ "param": "name" }` or `{ "curve": "name" }`. */
function isBinding(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 1
    && (typeof (value as { param?: unknown }).param === 'string' || typeof (value as { curve?: unknown }).curve === 'string');
}

function valueAt(value: unknown, keys: readonly PropertyKey[]): unknown {
  let at = value;
  for (const key of keys) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/**
 * The most nodes a graph may have, counting the nodes of every state machine's states (every
 * instance builds them all): ten times the largest graphs in use. The count is taken before any
 * node is checked, and an asset over it is refused at `$.nodes` (`too-large`) with nothing else
 * checked. Checking and building are linear in the nodes: 50,000 take a few seconds.
 */
export const MAX_GRAPH_NODES = 50_000;

/**
 * The most levels of objects and arrays inside each other an asset may have: a value may lie at
 * most this many keys below the asset (`$.a.b` is 2). Checked first, by a walk without recursion,
 * since the schema and the checks after it recurse per level (state machines nested 1,150 deep
 * overflowed the stack in zod). Graphs need far fewer: a machine nested in a state of another
 * takes 5 levels, so 199 machines fit, and checking a machine costs time in proportion to how
 * deeply it is nested.
 */
export const MAX_ASSET_DEPTH = 1000;

/**
 * The most values an asset may hold, counting an object once per place it appears, as its JSON
 * text would (about 10 MB of JSON). An asset given as a JavaScript object may share one object
 * between places, which JSON text cannot: the checks after this walk read the asset as a tree, so
 * their work grows with this count, and 30 levels each sharing the next twice are 2^30 values.
 */
export const MAX_ASSET_VALUES = 1_000_000;

/**
 * Checks that the asset is JSON data the other checks can read, and reports every `__proto__` key
 * in it. JSON.parse makes `__proto__` an ordinary own key, but JavaScript objects built from it
 * (zod's records, spreads, `obj[name] = …`) drop it or change their prototype instead, so a clip,
 * parameter or node of that name would vanish silently; it is refused by name instead.
 *
 * A value more than MAX_ASSET_DEPTH keys deep is reported (`too-deep`) at the first one in the
 * asset's order, and nothing more is checked.
 *
 * An asset given as a JavaScript object may hold an object inside itself, reported where it is met
 * again, or share objects between places. The walk is iterative (an asset may nest arbitrarily
 * deep) and goes through each object once, so that sharing costs nothing here. Returns false when
 * the asset refers to itself or holds more than MAX_ASSET_VALUES values: every later check walks
 * it as a tree, which would never end, or take exponential time.
 */
export function checkAssetData(json: unknown, problems: Problems): boolean {
  // Each entry keeps its parent's entry and its key; a path is built only for a key reported.
  type Entry = { value: unknown; key: PropertyKey; parent: Entry | null; depth: number };
  const keysOf = (entry: Entry): PropertyKey[] => {
    const keys: PropertyKey[] = [];
    for (let e: Entry | null = entry; e !== null && e.parent !== null; e = e.parent) keys.push(e.key);
    return keys.reverse();
  };
  // An object is on the path being walked from its entry until its CLOSE is popped; then its count
  // of values (itself and everything in it, as JSON would write them) is known.
  const open = new Set<object>();
  const counted = new Map<object, number>();
  const closing: object[] = [];
  const CLOSE = Symbol('close');
  const stack: (Entry | typeof CLOSE)[] = [{ value: json, key: '', parent: null, depth: 0 }];
  let cyclic = false;
  // Counts of the objects on the path, added to as their contents are closed; [0] is the asset's.
  const counts: number[] = [0];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if (entry === CLOSE) {
      const value = closing.pop()!;
      const n = counts.pop()!;
      open.delete(value);
      counted.set(value, n);
      counts[counts.length - 1] = Math.min(counts[counts.length - 1] + n, MAX_ASSET_VALUES + 1);
      continue;
    }
    if (entry.depth > MAX_ASSET_DEPTH) {
      problems.add(keysOf(entry), 'too-deep', `nests objects and arrays more than ${MAX_ASSET_DEPTH.toLocaleString('en-US')} levels deep (MAX_ASSET_DEPTH); this value is level ${entry.depth.toLocaleString('en-US')}, and nothing more is checked`);
      return false;
    }
    const value = entry.value;
    if (typeof value !== 'object' || value === null) {
      counts[counts.length - 1]++;
      continue;
    }
    if (open.has(value)) {
      cyclic = true;
      if (problems.full) problems.add([], 'schema', '');
      else problems.add(keysOf(entry), 'schema', 'refers to an object that contains it (a reference cycle: not JSON data)');
      continue;
    }
    const known = counted.get(value);
    if (known !== undefined) {
      counts[counts.length - 1] = Math.min(counts[counts.length - 1] + known, MAX_ASSET_VALUES + 1);
      continue;
    }
    open.add(value);
    closing.push(value);
    counts.push(1);
    stack.push(CLOSE);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: i, parent: entry, depth: entry.depth + 1 });
      continue;
    }
    // Pushed last to first, so that what is reported within comes in the asset's order.
    const keys = Object.keys(value);
    for (const key of keys) {
      if (key !== '__proto__') continue;
      if (problems.full) problems.add([], 'schema', '');
      else problems.add([...keysOf(entry), key], 'schema', `'__proto__' cannot be a name or key in an asset (JavaScript objects treat it specially): rename it`);
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      if (keys[i] !== '__proto__') stack.push({ value: (value as Record<string, unknown>)[keys[i]], key: keys[i], parent: entry, depth: entry.depth + 1 });
    }
  }
  if (cyclic) return false;
  if (counts[0] > MAX_ASSET_VALUES) {
    problems.add([], 'schema', `the asset holds more than ${MAX_ASSET_VALUES.toLocaleString('en-US')} values (MAX_ASSET_VALUES), counting a shared object once per place it appears, as its JSON text would`);
    return false;
  }
  return true;
}

/**
 * The keys leading to the first non-finite number inside `value` ([] for the value itself), or
 * undefined. Iterative, depth first in key order, and no deeper than 16 levels: a malformed value
 * may nest arbitrarily deep, and a path of thousands of keys names nothing useful.
 */
function nonFinitePath(value: unknown): PropertyKey[] | undefined {
  type Entry = { value: unknown; key: PropertyKey; parent: Entry | null; depth: number };
  const stack: Entry[] = [{ value, key: '', parent: null, depth: 0 }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const v = entry.value;
    if (typeof v === 'number') {
      if (Number.isFinite(v)) continue;
      const keys: PropertyKey[] = [];
      for (let e: Entry | null = entry; e !== null && e.parent !== null; e = e.parent) keys.push(e.key);
      return keys.reverse();
    }
    if (typeof v !== 'object' || v === null || entry.depth >= 16) continue;
    const items = Array.isArray(v) ? [...v.entries()] : Object.entries(v);
    for (let i = items.length - 1; i >= 0; i--) stack.push({ value: items[i][1], key: items[i][0], parent: entry, depth: entry.depth + 1 });
  }
  return undefined;
}
