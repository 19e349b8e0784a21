import { Document, WebIO, type Node as GltfNode } from '@gltf-transform/core';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClipBinding } from '../../../runtime/core/clip.ts';
import { sampleClip } from '../../../runtime/core/sampling.ts';
import { ComponentPose } from '../../../runtime/core/component-pose.ts';
import { GltfError, gltfClip, gltfRig, gltfUriOutsideFolder, readGltf, type GltfDocument } from '../../../runtime/import/gltf.ts';
import { quatNormalize, quatSlerp } from '../../../runtime/core/math.ts';
import { Pose } from '../../../runtime/core/pose.ts';
import { describeWithData, SHARED_DATA } from '../../support/shared-data.ts';
import { stress } from '../../support/stress.ts';

const io = new WebIO();
const GLTF = `${SHARED_DATA}gltf/`;

/** The reference reader's view of a shared file (@gltf-transform reads asynchronously). */
async function reference(file: string): Promise<Document> {
  const bytes = new Uint8Array(readFileSync(`${GLTF}${file}`));
  return file.endsWith('.glb') ? io.readBinary(bytes) : io.readJSON({ json: JSON.parse(new TextDecoder().decode(bytes)), resources: {} });
}

function ours(file: string): GltfDocument {
  return readGltf(readFileSync(`${GLTF}${file}`), { source: file });
}

const normalized = (q: ArrayLike<number>) => Array.from(quatNormalize(Float64Array.from(q), 0));

/** Bone b's component-space translation. */
function componentTranslation(pose: Pose, skeleton: ComponentPose['skeleton'], bone: number): number[] {
  const cs = new ComponentPose(skeleton);
  cs.setFromLocal(pose);
  cs.ensureAllComponent();
  return Array.from(cs.translations.subarray(bone * 3, bone * 3 + 3));
}

/** The error a call throws, checked to be a GltfError. */
function gltfError(run: () => unknown): GltfError {
  try {
    run();
  } catch (e) {
    if (e instanceof GltfError) return e;
    throw e;
  }
  throw new Error('expected a GltfError');
}

