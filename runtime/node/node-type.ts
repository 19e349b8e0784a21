import type { AdditiveSpace } from '../core/additive.ts';
import type { BlendProfile, BlendProfileMode } from '../core/blend-profile.ts';
import type { ClipBinding } from '../core/clip.ts';
import { AnimGraphError } from '../core/errors.ts';
import type { PoseNode, PoseSpace } from './anim-node.ts';
import type { ComponentPoseLink, Link, PoseLink } from './link.ts';
import type { Skeleton } from '../core/skeleton.ts';
import type { ParameterType } from './parameters.ts';
import { checkNodeType, type NodeProblemCode } from './node-type-check.ts';
import type { ResolvedProperties, ScalarProperty, Vec3Property } from './properties.ts';
import type { PropertySpec } from './property-spec.ts';
import type { ZodType, output } from 'zod';

/*
 * Node types: what a node declares once (its properties and pins), read by the asset schema, the
 * loader and the editor, and how an instance of it is built from a graph's resolved properties.
 * What can be wrong with one is in node-type-check.ts, how its code reads the resolved properties
 * in properties.ts; both are exported from here too.
 */

export * from './node-type-check.ts';
export * from './properties.ts';
export * from './property-spec.ts';

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
  /** The clips marked additive in the asset's clips, with their spaces (AimOffset's samples must be mesh-space ones). */
  readonly additiveClips: ReadonlyMap<string, AdditiveSpace>;
  /**
   * The type of the asset's parameter of that name (for parameters named inside an `object`
   * property); undefined when none is declared, or its declaration is malformed (reported already).
   */
  parameterType(name: string): ParameterType | undefined;
  /** The names of the parameters the asset declares, well formed or not. */
  readonly parameterNames: ReadonlySet<string>;
  /**
   * Reports a blend profile name written at `path` as the loader does a `blendProfile` property's:
   * one the asset does not declare, or one of a mode not in `modes`.
   */
  checkBlendProfile(path: readonly PropertyKey[], name: string, modes: readonly BlendProfileMode[]): void;
  report(path: readonly PropertyKey[], code: NodeProblemCode, message: string): void;
}

/** A sub-graph a node owns besides its inputs (a StateMachine's state), as the asset writes it. */
export interface SubGraphSource {
  /** Its name, unique in the node: its key in NodeBuild.subGraphs and NodePrepareContext.subGraphs. */
  readonly name: string;
  /** Where it is written: keys below the node's `properties` (['states', 'walk']). */
  readonly path: readonly PropertyKey[];
  /** Its nodes by id and the id of its output node, as a graph's top level writes them. */
  readonly nodes: Readonly<Record<string, unknown>>;
  readonly output: string;
}

