import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { clipFramePose } from '../../runtime/core/additive.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { describeWithData, SHARED_DATA } from '../support/shared-data.ts';

const root = new URL('../../', import.meta.url).pathname;

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const io: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false };
  const code = await main(args, io);
  return { code, out, err };
}

describe('animgraph retarget: usage', () => {
  it('needs a graph, a clip of it and a .gltf --out', async () => {
    const sample = `${root}graphs/examples/sample-locomotion.json`;
    expect((await cli('retarget', sample)).code).toBe(2);
    expect((await cli('retarget', sample, 'walk')).err).toContain('needs --out FILE.gltf');
    expect((await cli('retarget', sample, 'walk', '--out', join(tmpdir(), 'x.json'))).err).toContain('written as a .gltf file');
    const unknown = await cli('retarget', sample, 'jog', '--out', join(tmpdir(), 'x.gltf'));
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("has no clip 'jog' (clips: idle, walk, run)");
  });

  it('bakes a clip that is not retargeted as it plays, and the file plays it back (single precision)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-retarget-'));
    const out = join(dir, 'walk.gltf');
    const sample = `${root}graphs/examples/sample-locomotion.json`;
    const { code, out: text } = await cli('retarget', sample, 'walk', '--out', out);
    expect(code).toBe(0);
    expect(text).toMatch(/^wrote .*walk\.gltf: clip 'walk', 34 frames at 30 fps on 22 bones\n$/);
    const original = loadGraphFile(sample);
    const baked = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'walk.gltf' } },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p',
    }, { baseDir: dir });
    const a = original.clipBindings.get('walk')!, b = baked.clipBindings.get('walk')!;
    expect(b.clip.frameCount).toBe(a.clip.frameCount);
    const pa = new Pose(original.skeleton.boneCount), pb = new Pose(original.skeleton.boneCount);
    let worst = 0;
    for (let f = 0; f < a.clip.frameCount; f++) {
      clipFramePose(pa, a, f);
      clipFramePose(pb, b, f);
      for (let i = 0; i < pa.rotations.length; i++) worst = Math.max(worst, Math.abs(pa.rotations[i] - pb.rotations[i]));
      for (let i = 0; i < pa.translations.length; i++) worst = Math.max(worst, Math.abs(pa.translations[i] - pb.translations[i]) / 100);
    }
    expect(worst).toBeLessThan(1e-6);
  });
});

describeWithData('animgraph retarget on the CMU walk and the robot', () => {
  it('bakes the retargeted walk with its motion in the keys; the robot plays the file as the graph plays the clip', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-retarget-'));
    const out = join(dir, 'cmu-walk-robot.gltf');
    const graphFile = `${root}graphs/examples/cmu-robot-retarget.json`;
    const { code, out: text } = await cli('retarget', graphFile, 'cmuWalk', '--out', out);
    expect(code).toBe(0);
    expect(text).toContain("clip 'cmuWalk', 224 frames");
    expect(text).toContain('root Body, translation scale 0.0134926 (hip heights)');
    expect(text).toContain('  UpperLeg.L <- CC_Base_L_Thigh');
    expect(text).toContain('3 bones keep the reference pose: Bone, PoleTarget.L, PoleTarget.R');
    // The file on the robot, root motion extracted from its pelvis as the example's clip is.
    const robot = `${SHARED_DATA}gltf/RobotExpressive.glb`;
    const asset = {
      format: 'animgraph/1', skeleton: { gltf: robot },
      // The capture's 60 fps is 59.9988 in the BVH's frame time: given, so that frames line up.
      clips: { walk: { source: 'cmu-walk-robot.gltf', rootMotion: { bone: 'Body' }, sampleRate: 1 / 0.016667 } },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p',
    };
    writeFileSync(join(dir, 'play.json'), JSON.stringify(asset));
    const baked = loadGraphFile(join(dir, 'play.json'));
    const original = loadGraphFile(graphFile);
    const a = original.clipBindings.get('cmuWalk')!, b = baked.clipBindings.get('walk')!;
    expect(b.clip.frameCount).toBe(a.clip.frameCount);
    const pa = new Pose(original.skeleton.boneCount), pb = new Pose(original.skeleton.boneCount);
    let worst = 0;
    for (let f = 0; f < a.clip.frameCount; f += 7) {
      clipFramePose(pa, a, f);
      clipFramePose(pb, b, f);
      for (let i = 0; i < pa.rotations.length; i += 4) {
        let dot = 0;
        for (let k = 0; k < 4; k++) dot += pa.rotations[i + k] * pb.rotations[i + k];
        worst = Math.max(worst, 2 * Math.acos(Math.min(1, Math.abs(dot))));
      }
    }
    expect(worst).toBeLessThan(1e-5);
    const ta = a.clip.rootMotion!.translations, tb = b.clip.rootMotion!.translations;
    expect(Math.abs(ta[ta.length - 1] - tb[tb.length - 1])).toBeLessThan(1e-4);
    expect(JSON.parse(readFileSync(out, 'utf8')).asset.generator).toBe('animgraph retarget');
  });
});