describeWithData('glTF import of the shared files', () => {
  const files = [
    { file: 'RobotExpressive.glb', skins: 2, joints: 43, first: ['Bone', 'Foot.L', 'Body', 'Hips', 'Abdomen', 'Torso'], animations: 14 },
    { file: 'Fox.glb', skins: 1, joints: 24, first: ['_rootJoint', 'b_Root_00', 'b_Hip_01', 'b_Spine01_02'], animations: 3 },
    { file: 'CesiumMan.gltf', skins: 1, joints: 19, first: ['node2', 'node11', 'node12', 'node19'], animations: 1 },
  ];

  for (const { file, skins, joints, first, animations } of files) {
    it(`${file}: every skin becomes a skeleton of its joints, parents before children, in the scene's space`, async () => {
      const doc = ours(file);
      const ref = await reference(file);
      expect(doc.skinNames).toHaveLength(skins);
      expect(doc.animationNames).toHaveLength(animations);
      for (let s = 0; s < skins; s++) {
        const rig = gltfRig(doc, s);
        const skeleton = rig.skeleton;
        const refSkin = ref.getRoot().listSkins()[s];
        const refJoints = refSkin.listJoints();
        expect(skeleton.boneCount).toBe(joints);
        expect(skeleton.boneNames.slice(0, first.length)).toEqual(first);
        skeleton.parents.forEach((p, b) => expect(p).toBeLessThan(b));
        // Each joint's bone has the node's name (unnamed: node<index>) and its parent joint as parent.
        refJoints.forEach((node, j) => {
          const bone = skeleton.skin!.jointBones[j];
          const index = ref.getRoot().listNodes().indexOf(node);
          expect(skeleton.boneNames[bone]).toBe(node.getName() || `node${index}`);
          const parent = node.getParentNode();
          if (bone > 0) expect(skeleton.boneNames[skeleton.parents[bone]]).toBe(parent!.getName() || `node${ref.getRoot().listNodes().indexOf(parent!)}`);
          // Component space is the scene's space: the reference pose puts every joint where the
          // reference reader's world matrix does, the armature's transform included.
          const world = node.getWorldMatrix();
          const at = componentTranslation(skeleton.referencePose, skeleton, bone);
          for (let k = 0; k < 3; k++) expect(at[k]).toBeCloseTo(world[12 + k], 5);
          // Inverse bind matrices kept per bone, as stored.
          const ibm = Array.from(refSkin.getInverseBindMatrices()!.getElement(j, []));
          expect(Array.from(skeleton.skin!.inverseBindMatrices.subarray(bone * 16, bone * 16 + 16))).toEqual(ibm);
        });
        // A non-root bone's reference is its node's rest TRS exactly (rotation normalised).
        const node = refJoints[3];
        const bone = skeleton.skin!.jointBones[3];
        expect(Array.from(skeleton.referencePose.translations.subarray(bone * 3, bone * 3 + 3))).toEqual(node.getTranslation());
        expect(Array.from(skeleton.referencePose.rotations.subarray(bone * 4, bone * 4 + 4))).toEqual(normalized(node.getRotation()));
      }
    });
  }

  it('RobotExpressive: the two skins are the same 43 joints; the root bone carries the armature (Z-up rotation and scale 100)', () => {
    const doc = ours('RobotExpressive.glb');
    const [a, b] = [gltfRig(doc, 0).skeleton, gltfRig(doc, 1).skeleton];
    expect(b.boneNames).toEqual(a.boneNames);
    // Bone's own rotation undoes the armature's -90 degrees about x: the root ends upright, scaled 100.
    const r = a.referencePose.rotations;
    expect(Math.abs(r[3])).toBeCloseTo(1, 6);
    expect(Array.from(a.referencePose.scales.subarray(0, 3))).toEqual([100, 100, 100]);
    expect(a.indexOf('Foot.L')).toBeGreaterThan(0);
    expect(a.indexOf('Palm2.R')).toBeGreaterThan(0);
  });

  it('RobotExpressive Walking: keys on a 24 Hz grid become frames exactly; mid-key samples are the LINEAR interpolation', async () => {
    const doc = ours('RobotExpressive.glb');
    const rig = gltfRig(doc, 0);
    const clip = gltfClip(doc, 'Walking', { rig });
    expect(clip.frameRate).toBe(24);
    const ref = await reference('RobotExpressive.glb');
    const walking = ref.getRoot().listAnimations().find((a) => a.getName() === 'Walking')!;
    const channel = (name: string, path: string) => walking.listChannels().find((c) => c.getTargetNode()!.getName() === name && c.getTargetPath() === path && rig.skeleton.skin!.jointBones.some((bone) => rig.skeleton.boneNames[bone] === name))!;
    const times = channel('UpperArm.L', 'rotation').getSampler()!.getInput()!;
    expect(clip.duration).toBeCloseTo(times.getMax([])[0], 6);
    expect(clip.frameCount).toBe(Math.round(times.getMax([])[0] * 24) + 1);
    const binding = new ClipBinding(clip, rig.skeleton);
    const pose = new Pose(rig.skeleton.boneCount);
    const arm = rig.skeleton.indexOf('UpperArm.L'), body = rig.skeleton.indexOf('Body');
    const rotation = channel('UpperArm.L', 'rotation').getSampler()!.getOutput()!;
    const translation = channel('Body', 'translation').getSampler()!;
    const k = 7;
    const tk = times.getScalar(k);
    // At a key's time the pose is the key (rotation normalised).
    sampleClip(pose, binding, Math.round(tk * 24) / 24, false);
    expect(Array.from(pose.rotations.subarray(arm * 4, arm * 4 + 4))).toEqual(normalized(rotation.getElement(k, [])));
    // Its single-precision keys were normalised once, before that first sample: it samples as unit keys do.
    expect(clip.unitRotationKeys).toBe(true);
    const bodyKey = translation.getInput()!.getScalar(k) === tk ? translation.getOutput()!.getElement(k, []) : null;
    expect(bodyKey).not.toBeNull();
    expect(Array.from(pose.translations.subarray(body * 3, body * 3 + 3))).toEqual(bodyKey);
    // Half way to the next key: slerp of the two keys, lerp of the translations.
    sampleClip(pose, binding, (k + 0.5) / 24, false);
    const expected = quatSlerp(new Float64Array(4), 0, Float64Array.from(normalized(rotation.getElement(k, []))), 0, Float64Array.from(normalized(rotation.getElement(k + 1, []))), 0, 0.5);
    for (let c = 0; c < 4; c++) expect(pose.rotations[arm * 4 + c]).toBeCloseTo(expected[c], 12);
    const next = translation.getOutput()!.getElement(k + 1, []);
    for (let c = 0; c < 3; c++) expect(pose.translations[body * 3 + c]).toBeCloseTo((bodyKey![c] + next[c]) / 2, 12);
    // Bones the animation leaves alone keep the reference pose; morph weights are not tracks.
    expect(clip.tracks.some((t) => t.bone === 'Hips')).toBe(false);
    expect(clip.tracks.every((t) => rig.skeleton.indexOf(t.bone) >= 0)).toBe(true);
  });

  it('Fox Run: keys off a uniform grid are resampled at about 30 Hz, spanning the animation exactly', async () => {
    const doc = ours('Fox.glb');
    const rig = gltfRig(doc);
    const clip = gltfClip(doc, 'Run', { rig });
    const ref = await reference('Fox.glb');
    const run = ref.getRoot().listAnimations().find((a) => a.getName() === 'Run')!;
    const end = Math.max(...run.listSamplers().map((s) => s.getInput()!.getMax([])[0]));
    expect(clip.duration).toBeCloseTo(end, 12);
    expect(clip.frameRate).toBeCloseTo(30, 0);
    expect(clip.frameCount).toBe(Math.round(end * 30) + 1);
    // First and last frames are the first and last keys.
    const c = run.listChannels().find((ch) => ch.getTargetPath() === 'rotation')!;
    const track = clip.tracks.findIndex((t) => t.bone === c.getTargetNode()!.getName());
    const out = c.getSampler()!.getOutput()!;
    const n = clip.tracks.length;
    expect(Array.from(clip.rotations.subarray(track * 4, track * 4 + 4))).toEqual(normalized(out.getElement(0, [])));
    const last = (clip.frameCount - 1) * n + track;
    expect(Array.from(clip.rotations.subarray(last * 4, last * 4 + 4))).toEqual(normalized(out.getElement(out.getCount() - 1, [])));
  });

  it('CesiumMan: embedded base64 buffers, unnamed nodes, scale channels', async () => {
    const doc = ours('CesiumMan.gltf');
    const rig = gltfRig(doc);
    const clip = gltfClip(doc, 0, { rig });
    expect(clip.name).toBe('#0');
    expect(clip.duration).toBe(2);
    expect(clip.frameRate).toBe(24);
    expect(clip.tracks.every((t) => t.translation && t.rotation && t.scale)).toBe(true);
    const ref = await reference('CesiumMan.gltf');
    const nodes = ref.getRoot().listNodes();
    const channel = ref.getRoot().listAnimations()[0].listChannels().find((c) => c.getTargetPath() === 'scale' && c.getTargetNode() !== ref.getRoot().listSkins()[0].listJoints()[0])!;
    const bone = `node${nodes.indexOf(channel.getTargetNode()!)}`;
    const track = clip.tracks.findIndex((t) => t.bone === bone);
    const k = 10, n = clip.tracks.length;
    const f = Math.round(channel.getSampler()!.getInput()!.getScalar(k) * 24);
    expect(Array.from(clip.scales.subarray((f * n + track) * 3, (f * n + track) * 3 + 3))).toEqual(channel.getSampler()!.getOutput()!.getElement(k, []));
  });
});