/** What NodeType.prepare sees: the bound graph, once per (AnimGraph, node). */
export interface NodePrepareContext {
  readonly id: string;
  /** The node's properties as validated (bound ones as `{ param }`). */
  readonly properties: Readonly<Record<string, unknown>>;
  /**
   * The node's properties resolved as `create` receives them in NodeBuild.properties (the same
   * objects), except `node`, which throws: no node is built yet (its id is `literal(name)`).
   */
  readonly resolved: ResolvedProperties;
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
   * Where the loader reports a missing Inertialization below a node with these (validated)
   * properties that requests one: keys below `properties`, by default ['blendMode'].
   */
  inertializationPath?(properties: Readonly<Record<string, unknown>>): readonly PropertyKey[];
  /**
   * The sub-graphs a node with these properties (as written, unvalidated) owns besides its inputs,
   * such as a StateMachine's states; leave out what is malformed, which the properties' schema or
   * `check` reports. The loader checks each like a graph's top level (its problems at paths inside
   * it, its node references free to name nodes of the graphs around it), builds its nodes before
   * this node, and hands this node their roots as `subGraphs`. A sub-graph that needs an
   * Inertialization makes this node request one, reported at the sub-graph's path.
   */
  subGraphs?(properties: Readonly<Record<string, unknown>>): readonly SubGraphSource[];
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

/**
 * What a property of spec `S` is in a typed `prepare`: what `create` receives (TypedProperty), but a
 * `node` property is the id of the node it names, which is not built yet.
 */
export type PrepareProperty<S extends PropertySpec> =
  S extends { kind: 'node' } ? string
  : S extends { kind: 'list'; item: infer Item extends PropertySpecs } ? PrepareProperties<Item>[]
  : TypedProperty<S>;

/** A node's properties as a typed `prepare` reads them. */
export type PrepareProperties<P extends PropertySpecs> = { readonly [K in keyof P]: PrepareProperty<P[K]> };

/** What a typed node type's `prepare` receives: NodePrepareContext with its properties typed from the specs. */
export interface TypedPrepareContext<P extends PropertySpecs> extends Omit<NodePrepareContext, 'properties'> {
  /**
   * Each property resolved when first read, as `create` gets it (the same objects): a prepare that
   * reads only some properties fails on no other (a clip a graph built in code lacks).
   */
  readonly properties: PrepareProperties<P>;
}

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
  prepare?(ctx: TypedPrepareContext<P>): Shared;
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
  return defineBuiltInNodeType(definition);
}

/**
 * defineNodeType without the check, for the built-in types (nodes/): they are the same on every
 * import, so tests/runtime/node/node-type.test.ts checks them once instead, and importing the
 * package compiles and runs none of the checking code (it was a twentieth of the import's time).
 * NodeRegistry trusts them for the same reason.
 */
export function defineBuiltInNodeType<const P extends PropertySpecs, const I extends readonly InputSpec[], Shared = undefined>(
  definition: TypedNodeType<P, I, Shared>,
): NodeType {
  const { create, prepare, ...rest } = definition;
  const type: NodeType = {
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
  if (prepare) {
    type.prepare = function (this: unknown, ctx) {
      return prepare.call(this, { ...ctx, properties: preparedProperties(definition.properties, ctx.resolved) as PrepareProperties<P> });
    };
  }
  return type;
}

/** Reads every property `specs` declares from `resolved`, as TypedProperty describes. */
export function typedProperties<P extends PropertySpecs>(specs: P, resolved: ResolvedProperties): TypedProperties<P> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(specs)) out[name] = typedProperty(specs[name], name, resolved, false);
  return out as TypedProperties<P>;
}

/** The properties `specs` declares as PrepareProperty describes, each read from `resolved` when first used. */
function preparedProperties(specs: PropertySpecs, resolved: ResolvedProperties): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(specs)) {
    let value: unknown, read = false;
    Object.defineProperty(out, name, {
      enumerable: true,
      get: () => {
        if (!read) {
          value = typedProperty(specs[name], name, resolved, true);
          read = true;
        }
        return value;
      },
    });
  }
  return out;
}

/** A property as create (or, `prepared`, as prepare) reads it. */
function typedProperty(spec: PropertySpec, name: string, p: ResolvedProperties, prepared: boolean): unknown {
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
      return p.list(name).map((item) => (prepared ? preparedProperties(spec.item, item) : typedProperties(spec.item, item)));
    case 'node':
      return prepared ? p.literal(name) : p.node(name);
    case 'blendProfile':
      return p.blendProfile(name);
  }
}

function typedInputs<I extends readonly InputSpec[]>(definition: { type: string; inputs: I }, build: NodeBuild): TypedInputs<I> {
  for (const spec of definition.inputs) {
    const link = build.inputs[spec.name];
    // The loader reports unlinked inputs; a definition built in code without it fails here, once.
    if (spec.kind === 'poseList' ? !Array.isArray(link) : link === undefined || Array.isArray(link)) {
      throw new AnimGraphError('invalid-data', `${definition.type} '${build.id}': input '${spec.name}' is not linked`);
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

export type { ParameterType };
