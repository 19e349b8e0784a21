import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { clipFramePose } from '../../runtime/core/additive.ts';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { ComponentPose } from '../../runtime/core/component-pose.ts';
import { mirrorPose, skeletonMirrorTable } from '../../runtime/core/mirror.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { loadBvh } from '../../runtime/import/bvh.ts';
import { describeWithData, readShared } from '../support/shared-data.ts';
import { mirrorClip, mirrorTable } from '../../runtime/core/mirror.ts';
import { sampleClip, sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { AnimGraph } from '../../runtime/graph/graph.ts';
import { OutputType } from '../../nodes/index.ts';
import { SequencePlayerType } from '../../nodes/SequencePlayer.ts';
import { hasNaN } from '../support/graphs.ts';

const examples = new URL('../../graphs/examples/', import.meta.url).pathname;

function biped(clips: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    format: 'animgraph/1', skeleton: 'builtin:biped', clips, ...extra,
    nodes: { play: { type: 'SequencePlayer', properties: { clip: Object.keys(clips)[0] } } }, output: 'play',
  };
}

describe('retarget and mirror in the asset', () => {
  it("a clip retargeted onto its own skeleton is the clip (the built-in walk on the built-in biped, to 1e-12)", () => {
    const graph = loadGraphAsset(biped({ walk: { source: 'builtin:walk', retarget: {} }, plain: { source: 'builtin:walk' } }));
    const skeleton = graph.skeleton;
    const a = graph.clipBindings.get('walk')!, b = graph.clipBindings.get('plain')!;
    expect(a.clip.retarget).not.toBeNull();
    expect(a.clip.retarget!.scale).toBe(1);
    const pa = new Pose(skeleton.boneCount), pb = new Pose(skeleton.boneCount);
    let worst = 0;
    for (let f = 0; f < a.clip.frameCount; f++) {
      clipFramePose(pa, a, f);
      clipFramePose(pb, b, f);
      for (let i = 0; i < pa.translations.length; i++) worst = Math.max(worst, Math.abs(pa.translations[i] - pb.translations[i]));
      // q and −q are one rotation.
      for (let i = 0; i < pa.rotations.length; i += 4) {
        let dot = 0;
        for (let k = 0; k < 4; k++) dot += pa.rotations[i + k] * pb.rotations[i + k];
        worst = Math.max(worst, 1 - Math.abs(dot));
      }
    }
    expect(worst).toBeLessThan(1e-12);
  });

  it('reports each problem of a retarget or mirror block at its path', () => {
    const result = checkGraphAsset(biped({
      walk: { source: 'builtin:walk', retarget: { boneMap: { nope: 'pelvis', thigh_l: 'missing' }, reference: { frame: 999 } } },
      none: { source: 'builtin:walk', retarget: { autoMap: false } },
    }, { mirror: { pairs: [['hand_l', 'hand_x'], ['foot_l', 'foot_r'], ['foot_l', 'ball_r']] } }));
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems.map((p) => `${p.path} ${p.code}: ${p.message}`);
    expect(problems).toEqual([
      "$.mirror.pairs[0][1] unknown-bone: the skeleton has no bone 'hand_x'",
      "$.mirror.pairs[2][0] schema: bone 'foot_l' is in two mirror pairs",
      "$.clips.walk.retarget.boneMap.nope unknown-bone: the graph's skeleton has no bone 'nope'",
      "$.clips.walk.retarget.boneMap.thigh_l unknown-bone: the source skeleton has no bone 'missing'",
      "$.clips.walk.retarget.reference.frame clip-frames: frame 999 is outside the source file's frames 0..33 (or -1..-34 from the end)",
      "$.clips.none.retarget skeleton: clip 'none': the bone map matches no bone of the target to the source: nothing to retarget (give a boneMap)",
    ]);
  });

  it('a retargeted clip whose file is missing is reported at its source, once', () => {
    const result = checkGraphAsset(biped({ walk: { source: 'no-such-take.bvh', retarget: {} } }), { baseDir: examples });
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems.map((p) => `${p.path} ${p.code}`);
    expect(problems).toEqual(['$.clips.walk.source clip-file']);
  });

  it('a clip marked mirror swaps left and right: the mirrored walk\'s left thigh is the walk\'s right reflected', () => {
    const graph = loadGraphAsset(biped({ walk: { source: 'builtin:walk' }, mirrored: { source: 'builtin:walk', mirror: true } }, { mirror: { plane: 'x' } }));
    const sk = graph.skeleton;
    expect(sk.mirror).toEqual({ plane: 'x', pairs: [] });
    const plain = clipFramePose(new Pose(sk.boneCount), graph.clipBindings.get('walk')!, 5);
    const mirrored = clipFramePose(new Pose(sk.boneCount), graph.clipBindings.get('mirrored')!, 5);
    const l = sk.indexOf('thigh_l') * 4, r = sk.indexOf('thigh_r') * 4;
    expect(mirrored.rotations[l]).toBe(plain.rotations[r]);
    expect(mirrored.rotations[l + 1]).toBe(-plain.rotations[r + 1]);
    expect(mirrored.rotations[l + 2]).toBe(-plain.rotations[r + 2]);
    expect(mirrored.rotations[l + 3]).toBe(plain.rotations[r + 3]);
    // Twice mirrored by the pose operation: the clip's own keys (as numbers: the root, which neither clip keys, is the
    // reference's 0, 0, 0, 1 mirrored once, whose zeros change sign).
    mirrorPose(mirrored, skeletonMirrorTable(sk));
    for (let i = 0; i < plain.rotations.length; i++) expect(mirrored.rotations[i] === plain.rotations[i]).toBe(true);
  });
});