/** A two-joint rig (root, child) under an armature node, with one animation per call of `animate`. */
async function handMade(build: (doc: Document, nodes: { armature: GltfNode; root: GltfNode; child: GltfNode }, buffer: ReturnType<Document['createBuffer']>) => void): Promise<Uint8Array> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const armature = doc.createNode('Armature');
  const root = doc.createNode('root').setTranslation([0, 1, 0]);
  const child = doc.createNode('child').setTranslation([0, 2, 0]);
  armature.addChild(root);
  root.addChild(child);
  doc.createScene().addChild(armature);
  doc.createSkin('rig').addJoint(root).addJoint(child);
  build(doc, { armature, root, child }, buffer);
  return io.writeBinary(doc);
}

function addAnimation(
  doc: Document, buffer: ReturnType<Document['createBuffer']>, name: string, target: GltfNode, path: 'translation' | 'rotation' | 'scale',
  interpolation: 'LINEAR' | 'STEP' | 'CUBICSPLINE', times: number[], values: number[] | Int16Array,
): void {
  const input = doc.createAccessor().setType('SCALAR').setArray(new Float32Array(times)).setBuffer(buffer);
  const output = doc.createAccessor().setType(path === 'rotation' ? 'VEC4' : 'VEC3').setBuffer(buffer)
    .setArray(values instanceof Int16Array ? values : new Float32Array(values)).setNormalized(values instanceof Int16Array);
  const sampler = doc.createAnimationSampler().setInput(input).setOutput(output).setInterpolation(interpolation);
  const channel = doc.createAnimationChannel().setTargetNode(target).setTargetPath(path).setSampler(sampler);
  doc.createAnimation(name).addSampler(sampler).addChannel(channel);
}

const child = (clip: ReturnType<typeof gltfClip>) => clip.tracks.findIndex((t) => t.bone === 'child');

