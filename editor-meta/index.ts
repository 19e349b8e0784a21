import { AnimGraphError } from '../runtime/core/errors.ts';
import type { InputSpec, NodeType, PoseSpace, PropertySpec } from '../runtime/node/node.ts';
import { PARAMETER_WIDTH, parameterFits, type ParameterType } from '../runtime/node/parameters.ts';
import { propertyRequired } from '../graphs/schema.ts';
import { builtInNodeTypeNames, type BuiltInNodeTypeName } from '../nodes/index.ts';
import { ApplyAdditiveMeta } from './ApplyAdditive.ts';
import { BendRollHelperMeta } from './BendRollHelper.ts';
import { BlendByBoolMeta } from './BlendByBool.ts';
import { BlendListMeta } from './BlendList.ts';
import { AimOffsetMeta } from './AimOffset.ts';
import { AimOffset1DMeta } from './AimOffset1D.ts';
import { AimOffsetLookAtMeta } from './AimOffsetLookAt.ts';
import { BlendSpace1DMeta } from './BlendSpace1D.ts';
import { BlendSpace2DMeta } from './BlendSpace2D.ts';
import { BlendTwoMeta } from './BlendTwo.ts';
import { CCDIKMeta } from './CCDIK.ts';
import { CopyBoneMeta } from './CopyBone.ts';
import { FABRIKMeta } from './FABRIK.ts';
import { InertialBlendMeta } from './InertialBlend.ts';
import { InertializationMeta } from './Inertialization.ts';
import { MakeAdditiveMeta } from './MakeAdditive.ts';
import { MirrorMeta } from './Mirror.ts';
import { LayeredBlendPerBoneMeta } from './LayeredBlendPerBone.ts';
import { LookAtMeta } from './LookAt.ts';
import { ModifyBoneMeta } from './ModifyBone.ts';
import { OutputMeta } from './Output.ts';
import { PoseSearchBlendMeta } from './PoseSearchBlend.ts';
import { PoseSnapshotMeta } from './PoseSnapshot.ts';
import { SaveCachedPoseMeta } from './SaveCachedPose.ts';
import { SequenceEvaluatorMeta } from './SequenceEvaluator.ts';
import { SequencePlayerMeta } from './SequencePlayer.ts';
import { SlotMeta } from './Slot.ts';
import { StateMachineMeta } from './StateMachine.ts';
import { StrideWarpingMeta } from './StrideWarping.ts';
import { TwoBoneIKMeta } from './TwoBoneIK.ts';
import { UseCachedPoseMeta } from './UseCachedPose.ts';
import type { BuiltInNodeMeta, DocEntry, NodeCategory, NodeEditorMeta, PropertyDoc } from './types.ts';

export type { BuiltInNodeMeta, DocEntry, NodeCategory, NodeEditorMeta, PropertyDoc } from './types.ts';

/**
 * The editor description of every built-in node type (nodes/index.ts) and of the graph output, by
 * type name: a built-in type without one, or one for a type that is not built in, fails to compile.
 */
export const builtInEditorMeta: { readonly [K in BuiltInNodeTypeName | 'Output']: BuiltInNodeMeta } = {
  ApplyAdditive: ApplyAdditiveMeta,
  BendRollHelper: BendRollHelperMeta,
  BlendByBool: BlendByBoolMeta,
  BlendList: BlendListMeta,
  AimOffset: AimOffsetMeta,
  AimOffset1D: AimOffset1DMeta,
  AimOffsetLookAt: AimOffsetLookAtMeta,
  BlendSpace1D: BlendSpace1DMeta,
  BlendSpace2D: BlendSpace2DMeta,
  BlendTwo: BlendTwoMeta,
  CCDIK: CCDIKMeta,
  CopyBone: CopyBoneMeta,
  FABRIK: FABRIKMeta,
  InertialBlend: InertialBlendMeta,
  Inertialization: InertializationMeta,
  LayeredBlendPerBone: LayeredBlendPerBoneMeta,
  LookAt: LookAtMeta,
  MakeAdditive: MakeAdditiveMeta,
  Mirror: MirrorMeta,
  ModifyBone: ModifyBoneMeta,
  Output: OutputMeta,
  PoseSearchBlend: PoseSearchBlendMeta,
  PoseSnapshot: PoseSnapshotMeta,
  SaveCachedPose: SaveCachedPoseMeta,
  SequenceEvaluator: SequenceEvaluatorMeta,
  SequencePlayer: SequencePlayerMeta,
  Slot: SlotMeta,
  StateMachine: StateMachineMeta,
  StrideWarping: StrideWarpingMeta,
  TwoBoneIK: TwoBoneIKMeta,
  UseCachedPose: UseCachedPoseMeta,
};

/** Docs for every built-in node type, plus the graph output, in palette order (nodes/index.ts). */
export const editorMeta: readonly NodeEditorMeta[] = [...builtInNodeTypeNames, 'Output' as const]
  .map((type): NodeEditorMeta => ({ type, ...builtInEditorMeta[type] }));

export function editorMetaFor(type: string, metas: readonly NodeEditorMeta[] = editorMeta): NodeEditorMeta | undefined {
  return metas.find((m) => m.type === type);
}

/**
 * Where a meta and its runtime spec disagree: a property or input without docs, or docs for one
 * the runtime does not have (usually a rename on one side only). Empty when they match.
 */
