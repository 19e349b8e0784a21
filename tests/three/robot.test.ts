/**
 * bindThree on a real model: three.js's RobotExpressive.glb (../shared/data/gltf), loaded with
 * three's GLTFLoader, driven by a graph on a skeleton taken from its own bones, playing its own
 * Walking clip. Checked against three's skinning of the same pose (bone matrices of its four
 * skinned meshes, skinned vertices, the rigid meshes hung under its bones) and against three's
 * AnimationMixer playing the same clip.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader, type GLTF } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { beforeAll, expect, it } from 'vitest';
import { SequencePlayerType } from '../../nodes/SequencePlayer.ts';
import { AnimGraph } from '../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { bindThree, clipFromThree, skeletonFromThree } from '../../three/index.ts';
import { describeWithData, SHARED_DATA } from '../support/shared-data.ts';

const FILE = `${SHARED_DATA}gltf/RobotExpressive.glb`;

if (existsSync(SHARED_DATA) && !existsSync(FILE) && process.env.CI === 'true') throw new Error(`CI=true but ${FILE} is missing`);

async function loadRobot(): Promise<GLTF> {
  const bytes = readFileSync(FILE);
  return new GLTFLoader().parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), '');
}

function skinnedMeshes(root: THREE.Object3D): THREE.SkinnedMesh[] {
  const meshes: THREE.SkinnedMesh[] = [];
  root.traverse((o) => { if ((o as THREE.SkinnedMesh).isSkinnedMesh) meshes.push(o as THREE.SkinnedMesh); });
  return meshes;
}

function rigidMeshes(root: THREE.Object3D): THREE.Mesh[] {
  const meshes: THREE.Mesh[] = [];
  root.traverse((o) => { if ((o as THREE.Mesh).isMesh && !(o as THREE.SkinnedMesh).isSkinnedMesh) meshes.push(o as THREE.Mesh); });
  return meshes;
}

function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  return worst;
}

function skinnedVertices(mesh: THREE.SkinnedMesh): Float64Array {
  const count = mesh.geometry.attributes.position.count;
  const out = new Float64Array(count * 3);
  const v = new THREE.Vector3();
  for (let i = 0; i < count; i++) {
    mesh.getVertexPosition(i, v);
    out.set([v.x, v.y, v.z], i * 3);
  }
  return out;
}

/**
 * The robot's bone scales are 1 give or take exporter noise (up to 1.6e-5, non-uniform): set to
 * exactly 1 where the two compositions are to agree to float precision (see the last test).
 */
function snapScales(gltf: GLTF): GLTF {
  for (const bone of skinnedMeshes(gltf.scene)[0].skeleton.bones) bone.scale.set(1, 1, 1);
  return gltf;
}

/** A graph on the robot's own bones playing its own Walking clip. */
function robotInstance(gltf: GLTF): AnimGraphInstance {
  const skeleton = skeletonFromThree(skinnedMeshes(gltf.scene)[0].skeleton);
  const walking = gltf.animations.find((a) => a.name === 'Walking')!;
  // The clip's keys are at 24 per second: resampled at that rate they are kept exactly.
  const clip = clipFromThree(walking, skeleton, { frameRate: 24 });
  return new AnimGraph({
    name: 'robot', skeleton, parameters: {}, clips: new Map([['Walking', clip]]),
    nodes: [{ id: 'walk', nodeType: SequencePlayerType, properties: { clip: 'Walking' }, inputs: {} }],
  }).createInstance();
}

/** Copies the graph's local pose into the bones by name, then three recomposes the scene. */
function poseNaively(gltf: GLTF, instance: AnimGraphInstance): void {
  const local = instance.evaluate(), skeleton = instance.skeleton;
  for (const bone of skinnedMeshes(gltf.scene)[0].skeleton.bones) {
    const i = skeleton.indexOf(bone.name);
    bone.position.fromArray(local.translations, i * 3);
    bone.quaternion.fromArray(local.rotations, i * 4);
    bone.scale.fromArray(local.scales, i * 3);
  }
  gltf.scene.updateMatrixWorld(true);
}