describe('glTF import: interpolation with known answers', () => {
  it('STEP holds each key until the next key time', async () => {
    const glb = await handMade((doc, { child: c }, buffer) => addAnimation(doc, buffer, 'Step', c, 'translation', 'STEP', [0, 0.5, 1], [0, 0, 0, 1, 0, 0, 2, 0, 0]));
    const doc = readGltf(glb);
    const clip = gltfClip(doc, 'Step', { rig: gltfRig(doc), sampleRate: 10 });
    expect(clip.frameCount).toBe(11);
    const t = child(clip), n = clip.tracks.length;
    const x = (f: number) => clip.translations[(f * n + t) * 3];
    expect([0, 1, 2, 3, 4, 5, 6, 9, 10].map(x)).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 2]);
  });

  it('CUBICSPLINE is the Hermite curve with tangents scaled by the key interval', async () => {
    // Keys at 0 and 2 s: value 0 with out-tangent 2 /s, then value 1 with in-tangent 0.
    // At u = 0.5: h10 = 0.125 (x 2 s), h01 = 0.5, so x = 0.125 * 2 * 2 + 0.5 = 1.
    const glb = await handMade((doc, { child: c }, buffer) => addAnimation(doc, buffer, 'Cubic', c, 'translation', 'CUBICSPLINE', [0, 2],
      [0, 0, 0, /* value */ 0, 3, 0, /* out */ 2, 0, 0, /* in */ 0, 0, 0, /* value */ 1, 3, 0, /* out */ 0, 0, 0]));
    const doc = readGltf(glb);
    const clip = gltfClip(doc, 'Cubic', { rig: gltfRig(doc), sampleRate: 4 });
    const t = child(clip), n = clip.tracks.length;
    const at = (f: number) => Array.from(clip.translations.subarray((f * n + t) * 3, (f * n + t) * 3 + 3));
    expect(at(0)).toEqual([0, 3, 0]);
    expect(at(4)).toEqual([1, 3, 0]);
    expect(at(8)).toEqual([1, 3, 0]);
    // 0.5 s is u = 0.25: h10 = 0.140625 (x 2 s), h01 = 0.15625.
    expect(at(2)[0]).toBeCloseTo(0.140625 * 2 * 2 + 0.15625, 12);
    // 0.25 s is u = 0.125: h10 = 0.095703125, h01 = 0.04296875.
    expect(at(1)[0]).toBeCloseTo(0.095703125 * 2 * 2 + 0.04296875, 12);
  });

  it('CUBICSPLINE rotations are normalised; LINEAR rotations slerp; normalized short keys decode to unit quaternions', async () => {
    const s = Math.SQRT1_2;
    const glb = await handMade((doc, { child: c, root }, buffer) => {
      // Tangents that would pull the quaternion off the unit sphere.
      addAnimation(doc, buffer, 'CubicTurn', c, 'rotation', 'CUBICSPLINE', [0, 1], [0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, s, 0, s, 0, 0, 0, 0]);
      addAnimation(doc, buffer, 'Turn', c, 'rotation', 'LINEAR', [0, 1], [0, 0, 0, 1, 0, 1, 0, 0]);
      addAnimation(doc, buffer, 'Packed', root, 'rotation', 'LINEAR', [0, 1], Int16Array.of(0, 0, 0, 32767, 0, 23170, 0, 23170));
    });
    const doc = readGltf(glb);
    const rig = gltfRig(doc);
    const cubic = gltfClip(doc, 'CubicTurn', { rig, sampleRate: 2 });
    const t = child(cubic), n = cubic.tracks.length;
    const q = cubic.rotations.subarray((n + t) * 4, (n + t) * 4 + 4);
    expect(Math.hypot(...q)).toBeCloseTo(1, 12);
    const turn = gltfClip(doc, 'Turn', { rig, sampleRate: 2 });
    // Half of a half turn about y: 90 degrees.
    const mid = turn.rotations.subarray((n + child(turn)) * 4, (n + child(turn)) * 4 + 4);
    expect(Array.from(mid).map((v) => +v.toFixed(12))).toEqual([0, +s.toFixed(12), 0, +s.toFixed(12)]);
    const packed = gltfClip(doc, 'Packed', { rig, sampleRate: 1 });
    const end = packed.rotations.subarray(packed.tracks.length * 4, packed.tracks.length * 4 + 4);
    expect(Math.hypot(...end)).toBeCloseTo(1, 12);
    expect(end[1]).toBeCloseTo(s, 4);
  });

  it('the armature above the root is baked into the root bone and its keys, not into other bones', async () => {
    const glb = await handMade((doc, { armature, root, child: c }, buffer) => {
      armature.setRotation([Math.sin(Math.PI / 4), 0, 0, Math.cos(Math.PI / 4)]).setScale([2, 2, 2]).setTranslation([5, 0, 0]);
      addAnimation(doc, buffer, 'Lift', root, 'translation', 'LINEAR', [0, 1], [0, 1, 0, 0, 3, 0]);
      addAnimation(doc, buffer, 'Bend', c, 'translation', 'LINEAR', [0, 1], [0, 2, 0, 0, 4, 0]);
    });
    const doc = readGltf(glb);
    const rig = gltfRig(doc);
    const sk = rig.skeleton;
    expect(sk.boneNames).toEqual(['root', 'child']);
    // Armature: 90 degrees about x (y -> z), scale 2, at x = 5: root (0, 1, 0) -> (5, 0, 2).
    const ref = Array.from(sk.referencePose.translations);
    expect(ref.slice(0, 3).map((v) => +v.toFixed(12))).toEqual([5, 0, 2]);
    expect(ref.slice(3)).toEqual([0, 2, 0]);
    expect(Array.from(sk.referencePose.scales.subarray(0, 3))).toEqual([2, 2, 2]);
    const lift = gltfClip(doc, 'Lift', { rig, sampleRate: 1 });
    expect(Array.from(lift.translations.subarray(3, 6)).map((v) => +v.toFixed(12))).toEqual([5, 0, 6]);
    // Without the rig (a clip for another file's skeleton) keys are as stored.
    expect(Array.from(gltfClip(doc, 'Lift', { sampleRate: 1 }).translations.subarray(3, 6))).toEqual([0, 3, 0]);
    const bend = gltfClip(doc, 'Bend', { rig, sampleRate: 1 });
    expect(Array.from(bend.translations.subarray(3, 6))).toEqual([0, 4, 0]);
  });
});

