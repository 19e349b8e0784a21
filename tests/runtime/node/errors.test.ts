import { describe, expect, it } from 'vitest';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { Skeleton } from '../../../runtime/core/skeleton.ts';
import { Parameters } from '../../../runtime/node/parameters.ts';
import { BoneTransforms } from '../../../runtime/node/skeletal-control.ts';
import { checkProblemCode, defineNodeType, NodeBuildError, NodePrepareError, NodeTypeError } from '../../../runtime/node/node-type.ts';
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

describe('node types throw AnimGraphErrors with a code', () => {
  it('a node type that cannot be used: a NodeTypeError, code node-type', () => {
    const error = expectAnimGraphError(
      () => defineNodeType({ type: 'Bad', space: 'local', properties: { alpha: { kind: 'float', default: 2, max: 1 } }, inputs: [], create: () => undefined as never }),
      'node-type', "node type 'Bad': 1 problem\n  properties.alpha.default: 2 is above max 1",
    );
    expect(error).toBeInstanceOf(NodeTypeError);
    expect(error).toMatchObject({ name: 'NodeTypeError', typeName: 'Bad', problems: [{ path: 'properties.alpha.default', message: '2 is above max 1' }] });
  });

  it('a node type\'s code failing on a node: NodeBuildError and NodePrepareError, code node-build', () => {
    const cause = new Error('my bug');
    const failure = new NodeBuildError('n', 'T', 'prepare threw Error: my bug', cause);
    expect(failure).toMatchObject({ code: 'node-build', name: 'NodeBuildError', nodeId: 'n', typeName: 'T', message: "T 'n': prepare threw Error: my bug", cause });
    const prepare = new NodePrepareError([{ nodeId: 'm', path: ['clips', 0], code: 'unknown-clip', message: "no clip 'x'" }], [failure]);
    expectAnimGraphError(() => { throw prepare; }, 'node-build', "node 'm' clips.0: no clip 'x'\nT 'n': prepare threw Error: my bug");
    expect(prepare.name).toBe('NodePrepareError');
  });

  it('a problem code a node type reports that is not one of NODE_PROBLEM_CODES: invalid-argument', () => {
    expectAnimGraphError(() => checkProblemCode('cycle', ['a', 1]), 'invalid-argument', /^report\(\["a","1"\], "cycle", …\): not a problem code a node reports \(schema, /);
  });
});