/**
 * Plays `asset` three ways for `frames` frames of 1/30 s: output `play` (a player of clip `walk`
 * marked mirror), `marked` (a player of a clip marked mirror) and `node` (a Mirror node over a plain
 * player); returns the largest difference from the first of the other two, in poses and root motion.
 */
function mirroredPlayers(asset: any, baseDir: string, frames: number): { marked: number; node: number; moved: number } {
  const play = (output: string) => loadGraphAsset({ ...asset, output }, { baseDir }).createInstance();
  const player = play('player'), marked = play('marked'), node = play('node'), plain = play('plain');
  let worstMarked = 0, worstNode = 0, moved = 0;
  for (let f = 0; f < frames; f++) {
    for (const c of [player, marked, node, plain]) c.update(1 / 30);
    const p = player.evaluate(), m = marked.evaluate(), n = node.evaluate(), u = plain.evaluate();
    for (const [key, size] of [['translations', 3], ['rotations', 4]] as const) {
      for (let i = 0; i < p[key].length; i++) {
        worstMarked = Math.max(worstMarked, Math.abs(p[key][i] - m[key][i]));
        worstNode = Math.max(worstNode, Math.abs(p[key][i] - n[key][i]));
        if (size === 4) moved = Math.max(moved, Math.abs(p[key][i] - u[key][i]));
      }
    }
    for (let k = 0; k < 4; k++) {
      worstMarked = Math.max(worstMarked, Math.abs(player.rootMotion[k] - marked.rootMotion[k]));
      worstNode = Math.max(worstNode, Math.abs(player.rootMotion[k] - node.rootMotion[k]));
    }
  }
  return { marked: worstMarked, node: worstNode, moved };
}

function mirrorNodes(clip: string, mirroredClip: string) {
  return {
    player: { type: 'SequencePlayer', properties: { clip, mirror: true } },
    marked: { type: 'SequencePlayer', properties: { clip: mirroredClip } },
    plain: { type: 'SequencePlayer', properties: { clip } },
    under: { type: 'SequencePlayer', properties: { clip } },
    node: { type: 'Mirror', inputs: { pose: 'under' } },
  };
}

