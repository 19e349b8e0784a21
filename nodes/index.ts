import type { NodeType } from '../runtime/node.ts';
import { BlendByBoolType } from './BlendByBool.ts';
import { BlendListType } from './BlendList.ts';
import { BlendTwoType } from './BlendTwo.ts';
import { CopyBoneType } from './CopyBone.ts';
import { InertialBlendType } from './InertialBlend.ts';
import { InertializationType } from './Inertialization.ts';
import { SequenceEvaluatorType } from './SequenceEvaluator.ts';
import { SequencePlayerType } from './SequencePlayer.ts';
import { StrideWarpingType } from './StrideWarping.ts';

export { OutputNode, OutputType } from './Output.ts';

/** The node types every graph can use, by the `type` written in assets. */
export const builtInNodeTypes: readonly NodeType[] = [
  SequencePlayerType,
  SequenceEvaluatorType,
  BlendTwoType,
  BlendByBoolType,
  BlendListType,
  CopyBoneType,
  InertialBlendType,
  InertializationType,
  StrideWarpingType,
];
