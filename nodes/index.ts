import type { NodeType } from '../runtime/node/node.ts';
import { ApplyAdditiveType } from './ApplyAdditive.ts';
import { BendRollHelperType } from './BendRollHelper.ts';
import { BlendByBoolType } from './BlendByBool.ts';
import { BlendListType } from './BlendList.ts';
import { BlendSpace1DType } from './BlendSpace1D.ts';
import { BlendSpace2DType } from './BlendSpace2D.ts';
import { BlendTwoType } from './BlendTwo.ts';
import { CopyBoneType } from './CopyBone.ts';
import { InertialBlendType } from './InertialBlend.ts';
import { InertializationType } from './Inertialization.ts';
import { MakeAdditiveType } from './MakeAdditive.ts';
import { LayeredBlendPerBoneType } from './LayeredBlendPerBone.ts';
import { PoseSearchBlendType } from './PoseSearchBlend.ts';
import { SaveCachedPoseType } from './SaveCachedPose.ts';
import { SequenceEvaluatorType } from './SequenceEvaluator.ts';
import { SequencePlayerType } from './SequencePlayer.ts';
import { SlotType } from './Slot.ts';
import { StateMachineType } from './StateMachine.ts';
import { StrideWarpingType } from './StrideWarping.ts';
import { TwoBoneIKType } from './TwoBoneIK.ts';
import { UseCachedPoseType } from './UseCachedPose.ts';

export { OutputNode, OutputType } from './Output.ts';

/** The node types every graph can use, by the `type` written in assets. */
export const builtInNodeTypes: readonly NodeType[] = [
  SequencePlayerType,
  SequenceEvaluatorType,
  BlendTwoType,
  BlendByBoolType,
  BlendListType,
  BlendSpace1DType,
  BlendSpace2DType,
  CopyBoneType,
  BendRollHelperType,
  TwoBoneIKType,
  InertialBlendType,
  InertializationType,
  PoseSearchBlendType,
  StrideWarpingType,
  MakeAdditiveType,
  ApplyAdditiveType,
  LayeredBlendPerBoneType,
  SaveCachedPoseType,
  UseCachedPoseType,
  SlotType,
  StateMachineType,
];
