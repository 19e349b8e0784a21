import { BLEND_PROFILE_MODES } from '../core/blend-profile.ts';
import { AnimGraphError } from '../core/errors.ts';
import { jsonPath } from '../core/names.ts';
import type { PropertySpec } from './property-spec.ts';
import { isLazy } from '../core/lazy.ts';

/*
 * What can be wrong with a node type: its spec (NodeTypeError, found by checkNodeType when the type
 * is defined or registered), the problems its own checks report (NODE_PROBLEM_CODES), and its code
 * failing on a node of a graph (NodeBuildError, NodePrepareError).
 */

/** The codes a node type reports problems with from `check` or `prepare` (a subset of the loader's ProblemCode). */
export const NODE_PROBLEM_CODES = [
  'schema', 'unknown-bone', 'unknown-clip', 'file', 'stale-index', 'duplicate-sample', 'collinear-samples', 'value-range',
  'unknown-parameter', 'parameter-type', 'unknown-blend-profile', 'blend-profile-mode', 'unknown-state', 'too-deep', 'too-large',
  'not-additive', 'space-mismatch',
] as const;

/** Codes of the problems a node type reports from `check` or `prepare` (NODE_PROBLEM_CODES). */
export type NodeProblemCode = (typeof NODE_PROBLEM_CODES)[number];

/**
 * Throws an AnimGraphError (`invalid-argument`) for a code a node type's `check` or `prepare`
 * reported that is not one of NODE_PROBLEM_CODES: the loader's callers sort problems by code, and an
 * unknown one passed as valid.
 */
export function checkProblemCode(code: unknown, path: readonly PropertyKey[]): void {
  if (!(NODE_PROBLEM_CODES as readonly unknown[]).includes(code)) {
    throw new AnimGraphError('invalid-argument', `report(${JSON.stringify(path.map(String))}, ${JSON.stringify(code) ?? String(code)}, …): not a problem code a node reports (${NODE_PROBLEM_CODES.join(', ')})`);
  }
}

/** A problem found by a node type, at a path below the node's `properties` block. */
export interface NodeProblem {
  nodeId: string;
  /** Keys below `properties`, e.g. ['features', 'positions', 'bones', 1]. */
  path: readonly PropertyKey[];
  code: NodeProblemCode;
  message: string;
}

/**
 * Thrown when binding a graph whose nodes' `prepare` reported problems (`problems`) or threw
 * (`failures`, one per node); the loader maps them to JSON paths. Code `node-build`.
 */
export class NodePrepareError extends AnimGraphError {
  constructor(readonly problems: readonly NodeProblem[], readonly failures: readonly NodeBuildError[] = []) {
    super('node-build', [
      ...problems.map((p) => `node '${p.nodeId}' ${[...p.path].map(String).join('.')}: ${p.message}`),
      ...failures.map((f) => f.message),
    ].join('\n'));
    this.name = 'NodePrepareError';
  }
}

/**
 * A node type's own code failed on one node of a graph: its `prepare` or `create` threw (the error
 * thrown is `cause`), `create` returned something other than a node of the type's id and space, or
 * `numbers` was asked for what it cannot give. The loader reports it at the node's path
 * (`node-type-failed`); AnimGraph and createInstance throw it. Code `node-build`.
 */
export class NodeBuildError extends AnimGraphError {
  constructor(readonly nodeId: string, readonly typeName: string, detail: string, cause?: unknown) {
    super('node-build', `${typeName} '${nodeId}': ${detail}`, cause === undefined ? undefined : { cause });
    this.name = 'NodeBuildError';
  }
}

/** What a message says of a thrown value: `RangeError: bad config`. */
export function thrownText(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}
// ---------------------------------------------------------------------------------------------
// Checking a node type: what the loader, the schema and the frame loop take for granted of a spec.

/** One problem of a node type: the field (`properties.alpha.default`, `inputs[1].name`) and what is wrong. */
export interface NodeTypeProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * A node type that cannot be used (defineNodeType, NodeRegistry.register), with every problem found
 * in it. Code `node-type`.
 */