describeWithData('bindThree on RobotExpressive.glb (three.js GLTFLoader)', () => {
  let naive: GLTF, direct: GLTF, mixed: GLTF, exportedNaive: GLTF, exportedDirect: GLTF;
  let instance: AnimGraphInstance;

  beforeAll(async () => {
    [naive, direct, mixed, exportedNaive, exportedDirect] = await Promise.all([1, 2, 3, 4, 5].map(loadRobot));
    [naive, direct, mixed].forEach(snapScales);
    instance = robotInstance(direct);
  });

  it('takes the skeleton and the Walking clip from three', () => {
    const skeleton = instance.skeleton;
    expect(skeleton.boneCount).toBe(43);
    expect(skeleton.boneNames.slice(0, 4)).toEqual(['Bone', 'FootL', 'Body', 'Hips']);
    expect(skeleton.parents[skeleton.indexOf('Hips')]).toBe(skeleton.indexOf('Body'));
    const clip = instance.graph.clipBindings.get('Walking')!.clip;
    expect(clip.frameCount).toBe(24);
    // Bone tracks only (the head's morph target tracks are left out): 19 tracks on 16 bones.
    expect(clip.tracks.map((t) => t.bone)).toContain('UpperLegL');
    expect(clip.tracks.length).toBe(16);
    expect(clip.tracks.filter((t) => t.translation).length + clip.tracks.filter((t) => t.rotation).length).toBe(19);
  });

  it("skins like three's own path on the same pose: four skinned meshes on two Skeletons, their vertices, and the meshes hung under bones", () => {
    for (const gltf of [naive, direct]) {
      gltf.scene.position.set(250, 0, -80);
      gltf.scene.rotation.set(0, 2.1, 0);
    }
    const meshes = skinnedMeshes(direct.scene);
    expect(meshes.length).toBe(4);
    // The four meshes share their bones through two Skeleton objects: binding the scene drives both.
    const binding = bindThree(instance, direct.scene, { boneWorldMatrices: true });
    expect(binding.skeletons.length).toBe(2);
    expect(binding.boundCount).toBe(43);
    expect(binding.unboundThreeBones).toEqual([]);
    expect(binding.root?.name).toBe('RobotArmature');
    const naiveMeshes = skinnedMeshes(naive.scene);
    for (const step of [0.1, 0.27, 0.31]) {
      instance.update(step);
      poseNaively(naive, instance);
      binding.apply();
      direct.scene.updateMatrixWorld(); // as the renderer does before drawing
      meshes.forEach((mesh, m) => {
        mesh.skeleton.update();
        naiveMeshes[m].skeleton.update();
        expect(relativeError(mesh.skeleton.boneMatrices!, naiveMeshes[m].skeleton.boneMatrices!)).toBeLessThan(1e-5);
        expect(relativeError(skinnedVertices(mesh), skinnedVertices(naiveMeshes[m]))).toBeLessThan(1e-9);
      });
      const rigid = rigidMeshes(direct.scene), naiveRigid = rigidMeshes(naive.scene);
      expect(rigid.length).toBe(15);
      rigid.forEach((mesh, m) => expect(relativeError(mesh.matrixWorld.elements, naiveRigid[m].matrixWorld.elements)).toBeLessThan(1e-9));
    }
    binding.release();
  });

  it("does so without boneWorldMatrices, bones out of three's walk: the meshes hung under bones follow it, the vertices after updateBoneWorlds()", () => {
    for (const gltf of [naive, direct]) {
      gltf.scene.position.set(-40, 3, 120);
      gltf.scene.rotation.set(0.1, -0.7, 0);
      gltf.scene.scale.set(1.5, 0.8, 1.2); // unevenly scaled
    }
    const meshes = skinnedMeshes(direct.scene), naiveMeshes = skinnedMeshes(naive.scene);
    const binding = bindThree(instance, direct.scene);
    const rigid = rigidMeshes(direct.scene), naiveRigid = rigidMeshes(naive.scene);
    for (const step of [0.07, 0.33]) {
      instance.update(step);
      poseNaively(naive, instance);
      binding.apply();
      direct.scene.updateMatrixWorld(); // as the renderer does before drawing
      meshes.forEach((mesh, m) => {
        mesh.skeleton.update();
        naiveMeshes[m].skeleton.update();
        expect(relativeError(mesh.skeleton.boneMatrices!, naiveMeshes[m].skeleton.boneMatrices!)).toBeLessThan(1e-5);
      });
      rigid.forEach((mesh, m) => expect(relativeError(mesh.matrixWorld.elements, naiveRigid[m].matrixWorld.elements)).toBeLessThan(1e-9));
    }
    binding.updateBoneWorlds();
    meshes.forEach((mesh, m) => expect(relativeError(skinnedVertices(mesh), skinnedVertices(naiveMeshes[m]))).toBeLessThan(1e-9));
    binding.release();
    for (const gltf of [naive, direct]) gltf.scene.scale.set(1, 1, 1);
  });

  it("draws the same from the instance's local pose as from its component pose: the robot as exported (its scale noise), moved, turned and unevenly scaled", async () => {
    const [one, two] = await Promise.all([loadRobot(), loadRobot()]);
    const a = robotInstance(one), b = robotInstance(two);
    for (const gltf of [one, two]) {
      gltf.scene.position.set(12, -3, 40);
      gltf.scene.rotation.set(0.3, 1.1, -0.2);
      gltf.scene.scale.set(1.3, 0.7, 1.1);
    }
    const fromLocal = bindThree(a, one.scene), fromComponent = bindThree(b, two.scene);
    const meshesOne = skinnedMeshes(one.scene), meshesTwo = skinnedMeshes(two.scene);
    const rigidOne = rigidMeshes(one.scene), rigidTwo = rigidMeshes(two.scene);
    for (const step of [0.05, 0.4, 0.21]) {
      a.update(step);
      b.update(step);
      b.componentPose(); // asked for: b is drawn from it, a from its local pose
      expect(a.uncomposedPose()).not.toBeNull();
      expect(b.uncomposedPose()).toBeNull();
      fromLocal.apply();
      fromComponent.apply();
      one.scene.updateMatrixWorld(); // as the renderer does before drawing
      two.scene.updateMatrixWorld();
      meshesOne.forEach((mesh, m) => {
        mesh.skeleton.update();
        meshesTwo[m].skeleton.update();
        expect(relativeError(mesh.skeleton.boneMatrices!, meshesTwo[m].skeleton.boneMatrices!)).toBeLessThan(3e-7);
      });
      rigidOne.forEach((mesh, m) => expect(relativeError(mesh.matrixWorld.elements, rigidTwo[m].matrixWorld.elements)).toBeLessThan(1e-12));
    }
  });

  it("moves the robot as three's AnimationMixer playing the same clip does", () => {
    const mixer = new THREE.AnimationMixer(mixed.scene);
    mixer.clipAction(mixed.animations.find((a) => a.name === 'Walking')!).play();
    const ours = bindThree(instance, direct.scene, { boneWorldMatrices: true });
    direct.scene.position.set(0, 0, 0);
    direct.scene.rotation.set(0, 0, 0);
    instance.reset();
    const theirs = skinnedMeshes(mixed.scene)[0];
    const mine = skinnedMeshes(direct.scene)[0];
    let moved = 0;
    const foot = new THREE.Vector3(), foot0 = new THREE.Vector3();
    foot0.setFromMatrixPosition(mine.skeleton.getBoneByName('UpperLegL')!.children[0].matrixWorld);
    for (const step of [0, 0.13, 0.2, 0.25, 0.1]) {
      instance.update(step);
      mixer.update(step);
      mixed.scene.updateMatrixWorld(true);
      ours.apply();
      mine.skeleton.update();
      theirs.skeleton.update();
      // Both slerp between the same Float32 keys: they agree to float precision.
      expect(relativeError(mine.skeleton.boneMatrices!, theirs.skeleton.boneMatrices!)).toBeLessThan(1e-5);
      foot.setFromMatrixPosition(mine.skeleton.getBoneByName('LowerLegL')!.matrixWorld);
      moved = Math.max(moved, foot.distanceTo(foot0));
    }
    expect(moved).toBeGreaterThan(0.1); // the knee really swung (metres)
  });

  it('as exported, with its bones\' scale noise: within that noise of three (the runtime composes scales per axis, without shear)', () => {
    const exported = robotInstance(exportedDirect);
    // The noise is there: the skeleton keeps it in its reference pose.
    const s = exported.skeleton.referencePose.scales;
    const leg = exported.skeleton.indexOf('UpperLegL') * 3;
    expect(Math.abs(s[leg + 2] - 1)).toBeGreaterThan(1e-5);
    const binding = bindThree(exported, exportedDirect.scene, { boneWorldMatrices: true });
    exported.update(0.1);
    poseNaively(exportedNaive, exported);
    binding.apply();
    const ours = skinnedMeshes(exportedDirect.scene)[0].skeleton.bones, theirs = skinnedMeshes(exportedNaive.scene)[0].skeleton.bones;
    let worst = 0;
    // Bone world matrices relative to the armature's scale of 100: the shear three's matrix chain
    // makes of a parent's non-uniform scale, about the scale's deviation from 1.
    ours.forEach((bone, b) => {
      const e = bone.matrixWorld.elements, t = theirs[b].matrixWorld.elements;
      for (let i = 0; i < 16; i++) worst = Math.max(worst, Math.abs(e[i] - t[i]) / 100);
    });
    expect(worst).toBeGreaterThan(1e-6);
    expect(worst).toBeLessThan(2e-5);
    // The skinned hands barely notice: nanometres on a robot 4.6 units tall.
    skinnedMeshes(exportedDirect.scene).forEach((mesh, m) => {
      expect(relativeError(skinnedVertices(mesh), skinnedVertices(skinnedMeshes(exportedNaive.scene)[m]))).toBeLessThan(1e-7);
    });
  });
});
