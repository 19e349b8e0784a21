// Immutable updates of JSON data: each returns new containers along the path and shares the rest.
import type { Json, JsonObject } from './types.ts';

export type Key = string | number;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `keys`, or undefined. Own keys only, so a node called 'toString' is not Object.prototype's. */
export function getIn(root: Json | undefined, keys: readonly Key[]): Json | undefined {
  let at: Json | undefined = root;
  for (const key of keys) {
    if (Array.isArray(at) && typeof key === 'number') at = at[key];
    else if (isObject(at) && typeof key === 'string' && Object.hasOwn(at, key)) at = at[key];
    else return undefined;
  }
  return at;
}

/**
 * `root` with the value at `keys` replaced (undefined removes it), creating objects on the way. An
 * existing key keeps its place; a new one is appended.
 */
export function setIn(root: Json | undefined, keys: readonly Key[], value: Json | undefined): Json {
  if (keys.length === 0) return value === undefined ? null : value;
  const [key, ...rest] = keys;
  if (Array.isArray(root) && typeof key === 'number') {
    const copy = root.slice();
    if (rest.length === 0 && value === undefined) copy.splice(key, 1);
    else copy[key] = setIn(root[key], rest, value);
    return copy;
  }
  const object: JsonObject = isObject(root) ? root : {};
  const name = String(key);
  if (rest.length === 0 && value === undefined) {
    if (!Object.hasOwn(object, name)) return object;
    const copy: JsonObject = {};
    for (const k of Object.keys(object)) if (k !== name) put(copy, k, object[k]);
    return copy;
  }
  const child = Object.hasOwn(object, name) ? object[name] : undefined;
  const next = setIn(child, rest, value);
  if (next === child) return object;
  return withKey(object, name, next);
}

/** Sets an own key, even one called '__proto__' (which an assignment would take for the prototype). */
export function put<T>(object: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A copy of `object` with `key` set, keeping key order (a plain assignment to '__proto__' would not make a key). */
export function withKey(object: JsonObject, key: string, value: Json): JsonObject {
  const copy: JsonObject = {};
  for (const k of Object.keys(object)) put(copy, k, k === key ? value : object[k]);
  if (!Object.hasOwn(object, key)) put(copy, key, value);
  return copy;
}

/**
 * A copy of `object` with `key` set (undefined: removed); a key it lacks goes where `order` (the
 * format's order of keys) puts it, before the first key ranked after it (keys `order` lacks rank last).
 */
export function withKeyInOrder(object: JsonObject, key: string, value: Json | undefined, order: readonly string[]): JsonObject {
  if (value === undefined || Object.hasOwn(object, key)) return setIn(object, [key], value) as JsonObject;
  const rank = (k: string): number => {
    const i = order.indexOf(k);
    return i < 0 ? order.length : i;
  };
  const out: JsonObject = {};
  let placed = false;
  for (const k of Object.keys(object)) {
    if (!placed && rank(k) > rank(key)) {
      put(out, key, value);
      placed = true;
    }
    put(out, k, object[k]);
  }
  if (!placed) put(out, key, value);
  return out;
}

/** A copy of `object` with key `from` renamed `to` in its place. */
export function renameKey(object: JsonObject, from: string, to: string): JsonObject {
  const copy: JsonObject = {};
  for (const k of Object.keys(object)) put(copy, k === from ? to : k, object[k]);
  return copy;
}

export function deepEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  const ka = Object.keys(a), kb = Object.keys(b as JsonObject);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], (b as JsonObject)[k]));
}

/** The keys of a JSON path as the loader writes it ('$.nodes.a.inputs.poses[1]', '$.nodes["a b"]'); undefined if it is not one. */
export function parseJsonPath(path: string): Key[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const keys: Key[] = [];
  let i = 1;
  while (i < path.length) {
    if (path[i] === '.') {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(path.slice(i + 1));
      if (!m) return undefined;
      keys.push(m[0]);
      i += 1 + m[0].length;
    } else if (path[i] === '[') {
      const number = /^\[(\d+)\]/.exec(path.slice(i));
      if (number) {
        keys.push(Number(number[1]));
        i += number[0].length;
        continue;
      }
      const string = /^\["(?:[^"\\]|\\.)*"\]/.exec(path.slice(i));
      if (!string) return undefined;
      keys.push(JSON.parse(string[0].slice(1, -1)) as string);
      i += string[0].length;
    } else return undefined;
  }
  return keys;
}