export class NodeTypeError extends AnimGraphError {
  constructor(readonly typeName: string, readonly problems: readonly NodeTypeProblem[]) {
    super('node-type', `node type '${typeName}': ${problems.length} problem${problems.length === 1 ? '' : 's'}\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
    this.name = 'NodeTypeError';
  }
}

/** The fields each kind of property spec takes besides `kind`: any other is a misspelling. */
const SPEC_FIELDS: Readonly<Record<PropertySpec['kind'], readonly string[]>> = {
  float: ['default', 'min', 'max', 'bindable'],
  int: ['default', 'min', 'max', 'bindable'],
  bool: ['default', 'bindable'],
  vec3: ['default', 'bindable'],
  enum: ['options', 'default'],
  clip: [],
  bone: ['optional'],
  floatList: ['default', 'min', 'max', 'perInput'],
  clipList: ['minCount'],
  file: [],
  object: ['schema'],
  direction: ['default'],
  list: ['item', 'minCount'],
  node: ['nodeType'],
  blendProfile: ['modes'],
};
const SPEC_KINDS = Object.keys(SPEC_FIELDS);
const INPUT_FIELDS = ['name', 'kind', 'space', 'minCount', 'accepts'];
const OPTIONAL_HOOKS = ['check', 'prepare', 'requestsInertialization', 'inertializationPath', 'additiveOutput', 'additiveInputs', 'subGraphs'] as const;
const OPTIONAL_FLAGS = ['providesInertialization', 'referencedOnly'] as const;

/**
 * Throws a NodeTypeError listing every problem of `type` (what defineNodeType and
 * NodeRegistry.register call): a spec the loader would misread, a default the frame loop would turn
 * into NaN or that its own range refuses, an input declared twice. Each rule's message says what is
 * expected and what was given.
 */
export function checkNodeType(type: unknown): void {
  const problems = nodeTypeProblems(type);
  if (problems.length === 0) return;
  const name = typeof type === 'object' && type !== null ? (type as { type?: unknown }).type : undefined;
  throw new NodeTypeError(typeof name === 'string' ? name : String(name), problems);
}

let typesChecked = 0;

/** How many node types nodeTypeProblems has checked in this process (a test checks that importing checks none). */
export function nodeTypesChecked(): number {
  return typesChecked;
}

/** Every problem of `type`, in field order (see checkNodeType). */
export function nodeTypeProblems(type: unknown): NodeTypeProblem[] {
  typesChecked++;
  const problems: NodeTypeProblem[] = [];
  const report = (path: readonly (string | number)[], message: string): void => {
    problems.push({ path: fieldPath(path), message });
  };
  if (!isRecord(type)) {
    report([], `expected a node type ({ type, space, properties, inputs, create }), got ${shown(type)}`);
    return problems;
  }
  const t = type as Record<string, unknown>;
  if (typeof t.type !== 'string' || t.type === '' || /[\s\p{Cc}]/u.test(t.type)) {
    report(['type'], `expected a non-empty name without spaces or control characters, got ${shown(t.type)}`);
  }
  if (t.space !== 'local' && t.space !== 'component') report(['space'], `expected 'local' or 'component', got ${shown(t.space)}`);
  const inputs = Array.isArray(t.inputs) ? t.inputs as unknown[] : null;
  if (inputs === null) report(['inputs'], `expected a list of input specs ({ name, kind, space }), [] for none, got ${shown(t.inputs)}`);
  else checkInputs(inputs, report);
  const poseLists = new Set((inputs ?? []).filter((i) => isRecord(i) && i.kind === 'poseList').map((i) => (i as { name: unknown }).name));
  if (!isRecord(t.properties)) report(['properties'], `expected an object of property specs by name, {} for none, got ${shown(t.properties)}`);
  else checkSpecs(t.properties, ['properties'], poseLists, report);
  if (typeof t.create !== 'function') report(['create'], `expected a function building the node, got ${shown(t.create)}`);
  for (const hook of OPTIONAL_HOOKS) {
    if (t[hook] !== undefined && typeof t[hook] !== 'function') report([hook], `expected a function or nothing, got ${shown(t[hook])}`);
  }
  for (const flag of OPTIONAL_FLAGS) {
    if (t[flag] !== undefined && typeof t[flag] !== 'boolean') report([flag], `expected true, false or nothing, got ${shown(t[flag])}`);
  }
  return problems;
}

type Report = (path: readonly (string | number)[], message: string) => void;

function checkInputs(inputs: readonly unknown[], report: Report): void {
  const first = new Map<unknown, number>();
  inputs.forEach((input, i) => {
    const at = ['inputs', i];
    if (!isRecord(input)) {
      report(at, `expected an input spec ({ name, kind, space }), got ${shown(input)}`);
      return;
    }
    for (const field of Object.keys(input)) {
      if (!INPUT_FIELDS.includes(field)) report([...at, field], `unknown field (an input's are ${INPUT_FIELDS.join(', ')})`);
    }
    const name = input.name;
    if (!isName(name)) report([...at, 'name'], `expected a non-empty name other than '__proto__', got ${shown(name)}`);
    else if (first.has(name)) report([...at, 'name'], `'${name}' names inputs[${first.get(name)}] already`);
    else first.set(name, i);
    if (input.kind !== 'pose' && input.kind !== 'poseList') report([...at, 'kind'], `expected 'pose' or 'poseList', got ${shown(input.kind)}`);
    if (input.space !== 'local' && input.space !== 'component') report([...at, 'space'], `expected 'local' or 'component', got ${shown(input.space)}`);
    if (input.minCount !== undefined) {
      if (input.kind !== 'poseList') report([...at, 'minCount'], 'only a poseList input takes minCount');
      else checkCount(input.minCount, [...at, 'minCount'], report);
    }
    const accepts = input.accepts;
    if (accepts !== undefined && !(Array.isArray(accepts) && accepts.length > 0 && accepts.every((s) => s === 'local' || s === 'component'))) {
      report([...at, 'accepts'], `expected a non-empty list of 'local' and 'component', got ${shown(accepts)}`);
    }
  });
}

