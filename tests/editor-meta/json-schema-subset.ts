/**
 * A deliberately small JSON Schema (2020-12) validator for the tests: ajv is not a dependency of
 * this project and the tests must not add one. It covers the keywords the generated graph schema
 * uses and throws on any other keyword, so a constraint it does not understand can never be
 * skipped silently (which would let an invalid graph "pass").
 */
export type Schema = boolean | { [keyword: string]: unknown };

const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', 'default', '$comment', 'examples']);
const ASSERTIONS = new Set([
  'type', 'const', 'enum', 'anyOf', 'oneOf', 'allOf', 'not',
  'properties', 'required', 'additionalProperties', 'propertyNames',
  'items', 'prefixItems', 'minItems', 'maxItems',
  'pattern', 'minLength', 'maxLength',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
]);

export function validate(schema: Schema, value: unknown, path = '$'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${path}: not allowed`];
  for (const keyword of Object.keys(schema)) {
    if (!ANNOTATIONS.has(keyword) && !ASSERTIONS.has(keyword)) throw new Error(`json-schema-subset: unsupported keyword '${keyword}' at ${path}`);
  }
  const s = schema as Record<string, any>;
  const errors: string[] = [];
  const fail = (message: string) => errors.push(`${path}: ${message}`);

  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => hasType(value, t))) {
      fail(`expected ${types.join(' | ')}`);
      return errors; // the remaining keywords would only repeat the mismatch
    }
  }
  if ('const' in s && !deepEqual(value, s.const)) fail(`expected ${JSON.stringify(s.const)}`);
  if (s.enum !== undefined && !(s.enum as unknown[]).some((e) => deepEqual(value, e))) fail(`expected one of ${JSON.stringify(s.enum)}`);
  if (s.allOf !== undefined) for (const sub of s.allOf as Schema[]) errors.push(...validate(sub, value, path));
  if (s.anyOf !== undefined && !(s.anyOf as Schema[]).some((sub) => validate(sub, value, path).length === 0)) {
    fail(`matches none of anyOf (${(s.anyOf as Schema[]).map((sub) => validate(sub, value, path).join('; ')).join(' | ')})`);
  }
  if (s.oneOf !== undefined) {
    const results = (s.oneOf as Schema[]).map((sub) => validate(sub, value, path));
    const matches = results.filter((r) => r.length === 0).length;
    if (matches !== 1) fail(`matches ${matches} of oneOf, not exactly 1 (${results.map((r) => r.join('; ')).join(' | ')})`);
  }
  if (s.not !== undefined && validate(s.not as Schema, value, path).length === 0) fail('matches `not`');

  if (isObject(value)) {
    const props = (s.properties ?? {}) as Record<string, Schema>;
    for (const key of (s.required ?? []) as string[]) if (!(key in value)) fail(`missing required '${key}'`);
    for (const [key, v] of Object.entries(value)) {
      if (s.propertyNames !== undefined) errors.push(...validate(s.propertyNames as Schema, key, `${path}.${key} (name)`));
      if (key in props) errors.push(...validate(props[key], v, `${path}.${key}`));
      else if (s.additionalProperties !== undefined) errors.push(...validate(s.additionalProperties as Schema, v, `${path}.${key}`));
    }
  }
  if (Array.isArray(value)) {
    const prefix = (s.prefixItems ?? []) as Schema[];
    value.forEach((item, i) => {
      if (i < prefix.length) errors.push(...validate(prefix[i], item, `${path}[${i}]`));
      else if (s.items !== undefined) errors.push(...validate(s.items as Schema, item, `${path}[${i}]`));
    });
    if (s.minItems !== undefined && value.length < s.minItems) fail(`fewer than ${s.minItems} items`);
    if (s.maxItems !== undefined && value.length > s.maxItems) fail(`more than ${s.maxItems} items`);
  }
  if (typeof value === 'string') {
    if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(value)) fail(`does not match ${s.pattern}`);
    const length = [...value].length;
    if (s.minLength !== undefined && length < s.minLength) fail(`shorter than ${s.minLength}`);
    if (s.maxLength !== undefined && length > s.maxLength) fail(`longer than ${s.maxLength}`);
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) fail(`below minimum ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) fail(`above maximum ${s.maximum}`);
    if (s.exclusiveMinimum !== undefined && value <= s.exclusiveMinimum) fail(`not above ${s.exclusiveMinimum}`);
    if (s.exclusiveMaximum !== undefined && value >= s.exclusiveMaximum) fail(`not below ${s.exclusiveMaximum}`);
  }
  return errors;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object': return isObject(value);
    case 'array': return Array.isArray(value);
    case 'string': return typeof value === 'string';
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'integer': return typeof value === 'number' && Number.isInteger(value);
    case 'boolean': return typeof value === 'boolean';
    case 'null': return value === null;
    default: throw new Error(`json-schema-subset: unknown type '${type}'`);
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}