describe('a player marked mirror', () => {
  it("plays bit for bit what a player of a clip marked mirror plays, root motion included, and a Mirror node's pose to 1e-15 (the built-in walk)", () => {
    const asset = {
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk', rootMotion: true }, walkMirrored: { source: 'builtin:walk', rootMotion: true, mirror: true } },
      nodes: mirrorNodes('walk', 'walkMirrored'),
    };
    const { marked, node, moved } = mirroredPlayers(asset, examples, 90);
    expect(marked).toBe(0);
    expect(node).toBeLessThan(1e-15);
    expect(moved).toBeGreaterThan(0.1);
  });

  it('adds one mirrored clip per clip, under a name of its own, and leaves the asset\'s clips as they are', () => {
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk' }, 'walk (mirrored)': { source: 'builtin:walk' } },
      nodes: { a: { type: 'SequencePlayer', properties: { clip: 'walk', mirror: true } }, b: { type: 'SequencePlayer', properties: { clip: 'walk', mirror: true } }, blend: { type: 'BlendTwo', inputs: { A: 'a', B: 'b' } } },
      output: 'blend',
    });
    expect([...graph.clipBindings.keys()]).toEqual(['walk', 'walk (mirrored)', "walk (mirrored)'"]);
    expect(graph.clipBindings.get("walk (mirrored)'")!.clip.mirrored).toBe(true);
    expect(graph.clipBindings.get('walk')!.clip.mirrored).toBe(false);
  });

  it('is a loader problem at the property where the clip is mirrored already, or additive', () => {
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk', mirror: true }, add: { source: 'builtin:walk', additive: {} } },
      nodes: {
        twice: { type: 'SequencePlayer', properties: { clip: 'walk', mirror: true } },
        add: { type: 'SequencePlayer', properties: { clip: 'add', mirror: true } },
        base: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        apply: { type: 'ApplyAdditive', inputs: { base: 'twice', additive: 'add' } },
      },
      output: 'apply',
    });
    const problems = result.ok ? [] : result.problems.map((p) => `${p.path} ${p.code}`);
    expect(problems).toEqual(['$.nodes.twice.properties.mirror schema', '$.nodes.add.properties.mirror schema']);
  });

  it('refuses, in a graph built in code, a clip that is not mirrored', () => {
    const sk = sampleSkeleton(), clip = sampleClip('walk');
    const graph = (mirrored: boolean) => new AnimGraph({
      name: 'g', skeleton: sk, parameters: {}, clips: new Map([['walk', mirrored ? mirrorClip(clip, sk, mirrorTable(sk)) : clip]]),
      nodes: [
        { id: 'p', nodeType: SequencePlayerType, properties: { clip: 'walk', mirror: true }, inputs: {} },
        { id: 'output', nodeType: OutputType, properties: {}, inputs: { pose: 'p' } },
      ],
    }).createInstance();
    expect(() => graph(false)).toThrow(/mirror is true but clip 'walk' is not mirrored/);
    expect(() => graph(true)).not.toThrow();
  });
});

describeWithData('a player marked mirror on the CMU walk retargeted onto RobotExpressive (34 bones corrected)', () => {
  it("plays bit for bit what the clip marked mirror plays, and the Mirror node's pose to 1e-14", () => {
    const asset = JSON.parse(readFileSync(`${examples}cmu-robot-retarget.json`, 'utf8'));
    asset.nodes = mirrorNodes('cmuWalk', 'cmuWalkMirrored');
    const { marked, node, moved } = mirroredPlayers(asset, examples, 60);
    console.log(`mirrored player against the clip marked mirror: ${marked}; against the Mirror node: ${node.toExponential(2)}`);
    expect(marked).toBe(0);
    expect(node).toBeLessThan(1e-14);
    expect(moved).toBeGreaterThan(0.1);
  });

  it("is a loader problem at the property, and at a clip marked mirror, where no mirror table can be found (CesiumMan's unnamed joints, no pairs)", () => {
    const asset = JSON.parse(readFileSync(`${examples}cmu-cesium-retarget.json`, 'utf8'));
    delete asset.mirror;
    asset.nodes.walk.properties.mirror = true;
    const problems = () => {
      const result = checkGraphAsset(asset, { baseDir: examples });
      return result.ok ? [] : result.problems.map((p) => `${p.path} ${p.code}: ${p.message}`);
    };
    const why = "the skeleton has no mirror pairs: no bone's name says its side (Left/Right, .L/.R, _l/_r...) and the asset's `mirror` block gives no `pairs`";
    expect(problems()).toEqual([`$.nodes.walk.properties.mirror skeleton: ${why}`]);
    asset.nodes.walk.properties.mirror = false;
    asset.clips.cmuWalk.mirror = true;
    expect(problems()).toEqual([`$.clips.cmuWalk.mirror skeleton: ${why}`]);
  });
});

