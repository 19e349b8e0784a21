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

  it("reports the planted feet's slide on the target next to the source's, the same with the foot pass", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-retarget-'));
    const graphFile = `${root}graphs/examples/cmu-robot-retarget.json`;
    const slides = (text: string) => [...text.matchAll(/^ {2}(\S+) -> (\S+): source ([0-9.]+), target ([0-9.]+) over (\d+) planted frames$/gm)]
      .map((m) => ({ from: m[1], to: m[2], source: Number(m[3]), target: Number(m[4]), frames: Number(m[5]) }));
    const plain = await cli('retarget', graphFile, 'cmuWalk', '--out', join(dir, 'a.gltf'));
    expect(plain.out).toContain("planted-foot slide, per frame where the source foot is planted (source units; the target's divided by the scale):");
    const found = slides(plain.out);
    expect(found.map((f) => `${f.from}>${f.to}`)).toEqual(['CC_Base_L_Foot>Foot.L', 'CC_Base_R_Foot>Foot.R']);
    for (const f of found) {
      expect(f.frames).toBeGreaterThan(20);
      expect(f.source).toBeLessThan(1); // the capture's planted feet slide under a centimetre a frame
      expect(f.target).toBeGreaterThan(f.source); // the robot's proportions are its own
      expect(f.target).toBeLessThan(2 * f.source + 0.5);
    }
    // The mirrored clip: each source foot is played by the other side's foot, which slides as much.
    const mirrored = slides((await cli('retarget', graphFile, 'cmuWalkMirrored', '--out', join(dir, 'b.gltf'))).out);
    expect(mirrored.map((f) => `${f.from}>${f.to}`)).toEqual(['CC_Base_L_Foot>Foot.R', 'CC_Base_R_Foot>Foot.L']);
    mirrored.forEach((f, i) => expect(f.target).toBe(found[i].target));
    // With the foot pass the robot's feet go where the scaled capture's do: they slide as the capture's.
    const asset = JSON.parse(readFileSync(graphFile, 'utf8'));
    asset.clips.cmuWalk.retarget.feet = true;
    // Written elsewhere: its files named from there.
    const moved = (path: string) => path.replace(/^.*shared\/data\//, SHARED_DATA);
    asset.skeleton.gltf = moved(asset.skeleton.gltf);
    for (const clip of Object.values(asset.clips) as { source: string }[]) clip.source = moved(clip.source);
    writeFileSync(join(dir, 'feet.json'), JSON.stringify(asset));
    const feet = await cli('retarget', join(dir, 'feet.json'), 'cmuWalk', '--out', join(dir, 'c.gltf'));
    expect(feet.err).toBe('');
    expect(slides(feet.out)).toHaveLength(2);
    slides(feet.out).forEach((f, i) => {
      expect(f.source).toBe(found[i].source);
      expect(f.target).toBeCloseTo(f.source, 2);
    });
  });
});
