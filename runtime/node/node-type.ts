import type { AdditiveSpace } from '../core/additive.ts';
import { BLEND_PROFILE_MODES, type BlendProfile, type BlendProfileMode } from '../core/blend-profile.ts';
import type { ClipBinding } from '../core/clip.ts';
import { jsonPath } from '../core/names.ts';
import type { PoseNode, PoseSpace } from './anim-node.ts';
import type { ComponentPoseLink, Link, PoseLink } from './link.ts';
import type { Skeleton } from '../core/skeleton.ts';
import type { ParameterType } from './parameters.ts';
import type { ZodType, output } from 'zod';

/*
 * Node types: what a node declares once (its properties and pins), read by the asset schema, the
 * loader and the editor, and how an instance of it is built from a graph's resolved properties.
 */

/**
 * A property that can be a literal or bound to a parameter of a compatible type. `bindable: false`
 * makes it a literal only (a node that reads it once, when built, says so): the loader refuses a
 * binding on it (`not-bindable`) and the JSON Schema offers none. Every other property of these
 * kinds must honour its binding, reading the parameter every frame.
 */
export type BindableSpec =
  | { kind: 'float'; default: number; min?: number; max?: number; bindable?: false }
  | { kind: 'int'; default: number; min?: number; max?: number; bindable?: false }
  | { kind: 'bool'; default: boolean; bindable?: false }
  | { kind: 'vec3'; default: [number, number, number]; bindable?: false };

export type PropertySpec =
  | BindableSpec
  | { kind: 'enum'; options: readonly string[]; default: string }
  /** The name of a clip declared in the asset's `clips`. Required. */
  | { kind: 'clip' }
  /**
   * The name of a skeleton bone. Required, unless `optional`: then it may be left out, and the node
   * reads '' (no bone) from ResolvedProperties.bone.
   */
  | { kind: 'bone'; optional?: boolean }
  /** A list of numbers, one per entry of a pose-list input (for example blend times). */
  | { kind: 'floatList'; default: number; min?: number; max?: number; perInput: string }
  /** A list of clip names declared in the asset's `clips` (each checked by the loader). Required. */
  | { kind: 'clipList'; minCount?: number }
  /** A file path, relative to the graph file. Optional. */
  | { kind: 'file' }
  /**
   * A node-specific structured value (an object) validated by `schema`, which also becomes its
   * JSON Schema; references inside it (bones, clips) are checked by the node type's `check`.
   * Optional: the node decides what its absence means.
   */
  | { kind: 'object'; schema: ZodType }
  /**
   * A direction: a literal, non-zero vec3 that the node normalises (a joint axis). Not bindable, so
   * the loader can reject a zero direction. Read it with ResolvedProperties.vec3.
   */
  | { kind: 'direction'; default: [number, number, number] }
  /**
   * A list of items, each an object with the fields `item` describes, as properties of their own:
   * a field may be bound to a parameter where its kind allows, and the loader checks the names
   * in it (bones, clips, parameters) with paths such as `helpers[0].source`. Required when
   * `minCount` is above 0; otherwise optional, default []. Read with ResolvedProperties.list.
   */
  | { kind: 'list'; item: Readonly<Record<string, PropertySpec>>; minCount?: number }
  /**
   * The id of another node of the graph, of type `nodeType` (a UseCachedPose naming its
   * SaveCachedPose). Required. Not a link: no pose flows through it and the named node may be named
   * by several nodes, but the loader orders the named node first and counts the reference in cycles
   * and in the graph's depth. Read with ResolvedProperties.node.
   */
  | { kind: 'node'; nodeType: string }
  /**
   * The name of a blend profile declared in the asset's `blendProfiles`, of one of `modes`
   * (runtime/core/blend-profile.ts). Optional: absent, the node blends every bone alike. The loader
   * reports an undeclared name (`unknown-blend-profile`) and a profile of another mode
   * (`blend-profile-mode`). Read with ResolvedProperties.blendProfile (bound to the skeleton).
   */
  | { kind: 'blendProfile'; modes: readonly BlendProfileMode[] };