describeWithData('graphs/examples/cmu-robot-retarget.json (the CMU slow walk on RobotExpressive)', () => {
  const graph = loadGraphFile(`${examples}cmu-robot-retarget.json`);
  const walk = graph.clipBindings.get('cmuWalk')!.clip, mirrored = graph.clipBindings.get('cmuWalkMirrored')!.clip;

  it('loads and plays: root motion from the pelvis, at the capture\'s pace times the hip-height scale', () => {
    expect(walk.retarget).not.toBeNull();
    expect(walk.tracks[walk.rootMotion!.track].bone).toBe('Body');
    const { skeleton: source, clip: take } = loadBvh(readShared('bvh/cmu/007_04.bvh'), 'walk');
    // The capture's distance over the kept frames (the root's horizontal path, frame 1 to the last).
    const root = source.indexOf('CC_Base_Pelvis');
    const at = (f: number) => {
      const cs = new ComponentPose(source);
      cs.setFromLocal(clipFramePose(new Pose(source.boneCount), new ClipBinding(take, source), f));
      cs.ensureComponent(root);
      return [cs.translations[root * 3], cs.translations[root * 3 + 2]];
    };
    const [x0, z0] = at(1), [x1, z1] = at(take.frameCount - 1);
    const captured = Math.hypot(x1 - x0, z1 - z0) * walk.retarget!.scale;
    const t = walk.rootMotion!.translations, n = walk.frameCount - 1;
    const retargeted = Math.hypot(t[n * 3] - t[0], t[n * 3 + 2] - t[2]);
    expect(retargeted / captured).toBeCloseTo(1, 9);
    expect(captured).toBeGreaterThan(2); // some 2.6 robot units (metres of the file)
    // The robot's feet hang from its root beside the pelvis: root motion is taken out of them too, so that
    // they stay under the body (a stride is under 1.2 robot units) instead of walking off with the capture.
    expect(walk.rootMotion).not.toBeNull();
    let farthest = 0;
    const skeleton = graph.skeleton, body = skeleton.indexOf('Body');
    for (let f = 0; f < walk.frameCount; f += 3) {
      const cs = new ComponentPose(skeleton);
      cs.setFromLocal(clipFramePose(new Pose(skeleton.boneCount), graph.clipBindings.get('cmuWalk')!, f));
      cs.ensureAllComponent();
      for (const foot of ['Foot.L', 'Foot.R']) {
        const b = skeleton.indexOf(foot);
        farthest = Math.max(farthest, Math.hypot(cs.translations[b * 3] - cs.translations[body * 3], cs.translations[b * 3 + 2] - cs.translations[body * 3 + 2]));
      }
    }
    expect(farthest).toBeLessThan(1.2);
    expect(farthest).toBeGreaterThan(0.3);
    const character = graph.createInstance();
    let travelled = 0;
    for (let f = 0; f < 120; f++) {
      character.update(1 / 60);
      const pose = character.evaluate();
      expect(hasNaN(pose.rotations)).toBe(false);
      travelled += Math.hypot(character.rootMotion[0], character.rootMotion[2]);
    }
    expect(travelled).toBeGreaterThan(0.5);
  });

  it('the mirrored clip mirrors the root motion: sideways drift and turns change sign, forward motion stays', () => {
    const a = walk.rootMotion!, b = mirrored.rootMotion!;
    let worst = 0;
    for (let f = 0; f < walk.frameCount; f++) {
      worst = Math.max(worst, Math.abs(a.translations[f * 3] + b.translations[f * 3]), Math.abs(a.translations[f * 3 + 2] - b.translations[f * 3 + 2]),
        Math.abs(a.headings[f] + b.headings[f]));
    }
    expect(worst).toBeLessThan(1e-9);
    expect(Math.max(...Array.from(a.translations, Math.abs))).toBeGreaterThan(1);
    expect(mirrored.tracks[b.track].bone).toBe('Body');
  });
});

