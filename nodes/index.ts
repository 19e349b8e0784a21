import { AnimGraphError } from '../runtime/core/errors.ts';
import type { NodeType } from '../runtime/node/node.ts';
import { AimOffsetType } from './AimOffset.ts';
import { AimOffset1DType } from './AimOffset1D.ts';
import { AimOffsetLookAtType } from './AimOffsetLookAt.ts';
import { ApplyAdditiveType } from './ApplyAdditive.ts';
import { BendRollHelperType } from './BendRollHelper.ts';
import { BlendByBoolType } from './BlendByBool.ts';
import { BlendListType } from './BlendList.ts';
import { BlendSpace1DType } from './BlendSpace1D.ts';
import { BlendSpace2DType } from './BlendSpace2D.ts';
import { BlendTwoType } from './BlendTwo.ts';
import { CCDIKType } from './CCDIK.ts';
import { CopyBoneType } from './CopyBone.ts';
import { FABRIKType } from './FABRIK.ts';
import { InertialBlendType } from './InertialBlend.ts';
import { InertializationType } from './Inertialization.ts';
import { MakeAdditiveType } from './MakeAdditive.ts';
import { MirrorType } from './Mirror.ts';
import { LayeredBlendPerBoneType } from './LayeredBlendPerBone.ts';
import { LookAtType } from './LookAt.ts';
import { ModifyBoneType } from './ModifyBone.ts';
import { PoseSearchBlendType } from './PoseSearchBlend.ts';
import { PoseSnapshotType } from './PoseSnapshot.ts';
import { SaveCachedPoseType } from './SaveCachedPose.ts';
import { SequenceEvaluatorType } from './SequenceEvaluator.ts';
import { SequencePlayerType } from './SequencePlayer.ts';
import { SlotType } from './Slot.ts';
import { StateMachineType } from './StateMachine.ts';
import { StrideWarpingType } from './StrideWarping.ts';
import { TwoBoneIKType } from './TwoBoneIK.ts';
import { UseCachedPoseType } from './UseCachedPose.ts';

export { OutputNode, OutputType } from './Output.ts';

/**
 * The built-in node types by the `type` written in assets, in palette order: the one list of them.
 * Everything else that lists node types reads it: the registry, editor-meta (whose descriptions are
 * keyed by these names, so a type without one fails to compile), the generated docs and schema,
 * and the README's node list.
 */
const BUILT_IN = {
  SequencePlayer: SequencePlayerType,
  SequenceEvaluator: SequenceEvaluatorType,
  PoseSnapshot: PoseSnapshotType,
  BlendTwo: BlendTwoType,
  BlendByBool: BlendByBoolType,
  BlendList: BlendListType,
  BlendSpace1D: BlendSpace1DType,
  BlendSpace2D: BlendSpace2DType,
  CopyBone: CopyBoneType,
  BendRollHelper: BendRollHelperType,
  TwoBoneIK: TwoBoneIKType,
  FABRIK: FABRIKType,
  CCDIK: CCDIKType,
  LookAt: LookAtType,
  ModifyBone: ModifyBoneType,
  InertialBlend: InertialBlendType,
  Inertialization: InertializationType,
  PoseSearchBlend: PoseSearchBlendType,
  StrideWarping: StrideWarpingType,
  MakeAdditive: MakeAdditiveType,
  ApplyAdditive: ApplyAdditiveType,
  AimOffset1D: AimOffset1DType,
  AimOffset: AimOffsetType,
  AimOffsetLookAt: AimOffsetLookAtType,
  LayeredBlendPerBone: LayeredBlendPerBoneType,
  Mirror: MirrorType,
  SaveCachedPose: SaveCachedPoseType,
  UseCachedPose: UseCachedPoseType,
  Slot: SlotType,
  StateMachine: StateMachineType,
} as const satisfies Readonly<Record<string, NodeType>>;

/** The `type` of a built-in node type, as assets write it. */
export type BuiltInNodeTypeName = keyof typeof BUILT_IN;

/** The names of the built-in node types, in palette order. */
export const builtInNodeTypeNames = Object.keys(BUILT_IN) as readonly BuiltInNodeTypeName[];

/** The node types every graph can use, in palette order. */
export const builtInNodeTypes: readonly NodeType[] = builtInNodeTypeNames.map((name) => {
  const type = BUILT_IN[name];
  // A key is the type's name written a second time: a mismatch fails every import, so every test.
  if (type.type !== name) throw new AnimGraphError('internal', `nodes/index.ts lists the node type '${type.type}' as '${name}'`);
  return type;
});