function checkSpecs(specs: Record<string, unknown>, at: readonly (string | number)[], poseLists: ReadonlySet<unknown>, report: Report): void {
  for (const name of Object.keys(specs)) {
    const where = [...at, name];
    if (!isName(name)) {
      report(where, `'${name}' cannot name a property: expected a non-empty name other than '__proto__' (JavaScript objects treat it specially)`);
      continue;
    }
    checkSpec(specs[name], where, poseLists, report);
  }
}

function checkSpec(spec: unknown, at: readonly (string | number)[], poseLists: ReadonlySet<unknown>, report: Report): void {
  if (!isRecord(spec)) {
    report(at, `expected a property spec (an object with a kind), got ${shown(spec)}`);
    return;
  }
  const kind = spec.kind;
  if (typeof kind !== 'string' || !Object.hasOwn(SPEC_FIELDS, kind)) {
    report([...at, 'kind'], `expected one of ${SPEC_KINDS.join(', ')}, got ${shown(kind)}`);
    return;
  }
  const fields = SPEC_FIELDS[kind as PropertySpec['kind']];
  for (const field of Object.keys(spec)) {
    if (field !== 'kind' && !fields.includes(field)) {
      report([...at, field], `unknown field for a ${kind} property (its fields: ${fields.length > 0 ? fields.join(', ') : 'none besides kind'})`);
    }
  }
  const given = (field: string): boolean => spec[field] !== undefined;
  switch (kind) {
    case 'float':
    case 'int':
    case 'floatList':
      checkRange(spec, kind === 'int', at, report);
      break;
    case 'bool':
      if (typeof spec.default !== 'boolean') report([...at, 'default'], `expected true or false, got ${shown(spec.default)}`);
      break;
    case 'vec3':
    case 'direction': {
      const d = spec.default;
      if (!(Array.isArray(d) && d.length === 3 && d.every((x) => typeof x === 'number' && Number.isFinite(x)))) {
        report([...at, 'default'], `expected 3 finite numbers, got ${shown(d)}`);
      } else if (kind === 'direction' && d.every((x) => x === 0)) {
        report([...at, 'default'], 'expected a direction, not [0, 0, 0]');
      }
      break;
    }
    case 'enum': {
      const options: unknown = spec.options;
      const valid = Array.isArray(options) && options.length > 0 && options.every((o) => typeof o === 'string') && new Set(options).size === options.length;
      if (!valid) report([...at, 'options'], `expected a non-empty list of distinct strings, got ${shown(options)}`);
      else if (!(options as unknown[]).includes(spec.default)) report([...at, 'default'], `expected one of the options (${(options as string[]).map((o) => `'${o}'`).join(', ')}), got ${shown(spec.default)}`);
      break;
    }
    case 'bone':
      if (given('optional') && typeof spec.optional !== 'boolean') report([...at, 'optional'], `expected true, false or nothing, got ${shown(spec.optional)}`);
      break;
    case 'object':
      // A lazy schema (runtime/core/lazy.ts) is checked when it is built, not here: defineNodeType runs at import.
      if (!isLazy(spec.schema) && (!isRecord(spec.schema) || typeof (spec.schema as { safeParse?: unknown }).safeParse !== 'function')) {
        report([...at, 'schema'], `expected a zod schema, got ${shown(spec.schema)}`);
      }
      break;
    case 'list':
      if (!isRecord(spec.item)) report([...at, 'item'], `expected an object of property specs by name (an item's fields), got ${shown(spec.item)}`);
      else checkSpecs(spec.item, [...at, 'item'], poseLists, report);
      break;
    case 'node':
      if (typeof spec.nodeType !== 'string' || spec.nodeType === '') report([...at, 'nodeType'], `expected the name of a node type, got ${shown(spec.nodeType)}`);
      break;
    case 'blendProfile': {
      const modes = spec.modes;
      if (!(Array.isArray(modes) && modes.length > 0 && modes.every((m) => (BLEND_PROFILE_MODES as readonly unknown[]).includes(m)))) {
        report([...at, 'modes'], `expected a non-empty list of ${BLEND_PROFILE_MODES.join(', ')}, got ${shown(modes)}`);
      }
      break;
    }
  }
  if ((kind === 'clipList' || kind === 'list') && given('minCount')) checkCount(spec.minCount, [...at, 'minCount'], report);
  if ((kind === 'float' || kind === 'int' || kind === 'bool' || kind === 'vec3') && given('bindable') && typeof spec.bindable !== 'boolean') {
    report([...at, 'bindable'], `expected false (literal only) or nothing, got ${shown(spec.bindable)}`);
  }
  if (kind === 'floatList' && !poseLists.has(spec.perInput)) {
    report([...at, 'perInput'], `expected the name of one of this type's poseList inputs, got ${shown(spec.perInput)}`);
  }
}

