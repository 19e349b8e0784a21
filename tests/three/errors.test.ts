import * as THREE from 'three';
import { describe, expect, it } from 'vitest';
import { bindThree, clipFromThree, skeletonFromThree } from '../../three/index.ts';
import { bipedInstance } from '../support/graphs.ts';
import { expectAnimGraphError } from '../support/errors.ts';

function arm(): THREE.Bone[] {
  const shoulder = new THREE.Bone(), hand = new THREE.Bone();
  shoulder.name = 'shoulder';
  hand.name = 'hand';
  hand.position.set(0, 30, 0);
  shoulder.add(hand);
  return [shoulder, hand];
}

describe('the three.js binding throws AnimGraphErrors with a code', () => {
  const instance = () => bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'walk');

  it('a bad argument: a target that holds no bones, a binding that writes nothing, a key rate out of range', () => {
    expectAnimGraphError(() => bindThree(instance(), new THREE.Group()), 'invalid-argument', "bindThree: no SkinnedMesh with a skeleton under ''");
    expectAnimGraphError(() => bindThree(instance(), 42 as never), 'invalid-argument', /^bindThree: the target must be/);
    const pelvis = new THREE.Bone();
    pelvis.name = 'pelvis';
    expectAnimGraphError(() => bindThree(instance(), [pelvis], { writeMatrices: false }), 'invalid-argument', 'bindThree: writeMatrices and writeLocal are both false: the binding would write nothing');
    const s = skeletonFromThree(arm());
    const clip = new THREE.AnimationClip('reach', 1, [new THREE.VectorKeyframeTrack('shoulder.position', [0, 1], [0, 0, 0, 2, 4, 6])]);
    expectAnimGraphError(() => clipFromThree(clip, s, { frameRate: 0 }), 'out-of-range', 'clipFromThree: frameRate must be above 0 and at most 1000 keys per second, got 0');
  });

  it('an unknown name: no bone of the target is named as a bone of the graph', () => {
    const error = expectAnimGraphError(() => bindThree(instance(), arm()), 'unknown-name', /^bindThree: none of the 2 three\.js bones \('shoulder', 'hand'\)/);
    expect(error.name).toBe('AnimGraphError');
  });

  it('bad data: a bone or a track that is no rotation', () => {
    const bones = arm();
    bones[1].quaternion.set(0, 0, 0, 0);
    expectAnimGraphError(() => skeletonFromThree(bones), 'invalid-data', "skeletonFromThree: bone 'hand' has quaternion (0, 0, 0, 0), which is no rotation");
    const s = skeletonFromThree(arm());
    const twist = new THREE.AnimationClip('twist', 1, [new THREE.QuaternionKeyframeTrack('hand.quaternion', [0, 1], [0, 0, 0, 0, 0, 0, 0, 0])]);
    expectAnimGraphError(() => clipFromThree(twist, s), 'invalid-data', "clipFromThree: clip 'twist': track 'hand.quaternion' gives (0, 0, 0, 0) at 0 s, which is no rotation");
  });
});
