import { describe, expect, it } from 'vitest';
import { Pose, poseBlendTwo } from '../../runtime/core/pose.ts';
import { bipedInstance } from '../support/graphs.ts';

// The sharing itself (one update and evaluation per frame, the largest weight, debug, load errors)
// is tested with SaveCachedPose; here, what a use outputs.
describe('UseCachedPose', () => {
  const nodes = {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    loco: { type: 'SaveCachedPose', inputs: { pose: 'walk' } },
    use: { type: 'UseCachedPose', properties: { cache: 'loco' } },
    blend: { type: 'BlendTwo', inputs: { A: 'run', B: 'use' }, properties: { alpha: 0.35 } },
  };

  it('outputs the cached pose bit for bit, copied alone and blended from under a blend', () => {
    const { blend: _, ...noBlend } = nodes;
    const alone = bipedInstance(noBlend, 'use'), walk = bipedInstance({ walk: nodes.walk }, 'walk');
    const blended = bipedInstance(nodes, 'blend'), run = bipedInstance({ run: nodes.run }, 'run');
    for (const g of [alone, walk, blended, run]) g.update(0.23);
    expect(Array.from(alone.evaluate().rotations)).toEqual(Array.from(walk.evaluate().rotations));
    expect(Array.from(alone.evaluate().translations)).toEqual(Array.from(walk.evaluate().translations));
    const expected = poseBlendTwo(new Pose(22), run.evaluate(), walk.evaluate(), Float64Array.of(0.65, 0.35));
    expect(Array.from(blended.evaluate().rotations)).toEqual(Array.from(expected.rotations));
  });
});