describeWithData('graphs/examples/cmu-cesium-retarget.json (the CMU slow walk on CesiumMan, bones mapped by hand)', () => {
  const graph = loadGraphFile(`${examples}cmu-cesium-retarget.json`);
  const skeleton = graph.skeleton;

  it('maps by hand, faces CesiumMan\'s way (+x), and mirrors across z = 0 with the pairs given', () => {
    const clip = graph.clipBindings.get('cmuWalk')!.clip;
    expect(clip.retarget!.map.filter((s) => s >= 0).length).toBe(19);
    expect(skeleton.boneNames[clip.retarget!.root]).toBe('node2');
    const table = skeletonMirrorTable(skeleton);
    expect(table.axis).toBe(2);
    expect(skeleton.boneNames[table.partner[skeleton.indexOf('node9')]]).toBe('node5');
    // Walking: forward is +x, so the root motion runs along x.
    const t = clip.rootMotion!.translations, n = clip.frameCount - 1;
    expect(t[n * 3] - t[0]).toBeGreaterThan(3 * Math.abs(t[n * 3 + 2] - t[2]));
    expect(t[n * 3] - t[0]).toBeGreaterThan(1);
  });

  it('the Mirror node mirrors the pose when its parameter says so, and passes it through when not', () => {
    const plain = graph.createInstance(), mirrored = graph.createInstance();
    mirrored.setParameter('mirror', true);
    const table = skeletonMirrorTable(skeleton);
    for (let f = 0; f < 30; f++) {
      plain.update(1 / 30);
      mirrored.update(1 / 30);
      const expected = new Pose(skeleton.boneCount);
      const p = plain.evaluate();
      expected.translations.set(p.translations); expected.rotations.set(p.rotations); expected.scales.set(p.scales);
      mirrorPose(expected, table);
      const m = mirrored.evaluate();
      for (let i = 0; i < m.rotations.length; i++) expect(m.rotations[i]).toBe(expected.rotations[i]);
      expect(mirrored.rootMotion[2]).toBeCloseTo(-plain.rootMotion[2], 12);
      expect(mirrored.rootMotion[0]).toBeCloseTo(plain.rootMotion[0], 12);
    }
  });
});

/**
 * Planted-foot slide of a retargeted clip next to its capture's: the mean horizontal travel per
 * frame of each foot over the frames where the capture's ankle is within 3 cm of its lowest (and
 * the frame before), the target's in capture-centimetres (divided by the hip-height scale). The
 * example's clip is loaded without its root motion, so that the feet move through space as captured.
 */