describe('glTF import: skeletons from unusual skins', () => {
  it('keeps joints listed children first in parent order, with non-joint nodes between joints as bones', async () => {
    const doc = new Document();
    const hips = doc.createNode('hips');
    const offset = doc.createNode('offset').setTranslation([1, 0, 0]);
    const spine = doc.createNode('spine');
    const unnamed = doc.createNode().setTranslation([0, 1, 0]);
    hips.addChild(offset);
    offset.addChild(spine);
    spine.addChild(unnamed);
    doc.createScene().addChild(hips);
    doc.createSkin().addJoint(unnamed).addJoint(spine).addJoint(hips);
    const gltf = readGltf(await io.writeBinary(doc));
    const sk = gltfRig(gltf).skeleton;
    const index = (n: GltfNode) => doc.getRoot().listNodes().indexOf(n);
    expect(sk.boneNames).toEqual(['hips', 'offset', 'spine', `node${index(unnamed)}`]);
    expect(Array.from(sk.parents)).toEqual([-1, 0, 1, 2]);
    expect(Array.from(sk.skin!.jointBones)).toEqual([3, 2, 0]);
  });

  it('joins joints under separate top joints at their closest common ancestor; no common ancestor is an error', async () => {
    const doc = new Document();
    const scene = doc.createScene();
    const armature = doc.createNode('Armature').setScale([3, 3, 3]);
    const left = doc.createNode('left'), right = doc.createNode('right');
    armature.addChild(left).addChild(right);
    scene.addChild(armature);
    doc.createSkin('joined').addJoint(left).addJoint(right);
    const stray = doc.createNode('stray');
    scene.addChild(stray);
    doc.createSkin('split').addJoint(left).addJoint(stray);
    const gltf = readGltf(await io.writeBinary(doc), { source: 'split.glb' });
    const sk = gltfRig(gltf, 'joined').skeleton;
    expect(sk.boneNames).toEqual(['Armature', 'left', 'right']);
    expect(Array.from(sk.parents)).toEqual([-1, 0, 0]);
    expect(Array.from(sk.skin!.inverseBindMatrices.subarray(0, 16))).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
    const e = gltfError(() => gltfRig(gltf, 'split'));
    expect(e.gltfCode).toBe('skin-not-tree');
    expect(e.message).toMatch(/'left'.*'stray'.*not one tree/);
  });

  it('decomposes node matrices and renames duplicate joint names', async () => {
    const doc = new Document();
    const a = doc.createNode('bone').setMatrix([0, 0, -2, 0, 0, 2, 0, 0, 2, 0, 0, 0, 1, 2, 3, 1]);
    const b = doc.createNode('bone');
    a.addChild(b);
    doc.createScene().addChild(a);
    doc.createSkin().addJoint(a).addJoint(b);
    const sk = gltfRig(readGltf(await io.writeBinary(doc))).skeleton;
    expect(sk.boneNames).toEqual(['bone', 'bone#1']);
    const p = sk.referencePose;
    expect(Array.from(p.translations.subarray(0, 3))).toEqual([1, 2, 3]);
    expect(Array.from(p.scales.subarray(0, 3))).toEqual([2, 2, 2]);
    // x -> -z, z -> x: 90 degrees about y.
    expect(Array.from(p.rotations.subarray(0, 4)).map((v) => +v.toFixed(12))).toEqual([0, +Math.SQRT1_2.toFixed(12), 0, +Math.SQRT1_2.toFixed(12)]);
  });
});