export interface InputSpec {
  name: string;
  /** 'pose': one link; 'poseList': an ordered list of links. */
  kind: 'pose' | 'poseList';
  /** The space the node reads this input in; the link converts if the linked node differs. */
  space: PoseSpace;
  /** For poseList: the fewest links allowed. */
  minCount?: number;
  /**
   * The spaces this input takes from the linked node. By default both: the link converts between
   * local and component space. A node that must not pay for (or cannot use) a conversion narrows it,
   * and the loader reports a link from a node of the other space.
   */
  accepts?: readonly PoseSpace[];
}

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
 * readScalar(values, p) !== 0, for bool properties: a boolean crosses the call rather than a double
 * (see CONTRIBUTING.md, "Numbers in the frame loop").
 */
export function readFlag(values: Float64Array, p: ScalarProperty): boolean {
  return p.slot >= 0 ? values[p.slot] !== 0 : p.constant !== 0;
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

export interface NodeBuild {
  id: string;
  /** Bones in the skeleton the instance is bound to, for sizing per-bone state once. */
  boneCount: number;
  properties: ResolvedProperties;
  /** Links by input name: a PoseLink or ComponentPoseLink for 'pose', an array for 'poseList'. */
  inputs: Record<string, Link | Link[]>;
  /**
   * What the node type's `prepare` returned for this node of this graph: immutable data built once
   * per AnimGraph and shared by every instance (undefined for types without `prepare`).
   */
  shared?: unknown;
  /** Links to the roots of the node's named sub-graphs (a StateMachine's states; see CompiledNode.subGraphs). */
  subGraphs?: Readonly<Record<string, PoseLink>>;
  /** The slot of a parameter in GraphRuntime.parameterValues, -1 if there is none (for nodes that read parameters named in structured properties). */
  parameterSlot?: (name: string) => number;
  /** The asset's blend profile of that name bound to the skeleton (for profiles named in structured properties), or null. */
  blendProfile?: (name: string) => BlendProfile | null;
  /**
   * Reserves `count` doubles of the instance's per-frame numbers (GraphRuntime.frameNumbers, there
   * from initialize on) and returns their offset; -1 where there is none (keep arrays of your own).
   * For numbers a node reads every frame: one array per character rather than one per node. Call it
   * in create: `count` a whole number from 0 to MAX_NODE_NUMBERS, or it throws a NodeBuildError
   * naming the node, as it does once the node is built.
   */
  numbers?: (count: number) => number;
}

/**
 * The most per-frame numbers one node may reserve (NodeBuild.numbers): 2^20 doubles, 8 MiB per
 * character. An inertial transition of a 20,000-bone skeleton fits; a count beyond it is a mistake.
 */
export const MAX_NODE_NUMBERS = 1 << 20;

/** The codes a node type reports problems with from `check` or `prepare` (a subset of the loader's ProblemCode). */
export const NODE_PROBLEM_CODES = ['schema', 'unknown-bone', 'unknown-clip', 'file', 'stale-index', 'duplicate-sample', 'collinear-samples', 'value-range'] as const;

/** Codes of the problems a node type reports from `check` or `prepare` (NODE_PROBLEM_CODES). */
export type NodeProblemCode = (typeof NODE_PROBLEM_CODES)[number];

/**
 * Throws a TypeError for a code a node type's `check` or `prepare` reported that is not one of
 * NODE_PROBLEM_CODES: the loader's callers sort problems by code, and an unknown one passed as valid.
 */
export function checkProblemCode(code: unknown, path: readonly PropertyKey[]): void {
  if (!(NODE_PROBLEM_CODES as readonly unknown[]).includes(code)) {
    throw new TypeError(`report(${JSON.stringify(path.map(String))}, ${JSON.stringify(code) ?? String(code)}, …): not a problem code a node reports (${NODE_PROBLEM_CODES.join(', ')})`);
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

/** What NodeType.check sees at load time, after the generic property checks. */
export interface NodeCheckContext {
  readonly id: string;
  /** The node's well-formed literal properties (bound ones as `{ param }`). */
  readonly properties: Readonly<Record<string, unknown>>;
  /**
   * The properties as written, unvalidated: a malformed property is missing from `properties` (its
   * schema problems are already reported), but its readable parts can still be checked here.
   */
  readonly rawProperties: Readonly<Record<string, unknown>>;
  /** The node's `inputs` as written (node ids, or lists of them for a poseList), unvalidated. */
  readonly inputs?: Readonly<Record<string, unknown>>;
  /** The skeleton, when it loaded. */
  readonly skeleton: Skeleton | undefined;
  /** Names of the clips that loaded. */
  readonly clipNames: ReadonlySet<string>;
  report(path: readonly PropertyKey[], code: NodeProblemCode, message: string): void;
}

/** What NodeType.prepare sees: the bound graph, once per (AnimGraph, node). */
export interface NodePrepareContext {
  readonly id: string;
  readonly properties: Readonly<Record<string, unknown>>;
  readonly skeleton: Skeleton;
  /** The graph's binding of a clip, or undefined if the graph has no clip of that name. */
  clip(name: string): ClipBinding | undefined;
  /** A file path written in the asset, resolved against the graph file's folder. */
  resolvePath(path: string): string;
  /**
   * The bytes of a file named in the asset (the path as written there; whoever loads the graph
   * resolves and reads it, so nodes stay free of file access). Throws when it cannot be read, with
   * the system's `code` (ENOENT...) where there is one.
   */
  readFile(path: string): Uint8Array;
  /**
   * False when index files named in the asset must be ignored and their data rebuilt from the
   * clips (what `animgraph index` does).
   */
  readonly useIndexFiles: boolean;
  /** The slot of a parameter in GraphRuntime.parameterValues (the same in every instance), -1 if there is none. */
  parameterSlot(name: string): number;
  /** The asset's blend profile of that name bound to the skeleton, or null. */
  blendProfile(name: string): BlendProfile | null;
  /** The names of the node's sub-graphs (a StateMachine's states with a pose; see CompiledNode.subGraphs). */
  readonly subGraphs: readonly string[];
  report(path: readonly PropertyKey[], code: NodeProblemCode, message: string): void;
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

/**
 * Thrown when binding a graph whose nodes' `prepare` reported problems (`problems`) or threw
 * (`failures`, one per node); the loader maps them to JSON paths.
 */
export class NodePrepareError extends Error {
  constructor(readonly problems: readonly NodeProblem[], readonly failures: readonly NodeBuildError[] = []) {
    super([
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
 * (`node-type-failed`); AnimGraph and createInstance throw it.
 */
export class NodeBuildError extends RangeError {
  constructor(readonly nodeId: string, readonly typeName: string, detail: string, cause?: unknown) {
    super(`${typeName} '${nodeId}': ${detail}`, cause === undefined ? undefined : { cause });
    this.name = 'NodeBuildError';
  }
}

/** What a message says of a thrown value: `RangeError: bad config`. */
export function thrownText(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}

/** Everything the loader, the schema and the editor need to know about a node type. */
export interface NodeType {
  type: string;
  space: PoseSpace;
  properties: Readonly<Record<string, PropertySpec>>;
  inputs: readonly InputSpec[];
  create(build: NodeBuild): PoseNode;
  /** True for nodes that take inertialization requests from the branch above them. */
  providesInertialization?: boolean;
  /**
   * Whether a node with these (validated) properties sends inertialization requests; the loader
   * then requires a node that provides them between it and the output.
   */
  requestsInertialization?(properties: Readonly<Record<string, unknown>>): boolean;
  /**
   * The space of the additive pose a node with these (validated) properties outputs, or undefined
   * when its pose is an ordinary one. `additiveClips` are the asset's clips marked additive, with
   * their spaces. The loader requires it of whatever feeds an input named by additiveInputs.
   */
  additiveOutput?(properties: Readonly<Record<string, unknown>>, additiveClips: ReadonlyMap<string, AdditiveSpace>): AdditiveSpace | undefined;
  /** The inputs that take an additive pose, with the space each applies it in (ApplyAdditive's `additive`). */
  additiveInputs?(properties: Readonly<Record<string, unknown>>): Readonly<Record<string, AdditiveSpace>>;
  /**
   * True for nodes that no input may link to: other nodes reach them only by naming them in a
   * `node` property (a SaveCachedPose, read through its UseCachedPose nodes). The loader reports
   * such a link as `not-linkable`.
   */
  referencedOnly?: boolean;
  /**
   * Load-time checks the generic property rules cannot express (names inside an `object`
   * property, combinations of values). Called with the well-formed properties; report each
   * problem with its path below `properties`.
   */
  check?(ctx: NodeCheckContext): void;
  /**
   * Builds immutable data for one node of one graph (a search database, a lookup table), once
   * when the AnimGraph is bound; every instance's create() receives it as `build.shared`.
   */
  prepare?(ctx: NodePrepareContext): unknown;
}

// ---------------------------------------------------------------------------------------------
// Typed node types: a node type written with defineNodeType receives its properties and input
// links typed from its own specs, so a misspelt property or a link of the wrong space fails to compile.

/** The property specs of a node type (or of the items of a list property), by name. */
export type PropertySpecs = Readonly<Record<string, PropertySpec>>;

/** A clip of a clipList property: the name the asset gave it and its binding to the skeleton. */
export interface NamedClip {
  readonly name: string;
  readonly binding: ClipBinding;
}

/**
 * What a property of spec `S` is in a typed `create`: a bindable number, bool or vec3 stays a
 * ScalarProperty / Vec3Property (read every frame with readScalar / readVec3; a bool reads 0 or 1);
 * one declared `bindable: false` is its literal (number, boolean, Float64Array), as is a direction.
 */
export type TypedProperty<S extends PropertySpec> =
  S extends { kind: 'float' | 'int'; bindable: false } ? number
  : S extends { kind: 'bool'; bindable: false } ? boolean
  : S extends { kind: 'vec3'; bindable: false } ? Float64Array
  : S extends { kind: 'float' | 'int' | 'bool' } ? ScalarProperty
  : S extends { kind: 'vec3' } ? Vec3Property
  : S extends { kind: 'enum'; options: readonly (infer O)[] } ? O
  : S extends { kind: 'clip' } ? ClipBinding
  // '' when an optional bone is left out.
  : S extends { kind: 'bone' } ? string
  // One number per link of the `perInput` list.
  : S extends { kind: 'floatList' } ? number[]
  : S extends { kind: 'clipList' } ? NamedClip[]
  // Absent: undefined.
  : S extends { kind: 'file' } ? string | undefined
  : S extends { kind: 'object'; schema: infer Z extends ZodType } ? output<Z> | undefined
  // The literal as written (the loader rejects a zero one); the node normalises it.
  : S extends { kind: 'direction' } ? Float64Array
  : S extends { kind: 'list'; item: infer Item extends PropertySpecs } ? TypedProperties<Item>[]
  // The named node as built; the type checks its class.
  : S extends { kind: 'node' } ? PoseNode
  // Bound to the skeleton; null when absent.
  : S extends { kind: 'blendProfile' } ? BlendProfile | null
  : never;

/** A node's properties, resolved once at build time and typed by their specs. */
export type TypedProperties<P extends PropertySpecs> = { readonly [K in keyof P]: TypedProperty<P[K]> };

/** The link a node reads an input through: PoseLink in local space, ComponentPoseLink in component space. */
type TypedLink<S extends InputSpec> = S['space'] extends 'component' ? ComponentPoseLink : PoseLink;

/** A node's input links by pin name, typed by their specs (a poseList is an array, in pin order). */
export type TypedInputs<I extends readonly InputSpec[]> = {
  readonly [S in I[number] as S['name']]: S extends { kind: 'poseList' } ? TypedLink<S>[] : TypedLink<S>;
};

/** What a typed node type's `create` receives: NodeBuild with typed properties, inputs and shared data. */
export interface TypedNodeBuild<P extends PropertySpecs, I extends readonly InputSpec[], Shared> {
  id: string;
  /** Bones in the skeleton the instance is bound to, for sizing per-bone state once. */
  boneCount: number;
  properties: TypedProperties<P>;
  inputs: TypedInputs<I>;
  /** What `prepare` returned for this node of this graph (undefined for types without `prepare`). */
  shared: Shared | undefined;
  /** Links to the roots of the node's named sub-graphs ({} for nodes without). */
  subGraphs: Readonly<Record<string, PoseLink>>;
  /** The slot of a parameter in GraphRuntime.parameterValues, -1 if there is none. */
  parameterSlot: (name: string) => number;
  /** The asset's blend profile of that name bound to the skeleton, or null. */
  blendProfile: (name: string) => BlendProfile | null;
  /** Reserves doubles of the instance's per-frame numbers (see NodeBuild.numbers): their offset, or -1. */
  numbers: (count: number) => number;
}

/** A node type as written with defineNodeType: NodeType with a typed `create` (and `prepare`). */
export interface TypedNodeType<P extends PropertySpecs, I extends readonly InputSpec[], Shared>
  extends Omit<NodeType, 'properties' | 'inputs' | 'create' | 'prepare'> {
  properties: P;
  inputs: I;
  prepare?(ctx: NodePrepareContext): Shared;
  create(build: TypedNodeBuild<P, I, Shared>): PoseNode;
}

/**
 * Declares a node type whose `create` receives its properties and input links typed from the specs
 * written here, each property read once when the node is built. Returns the plain NodeType the
 * loader, the schema and the editor read; its `create` resolves the properties and checks the links
 * before calling the one given here. Throws a NodeTypeError listing every problem of the
 * definition (see checkNodeType).
 */
export function defineNodeType<const P extends PropertySpecs, const I extends readonly InputSpec[], Shared = undefined>(
  definition: TypedNodeType<P, I, Shared>,
): NodeType {
  checkNodeType(definition);
  const { create, ...rest } = definition;
  return {
    ...rest,
    create: (build) => create({
      id: build.id,
      boneCount: build.boneCount,
      properties: typedProperties(definition.properties, build.properties),
      inputs: typedInputs(definition, build),
      shared: build.shared as Shared | undefined,
      subGraphs: build.subGraphs ?? {},
      parameterSlot: build.parameterSlot ?? (() => -1),
      blendProfile: build.blendProfile ?? (() => null),
      numbers: build.numbers ?? (() => -1),
    }),
  };
}

/** Reads every property `specs` declares from `resolved`, as TypedProperty describes. */
export function typedProperties<P extends PropertySpecs>(specs: P, resolved: ResolvedProperties): TypedProperties<P> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(specs)) out[name] = typedProperty(specs[name], name, resolved);
  return out as TypedProperties<P>;
}

function typedProperty(spec: PropertySpec, name: string, p: ResolvedProperties): unknown {
  switch (spec.kind) {
    case 'float':
    case 'int':
      return spec.bindable === false ? p.scalar(name).constant : p.scalar(name);
    case 'bool':
      return spec.bindable === false ? p.scalar(name).constant !== 0 : p.scalar(name);
    case 'vec3':
      return spec.bindable === false ? p.vec3(name).constant : p.vec3(name);
    case 'direction':
      return p.vec3(name).constant;
    case 'enum':
      return p.enumValue(name);
    case 'clip':
      return p.clip(name);
    case 'bone':
      return p.bone(name);
    case 'floatList':
      return p.floatList(name);
    case 'clipList': {
      const names = p.literal(name) as string[];
      return p.clipList(name).map((binding, i): NamedClip => ({ name: names[i], binding }));
    }
    case 'file':
    case 'object':
      return p.literal(name);
    case 'list':
      return p.list(name).map((item) => typedProperties(spec.item, item));
    case 'node':
      return p.node(name);
    case 'blendProfile':
      return p.blendProfile(name);
  }
}

function typedInputs<I extends readonly InputSpec[]>(definition: { type: string; inputs: I }, build: NodeBuild): TypedInputs<I> {
  for (const spec of definition.inputs) {
    const link = build.inputs[spec.name];
    // The loader reports unlinked inputs; a definition built in code without it fails here, once.
    if (spec.kind === 'poseList' ? !Array.isArray(link) : link === undefined || Array.isArray(link)) {
      throw new RangeError(`${definition.type} '${build.id}': input '${spec.name}' is not linked`);
    }
  }
  // AnimGraph makes each link by its spec's kind and space, which is what TypedInputs says.
  return build.inputs as unknown as TypedInputs<I>;
}

/**
 * The ids a node names through its `node` properties (in property order), which the graph must
 * build first and which count as edges for cycles and depth. Items of list properties are not
 * searched: no built-in type has a `node` field in a list.
 */
export function nodeReferences(type: { properties: Readonly<Record<string, PropertySpec>> }, properties: Readonly<Record<string, unknown>>): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, spec] of Object.entries(type.properties)) {
    const value = Object.hasOwn(properties, name) ? properties[name] : undefined;
    if (spec.kind === 'node' && typeof value === 'string') out.push([name, value]);
  }
  return out;
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
 * in it. A TypeError, as the type is the caller's code.
 */
export class NodeTypeError extends TypeError {
  constructor(readonly typeName: string, readonly problems: readonly NodeTypeProblem[]) {
    super(`node type '${typeName}': ${problems.length} problem${problems.length === 1 ? '' : 's'}\n${problems.map((p) => `  ${p.path}: ${p.message}`).join('\n')}`);
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
const OPTIONAL_HOOKS = ['check', 'prepare', 'requestsInertialization', 'additiveOutput', 'additiveInputs'] as const;
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

/** Every problem of `type`, in field order (see checkNodeType). */
export function nodeTypeProblems(type: unknown): NodeTypeProblem[] {
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
      if (!isRecord(spec.schema) || typeof (spec.schema as { safeParse?: unknown }).safeParse !== 'function') {
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

export type { ParameterType };
