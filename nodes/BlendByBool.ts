import { readFlag, readScalar, type NodeType, type PoseLink, type ScalarProperty } from '../runtime/node.ts';
import { TRANSITION_PROFILE_MODES, type BlendProfile } from '../runtime/blend-profile.ts';
import type { Crossfade } from '../runtime/crossfade.ts';
import { BlendList } from './BlendList.ts';
import { defineNodeType } from '../runtime/node-type.ts';

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
  ) {
    super(id, 'BlendByBool', [whenTrue, whenFalse], [], blendMode, blendProfile, boneCount);
  }

  protected override readBlendTime(index: number, into: Crossfade): void {
    // Read inline rather than by readScalar: see CONTRIBUTING.md, "Numbers in the frame loop".
    const time = index === 0 ? this.trueBlendTime : this.falseBlendTime;
    into.duration = time.slot >= 0 ? this.graph.parameterValues[time.slot] : time.constant;
  }

  protected override chooseIndex(): number {
    return readFlag(this.graph.parameterValues, this.active) ? 0 : 1;
  }
}

export const BlendByBoolType: NodeType = defineNodeType({
  type: 'BlendByBool',
  space: 'local',
  properties: {
    active: { kind: 'bool', default: true },
    trueBlendTime: { kind: 'float', default: 0.2, min: 0, max: 1e6 },
    falseBlendTime: { kind: 'float', default: 0.2, min: 0, max: 1e6 },
    blendMode: { kind: 'enum', options: ['crossfade', 'inertial'], default: 'crossfade' },
    blendProfile: { kind: 'blendProfile', modes: TRANSITION_PROFILE_MODES },
  },
  requestsInertialization: (p) => p.blendMode === 'inertial',
  inputs: [
    { name: 'True', kind: 'pose', space: 'local' },
    { name: 'False', kind: 'pose', space: 'local' },
  ],
  create: ({ id, boneCount, properties: p, inputs }) =>
    new BlendByBool(
      id, inputs.True, inputs.False,
      p.active, p.trueBlendTime, p.falseBlendTime, p.blendMode, p.blendProfile, boneCount,
    ),
});
