import { readFlag, type NodeType, type PoseLink, type ScalarProperty } from '../runtime/node/node.ts';
import { blendCurveSchema, LINEAR_BLEND, type BlendCurve } from '../runtime/core/blend-curve.ts';
import { TRANSITION_PROFILE_MODES, type BlendProfile } from '../runtime/core/blend-profile.ts';
import { checkBlendCurve, prepareBlendCurve } from '../runtime/jobs/blend-curve-property.ts';
import { BlendList } from './BlendList.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/**
 * Chooses between two poses by a bool (Unreal's Blend Poses by bool): `True` while `active` is
 * true, `False` otherwise, crossfading over `trueBlendTime` when switching to True and
 * `falseBlendTime` when switching to False. All other behaviour is BlendList's.
 */
export class BlendByBool extends BlendList {
  constructor(
    id: string, whenTrue: PoseLink, whenFalse: PoseLink,
    private readonly active: ScalarProperty,
    private readonly trueBlendTime: ScalarProperty,
    private readonly falseBlendTime: ScalarProperty,
    blendMode: string,
    blendProfile: BlendProfile | null = null,
    boneCount = 0,
    blendCurve: BlendCurve = LINEAR_BLEND,
  ) {
    super(id, 'BlendByBool', [whenTrue, whenFalse], [0, 0], blendMode, blendProfile, boneCount, blendCurve);
  }

  protected override chooseIndex(): number {
    // The blend times as this frame's parameters have them, for a switch (see BlendList.blendTimes):
    // read inline and written apart (see CONTRIBUTING.md, "Numbers in the frame loop").
    const values = this.graph.parameterValues, times = this.blendTimes;
    const whenTrue = this.trueBlendTime, whenFalse = this.falseBlendTime;
    if (whenTrue.slot >= 0) times[0] = values[whenTrue.slot];
    else times[0] = whenTrue.constant;
    if (whenFalse.slot >= 0) times[1] = values[whenFalse.slot];
    else times[1] = whenFalse.constant;
    return readFlag(values, this.active) ? 0 : 1;
  }
}

export const BlendByBoolType: NodeType = defineBuiltInNodeType({
  type: 'BlendByBool',
  space: 'local',
  properties: {
    active: { kind: 'bool', default: true },
    trueBlendTime: { kind: 'float', default: 0.2, min: 0, max: 1e6 },
    falseBlendTime: { kind: 'float', default: 0.2, min: 0, max: 1e6 },
    blendMode: { kind: 'enum', options: ['crossfade', 'inertial'], default: 'crossfade' },
    blendProfile: { kind: 'blendProfile', modes: TRANSITION_PROFILE_MODES },
    blendCurve: { kind: 'object', schema: blendCurveSchema },
  },
  requestsInertialization: (p) => p.blendMode === 'inertial',
  check: (ctx) => checkBlendCurve(ctx.rawProperties.blendCurve, ['blendCurve'], ctx),
  prepare: (ctx) => prepareBlendCurve(ctx.properties.blendCurve, ['blendCurve'], ctx),
  inputs: [
    { name: 'True', kind: 'pose', space: 'local' },
    { name: 'False', kind: 'pose', space: 'local' },
  ],
  create: ({ id, boneCount, properties: p, inputs, shared }) =>
    new BlendByBool(
      id, inputs.True, inputs.False,
      p.active, p.trueBlendTime, p.falseBlendTime, p.blendMode, p.blendProfile, boneCount, shared,
    ),
});
