import { describe, expect, it } from 'vitest';
import { ComponentPose } from '../../runtime/core/component-pose.ts';
import { quatNlerp } from '../../runtime/core/math.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { bipedInstance, expectClose } from '../support/graphs.ts';

const skeleton = sampleSkeleton();
const bone = (name: string) => skeleton.indexOf(name);

function graph(properties: Record<string, unknown>) {
  return bipedInstance({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    copy: { type: 'CopyBone', inputs: { pose: 'walk' }, properties: { sourceBone: 'lowerarm_l', targetBone: 'lowerarm_r', ...properties } },
  }, 'copy', { a: { type: 'float', default: 1 } });
}

function plain() {
  const g = bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'walk');
  g.update(0.3);
  const cs = new ComponentPose(skeleton);
  cs.setFromLocal(g.evaluate());
  cs.ensureAllComponent();
  return cs;
}

describe('CopyBone', () => {
  it('copies the source rotation in component space (the default) and the target’s children follow', () => {
    const g = graph({});
    g.update(0.3);
    const cs = g.componentPose();
    const before = plain();
    const src = bone('lowerarm_l'), dst = bone('lowerarm_r'), hand = bone('hand_r');
    expectClose(cs.rotations.subarray(dst * 4, dst * 4 + 4), before.rotations.subarray(src * 4, src * 4 + 4), 1e-12);
    // Translation was not copied.
    expectClose(cs.translations.subarray(dst * 3, dst * 3 + 3), before.translations.subarray(dst * 3, dst * 3 + 3), 1e-9);
    // The hand keeps its local transform relative to the new forearm.
    expectClose(cs.local.rotations.subarray(hand * 4, hand * 4 + 4), before.local.rotations.subarray(hand * 4, hand * 4 + 4), 1e-12);
    expect(Math.abs(cs.rotations[hand * 4 + 3] - before.rotations[hand * 4 + 3])).toBeGreaterThan(1e-3);
  });

  it('copies translation when asked', () => {
    const g = graph({ copyTranslation: true, copyRotation: false });
    g.update(0.3);
    const cs = g.componentPose();
    const before = plain();
    expectClose(cs.translations.subarray(bone('lowerarm_r') * 3, bone('lowerarm_r') * 3 + 3), before.translations.subarray(bone('lowerarm_l') * 3, bone('lowerarm_l') * 3 + 3), 1e-9);
  });

  it('blends by alpha: 0.5 is halfway (normalised lerp of the rotations), 0 is the input pose', () => {
    const g = graph({ alpha: { param: 'a' } });
    g.setParameter('a', 0.5);
    g.update(0.3);
    const cs = g.componentPose();
    const before = plain();
    const src = bone('lowerarm_l'), dst = bone('lowerarm_r');
    const half = quatNlerp(new Float64Array(4), 0, before.rotations, dst * 4, before.rotations, src * 4, 0.5);
    expectClose(cs.rotations.subarray(dst * 4, dst * 4 + 4), half, 1e-12);
    g.setParameter('a', 0);
    g.update(0);
    expectClose(g.evaluate().rotations, before.local.rotations, 1e-12);
    expect(g.gatherDebug().children[0].description).toBe('Alpha: 0.0% lowerarm_l -> lowerarm_r');
  });

  it('passes the pose through when nothing is to be copied', () => {
    const g = graph({ copyRotation: false });
    g.update(0.3);
    expectClose(g.evaluate().rotations, plain().local.rotations, 1e-12);
  });
});