describe('glTF import: bad input gives GltfError, never a TypeError', () => {
  async function gltfJson(): Promise<{ json: Record<string, any>; bin: Uint8Array }> {
    const glb = await handMade((doc, { child: c }, buffer) => addAnimation(doc, buffer, 'Walk', c, 'translation', 'LINEAR', [0, 1], [0, 0, 0, 1, 0, 0]));
    const { json, resources } = await io.binaryToJSON(glb);
    return { json, bin: Object.values(resources)[0] };
  }
  /** A .gltf text of `json` with the binary chunk as a base64 data URI. */
  function embedded(json: Record<string, any>, bin: Uint8Array): Uint8Array {
    const copy = structuredClone(json);
    copy.buffers[0].uri = `data:application/octet-stream;base64,${btoa(String.fromCharCode(...bin))}`;
    return new TextEncoder().encode(JSON.stringify(copy));
  }

  it('reads .gltf with a data: URI or an external buffer given by the caller, and says which buffer it could not read', async () => {
    const { json, bin } = await gltfJson();
    const a = gltfClip(readGltf(embedded(json, bin)), 'Walk');
    const external = structuredClone(json);
    external.buffers[0].uri = 'walk.bin';
    const text = new TextEncoder().encode(JSON.stringify(external));
    const b = gltfClip(readGltf(text, { readUri: (uri) => (uri === 'walk.bin' ? bin : undefined) }), 'Walk');
    expect(Array.from(b.translations)).toEqual(Array.from(a.translations));
    const e = gltfError(() => gltfClip(readGltf(text, { source: 'walk.gltf' }), 'Walk'));
    expect(e.gltfCode).toBe('unreadable');
    expect(e.message).toMatch(/walk\.gltf: buffers\[0\]: cannot read 'walk\.bin'/);
  });

  it('decodes percent-encoded data: URIs as RFC 2397 bytes, not as UTF-8 text', async () => {
    const { json, bin } = await gltfJson();
    const base64 = gltfClip(readGltf(embedded(json, bin)), 'Walk');
    const withUri = (uri: string) => {
      const copy = structuredClone(json);
      copy.buffers[0].uri = uri;
      return new TextEncoder().encode(JSON.stringify(copy));
    };
    // Every byte escaped but letters and digits, which stand for themselves.
    const escaped = Array.from(bin, (b) => (/[A-Za-z0-9]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).padStart(2, '0').toUpperCase()}`)).join('');
    expect(bin.some((b) => b >= 0x80)).toBe(true); // bytes that were re-encoded as two, or threw
    const percent = gltfClip(readGltf(withUri(`data:application/octet-stream,${escaped}`)), 'Walk');
    expect(Array.from(percent.translations)).toEqual(Array.from(base64.translations));
    // Lower-case hex, and a base64 payload that is itself percent-encoded.
    const lower = gltfClip(readGltf(withUri(`data:application/octet-stream,${escaped.toLowerCase().replace(/%([0-9a-f]{2})/g, '%$1')}`)), 'Walk');
    expect(Array.from(lower.translations)).toEqual(Array.from(base64.translations));
    const b64 = btoa(String.fromCharCode(...bin)).replace(/=/g, '%3D').replace(/\+/g, '%2B');
    expect(Array.from(gltfClip(readGltf(withUri(`data:application/octet-stream;base64,${b64}`)), 'Walk').translations)).toEqual(Array.from(base64.translations));

    // What is wrong with a data: URI is said as it is.
    const bytes = (uri: string) => gltfError(() => gltfClip(readGltf(withUri(uri), { source: 'd.gltf' }), 'Walk'));
    expect(bytes('data:application/octet-stream,%80%FF').message).toBe(`d.gltf: buffers[0] declares ${json.buffers[0].byteLength} bytes but has 2`);
    expect(bytes('data:application/octet-stream,%8').message).toBe("d.gltf: buffers[0]: its data: URI has a malformed percent escape '%8' (a '%' needs two hex digits)");
    expect(bytes('data:,ab%G1').message).toBe("d.gltf: buffers[0]: its data: URI has a malformed percent escape '%G1' (a '%' needs two hex digits)");
    expect(bytes('data:application/octet-stream;base64,@@@').message).toBe('d.gltf: buffers[0]: its data: URI is not valid base64');
    expect(bytes('data:application/octet-stream;base64').message).toBe('d.gltf: buffers[0]: its data: URI has no comma before its data');
    expect(bytes('data:application/octet-stream,%80%FF').gltfCode).toBe('malformed');
  });

  it("reads a .gltf's external buffers from its own folder and below only, unless allowed", async () => {
    const { json, bin } = await gltfJson();
    const asked: string[] = [];
    const readUri = (uri: string) => {
      asked.push(uri);
      return bin;
    };
    const withUri = (uri: string) => {
      const copy = structuredClone(json);
      copy.buffers[0].uri = uri;
      return new TextEncoder().encode(JSON.stringify(copy));
    };
    const outside = {
      '../../../../etc/passwd': "its '..' leads above the folder",
      'a/../../walk.bin': "its '..' leads above the folder",
      '%2e%2e/walk.bin': "its '..' leads above the folder",
      '..%5Cwalk.bin': "its '..' leads above the folder",
      '/etc/shadow': 'it is an absolute path',
      '%2Fetc%2Fshadow': 'it is an absolute path',
      '\\\\server\\share\\walk.bin': 'it is an absolute path',
      'file:///etc/passwd': "it has a scheme ('file:')",
      'C:\\walk.bin': "it has a scheme ('C:')",
      'https://example.com/walk.bin': "it has a scheme ('https:')",
    };
    for (const [uri, why] of Object.entries(outside)) {
      expect(gltfUriOutsideFolder(uri), uri).toBe(why);
      const e = gltfError(() => gltfClip(readGltf(withUri(uri), { source: 'm.gltf', readUri }), 'Walk'));
      expect(e.gltfCode, uri).toBe('unreadable');
      expect(e.message, uri).toBe(`m.gltf: buffers[0]: '${uri}' is not in the glTF's folder (${why}): a .gltf's buffers are read from its own folder and below, unless the loader is given allowGltfUrisOutsideFolder`);
    }
    expect(asked).toEqual([]);
    // Allowed, the caller is asked for each as written.
    for (const uri of Object.keys(outside)) gltfClip(readGltf(withUri(uri), { readUri, allowUrisOutsideFolder: true }), 'Walk');
    expect(asked).toEqual(Object.keys(outside));
    // Inside the folder, however written.
    for (const uri of ['walk.bin', './walk.bin', 'sub/../walk.bin', 'sub/deeper/../../walk.bin', 'a%20b.bin', 'sub\\walk.bin']) {
      expect(gltfUriOutsideFolder(uri), uri).toBeUndefined();
      gltfClip(readGltf(withUri(uri), { readUri }), 'Walk');
    }
  });

  it('corrupt containers and JSON', async () => {
    const glb = await handMade(() => {});
    expect(gltfError(() => readGltf(glb.subarray(0, 100))).message).toMatch(/truncated/);
    expect(gltfError(() => readGltf(new Uint8Array([0x67, 0x6c, 0x54, 0x46, 1, 0, 0, 0]))).message).toMatch(/20-byte header/);
    const v1 = glb.slice();
    v1[4] = 1;
    expect(gltfError(() => readGltf(v1)).message).toMatch(/GLB version 1/);
    expect(gltfError(() => readGltf(new TextEncoder().encode('{"asset": {"version": "1.0"}}'))).message).toMatch(/asset.version must be "2.x"/);
    expect(gltfError(() => readGltf(new TextEncoder().encode('[1, 2'))).gltfCode).toBe('malformed');
    expect(gltfError(() => readGltf(new Uint8Array(0))).gltfCode).toBe('malformed');
  });

  it('node hierarchies that are not trees, and malformed node fields, all reported at once', () => {
    const text = (nodes: unknown) => new TextEncoder().encode(JSON.stringify({ asset: { version: '2.0' }, nodes }));
    const twoParents = gltfError(() => readGltf(text([{ children: [2] }, { children: [2] }, {}])));
    expect(twoParents.problems).toEqual(['nodes[2] is a child of both nodes[0] and nodes[1]: node hierarchies are trees']);
    expect(gltfError(() => readGltf(text([{ children: [1] }, { children: [0] }]))).message).toMatch(/its own ancestor/);
    const fields = gltfError(() => readGltf(text([{ rotation: [0, 0, 0, 0], translation: [1, 'x', 0], children: [7] }])));
    expect(fields.problems).toHaveLength(3);
  });

  it('accessors out of range, bad indices, non-finite values and decreasing times name the glTF element', async () => {
    const { json, bin } = await gltfJson();
    const sampler = json.animations[0].samplers[0];
    const broken = (edit: (j: Record<string, any>, b: Uint8Array) => void) => {
      const j = structuredClone(json), b = bin.slice();
      edit(j, b);
      return gltfError(() => gltfClip(readGltf(embedded(j, b)), 0));
    };
    let e = broken((j) => { j.accessors[sampler.output].count = 1000; });
    expect(e.gltfCode).toBe('malformed');
    expect(e.message).toMatch(new RegExp(`accessors\\[${sampler.output}\\].*accessor out of range`));
    e = broken((j) => { j.bufferViews[0].byteLength = 1e6; });
    expect(e.message).toMatch(/bufferViews\[0\].*out of range/);
    e = broken((j) => { j.animations[0].samplers[0].input = 99; });
    expect(e.message).toMatch(/samplers\[0\].input names accessor 99/);
    e = broken((j) => { j.animations[0].channels[0].target.node = -1; });
    expect(e.message).toMatch(/channels\[0\].target.node/);
    e = broken((j) => { j.accessors[sampler.output].type = 'SCALAR'; });
    expect(e.message).toMatch(/expected VEC3/);
    const inputView = json.accessors[sampler.input].bufferView;
    const inputOffset = (json.bufferViews[inputView].byteOffset ?? 0) + (json.accessors[sampler.input].byteOffset ?? 0);
    e = broken((_, b) => new DataView(b.buffer).setFloat32(inputOffset + 4, NaN, true));
    expect(e.message).toMatch(/not a finite number/);
    e = broken((_, b) => new DataView(b.buffer).setFloat32(inputOffset + 4, -1, true));
    expect(e.message).toMatch(/key times must not decrease/);
  });

  it('unknown skins and animations list what the file has; a zero-length animation is its own error', async () => {
    const glb = await handMade((doc, { child: c }, buffer) => {
      addAnimation(doc, buffer, 'Walk', c, 'translation', 'LINEAR', [0, 1], [0, 0, 0, 1, 0, 0]);
      addAnimation(doc, buffer, 'Pose', c, 'translation', 'LINEAR', [0], [0, 1, 0]);
    });
    const doc = readGltf(glb, { source: 'rig.glb' });
    let e = gltfError(() => gltfClip(doc, 'Run'));
    expect(e.gltfCode).toBe('unknown-animation');
    expect(e.message).toBe('rig.glb: no animation "Run": the file has Walk, Pose (or an index 0..1)');
    expect(gltfError(() => gltfClip(doc, 2)).gltfCode).toBe('unknown-animation');
    e = gltfError(() => gltfClip(doc, 'Pose'));
    expect(e.gltfCode).toBe('empty-animation');
    expect(e.message).toMatch(/'Pose' is zero-length/);
    e = gltfError(() => gltfRig(doc, 1));
    expect(e.gltfCode).toBe('unknown-skin');
    expect(e.message).toMatch(/no skin 1: the file has 1 \(0: rig\)/);
    expect(gltfError(() => gltfRig(doc, 'body')).gltfCode).toBe('unknown-skin');
    const noSkins = readGltf(await io.writeBinary(new Document()));
    expect(gltfError(() => gltfRig(noSkins)).message).toMatch(/no skins/);
  });

  it('an animation shorter than a frame may be, or resampled to last over 1e6 s, is refused (the frame time and duration bounds of every clip)', async () => {
    const glb = await handMade((doc, { child: c }, buffer) => {
      addAnimation(doc, buffer, 'Blink', c, 'translation', 'LINEAR', [0, 1e-7], [0, 0, 0, 1, 0, 0]);
      addAnimation(doc, buffer, 'Slow', c, 'translation', 'LINEAR', [0, 2e6], [0, 0, 0, 1, 0, 0]);
    });
    const doc = readGltf(glb, { source: 'rig.glb' });
    let e = gltfError(() => gltfClip(doc, 'Blink'));
    expect(e.gltfCode).toBe('empty-animation');
    expect(e.message).toBe(`rig.glb: animation 'Blink' lasts ${Math.fround(1e-7)} s, less than the shortest frame time (1e-6 s)`);
    // A key every 1000 s is a short clip in memory, but its play time has no precision left.
    e = gltfError(() => gltfClip(doc, 'Slow', { sampleRate: 1e-3 }));
    expect(e.gltfCode).toBe('too-large');
    expect(e.message).toBe("rig.glb: animation 'Slow': 2001 frames 1000 s apart last 2000000 s; a clip lasts at most 1e6 s");
  });

  it('a clip too long for memory is refused before it is allocated', async () => {
    const glb = await handMade((doc, { child: c }, buffer) => addAnimation(doc, buffer, 'Long', c, 'translation', 'LINEAR', [0, 1e6], [0, 0, 0, 1, 0, 0]));
    const e = gltfError(() => gltfClip(readGltf(glb), 'Long', { sampleRate: 30 }));
    expect(e.gltfCode).toBe('too-large');
  });
});

describeWithData('hostile glTF (property)', () => {
  // Edits of CesiumMan.gltf's JSON (its buffers stay embedded): a value anywhere replaced by a
  // hostile one, a key deleted, an array cut short. Whatever the file, reading it, its rig and its
  // animation gives a GltfError, or a skeleton and a clip whose every number is finite: never
  // another error, a NaN or an allocation the size of a bogus count.
  const json = JSON.parse(readFileSync(`${GLTF}CesiumMan.gltf`, 'utf8')) as unknown;
  /** Every place in the JSON but the buffers' data (a path of keys and indices). */
  const places: (string | number)[][] = [];
  const walk = (value: unknown, path: (string | number)[]): void => {
    if (path.length > 0) places.push(path);
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) if (k !== 'uri') walk(v, [...path, k]);
  };
  walk(json, []);
  const HOSTILE: unknown[] = [0, -1, 1, 2, 3, 7, 1e9, 2 ** 31, -(2 ** 31), 1.5, -0, 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER, '', 'x', 'VEC4', 'SCALAR',
    'MAT4', 'STEP', 'CUBICSPLINE', 'rotation', 'weights', null, true, [], {}, [0, 0, 0, 0], [1, 0, 0], [0, 0, 0, 1], [1e308, 1e308, 1e308],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 5120, 5121, 5122, 5123, 5125, 5126, 34962];
  type Edit = { op: 'set' | 'delete' | 'cut'; place: number; value: unknown; keep: number };
  const edit: fc.Arbitrary<Edit> = fc.record({
    op: fc.constantFrom('set', 'set', 'set', 'delete', 'cut'), place: fc.nat(), value: fc.constantFrom(...HOSTILE), keep: fc.nat(4),
  });
  const apply = (edits: readonly Edit[]): Uint8Array => {
    const copy = structuredClone(json) as Record<string | number, unknown>;
    for (const e of edits) {
      const path = places[e.place % places.length];
      let parent: any = copy;
      for (const key of path.slice(0, -1)) {
        parent = parent?.[key];
        if (parent === null || typeof parent !== 'object') break;
      }
      if (parent === null || typeof parent !== 'object') continue;
      const key = path[path.length - 1];
      if (e.op === 'set') parent[key] = structuredClone(e.value);
      else if (e.op === 'delete') {
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key];
      } else if (Array.isArray(parent[key])) parent[key] = parent[key].slice(0, e.keep);
    }
    return new TextEncoder().encode(JSON.stringify(copy));
  };
  const finite = (values: ArrayLike<number>): boolean => Array.prototype.every.call(values, Number.isFinite) as boolean;

  it('reads, rigs and samples every edit of CesiumMan.gltf or reports a GltfError', () => {
    const runs = stress(100, 400); // the seed's first 100 in `npm test`, 400 with ANIMGRAPH_STRESS=1
    let loaded = 0;
    fc.assert(fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
      const bytes = apply(edits);
      let skeleton, clip;
      try {
        const doc = readGltf(bytes, { source: 'hostile.gltf' });
        const rig = gltfRig(doc);
        skeleton = rig.skeleton;
        clip = gltfClip(doc, 0, { rig });
      } catch (e) {
        if (!(e instanceof GltfError)) throw new Error(`not a GltfError: ${(e as Error)?.stack ?? String(e)}`);
        expect(e.message.length).toBeGreaterThan(0);
        return;
      }
      loaded++;
      const ref = skeleton.referencePose;
      expect(finite(ref.translations) && finite(ref.rotations) && finite(ref.scales)).toBe(true);
      expect(finite(clip.translations) && finite(clip.rotations) && finite(clip.scales)).toBe(true);
      expect(Number.isFinite(clip.duration) && clip.duration >= 0).toBe(true);
    }), { seed: 18_000_040, numRuns: runs });
    expect(loaded).toBeGreaterThan(runs / 10); // many edits leave a file that still loads (names, unused fields)
  });
});

describe('glTF import: portable', () => {
  it.each(['gltf.ts', 'gltf-container.ts'])('%s imports nothing from Node, so a browser can run it on fetched bytes', (file) => {
    const source = readFileSync(new URL(`../../../runtime/import/${file}`, import.meta.url), 'utf8');
    expect(source).not.toMatch(/from ['"]node:/);
    expect(source).not.toMatch(/\bBuffer\.|require\(/);
  });
});
