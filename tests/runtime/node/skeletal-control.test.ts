import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../../host/files.ts';
import { NodeRegistry } from '../../../graphs/loader.ts';
import { builtInNodeTypes } from '../../../nodes/index.ts';
import type { ComponentPose } from '../../../runtime/core/component-pose.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import { defineNodeType, type CacheBonesContext } from '../../../runtime/node/node.ts';
import { BoneTransforms, SkeletalControlNode } from '../../../runtime/node/skeletal-control.ts';
import { expectAnimGraphError } from '../../support/errors.ts';

// The first tests build no built-in control before theirs: the transforms buffer every control on
// the thread shares starts empty, as in a process whose graphs have no CopyBone, TwoBoneIK or StrideWarping.

/** Raises `bones` (every bone when empty) by 50 in component space, `times` times over (a bone added again each round). */
class Raise extends SkeletalControlNode {
  static bones: string[] = [];
  static times = 1;
  private indices: number[] = [];
  initialized = 0;

  // Per-instance state of its own, without super.onInitialize(): the shared buffer was sized there.
  protected override onInitialize(): void {
    this.initialized++;
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    const names = Raise.bones.length > 0 ? Raise.bones : ctx.skeleton.boneNames;
    this.indices = names.map((name) => ctx.boneIndex(this.id, name));
  }

  protected evaluateBoneTransforms(pose: ComponentPose, out: BoneTransforms): void {
    for (let round = 0; round < Raise.times; round++) {
      for (const bone of this.indices) {
        const k = out.add(bone, pose);
        out.translations[k * 3 + 1] += 50;
      }
    }
  }
}

const types = new NodeRegistry([...builtInNodeTypes, defineNodeType({
  type: 'Raise', space: 'component', properties: { alpha: { kind: 'float', default: 1 } },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  create: ({ id, inputs, properties }) => new Raise(id, 'Raise', inputs.pose, properties.alpha),
})]);

/** The walk, raised by a Raise node (`raise`) or not. */
function walk(raise: boolean): AnimGraphInstance {
  return loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
    nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, ...(raise ? { r: { type: 'Raise', inputs: { pose: 'walk' } } } : {}) },
    output: raise ? 'r' : 'walk',
  }, { nodeTypes: types }).createInstance();
}

/** Each bone's component-space height in `instance`'s pose after one update of 0.3 s. */
function heights(instance: AnimGraphInstance): number[] {
  instance.update(0.3);
  const t = instance.componentPose().translations;
  return Array.from({ length: t.length / 3 }, (_, b) => t[b * 3 + 1]);
}

describe('SkeletalControlNode', () => {
  it('applies every transform of a subclass whose onInitialize does not call super, whatever graphs were built before', () => {
    Raise.bones = [];
    const raised = walk(true), plain = heights(walk(false));
    expect(plain).toHaveLength(22);
    // Every write went to a buffer of no slots (BoneTransforms.add dropped it): the walk came out as it was.
    const first = heights(raised);
    first.forEach((y, b) => expect(y - plain[b]).toBeCloseTo(50, 9));
    expect((raised.nodes.get('r') as Raise).initialized).toBe(1);
    // A graph with a built-in control, built since, changes nothing (it sized the buffer, and the raise then worked).
    loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, c: { type: 'CopyBone', inputs: { pose: 'walk' }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r' } } },
      output: 'c',
    }).createInstance();
    raised.reset();
    expect(heights(raised)).toEqual(first);
  });

  it('refuses a control that adds more transforms than its skeleton has bones (add dropped the writes past the buffer\'s end)', () => {
    Raise.bones = ['head'];
    Raise.times = 23;
    try {
      const raised = walk(true);
      raised.update(0.3);
      expectAnimGraphError(() => raised.evaluate(), 'out-of-range', 'BoneTransforms.add: all 22 slots are taken (a control has one per bone of its skeleton: add each bone at most once)');
      // Up to one per bone is allowed: each slot starts from the pose as it was, so the head rises by 50 once.
      Raise.times = 22;
      raised.reset();
      raised.update(0.3);
      const y = raised.componentPose().translations[raised.skeleton.indexOf('head') * 3 + 1];
      expect(y - heights(walk(false))[raised.skeleton.indexOf('head')]).toBeCloseTo(50, 9);
    } finally {
      Raise.times = 1;
    }
  });
});

describe('BoneTransforms', () => {
  it('holds as many transforms as it was made for, and its limit, when lower, bounds add', () => {
    const raised = walk(false);
    raised.update(0.3);
    const pose = raised.componentPose();
    const transforms = new BoneTransforms(3);
    expect([transforms.limit, transforms.count]).toEqual([3, 0]);
    for (let k = 0; k < 3; k++) expect(transforms.add(k, pose)).toBe(k);
    expect(() => transforms.add(0, pose)).toThrow('BoneTransforms.add: all 3 slots are taken (a control has one per bone of its skeleton: add each bone at most once)');
    transforms.count = 0;
    transforms.limit = 1;
    transforms.add(2, pose);
    expect(() => transforms.add(2, pose)).toThrow('BoneTransforms.add: its one slot is taken (a control has one per bone of its skeleton: add each bone at most once)');
    expect(Array.from(transforms.bones)).toEqual([2, 1, 2]);
  });
});
