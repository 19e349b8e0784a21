import type { NodeType } from '../runtime/node.ts';
import { BendRollHelperType } from './BendRollHelper.ts';
import { BlendByBoolType } from './BlendByBool.ts';
import { BlendListType } from './BlendList.ts';
import { BlendTwoType } from './BlendTwo.ts';
import { CopyBoneType } from './CopyBone.ts';
import { InertialBlendType } from './InertialBlend.ts';
import { InertializationType } from './Inertialization.ts';
import { PoseSearchBlendType } from './PoseSearchBlend.ts';
import { SequenceEvaluatorType } from './SequenceEvaluator.ts';
import { SequencePlayerType } from './SequencePlayer.ts';
import { StateMachineType } from './StateMachine.ts';
import { StrideWarpingType } from './StrideWarping.ts';
import { TwoBoneIKType } from './TwoBoneIK.ts';

export { OutputNode, OutputType } from './Output.ts';

/** The node types every graph can use, by the `type` written in assets. */
export const builtInNodeTypes: readonly NodeType[] = [
  SequencePlayerType,
  SequenceEvaluatorType,
  BlendTwoType,
  BlendByBoolType,
  BlendListType,
  CopyBoneType,
  BendRollHelperType,
  TwoBoneIKType,
  InertialBlendType,
  InertializationType,
  PoseSearchBlendType,
  StrideWarpingType,
  StateMachineType,
];
