import { describe, expect, it } from 'vitest';
import { MirrorType } from '../../nodes/Mirror.ts';
import { mirrorPose, skeletonMirrorTable } from '../../runtime/core/mirror.ts';
import { Pose, poseCopy } from '../../runtime/core/pose.ts';
import { runProbe } from '../support/allocation.ts';
import { loadGraphAsset } from '../../host/files.ts';
import { bipedInstance } from '../support/graphs.ts';

const walk = { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } };

describe('Mirror', () => {
  it('declares one local pose input and a bindable bool', () => {
    expect(MirrorType.space).toBe('local');
    expect(MirrorType.inputs.map((i) => i.name)).toEqual(['pose']);
    expect(MirrorType.properties.mirror).toEqual({ kind: 'bool', default: true });
  });

  it("outputs its input mirrored by the skeleton's table; twice, the input itself, bit for bit", () => {
    const plain = bipedInstance(walk, 'walk');
    const once = bipedInstance({ ...walk, m: { type: 'Mirror', inputs: { pose: 'walk' } } }, 'm');
    const twice = bipedInstance({ ...walk, m: { type: 'Mirror', inputs: { pose: 'walk' } }, m2: { type: 'Mirror', inputs: { pose: 'm' } } }, 'm2');
    const table = skeletonMirrorTable(plain.skeleton);
    const expected = new Pose(plain.skeleton.boneCount);
    let differs = 0;
    for (let f = 0; f < 40; f++) {
      for (const c of [plain, once, twice]) c.update(1 / 30);
      const p = plain.evaluate();
      mirrorPose(poseCopy(expected, p), table);
      const o = once.evaluate();
      for (let i = 0; i < o.rotations.length; i++) {
        expect(o.rotations[i]).toBe(expected.rotations[i]);
        if (o.rotations[i] !== p.rotations[i]) differs++;
      }
      const t = twice.evaluate();
      for (const [a, b] of [[t.translations, p.translations], [t.rotations, p.rotations], [t.scales, p.scales]]) {
        for (let i = 0; i < a.length; i++) expect(Object.is(a[i], b[i])).toBe(true);
      }
    }
    expect(differs).toBeGreaterThan(40 * 20);
    expect(once.gatherDebug().children[0].description).toBe('Mirrored');
  });

  it('mirrors root motion (sideways and turning negated) and passes pose and motion through when off', () => {
    const instance = (output: string, mirror: boolean) => loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk', rootMotion: true } },
      parameters: { on: { type: 'bool', default: mirror } },
      nodes: output === 'm' ? { ...walk, m: { type: 'Mirror', inputs: { pose: 'walk' }, properties: { mirror: { param: 'on' } } } } : walk,
      output,
    }).createInstance();
    const on = instance('m', true), off = instance('m', false), plain = instance('walk', false);
    for (let f = 0; f < 10; f++) {
      for (const c of [on, off, plain]) c.update(1 / 30);
      const p = plain.evaluate(), o = off.evaluate();
      for (let i = 0; i < p.rotations.length; i++) expect(o.rotations[i]).toBe(p.rotations[i]);
      // The built-in walk goes straight ahead (graphs/retarget.test.ts mirrors CesiumMan's sideways drift).
      expect(on.rootMotion[0] + 0).toBe(-plain.rootMotion[0] + 0);
      expect(on.rootMotion[3] + 0).toBe(-plain.rootMotion[3] + 0);
      expect(on.rootMotion[2]).toBe(plain.rootMotion[2]);
      expect(off.rootMotion[0]).toBe(plain.rootMotion[0]);
    }
    expect(off.gatherDebug().children[0].description).toBe('Off');
  });
});

describe('Mirror allocates nothing per frame', () => {
  it('in a plain Node process, once warm, mirroring and not', () => {
    const result = runProbe('mirror-allocation-probe.ts');
    expect(result.on).toBeLessThan(4);
    expect(result.off).toBeLessThan(4);
    expect(result.mirrored).toBe(true);
  });
});
