import { describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../host/files.ts';
import { AnimGraphError } from '../../runtime/core/errors.ts';
import { Pose, poseBlendTwo, poseCopy } from '../../runtime/core/pose.ts';
import { runProbe } from '../support/allocation.ts';
import { bipedInstance, expectClose } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

/** The pose's numbers as bytes: equal only when bit-identical (0 and −0, NaN payloads included). */
const bits = (p: Pose) => [p.translations, p.rotations, p.scales].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex')).join('|');
const copy = (p: Pose) => poseCopy(new Pose(p.boneCount), p);

/** walk → A, the snapshot 'held' → B of a BlendTwo whose alpha is the parameter `a`. */
const nodes = {
  walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
  snap: { type: 'PoseSnapshot', properties: { snapshotName: 'held' } },
  blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'snap' }, properties: { alpha: { param: 'a' } } },
};
const params = { a: { type: 'float', default: 0 } };

describe('PoseSnapshot and savePoseSnapshot', () => {
  it('outputs the saved pose bit for bit, later, whatever plays meanwhile', () => {
    const g = bipedInstance(nodes, 'blend', params);
    g.update(0.3);
    const saved = copy(g.evaluate());
    g.savePoseSnapshot('held');
    g.setParameter('a', 1);
    g.update(0.45);
    expect(bits(g.evaluate())).toBe(bits(saved));
    // Saving again overwrites it: now the snapshot is itself, which is still the walk at 0.3 s.
    g.savePoseSnapshot('held');
    g.update(0.2);
    expect(bits(g.evaluate())).toBe(bits(saved));
  });

  it('is the reference pose before any save, and blends like any pose', () => {
    const g = bipedInstance(nodes, 'blend', params);
    g.setParameter('a', 1);
    g.update(0.3);
    expect(bits(g.evaluate())).toBe(bits(g.skeleton.referencePose));
    // Snapshot the walk at 0.3 s, then blend it half and half with the walk at 0.8 s.
    const h = bipedInstance(nodes, 'blend', params);
    h.update(0.3);
    const saved = copy(h.evaluate());
    h.savePoseSnapshot('held');
    h.setParameter('a', 0.5);
    h.update(0.5);
    const walk = bipedInstance({ walk: nodes.walk }, 'walk');
    walk.update(0.8);
    const expected = poseBlendTwo(new Pose(saved.boneCount), walk.evaluate(), saved, Float64Array.of(0.5, 0.5));
    const got = h.evaluate();
    expectClose(got.rotations, expected.rotations, 1e-15);
    expectClose(got.translations, expected.translations, 1e-12);
    // Clearly between the two: the walk has moved on from the snapshot.
    const w = walk.evaluate();
    const apart = (a: Pose, b: Pose) => Math.max(...a.rotations.map((x, i) => Math.abs(x - b.rotations[i])));
    expect(apart(w, saved)).toBeGreaterThan(0.05);
    expect(apart(got, saved)).toBeGreaterThan(0.02);
    expect(apart(got, w)).toBeGreaterThan(0.02);
  });

  it('outlasts reset; keeps names no node reads; shares one pose between nodes of one name; reports its name', () => {
    const g = bipedInstance({ ...nodes, snap2: { type: 'PoseSnapshot', properties: { snapshotName: 'held' } }, both: { type: 'BlendTwo', inputs: { A: 'blend', B: 'snap2' }, properties: { alpha: { param: 'b' } } } },
      'both', { ...params, b: { type: 'float', default: 0 } });
    g.update(0.3);
    const saved = copy(g.evaluate());
    g.savePoseSnapshot('held');
    g.savePoseSnapshot('elsewhere'); // no node reads it: kept all the same
    g.reset();
    g.setParameter('b', 1);
    g.update(0.1);
    expect(bits(g.evaluate())).toBe(bits(saved));
    const line = g.gatherDebug().children[0].children[1];
    expect(line).toMatchObject({ type: 'PoseSnapshot', description: 'Snapshot: held', poseSource: true, values: { snapshot: 'held' } });
  });

  it('throws an invalid-argument AnimGraphError for a name that is not a non-empty string', () => {
    const g = bipedInstance(nodes, 'blend', params);
    for (const bad of ['', 3, undefined, null]) {
      expect(() => g.savePoseSnapshot(bad as string)).toThrow(AnimGraphError);
      try { g.savePoseSnapshot(bad as string); } catch (e) { expect((e as AnimGraphError).code).toBe('invalid-argument'); }
    }
  });

  it('works on an InstanceBatch, whose poses live in the sampling kernel’s memory', () => {
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } }, parameters: params, nodes, output: 'blend',
    });
    const batch = graph.createInstances(3);
    batch.update(0.3);
    const character = batch.instances[1], saved = copy(character.evaluate());
    character.savePoseSnapshot('held');
    character.setParameter('a', 1);
    batch.update(0.25);
    expect(bits(character.evaluate())).toBe(bits(saved));
    expect(bits(batch.instances[0].evaluate())).not.toBe(bits(saved));
  });

  it('allocates nothing per frame (0 B once warm), saving every frame and blending the snapshot', () => {
    const result = runProbe<Record<string, number>>('controls-allocation-probe.ts', [], ['PoseSnapshot']);
    expect(result.perFrame).toBeLessThan(0.5);
  });
});

describeWithData('PoseSnapshot on the CMU walk', () => {
  it('holds a frame of the walk bit for bit while the walk plays on, and the walk blends from it', () => {
    const file = `${CMU}002_01.bvh`;
    const g = loadGraphAsset({
      format: 'animgraph/1', skeleton: { bvh: file }, clips: { walk: { source: file, frames: [1, -1] } }, parameters: params, nodes, output: 'blend',
    }).createInstance();
    g.update(0.5);
    const saved = copy(g.evaluate());
    g.savePoseSnapshot('held');
    g.setParameter('a', 1);
    for (let frame = 0; frame < 60; frame++) {
      g.update(1 / 120);
      expect(bits(g.evaluate())).toBe(bits(saved));
    }
    g.setParameter('a', 0.25);
    g.update(1 / 120);
    const pose = g.evaluate();
    expect(bits(pose)).not.toBe(bits(saved));
    expect(pose.rotations.every(Number.isFinite)).toBe(true);
  });
});
