import { describe, it } from 'vitest';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { Parameters } from '../../../runtime/node/parameters.ts';
import { BoneTransforms } from '../../../runtime/node/skeletal-control.ts';
import { expectAnimGraphError } from '../../support/errors.ts';

describe('the node contract throws AnimGraphErrors with a code', () => {
  const parameters = new Parameters({ gait: { type: 'int', default: 1 }, aim: { type: 'vec3' } });

  it('a bad argument: a parameter value of the wrong type', () => {
    expectAnimGraphError(() => parameters.set('gait', 1.5), 'invalid-argument', "parameter 'gait' is int; cannot set it to 1.5");
    expectAnimGraphError(() => parameters.check('aim', [0, 1] as never), 'invalid-argument', "parameter 'aim' is vec3; cannot set it to [0, 1]");
  });

  it('an unknown name: a parameter the graph does not have', () => {
    expectAnimGraphError(() => parameters.set('speed', 1), 'unknown-name', "unknown parameter 'speed' (known: gait, aim)");
    expectAnimGraphError(() => parameters.get('speed'), 'unknown-name');
  });

  it('a control adding more bones than it has slots', () => {
    const skeleton = Skeleton.fromDefinitions([{ name: 'root' }]);
    const out = new BoneTransforms(1);
    const pose = new ComponentPose(skeleton);
    out.add(0, pose);
    expectAnimGraphError(() => out.add(0, pose), 'out-of-range', 'BoneTransforms.add: its one slot is taken (a control has one per bone of its skeleton: add each bone at most once)');
  });
});