export function editorMetaProblems(type: NodeType, meta: NodeEditorMeta): string[] {
  const problems: string[] = [];
  if (meta.type !== type.type) problems.push(`meta documents '${meta.type}', not '${type.type}'`);
  const compare = (what: string, runtime: readonly string[], documented: readonly string[]) => {
    for (const name of runtime) if (!documented.includes(name)) problems.push(`${type.type}: ${what} '${name}' has no docs`);
    for (const name of documented) if (!runtime.includes(name)) problems.push(`${type.type}: docs for ${what} '${name}', which the runtime does not have`);
  };
  const compareProperties = (at: string, specs: Readonly<Record<string, PropertySpec>>, docs: Readonly<Record<string, PropertyDoc>>) => {
    compare('property', Object.keys(specs).map((n) => at + n), Object.keys(docs).map((n) => at + n));
    // The fields of a list's items are documented under the list's `item`, as `helpers.source`.
    for (const [name, spec] of Object.entries(specs)) {
      if (spec.kind === 'list' && docs[name]) compareProperties(`${at}${name}.`, spec.item, docs[name].item ?? {});
    }
  };
  compareProperties('', type.properties, meta.properties);
  compare('input', type.inputs.map((i) => i.name), Object.keys(meta.pins));
  return problems;
}

const PARAMETER_TYPES = Object.keys(PARAMETER_WIDTH) as ParameterType[];

/** Kinds that may be written as `{ "param": "name" }` instead of a literal. */
export function isBindable(spec: PropertySpec): spec is Extract<PropertySpec, { kind: ParameterType }> {
  return (PARAMETER_TYPES as readonly string[]).includes(spec.kind);
}

/** One row of an editor's details panel: the runtime spec and its docs together. */
export interface PropertyDescription {
  name: string;
  kind: PropertySpec['kind'];
  title: string;
  description: string;
  unit?: string;
  /** Clip and bone references have no default and must be written (a bone marked optional may be left out). */
  required: boolean;
  default?: number | boolean | string | readonly number[];
  min?: number;
  max?: number;
  bindable: boolean;
  /** Parameter types a binding may name (a float property also takes an int parameter). Empty if not bindable. */
  bindableFrom: readonly ParameterType[];
  /** The choices of an enum property. */
  options?: readonly string[];
  /** For floatList: the poseList input whose links the entries follow, one entry per link. */
  perInput?: string;
  /** For a `node` property: the type of the node it names. */
  nodeType?: string;
  /** For a `blendProfile` property: the profile modes it accepts. */
  modes?: readonly string[];
  /** For list: the fields of each item, described like properties. */
  item?: PropertyDescription[];
  /** For list and clipList: the fewest items allowed. */
  minCount?: number;
}

export interface PinDescription {
  name: string;
  title: string;
  description: string;
  kind: InputSpec['kind'];
  /** The space the node reads this input in. */
  space: PoseSpace;
  /** Spaces a linked node may produce; the link converts between them. */
  accepts: readonly PoseSpace[];
  /** For poseList: the fewest links allowed. */
  minCount?: number;
}

export interface NodeDescription {
  type: string;
  title: string;
  category: NodeCategory;
  description: string;
  /** The space of the pose this node outputs. */
  space: PoseSpace;
  pins: PinDescription[];
  properties: PropertyDescription[];
}

/**
 * The runtime spec of a node type merged with its docs, in the spec's order. Throws an
 * AnimGraphError (`invalid-data`) if the two disagree, so an editor never shows a field it cannot
 * explain or docs for a field that is gone.
 */
export function describeNodeType(type: NodeType, meta: NodeEditorMeta): NodeDescription {
  const problems = editorMetaProblems(type, meta);
  if (problems.length > 0) throw new AnimGraphError('invalid-data', `editor meta for ${type.type} does not match the runtime:\n  ${problems.join('\n  ')}`);
  return {
    type: type.type,
    title: meta.title,
    category: meta.category,
    description: meta.description,
    space: type.space,
    pins: type.inputs.map((input) => describePin(input, meta.pins[input.name])),
    properties: Object.entries(type.properties).map(([name, spec]) => describeProperty(name, spec, meta.properties[name])),
  };
}

function describePin(input: InputSpec, doc: DocEntry): PinDescription {
  const pin: PinDescription = {
    name: input.name,
    title: doc.title,
    description: doc.description,
    kind: input.kind,
    space: input.space,
    accepts: input.accepts ?? ['local', 'component'],
  };
  if (input.kind === 'poseList') pin.minCount = input.minCount ?? 1;
  return pin;
}

function describeProperty(name: string, spec: PropertySpec, doc: PropertyDoc): PropertyDescription {
  const bindable = isBindable(spec) && spec.bindable !== false;
  const out: PropertyDescription = {
    name,
    kind: spec.kind,
    title: doc.title,
    description: doc.description,
    required: propertyRequired(spec),
    bindable,
    bindableFrom: bindable ? PARAMETER_TYPES.filter((p) => parameterFits(spec.kind as ParameterType, p)) : [],
  };
  if (doc.unit !== undefined) out.unit = doc.unit;
  if ('default' in spec) out.default = Array.isArray(spec.default) ? [...spec.default] : spec.default;
  if ('min' in spec && spec.min !== undefined) out.min = spec.min;
  if ('max' in spec && spec.max !== undefined) out.max = spec.max;
  if (spec.kind === 'enum') out.options = [...spec.options];
  if (spec.kind === 'floatList') out.perInput = spec.perInput;
  if (spec.kind === 'node') out.nodeType = spec.nodeType;
  if (spec.kind === 'blendProfile') out.modes = [...spec.modes];
  if (spec.kind === 'clipList') out.minCount = spec.minCount ?? 1;
  if (spec.kind === 'list') {
    out.minCount = spec.minCount ?? 0;
    out.item = Object.entries(spec.item).map(([field, fieldSpec]) => describeProperty(field, fieldSpec, doc.item![field]));
  }
  return out;
}