function plantedSlide(file: string, clipName: string, feet: Record<string, string>, edit: (asset: any) => void = () => {}): { lines: string[]; slides: [number, number][] } {
  const asset = JSON.parse(readFileSync(`${examples}${file}`, 'utf8'));
  delete asset.clips[clipName].rootMotion;
  edit(asset);
  const graph = loadGraphAsset(asset, { baseDir: examples });
  const clip = graph.clipBindings.get(clipName)!;
  const { skeleton: source, clip: take } = loadBvh(readShared('bvh/cmu/007_04.bvh'), 'walk');
  const sourceBinding = new ClipBinding(take.sliceFrames(1), source);
  const pose = (sk: typeof source, binding: ClipBinding, f: number) => {
    const cs = new ComponentPose(sk);
    cs.setFromLocal(clipFramePose(new Pose(sk.boneCount), binding, f));
    cs.ensureAllComponent();
    return cs;
  };
  const sourcePoses = Array.from({ length: clip.clip.frameCount }, (_, f) => pose(source, sourceBinding, f));
  const targetPoses = Array.from({ length: clip.clip.frameCount }, (_, f) => pose(graph.skeleton, clip, f));
  const scale = clip.clip.retarget!.scale;
  const lines: string[] = [], slides: [number, number][] = [];
  for (const [from, to] of Object.entries(feet)) {
    const s = source.indexOf(from), t = graph.skeleton.indexOf(to);
    const heights = sourcePoses.map((p) => p.translations[s * 3 + 1]);
    const lowest = Math.min(...heights);
    let src = 0, tgt = 0, frames = 0;
    for (let f = 1; f < heights.length; f++) {
      if (heights[f] - lowest > 3 || heights[f - 1] - lowest > 3) continue;
      frames++;
      const travel = (p: ComponentPose[], b: number) => Math.hypot(p[f].translations[b * 3] - p[f - 1].translations[b * 3], p[f].translations[b * 3 + 2] - p[f - 1].translations[b * 3 + 2]);
      src += travel(sourcePoses, s);
      tgt += travel(targetPoses, t) / scale;
    }
    slides.push([src / frames, tgt / frames]);
    lines.push(`${file} ${from} -> ${to}: capture ${(src / frames).toFixed(2)} cm, target ${(tgt / frames).toFixed(2)} capture-cm per planted frame (${frames} frames; hip-height scale ${scale.toPrecision(5)})`);
  }
  return { lines, slides };
}

describeWithData('the foot pass from the asset (retarget.feet)', () => {
  it("CesiumMan's planted feet slide as the capture's do, scaled (to 0.01 cm: a few frames are out of reach)", () => {
    const plain = plantedSlide('cmu-cesium-retarget.json', 'cmuWalk', { CC_Base_L_Foot: 'node9', CC_Base_R_Foot: 'node5' });
    const { slides, lines } = plantedSlide('cmu-cesium-retarget.json', 'cmuWalk', { CC_Base_L_Foot: 'node9', CC_Base_R_Foot: 'node5' }, (asset) => {
      asset.clips.cmuWalk.retarget.feet = true;
    });
    console.log(lines.map((l) => `${l} (foot pass)`).join('\n'));
    slides.forEach(([src, tgt], i) => {
      expect(Math.abs(tgt - src)).toBeLessThan(0.01);
      expect(Math.abs(tgt - src)).toBeLessThan(Math.abs(plain.slides[i][1] - src));
    });
  });
});

describeWithData('the hand pass from the asset (retarget.hands)', () => {
  it("CesiumMan's hands keep the capture's reach from the shoulder, scaled by the arms' lengths, every frame (to 1e-9)", () => {
    const asset = JSON.parse(readFileSync(`${examples}cmu-cesium-retarget.json`, 'utf8'));
    const { skeleton: source, clip: take } = loadBvh(readShared('bvh/cmu/007_04.bvh'), 'walk');
    const composed = (sk: typeof source, pose: Pose) => {
      const cs = new ComponentPose(sk);
      cs.setFromLocal(pose);
      cs.ensureAllComponent();
      return cs;
    };
    const whole = new ClipBinding(take, source);
    const sourcePoses = Array.from({ length: take.frameCount }, (_, f) => composed(source, clipFramePose(new Pose(source.boneCount), whole, f)));
    const dist = (cs: ComponentPose, a: number, b: number) => Math.hypot(...[0, 1, 2].map((k) => cs.translations[a * 3 + k] - cs.translations[b * 3 + k]));
    const spread = (hands: boolean) => {
      asset.clips.cmuWalk.retarget.hands = hands;
      const graph = loadGraphAsset(asset, { baseDir: examples });
      const sk = graph.skeleton, binding = graph.clipBindings.get('cmuWalk')!;
      const targetRef = composed(sk, sk.referencePose), sourceRef = sourcePoses[0];
      let worst = 0;
      for (const side of ['L', 'R']) {
        const [tu, tf, th] = (side === 'L' ? ['node16', 'node17', 'node18'] : ['node13', 'node14', 'node15']).map((b) => sk.indexOf(b));
        const [su, sf, sh] = ['Upperarm', 'Forearm', 'Hand'].map((b) => source.indexOf(`CC_Base_${side}_${b}`));
        const armScale = (dist(targetRef, tu, tf) + dist(targetRef, tf, th)) / (dist(sourceRef, su, sf) + dist(sourceRef, sf, sh));
        for (let f = 0; f < binding.clip.frameCount; f++) {
          const t = composed(sk, clipFramePose(new Pose(sk.boneCount), binding, f));
          worst = Math.max(worst, Math.abs(dist(t, th, tu) - dist(sourcePoses[f + 1], sh, su) * armScale));
        }
      }
      return worst;
    };
    const plain = spread(false), reached = spread(true);
    console.log(`CesiumMan's hand-to-shoulder distance against the capture's, scaled: off by up to ${plain.toFixed(4)} without the hand pass, ${reached.toExponential(2)} with it`);
    expect(plain).toBeGreaterThan(0.01);
    expect(reached).toBeLessThan(1e-9);
  });
});