/** A number spec's default, min and max: finite, whole for an int, min <= max, the default between them. */
function checkRange(spec: Record<string, unknown>, whole: boolean, at: readonly (string | number)[], report: Report): void {
  const number = whole ? 'a whole number' : 'a finite number';
  const valid = (x: unknown): x is number => typeof x === 'number' && (whole ? Number.isInteger(x) : Number.isFinite(x));
  const bound = (field: 'min' | 'max'): number | undefined => {
    const value = spec[field];
    if (value === undefined) return undefined;
    if (valid(value)) return value;
    report([...at, field], `expected ${number} or nothing, got ${shown(value)}`);
    return undefined;
  };
  const min = bound('min'), max = bound('max');
  if (min !== undefined && max !== undefined && min > max) {
    report(at, `min ${min} is above max ${max}: no value would be allowed`);
    return;
  }
  const value = spec.default;
  if (!valid(value)) report([...at, 'default'], `expected ${number}, got ${shown(value)}`);
  else if (min !== undefined && value < min) report([...at, 'default'], `${value} is below min ${min}`);
  else if (max !== undefined && value > max) report([...at, 'default'], `${value} is above max ${max}`);
}

function checkCount(value: unknown, at: readonly (string | number)[], report: Report): void {
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= 0)) report(at, `expected a whole number from 0, got ${shown(value)}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A name an asset can write and a JavaScript object can hold as an ordinary key. */
function isName(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value !== '__proto__';
}

/** A value as a message shows it: strings quoted, NaN and Infinity as themselves. */
function shown(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' || value === undefined || value === null) return String(value);
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return value.toString();
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** `properties.alpha.default`, `inputs[1].name`, `properties["two words"]`: a JSON path without its `$.`. */
function fieldPath(keys: readonly (string | number)[]): string {
  const path = jsonPath(keys);
  return path === '$' ? '(the type)' : path.slice(path[1] === '.' ? 2 : 1);
}