describeWithData('planted-foot slide of the CMU slow walk retargeted, next to the capture\'s', () => {
  it('RobotExpressive and CesiumMan: the targets\' planted feet slide at most twice the capture\'s, plus half a centimetre', () => {
    const robot = plantedSlide('cmu-robot-retarget.json', 'cmuWalk', { CC_Base_L_Foot: 'Foot.L', CC_Base_R_Foot: 'Foot.R' });
    const cesium = plantedSlide('cmu-cesium-retarget.json', 'cmuWalk', { CC_Base_L_Foot: 'node9', CC_Base_R_Foot: 'node5' });
    console.log([...robot.lines, ...cesium.lines].join('\n'));
    for (const [src, tgt] of [...robot.slides, ...cesium.slides]) {
      expect(src).toBeLessThan(1);
      expect(tgt).toBeLessThan(2 * src + 0.5);
    }
  });
});

describeWithData("a glTF clip on another rig: the robot's Walking on the built-in biped, its source skeleton the file's own skin", () => {
  it('maps by name across conventions (UpperLeg.L → thigh_l) and swings the biped\'s legs as the robot\'s swing', () => {
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: '../../../shared/data/gltf/RobotExpressive.glb', animation: 'Walking', retarget: {} } },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p',
    }, { baseDir: examples });
    const binding = graph.clipBindings.get('walk')!, retarget = binding.clip.retarget!, sk = graph.skeleton;
    expect(retarget.sourceBones).toHaveLength(43);
    const from = (bone: string) => retarget.sourceBones[retarget.map[sk.indexOf(bone)]];
    expect([from('thigh_l'), from('calf_r'), from('upperarm_l'), from('pelvis'), from('head')]).toEqual(['UpperLeg.L', 'LowerLeg.R', 'UpperArm.L', 'Body', 'Head']);
    const thigh = sk.indexOf('thigh_l'), calf = sk.indexOf('calf_l');
    const directions: number[][] = [];
    for (let f = 0; f < binding.clip.frameCount; f++) {
      const cs = new ComponentPose(sk);
      cs.setFromLocal(clipFramePose(new Pose(sk.boneCount), binding, f));
      cs.ensureAllComponent();
      const d = [0, 1, 2].map((k) => cs.translations[calf * 3 + k] - cs.translations[thigh * 3 + k]);
      directions.push(d.map((x) => x / Math.hypot(d[0], d[1], d[2])));
    }
    // Forward (+z) and back: the thigh's swing over the cycle spans more than 30°.
    const pitch = directions.map((d) => Math.atan2(d[2], -d[1]));
    expect((Math.max(...pitch) - Math.min(...pitch)) * 180 / Math.PI).toBeGreaterThan(30);
  });
});
