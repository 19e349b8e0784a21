import * as THREE from 'three';
import { describe, expect, it, vi } from 'vitest';
import { loadGraphAsset } from '../../graphs/loader.ts';
import { ComponentPose } from '../../runtime/core/component-pose.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { SamplingKernel } from '../../runtime/kernel/sampling-kernel.ts';
import { skinFromLocal } from '../../three/binding.ts';
import { bindThree, clipFromThree, skeletonFromThree } from '../../three/index.ts';
import { runNodeProbe } from '../support/allocation.ts';
import { expectAnimGraphError } from '../support/errors.ts';
import { buildCharacter, poseNaively, walkRunCharacter as character, type CharacterOptions } from './scene.ts';

const skeleton = sampleSkeleton();

/** The awkward case: a moved, turned and unevenly scaled character, a Z-up armature turned to Y-up, an offset mesh. */
const AWKWARD: CharacterOptions = {
  position: [120, 5, -40],
  rotation: [0.2, 1, 0.1, 0.8],
  scale: [1.5, 2, 0.75],
  armatureRotation: [1, 0, 0, -Math.PI / 2],
  armaturePosition: [0, 0, 3],
  meshPosition: [3, 0, 1],
  omit: ['ball_l'],
  extra: [{ name: 'prop_socket_r', parent: 'hand_r', position: [0, -8, 3], rotation: [0, 0, 1, 0.5] }],
};

/** Largest difference between a and b relative to max(1, |b|). */
/** A copy of `pose` with its rotations normalised (three's Quaternion.normalize): what three draws from one set bone by bone. */
function withUnitRotations(pose: Pose): Pose {
  const out = new Pose(pose.translations.length / 3);
  out.translations.set(pose.translations);
  out.scales.set(pose.scales);
  for (let b = 0; b < pose.rotations.length / 4; b++) {
    const q = new THREE.Quaternion().fromArray(pose.rotations, b * 4).normalize();
    out.rotations.set([q.x, q.y, q.z, q.w], b * 4);
  }
  return out;
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
    mesh.getVertexPosition(i, v); // the bind-pose vertex through applyBoneTransform
    out[i * 3] = v.x; out[i * 3 + 1] = v.y; out[i * 3 + 2] = v.z;
  }
  return out;
}

function advance(g: ReturnType<typeof character>, frames: number): void {
  for (let f = 0; f < frames; f++) g.update(f % 2 === 0 ? 1 / 60 : 1 / 45);
}

describe('bindThree', () => {
  it('resolves bones by name once and reports what it could not bind', () => {
    const c = buildCharacter(skeleton, AWKWARD);
    const binding = bindThree(character(), c.mesh!);
    expect(binding.boundCount).toBe(21);
    expect(binding.unboundThreeBones).toEqual(['prop_socket_r']);
    expect(binding.unusedGraphBones).toEqual(['ball_l']);
    expect(binding.root).toBe(c.armature); // the parent of the topmost bound bone
    expect(binding.bones[0].name).toBe('root');
    expect(binding.bones.at(-1)!.name).toBe('prop_socket_r'); // unbound bones after the bound ones
    expect(binding.skeletons).toEqual([c.skeleton]);
    expect(c.byName.get('pelvis')!.matrixAutoUpdate).toBe(false);
    expect(c.byName.get('prop_socket_r')!.matrixAutoUpdate).toBe(true);
    // Any Object3D: every distinct Skeleton of the skinned meshes under it.
    const second = new THREE.SkinnedMesh(c.mesh!.geometry, c.mesh!.material);
    second.bind(new THREE.Skeleton(c.bones, c.skeleton.boneInverses));
    c.character.add(second);
    expect(bindThree(character(), c.scene).skeletons).toEqual([c.skeleton, second.skeleton]);
    expect(() => bindThree(character(), new THREE.Group())).toThrow(/no SkinnedMesh/);
  });

  it("binds GLTFLoader's sanitised names ('FootL') by the name as written, which it keeps in userData.name", () => {
    const c = buildCharacter(skeleton, AWKWARD);
    // As GLTFLoader names bones whose glTF names hold characters three reserves ('hand.l' -> 'handl').
    for (const name of ['hand_l', 'foot_r']) {
      const bone = c.byName.get(name)!;
      bone.userData.name = name;
      bone.name = name.replace('_', '');
    }
    const binding = bindThree(character(), c.mesh!);
    expect(binding.boundCount).toBe(21);
    expect(binding.unboundThreeBones).toEqual(['prop_socket_r']);
  });

  it("writes the skeleton's bone matrices as three's own path does on the same pose, and marks the bone texture at skeleton.update() (the renderer's call)", () => {
    const g = character();
    const naive = buildCharacter(skeleton, AWKWARD);
    const direct = buildCharacter(skeleton, AWKWARD);
    const binding = bindThree(g, direct.mesh!);
    let firstCalf: THREE.Matrix4 | null = null;
    for (const frames of [1, 7, 23]) {
      advance(g, frames);
      poseNaively(naive, skeleton, g.evaluate());
      binding.apply();
      // Written by apply() itself, in place: no copy left for update().
      expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
      // The first apply() writes every bone's matrixWorld (three's first bounding sphere reads them); later ones
      // only those of bones that carry something (hand_r, which carries prop_socket_r, a bone the graph lacks).
      const calf = direct.byName.get('calf_l')!.matrixWorld;
      if (firstCalf === null) {
        firstCalf = calf.clone();
        expect(relativeError(calf.elements, naive.byName.get('calf_l')!.matrixWorld.elements)).toBeLessThan(1e-12);
      } else expect(calf.equals(firstCalf)).toBe(true);
      expect(relativeError(direct.byName.get('hand_r')!.matrixWorld.elements, naive.byName.get('hand_r')!.matrixWorld.elements)).toBeLessThan(1e-12);
      direct.scene.updateMatrixWorld(); // what the renderer does first: no effect on bound bones
      direct.skeleton.update();
      expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
    }
    // A bone texture (what WebGLRenderer skins from) is marked for upload by update(), and apply() writes into its data.
    direct.skeleton.computeBoneTexture();
    const version = direct.skeleton.boneTexture!.version;
    advance(g, 3);
    poseNaively(naive, skeleton, g.evaluate());
    binding.apply();
    expect(direct.skeleton.boneTexture!.version).toBe(version);
    direct.skeleton.update();
    expect(direct.skeleton.boneTexture!.version).toBe(version + 1);
    expect(direct.skeleton.boneTexture!.image.data).toBe(direct.skeleton.boneMatrices);
    expect(relativeError(direct.skeleton.boneMatrices!.subarray(0, 22 * 16), naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
  });

  it('skins a character with nothing under its bones straight from the pose, and goes back to writing bone worlds while something hangs there', () => {
    // Moved, turned and unevenly scaled, every graph bone in three and no other: apply()'s shortest path.
    const plain: CharacterOptions = { ...AWKWARD, omit: [], extra: [] };
    const g = character();
    const naive = buildCharacter(skeleton, plain), direct = buildCharacter(skeleton, plain);
    const binding = bindThree(g, direct.mesh!);
    const hand = direct.byName.get('hand_r')!;
    const sword = new THREE.Object3D();
    const steps: [number, () => void][] = [
      [1, () => {}],
      [4, () => {}],
      [6, () => hand.add(sword)], // something hangs under a bone: its world is written again
      [2, () => hand.remove(sword)],
      [5, () => { direct.character.position.x += 40; naive.character.position.x += 40; }],
    ];
    for (const [frames, change] of steps) {
      change();
      advance(g, frames);
      poseNaively(naive, skeleton, g.evaluate());
      const handBefore = hand.matrixWorld.clone();
      binding.apply();
      expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
      const handWorld = naive.byName.get('hand_r')!.matrixWorld.elements;
      if (sword.parent === hand) expect(relativeError(hand.matrixWorld.elements, handWorld)).toBeLessThan(1e-12);
      // Nothing under it and nothing asked: the hand's matrixWorld is left as it was (written on request).
      else if (frames !== 1) expect(hand.matrixWorld.equals(handBefore)).toBe(true);
      direct.skeleton.update();
      expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
    }
  });

  it("composes a character's local pose as the runtime's component pass does: uneven scales under turned bones (no shear), unnormalised rotations", () => {
    // A pose that three's matrix chain would shear: every bone turned, scaled unevenly (0.6 to 1.6 per
    // axis), and below the root its rotation not of unit length (as a node may leave it).
    let seed = 7;
    const random = (): number => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const pose = new Pose(skeleton.boneCount);
    pose.translations.set(skeleton.referencePose.translations);
    for (let b = 0; b < skeleton.boneCount; b++) {
      const q = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(random() - 0.5, random() - 0.5, random() - 0.5).normalize(), random() * 2.5);
      const length = b === 0 ? 1 : 0.5 + random() * 1.5;
      pose.rotations.set([q.x * length, q.y * length, q.z * length, q.w * length], b * 4);
      pose.scales.set([0.6 + random(), 0.6 + random(), 0.6 + random()], b * 3);
    }
    const composed = new ComponentPose(skeleton);
    composed.setFromLocal(pose);
    composed.ensureAllComponent();
    const fromLocal = { skeleton, uncomposedPose: () => pose, componentPose: (): ComponentPose => { throw new Error('not asked for'); } };
    const fromComponent = { skeleton, componentPose: () => composed };
    // apply()'s shortest path (bare bones, nothing asked), then a bone missing, one added and one asked for.
    for (const [options, asked] of [[{ ...AWKWARD, omit: [], extra: [] }, []], [AWKWARD, ['calf_r']]] as const) {
      const local = buildCharacter(skeleton, options), component = buildCharacter(skeleton, options), naive = buildCharacter(skeleton, options);
      const a = bindThree(fromLocal, local.mesh!, { boneWorldMatrices: asked }), b = bindThree(fromComponent, component.mesh!, { boneWorldMatrices: asked });
      for (let frame = 0; frame < 2; frame++) { // the first apply() writes every bone's world matrix, later ones those asked for
        a.apply();
        b.apply();
        expect(relativeError(local.skeleton.boneMatrices!, component.skeleton.boneMatrices!)).toBeLessThan(3e-7);
        for (const name of asked.length > 0 ? ['calf_r', 'hand_r'] : []) {
          expect(relativeError(local.byName.get(name)!.matrixWorld.elements, component.byName.get(name)!.matrixWorld.elements)).toBeLessThan(1e-12);
        }
      }
      a.updateBoneWorlds();
      b.updateBoneWorlds();
      expect(relativeError(local.byName.get('foot_l')!.matrixWorld.elements, component.byName.get('foot_l')!.matrixWorld.elements)).toBeLessThan(1e-12);
      // three's own chain shears these bones: far from what the runtime composes.
      poseNaively(naive, skeleton, withUnitRotations(pose));
      expect(relativeError(local.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeGreaterThan(0.01);
    }
    // With each bone's scale even, the two compositions agree, and so does three.
    for (let b = 0; b < skeleton.boneCount; b++) pose.scales.fill(pose.scales[b * 3], b * 3, b * 3 + 3);
    const local = buildCharacter(skeleton, AWKWARD), naive = buildCharacter(skeleton, AWKWARD);
    bindThree(fromLocal, local.mesh!).apply();
    poseNaively(naive, skeleton, withUnitRotations(pose));
    expect(relativeError(local.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
  });

  it("leaves an instance's component pose to whoever asks, and draws from it once asked", () => {
    const g = character(), h = character();
    const one = buildCharacter(skeleton, AWKWARD), two = buildCharacter(skeleton, AWKWARD);
    const a = bindThree(g, one.mesh!), b = bindThree(h, two.mesh!);
    for (const frames of [3, 8]) {
      advance(g, frames);
      advance(h, frames);
      expect(g.uncomposedPose()).toBe(g.evaluate());
      a.apply(); // from the local pose
      expect(g.uncomposedPose()).toBe(g.evaluate()); // still not composed
      const cs = h.componentPose(); // asked for: h is drawn from it
      expect(h.uncomposedPose()).toBeNull();
      b.apply();
      expect(relativeError(one.skeleton.boneMatrices!, two.skeleton.boneMatrices!)).toBeLessThan(3e-7);
      // g's component pose, composed when asked after apply(), is h's.
      const gs = g.componentPose();
      expect(Array.from(gs.translations)).toEqual(Array.from(cs.translations));
      expect(Array.from(gs.rotations)).toEqual(Array.from(cs.rotations));
      expect(g.uncomposedPose()).toBeNull();
    }
  });

  it('gives every bound Skeleton one update() function, which reads nothing of its binding while three keeps no previousBoneMatrices', () => {
    const one = buildCharacter(skeleton, AWKWARD), two = buildCharacter(skeleton, AWKWARD);
    const a = bindThree(character(), one.mesh!), b = bindThree(character(), two.mesh!);
    expect(Object.hasOwn(one.skeleton, 'update')).toBe(true);
    expect(one.skeleton.update).toBe(two.skeleton.update);
    a.apply();
    b.apply();
    one.skeleton.computeBoneTexture();
    const version = one.skeleton.boneTexture!.version;
    one.skeleton.update();
    expect(one.skeleton.boneTexture!.version).toBe(version + 1);
    a.release();
    expect(Object.hasOwn(one.skeleton, 'update')).toBe(false);
    expect(Object.hasOwn(two.skeleton, 'update')).toBe(true);
  });

  it("leaves last frame's matrices in place until update() while three keeps them for motion vectors (previousBoneMatrices)", () => {
    const g = character();
    const naive = buildCharacter(skeleton, AWKWARD);
    const direct = buildCharacter(skeleton, AWKWARD);
    const binding = bindThree(g, direct.mesh!);
    // What three's WebGPU renderer makes when a pass needs last frame's skinning (its Skinning node).
    direct.skeleton.previousBoneMatrices = new Float32Array(direct.skeleton.boneMatrices!);
    for (const frames of [1, 7]) {
      advance(g, frames);
      poseNaively(naive, skeleton, g.evaluate());
      const before = Float32Array.from(direct.skeleton.boneMatrices!);
      binding.apply();
      expect(Array.from(direct.skeleton.boneMatrices!)).toEqual(Array.from(before));
      // The renderer's order: last frame's kept, then update().
      direct.skeleton.previousBoneMatrices.set(direct.skeleton.boneMatrices!);
      direct.skeleton.update();
      expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
      expect(Array.from(direct.skeleton.previousBoneMatrices)).toEqual(Array.from(before));
    }
    // Once three drops them, apply() writes in place again.
    direct.skeleton.previousBoneMatrices = null;
    advance(g, 5);
    poseNaively(naive, skeleton, g.evaluate());
    binding.apply();
    expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
  });

  it("skins like three's own path on the same pose: bone matrices and vertices, with a world transform and a bone the graph lacks (boneWorldMatrices)", () => {
    const g = character();
    const naive = buildCharacter(skeleton, AWKWARD);
    const direct = buildCharacter(skeleton, AWKWARD);
    const binding = bindThree(g, direct.mesh!, { boneWorldMatrices: true });
    for (const frames of [1, 7, 23]) { // from the first update: before it, the reference (bind) pose
      advance(g, frames);
      poseNaively(naive, skeleton, g.evaluate());
      binding.apply();
      direct.skeleton.update();
      // Float32 bone matrices: the two paths round the same doubles, so they agree to an ulp or so.
      expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
      // applyBoneTransform works from the bones' (double) world matrices.
      const vertices = skinnedVertices(direct.mesh!);
      expect(relativeError(vertices, skinnedVertices(naive.mesh!))).toBeLessThan(1e-9);
      // The pose really moved the mesh away from its bind pose (or the comparison would prove little).
      const bind = direct.mesh!.geometry.attributes.position.array;
      expect(relativeError(vertices, bind)).toBeGreaterThan(0.05);
    }
    // The bone three has and the graph lacks keeps its own local transform under the posed hand.
    const socket = direct.byName.get('prop_socket_r')!;
    const expected = new THREE.Matrix4().multiplyMatrices(direct.byName.get('hand_r')!.matrixWorld, socket.matrix);
    expect(relativeError(socket.matrixWorld.elements, expected.elements)).toBe(0);
    expect(relativeError(socket.matrixWorld.elements, naive.byName.get('prop_socket_r')!.matrixWorld.elements)).toBeLessThan(1e-12);
  });

  it("keeps its matrices through the renderer's scene.updateMatrixWorld, and objects attached to bones follow them", () => {
    const g = character();
    const naive = buildCharacter(skeleton, AWKWARD);
    const direct = buildCharacter(skeleton, AWKWARD);
    const sword = new THREE.Object3D();
    sword.position.set(0, -12, 0);
    direct.byName.get('hand_r')!.add(sword);
    const binding = bindThree(g, direct.skeleton, { boneWorldMatrices: true });
    advance(g, 11);
    binding.apply();
    direct.scene.updateMatrixWorld(); // what WebGLRenderer.render does before skinning
    direct.skeleton.update();
    poseNaively(naive, skeleton, g.evaluate());
    expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
    const hand = new THREE.Vector3().setFromMatrixPosition(naive.byName.get('hand_r')!.matrixWorld);
    const swordAt = new THREE.Vector3().setFromMatrixPosition(sword.matrixWorld);
    const handAt = new THREE.Vector3().setFromMatrixPosition(direct.byName.get('hand_r')!.matrixWorld);
    expect(handAt.distanceTo(hand)).toBeLessThan(1e-9);
    // 12 units down the hand, scaled by the character's uneven scale: somewhere between 9 and 24 away.
    expect(swordAt.distanceTo(hand)).toBeGreaterThan(9 - 1e-9);
    expect(swordAt.distanceTo(hand)).toBeLessThan(24 + 1e-9);
    const expected = new THREE.Matrix4().multiplyMatrices(direct.byName.get('hand_r')!.matrixWorld, sword.matrix);
    expect(relativeError(sword.matrixWorld.elements, expected.elements)).toBe(0);
  });

  it("keeps the bound bones out of three's world-matrix walk: the scene's updateMatrixWorld reaches only what hangs under them", () => {
    const g = character();
    const direct = buildCharacter(skeleton, AWKWARD);
    const walked = new Set<THREE.Object3D>();
    const own = THREE.Object3D.prototype.updateMatrixWorld;
    const count = (c: ReturnType<typeof buildCharacter>): void => {
      walked.clear();
      THREE.Object3D.prototype.updateMatrixWorld = function (this: THREE.Object3D, force?: boolean) {
        walked.add(this);
        own.call(this, force);
      };
      try {
        c.scene.updateMatrixWorld();
      } finally {
        THREE.Object3D.prototype.updateMatrixWorld = own;
      }
    };
    count(direct);
    expect(direct.bones.filter((b) => walked.has(b)).length).toBe(22); // three's own walk: every bone (21 bound and the socket)
    const binding = bindThree(g, direct.mesh!);
    advance(g, 4);
    binding.apply();
    count(direct);
    // Of the bones, only prop_socket_r (the graph lacks it), under hand_r; the character, armature and mesh as before.
    expect(direct.bones.filter((b) => walked.has(b)).map((b) => b.name)).toEqual(['prop_socket_r']);
    expect([direct.character, direct.armature, direct.mesh].every((o) => walked.has(o!))).toBe(true);
    binding.release();
    count(direct);
    expect(direct.bones.filter((b) => walked.has(b)).length).toBe(22);

    // Nothing hung under the bones: nothing walked, until something is.
    const bare = buildCharacter(skeleton, { ...AWKWARD, extra: [] }), naive = buildCharacter(skeleton, { ...AWKWARD, extra: [] });
    const bareBinding = bindThree(g, bare.mesh!);
    bareBinding.apply();
    count(bare);
    expect(bare.bones.filter((b) => walked.has(b))).toEqual([]);
    const sword = new THREE.Object3D(), naiveSword = new THREE.Object3D();
    sword.position.set(0, -12, 0);
    naiveSword.position.set(0, -12, 0);
    bare.byName.get('hand_l')!.add(sword);
    naive.byName.get('hand_l')!.add(naiveSword);
    advance(g, 3);
    bareBinding.apply();
    count(bare);
    expect(walked.has(sword)).toBe(true);
    poseNaively(naive, skeleton, g.evaluate());
    expect(relativeError(sword.matrixWorld.elements, naiveSword.matrixWorld.elements)).toBeLessThan(1e-12);
    bare.byName.get('hand_l')!.remove(sword);
    count(bare);
    expect(walked.size).toBeGreaterThan(0);
    expect(bare.bones.filter((b) => walked.has(b))).toEqual([]);
    expect(walked.has(sword)).toBe(false);
  });

  it("keeps objects hung under bones where three's own path puts them, without boneWorldMatrices: hung before binding or after, taken off again", () => {
    const g = character();
    const naive = buildCharacter(skeleton, AWKWARD);
    const direct = buildCharacter(skeleton, AWKWARD);
    const hang = (c: ReturnType<typeof buildCharacter>, bone: string, at: [number, number, number]): THREE.Object3D => {
      const prop = new THREE.Object3D();
      prop.position.fromArray(at);
      prop.rotation.set(0.3, -0.2, 0.9);
      const tip = new THREE.Object3D(); // a hierarchy under the bone: a weapon with a tip
      tip.position.set(0, 20, 0);
      prop.add(tip);
      c.byName.get(bone)!.add(prop);
      return prop;
    };
    const naiveSword = hang(naive, 'hand_l', [0, -12, 0]), sword = hang(direct, 'hand_l', [0, -12, 0]);
    const binding = bindThree(g, direct.mesh!);
    const naiveHat = hang(naive, 'head', [0, 9, 1]), hat = hang(direct, 'head', [0, 9, 1]);
    const check = (mine: THREE.Object3D, theirs: THREE.Object3D): void => {
      expect(relativeError(mine.matrixWorld.elements, theirs.matrixWorld.elements)).toBeLessThan(1e-12);
      expect(relativeError(mine.children[0].matrixWorld.elements, theirs.children[0].matrixWorld.elements)).toBeLessThan(1e-12);
    };
    for (const frames of [1, 6, 13]) {
      for (const c of [naive, direct]) {
        c.character.position.z += 21;
        c.character.rotateY(-0.3);
      }
      advance(g, frames);
      poseNaively(naive, skeleton, g.evaluate());
      binding.apply();
      direct.scene.updateMatrixWorld(); // the renderer's walk, as WebGLRenderer.render does it
      check(sword, naiveSword);
      check(hat, naiveHat);
      // The weapon really moved with the hand (world units, after the character's scale).
      expect(new THREE.Vector3().setFromMatrixPosition(sword.children[0].matrixWorld).distanceTo(new THREE.Vector3().setFromMatrixPosition(direct.byName.get('hand_l')!.matrixWorld))).toBeGreaterThan(9);
    }
    // Taken off, the head is no longer written (nothing hangs under it); the hand still is.
    direct.byName.get('head')!.remove(hat);
    const head = direct.byName.get('head')!.matrixWorld.clone();
    advance(g, 9);
    poseNaively(naive, skeleton, g.evaluate());
    binding.apply();
    direct.scene.updateMatrixWorld();
    expect(direct.byName.get('head')!.matrixWorld.equals(head)).toBe(true);
    expect(head.equals(naive.byName.get('head')!.matrixWorld)).toBe(false);
    check(sword, naiveSword);
    // After release() three walks the bones again, and the binding no longer counts what is hung on them.
    binding.release();
    direct.byName.get('head')!.add(hat);
    expect(Object.hasOwn(direct.byName.get('root')!, 'updateMatrixWorld')).toBe(false);
  });

  it('writes the matrixWorld of the bones boneWorldMatrices names each frame, and of every bone on request (updateBoneWorlds)', () => {
    const g = character();
    const naive = buildCharacter(skeleton, AWKWARD);
    const direct = buildCharacter(skeleton, AWKWARD);
    // A graph name and a three name (the bone the graph lacks).
    const binding = bindThree(g, direct.mesh!, { boneWorldMatrices: ['foot_l', 'prop_socket_r'] });
    advance(g, 2);
    binding.apply();
    const calf = direct.byName.get('calf_l')!.matrixWorld.clone();
    for (const frames of [5, 11]) {
      advance(g, frames);
      poseNaively(naive, skeleton, g.evaluate());
      binding.apply();
      for (const name of ['foot_l', 'prop_socket_r', 'hand_r']) {
        expect(relativeError(direct.byName.get(name)!.matrixWorld.elements, naive.byName.get(name)!.matrixWorld.elements)).toBeLessThan(1e-12);
      }
      expect(direct.byName.get('calf_l')!.matrixWorld.equals(calf)).toBe(true);
    }
    // On request: every bone, for the pose apply() drew, and so three's CPU skinning (getVertexPosition) and bounding sphere.
    binding.updateBoneWorlds();
    for (const bone of direct.bones) {
      expect(relativeError(bone.matrixWorld.elements, naive.byName.get(bone.name)!.matrixWorld.elements)).toBeLessThan(1e-12);
    }
    expect(relativeError(skinnedVertices(direct.mesh!), skinnedVertices(naive.mesh!))).toBeLessThan(1e-9);
    direct.mesh!.computeBoundingSphere();
    naive.mesh!.computeBoundingSphere();
    expect(direct.mesh!.boundingSphere!.radius).toBeCloseTo(naive.mesh!.boundingSphere!.radius, 9);
    expect(direct.mesh!.boundingSphere!.center.distanceTo(naive.mesh!.boundingSphere!.center)).toBeLessThan(1e-9);
    expectAnimGraphError(() => bindThree(g, direct.mesh!, { boneWorldMatrices: ['hand_r', 'sword'] }), 'unknown-name', "bindThree: boneWorldMatrices names 'sword', which is no bone of the target");
  });

  it("frustum-culls from the first pose drawn: the first apply() writes every bone, as three's lazily computed bounding sphere reads them", () => {
    const g = character();
    const naive = buildCharacter(skeleton, AWKWARD);
    const direct = buildCharacter(skeleton, AWKWARD);
    const binding = bindThree(g, direct.mesh!);
    for (const c of [naive, direct]) c.character.position.x -= 500; // moved after binding, before the first frame
    advance(g, 17);
    poseNaively(naive, skeleton, g.evaluate());
    binding.apply();
    direct.scene.updateMatrixWorld();
    // What WebGLRenderer's frustum test does with a mesh whose boundingSphere is null.
    const sphere = (mesh: THREE.SkinnedMesh): THREE.Sphere => {
      mesh.computeBoundingSphere();
      return mesh.boundingSphere!.clone().applyMatrix4(mesh.matrixWorld);
    };
    const mine = sphere(direct.mesh!), theirs = sphere(naive.mesh!);
    expect(mine.center.distanceTo(theirs.center)).toBeLessThan(1e-9);
    expect(mine.radius).toBeCloseTo(theirs.radius, 9);
    expect(theirs.center.x).toBeLessThan(-300);
  });

  it("skins empty slots and inverse bind matrices with a projective last row as three's Skeleton.update does", () => {
    const g = character();
    const naive = buildCharacter(skeleton, AWKWARD);
    const direct = buildCharacter(skeleton, AWKWARD);
    const slots = (c: ReturnType<typeof buildCharacter>): THREE.Skeleton => {
      const inverses = c.skeleton.boneInverses.map((m) => m.clone());
      inverses[3].elements[3] = 0.002; // not affine: the general product
      const bones: (THREE.Bone | undefined)[] = [...c.skeleton.bones];
      bones[5] = undefined; // an empty slot: three skins it with the identity
      return new THREE.Skeleton(bones as THREE.Bone[], inverses);
    };
    const theirs = slots(naive), mine = slots(direct);
    const binding = bindThree(g, mine);
    for (const frames of [3, 8]) {
      advance(g, frames);
      poseNaively(naive, skeleton, g.evaluate());
      theirs.update();
      binding.apply();
      mine.update();
      expect(relativeError(mine.boneMatrices!, theirs.boneMatrices!)).toBeLessThan(3e-7);
    }
  });

  /**
   * Model c of six, each bound at its own place (other inverse bind matrices): moved, turned,
   * unevenly scaled, the even ones without a graph bone (21 slots, an odd count), model 1 with its
   * slots in reverse order.
   */
  function awkwardModel(c: number): { character: ReturnType<typeof buildCharacter>; target: THREE.Skeleton } {
    const character = buildCharacter(skeleton, { ...AWKWARD, position: [120 + 40 * c, 5, -40], omit: c % 2 === 0 ? ['ball_l'] : [], extra: [] });
    const target = c === 1 ? new THREE.Skeleton([...character.skeleton.bones].reverse(), [...character.skeleton.boneInverses].reverse()) : character.skeleton;
    return { character, target };
  }

  it("skins a crowd's characters in the sampling kernel with the numbers of its JavaScript, four models a kernel, the rest in JavaScript", () => {
    const skin = vi.spyOn(SamplingKernel.prototype, 'skin');
    const crowd = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.3 } },
        blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.35 } },
        ik: { type: 'TwoBoneIK', inputs: { pose: 'blend' }, properties: { endBone: 'foot_l', target: [14, 20, 25], hintMode: 'direction', hint: [0, 0, 1] } },
      },
      output: 'ik',
    }).createInstances(6, { componentSpace: true });
    // Six models, each bound at its own place (awkwardModel).
    const build = awkwardModel;
    const kernel = crowd.instances.map((_, c) => build(c)), twin = crowd.instances.map((_, c) => build(c));
    const bindings = crowd.instances.map((instance, c) => bindThree(instance, kernel[c].target));
    // The twins read a copy of each component pose, in JavaScript arrays: skinAffine skins them.
    const copies = crowd.instances.map(() => new ComponentPose(crowd.instances[0].skeleton));
    const twins = crowd.instances.map((instance, c) => bindThree({
      skeleton: instance.skeleton,
      componentPose: () => {
        const pose = instance.componentPose(), copy = copies[c];
        copy.translations.set(pose.translations); copy.rotations.set(pose.rotations); copy.scales.set(pose.scales);
        return copy;
      },
    }, twin[c].target));
    const naive = build(0).character;
    for (let frame = 0; frame < 3; frame++) {
      crowd.update(frame === 0 ? 0.3 : 1 / 45);
      for (const { character } of [...kernel, ...twin, { character: naive }]) {
        character.character.position.x += 7;
        character.character.rotateY(0.3);
      }
      for (let c = 0; c < 6; c++) {
        bindings[c].apply();
        twins[c].apply();
        expect(Array.from(kernel[c].target.boneMatrices!)).toEqual(Array.from(twin[c].target.boneMatrices!));
      }
      poseNaively(naive, skeleton, crowd.instances[0].evaluate());
      expect(relativeError(kernel[0].target.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
    }
    // The first apply() writes every bone's matrixWorld (in JavaScript); later ones skin the first four models in the kernel.
    expect(skin).toHaveBeenCalledTimes(4 * 2);
    skin.mockRestore();
  });

  it('skins characters made one by one in the sampling kernel with the numbers of its JavaScript, four models a skeleton, the rest in JavaScript', () => {
    const skinLocal = vi.spyOn(SamplingKernel.prototype, 'skinLocal');
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.3 } },
        blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.35 } },
      },
      output: 'blend',
    });
    const instances = Array.from({ length: 6 }, () => graph.createInstance());
    // Six models bound at their own places (awkwardModel).
    const models = instances.map((_, c) => awkwardModel(c));
    const characters = models.map((m) => m.character), targets = models.map((m) => m.target);
    const bindings = instances.map((instance, c) => bindThree(instance, targets[c]));
    const naive = awkwardModel(0).character;
    const shape = (b: ReturnType<typeof bindThree>): { slotOf: Int32Array; inverses: Float64Array } => (b as unknown as { shape: { slotOf: Int32Array; inverses: Float64Array } }).shape;
    for (let frame = 0; frame < 3; frame++) {
      for (const ch of [...characters, naive]) {
        ch.character.position.x += 7;
        ch.character.rotateY(0.3);
      }
      for (let c = 0; c < 6; c++) {
        instances[c].update(frame === 0 ? 0.3 + c / 10 : 1 / 45);
        bindings[c].apply();
        // skinFromLocal on the same local pose, under the root's world matrix as three computes it.
        const root = bindings[c].root!;
        root.updateWorldMatrix(true, false);
        const theirs = new Float32Array(targets[c].boneMatrices!);
        skinFromLocal(instances[c].skeleton.parents, instances[c].evaluate(), Float64Array.from(root.matrixWorld.elements), shape(bindings[c]).slotOf, shape(bindings[c]).inverses, theirs);
        expect(Array.from(targets[c].boneMatrices!)).toEqual(Array.from(theirs));
      }
      poseNaively(naive, skeleton, instances[0].evaluate());
      expect(relativeError(targets[0].boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
    }
    // The first apply() writes every bone's matrixWorld (in JavaScript); later ones skin the first four models in the kernel.
    expect(skinLocal).toHaveBeenCalledTimes(4 * 2);
    // A source (another skeleton object: a kernel of its own) whose local pose has a bone more than its skeleton:
    // skinned in JavaScript, which reads the skeleton's bones.
    const wide = new Pose(skeleton.boneCount + 1);
    const odd = buildCharacter(skeleton, { ...AWKWARD, omit: [], extra: [] });
    const oddBinding = bindThree({ skeleton, componentPose: () => { throw new Error('not asked for'); }, uncomposedPose: () => wide }, odd.skeleton);
    for (let frame = 0; frame < 3; frame++) expect(() => oddBinding.apply()).not.toThrow();
    expect(skinLocal).toHaveBeenCalledTimes(4 * 2);
    expect(odd.skeleton.boneMatrices!.every(Number.isFinite)).toBe(true);
    skinLocal.mockRestore();
  });

  it('shares one copy of equal inverse bind matrices between bindings (a crowd of one model), and skins each character where it is', () => {
    const inverses = (b: ReturnType<typeof bindThree>): Float64Array => (b as unknown as { bound: { inverses: Float64Array }[] }).bound[0].inverses;
    const g = character(), h = character();
    const one = buildCharacter(skeleton, AWKWARD), two = buildCharacter(skeleton, AWKWARD), elsewhere = buildCharacter(skeleton, { ...AWKWARD, position: [0, 0, 0] });
    const a = bindThree(g, one.mesh!), b = bindThree(h, two.mesh!), c = bindThree(h, elsewhere.mesh!);
    expect(inverses(a)).toBe(inverses(b));
    expect(inverses(c)).not.toBe(inverses(a)); // bound at another place: other values
    // Bare bones (apply()'s shortest path): what that path reads of the Skeleton is one object for both.
    const shape = (binding: ReturnType<typeof bindThree>): { inverses: Float64Array } => (binding as unknown as { shape: { inverses: Float64Array } }).shape;
    const bare: CharacterOptions = { ...AWKWARD, omit: [], extra: [] };
    const d = bindThree(character(), buildCharacter(skeleton, bare).mesh!), e = bindThree(character(), buildCharacter(skeleton, bare).mesh!);
    expect(shape(d)).toBe(shape(e));
    expect(shape(d).inverses).toBe(inverses(d));
    two.character.position.x += 300; // moved after binding: the same inverses, another skinning
    advance(g, 5);
    advance(h, 5);
    a.apply();
    b.apply();
    const naive = buildCharacter(skeleton, AWKWARD);
    naive.character.position.x += 300;
    poseNaively(naive, skeleton, h.evaluate());
    expect(relativeError(two.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
    expect(relativeError(one.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeGreaterThan(1); // 300 units apart
  });

  it('follows the character when it moves between frames, without a scene update (updateRoot)', () => {
    const g = character();
    const naive = buildCharacter(skeleton, AWKWARD);
    const direct = buildCharacter(skeleton, AWKWARD);
    const binding = bindThree(g, direct.mesh!);
    for (let f = 0; f < 3; f++) {
      for (const c of [naive, direct]) {
        c.character.position.x += 37;
        c.character.rotateY(0.4);
      }
      advance(g, 5);
      binding.apply();
      direct.skeleton.update();
      poseNaively(naive, skeleton, g.evaluate());
      expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
    }
    // apply() computed the root's world matrix without writing it: three's walk (the renderer's) writes it.
    const standing = direct.character.matrixWorld.clone();
    direct.scene.updateMatrixWorld();
    expect(direct.character.matrixWorld.equals(standing)).toBe(false);
    // With updateRoot off the binding uses the root's matrix as it stands: a frame behind here.
    binding.release();
    const lagging = bindThree(g, direct.mesh!, { updateRoot: false, boneWorldMatrices: true });
    for (const c of [naive, direct]) c.character.position.x += 37;
    advance(g, 1);
    lagging.apply();
    poseNaively(naive, skeleton, g.evaluate());
    const root = new THREE.Vector3().setFromMatrixPosition(direct.byName.get('root')!.matrixWorld);
    expect(root.x - new THREE.Vector3().setFromMatrixPosition(naive.byName.get('root')!.matrixWorld).x).toBeCloseTo(-37, 9);
  });

  it("computes the root's world matrix as three's updateWorldMatrix(true, false) does: pivots, matrixAutoUpdate off, matrixWorldAutoUpdate off", () => {
    const g = character();
    const computed = buildCharacter(skeleton, AWKWARD), updated = buildCharacter(skeleton, AWKWARD);
    const mine = bindThree(g, computed.mesh!), three = bindThree(g, updated.mesh!, { updateRoot: false });
    expect(mine.root).toBe(computed.armature);
    const armatureMatrix = new THREE.Matrix4().compose(new THREE.Vector3(4, -3, 2), new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(1, 0, 0), -1.2), new THREE.Vector3(1, 1.5, 0.8));
    const frozenWorld = new THREE.Matrix4().makeRotationY(0.7).setPosition(30, 0, -12);
    const changes: ((c: ReturnType<typeof buildCharacter>) => void)[] = [
      (c) => { c.character.pivot = new THREE.Vector3(3, -2, 5); }, // three's pivot: rotation and scale about it
      (c) => { c.armature.matrixAutoUpdate = false; c.armature.matrix.copy(armatureMatrix); c.armature.matrixWorldNeedsUpdate = true; },
      () => {}, // matrixAutoUpdate off and no update asked for: three keeps the armature's matrixWorld while the character moves
      (c) => { c.character.matrixWorldAutoUpdate = false; c.character.matrixWorld.copy(frozenWorld); c.armature.matrixWorldNeedsUpdate = true; },
      (c) => { c.scene.position.set(0, 7, 0); c.scene.scale.set(2, 2, 2); },
    ];
    let moved = 0;
    for (const change of changes) {
      for (const c of [computed, updated]) {
        change(c);
        c.character.position.x += 17;
        c.character.rotateY(0.3);
      }
      advance(g, 3);
      mine.apply();
      updated.armature.updateWorldMatrix(true, false);
      three.apply();
      // Bit for bit: the same operations on the same numbers.
      expect(Array.from(computed.skeleton.boneMatrices!)).toEqual(Array.from(updated.skeleton.boneMatrices!));
      moved = Math.max(moved, relativeError(computed.skeleton.boneMatrices!, computed.mesh!.skeleton.boneInverses.flatMap((m) => m.elements)));
      // Then the renderer's walk, in both.
      computed.scene.updateMatrixWorld();
      updated.scene.updateMatrixWorld();
    }
    expect(moved).toBeGreaterThan(1);
  });

  it('skins a character whose bones are kept out of the scene (root: the Object3D they would hang under)', () => {
    const g = character();
    const naive = buildCharacter(skeleton, { ...AWKWARD, extra: [] });
    const direct = buildCharacter(skeleton, { ...AWKWARD, extra: [] });
    direct.armature.remove(direct.byName.get('root')!); // the renderer then never visits the bones
    const binding = bindThree(g, direct.mesh!, { root: direct.armature });
    for (const frames of [2, 9]) {
      for (const c of [naive, direct]) c.character.position.y += 12;
      advance(g, frames);
      poseNaively(naive, skeleton, g.evaluate());
      binding.apply();
      direct.scene.updateMatrixWorld();
      direct.skeleton.update();
      expect(relativeError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
    }
  });

  it('skins a bone the graph lacks that hangs outside the bound bones (under the armature) from its own matrixWorld chain', () => {
    const g = character();
    const make = (c: ReturnType<typeof buildCharacter>): THREE.Skeleton => {
      const loose = new THREE.Bone();
      loose.name = 'loose';
      loose.position.set(20, 30, 0);
      c.armature.add(loose);
      c.scene.updateMatrixWorld(true);
      return new THREE.Skeleton([...c.bones, loose]);
    };
    const naive = buildCharacter(skeleton, { ...AWKWARD, extra: [] }), direct = buildCharacter(skeleton, { ...AWKWARD, extra: [] });
    const theirs = make(naive), mine = make(direct);
    const binding = bindThree(g, mine);
    expect(binding.unboundThreeBones).toEqual(['loose']);
    for (const frames of [2, 5]) {
      for (const c of [naive, direct]) c.character.position.z -= 40; // the loose bone moves with the character
      advance(g, frames);
      poseNaively(naive, skeleton, g.evaluate());
      theirs.update();
      binding.apply();
      direct.scene.updateMatrixWorld();
      mine.update();
      expect(relativeError(mine.boneMatrices!, theirs.boneMatrices!)).toBeLessThan(3e-7);
    }
  });

  it('takes an explicit root, or the world origin (root: null)', () => {
    const g = character();
    const plain = buildCharacter(skeleton, { mesh: false });
    const reference = buildCharacter(skeleton, { mesh: false });
    advance(g, 9);
    bindThree(g, plain.bones, { root: null }).apply();
    poseNaively(reference, skeleton, g.evaluate());
    const pelvis = plain.byName.get('pelvis')!.matrixWorld.elements;
    expect(relativeError(pelvis, reference.byName.get('pelvis')!.matrixWorld.elements)).toBeLessThan(1e-12);
    // The component pose's pelvis, untouched: the bone's world translation is its component translation.
    const cs = g.componentPose();
    expect(pelvis[13]).toBe(cs.translations[1 * 3 + 1]);
    const moved = buildCharacter(skeleton, { mesh: false, position: [0, 0, 0] });
    const carrier = new THREE.Group();
    carrier.position.set(0, 1000, 0);
    moved.scene.add(carrier);
    bindThree(g, moved.bones, { root: carrier }).apply();
    expect(moved.byName.get('pelvis')!.matrixWorld.elements[13]).toBeCloseTo(1000 + cs.translations[4], 9);
  });

  it('writeLocal also copies the local pose into position, quaternion and scale; writeMatrices: false is the naive path', () => {
    const g = character();
    advance(g, 13);
    const both = buildCharacter(skeleton, AWKWARD);
    bindThree(g, both.mesh!, { writeLocal: true }).apply();
    const local = g.evaluate();
    const calf = both.byName.get('calf_l')!;
    const i = skeleton.indexOf('calf_l');
    expect(calf.quaternion.toArray()).toEqual(Array.from(local.rotations.subarray(i * 4, i * 4 + 4)));
    expect(calf.position.toArray()).toEqual(Array.from(local.translations.subarray(i * 3, i * 3 + 3)));

    const naivePath = buildCharacter(skeleton, AWKWARD);
    const reference = buildCharacter(skeleton, AWKWARD);
    const binding = bindThree(g, naivePath.mesh!, { writeMatrices: false, writeLocal: true });
    expect(naivePath.byName.get('pelvis')!.matrixAutoUpdate).toBe(true); // no flags changed
    binding.apply();
    naivePath.scene.updateMatrixWorld(true);
    naivePath.skeleton.update();
    poseNaively(reference, skeleton, g.evaluate());
    expect(relativeError(naivePath.skeleton.boneMatrices!, reference.skeleton.boneMatrices!)).toBe(0);
  });

  it('release() gives the bones back to three', () => {
    const c = buildCharacter(skeleton, AWKWARD);
    const pelvis = c.byName.get('pelvis')!;
    pelvis.matrixWorldAutoUpdate = true;
    const binding = bindThree(character(), c.mesh!, { boneWorldMatrices: true });
    expect(pelvis.matrixWorldAutoUpdate).toBe(false);
    expect(Object.hasOwn(c.skeleton, 'update')).toBe(true);
    binding.apply();
    binding.release();
    expect(pelvis.matrixAutoUpdate).toBe(true);
    expect(pelvis.matrixWorldAutoUpdate).toBe(true);
    expect(Object.hasOwn(c.skeleton, 'update')).toBe(false); // three's own update() again
    c.scene.updateMatrixWorld();
    // Back at the reference pose that position, quaternion and scale still hold (no writeLocal).
    const rest = buildCharacter(skeleton, AWKWARD);
    expect(relativeError(pelvis.matrixWorld.elements, rest.byName.get('pelvis')!.matrixWorld.elements)).toBe(0);
    c.skeleton.update(); // three's: from the bones' matrices, back at the bind pose
    expect(relativeError(c.skeleton.boneMatrices!, new THREE.Matrix4().toArray(new Array(16)).concat(...Array(22).fill(new THREE.Matrix4().toArray())).slice(16))).toBeLessThan(1e-6);
    const before = pelvis.matrixWorld.clone();
    binding.apply(); // does nothing once released
    expect(pelvis.matrixWorld.equals(before)).toBe(true);
  });

  it('binding bones again (after calculateInverses, as three.md says) releases the old binding first', () => {
    const c = buildCharacter(skeleton, AWKWARD);
    const pelvis = c.byName.get('pelvis')!;
    pelvis.matrixWorldAutoUpdate = true;
    const g = character();
    const first = bindThree(g, c.mesh!);
    c.skeleton.calculateInverses();
    const second = bindThree(g, c.mesh!);
    // The second saved three's flags, not the first binding's; the first lets go of nothing it no longer has.
    first.release();
    expect(pelvis.matrixAutoUpdate).toBe(false);
    expect(Object.hasOwn(c.skeleton, 'update')).toBe(true); // still the second binding's update()
    second.apply();
    c.skeleton.update();
    const installed = Float32Array.from(c.skeleton.boneMatrices!);
    expect(installed.some((v, i) => v !== (i % 5 === 0 ? 1 : 0))).toBe(true); // skinning matrices, not identities
    second.release();
    // Before, first.release() deleted the second's update() and the flags ended false for good.
    expect([pelvis.matrixAutoUpdate, pelvis.matrixWorldAutoUpdate]).toEqual([true, true]);
    expect(Object.hasOwn(c.skeleton, 'update')).toBe(false);
  });

  it('refuses bones none of whose names the graph has, and a binding that would write nothing', () => {
    const stranger = new THREE.Bone();
    stranger.name = 'mixamorig:Hips';
    expect(() => bindThree(character(), [stranger])).toThrow(/none of the 1 three.js bones \('mixamorig:Hips'\).*'root', 'pelvis'/);
    const c = buildCharacter(skeleton, { mesh: false });
    expect(() => bindThree(character(), c.bones, { writeMatrices: false })).toThrow(/would write nothing/);
    expectAnimGraphError(() => bindThree(character(), {} as THREE.Skeleton), 'invalid-argument', 'bindThree: the target must be a SkinnedMesh, a Skeleton, an Object3D with skinned meshes or a list of bones');
  });

  it('allocates nothing per apply() once warm', () => {
    const probe = new URL('./allocation-probe.ts', import.meta.url).pathname;
    const out = runNodeProbe(probe);
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    // One boxed double per frame would be 16 bytes; a Matrix4 or Vector3 several dozen.
    expect(result.perApply).toBeLessThan(4);
    expect(result.perApplyAll).toBeLessThan(4); // boneWorldMatrices and writeLocal too
    expect(result.perApplyHung).toBeLessThan(4); // a prop hung under a bone, a bone named, and the scene's walk
    expect(result.perApplyCrowd).toBeLessThan(4); // a crowd's character, its component pose composed by the kernel
    expect(result.perApplyBare).toBeLessThan(4); // the same with bare bones: apply()'s shortest path
    expect(result.perApplyLoneBare).toBeLessThan(4); // bare bones, a character on its own: composed from its local pose
    expect(result.perApplyLoneSingle).toBeLessThan(4); // the same in single precision (skinLocalSingle)
    expect(result.moved).toBe(true);
  });
});

describe('skeletonFromThree and clipFromThree', () => {
  function arm(): THREE.Bone[] {
    const shoulder = new THREE.Bone(), hand = new THREE.Bone();
    shoulder.name = 'shoulder';
    hand.name = 'hand';
    shoulder.add(hand);
    hand.position.set(0, 30, 0);
    hand.quaternion.setFromAxisAngle(new THREE.Vector3(0, 0, 1), 0.5);
    hand.scale.set(1, 2, 1);
    return [hand, shoulder]; // child listed first
  }

  it('takes names, parents (reordered parents first) and the current local transforms as the reference pose', () => {
    const s = skeletonFromThree(arm());
    expect(s.boneNames).toEqual(['shoulder', 'hand']);
    expect(Array.from(s.parents)).toEqual([-1, 0]);
    expect(Array.from(s.referencePose.translations)).toEqual([0, 0, 0, 0, 30, 0]);
    expect(s.referencePose.rotations[4 + 2]).toBeCloseTo(Math.sin(0.25), 15);
    expect(Array.from(s.referencePose.scales)).toEqual([1, 1, 1, 1, 2, 1]);
    // A zero or NaN quaternion was normalised to the identity before any check saw it.
    const [hand, shoulder] = arm();
    hand.quaternion.set(0, 0, 0, 0);
    expect(() => skeletonFromThree([hand, shoulder])).toThrow("skeletonFromThree: bone 'hand' has quaternion (0, 0, 0, 0), which is no rotation");
    hand.quaternion.set(Number.NaN, 0, 0, 1);
    expect(() => skeletonFromThree([hand, shoulder])).toThrow("bone 'hand': reference rotation (NaN, 0, 0, 1) is not finite");
  });

  it("resamples a clip's bone tracks with three's interpolants, leaving out other tracks and unknown bones", () => {
    const s = skeletonFromThree(arm());
    const quarter = new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(0, 1, 0), Math.PI / 2);
    const clip = clipFromThree(new THREE.AnimationClip('reach', 1, [
      new THREE.VectorKeyframeTrack('shoulder.position', [0, 1], [0, 0, 0, 2, 4, 6]),
      new THREE.QuaternionKeyframeTrack('shoulder.quaternion', [0, 1], [0, 0, 0, 1, ...quarter.toArray()]),
      new THREE.VectorKeyframeTrack('hand.scale', [0, 1], [1, 1, 1, 3, 3, 3]),
      new THREE.VectorKeyframeTrack('elbow.position', [0, 1], [0, 0, 0, 1, 1, 1]),
      new THREE.NumberKeyframeTrack('hand.morphTargetInfluences[0]', [0, 1], [0, 1]),
    ]), s, { frameRate: 2 });
    expect(clip.frameCount).toBe(3);
    expect(clip.duration).toBe(1);
    expect(clip.tracks).toEqual([
      { bone: 'shoulder', translation: true, rotation: true, scale: false },
      { bone: 'hand', translation: false, rotation: false, scale: true },
    ]);
    // Frame 1 is t = 0.5: half way along, the rotation slerped to 45 degrees about y.
    expect(Array.from(clip.translations.subarray(6, 9)).map((v) => Math.fround(v))).toEqual([1, 2, 3]);
    expect(clip.rotations[8 + 1]).toBeCloseTo(Math.sin(Math.PI / 8), 6);
    expect(clip.rotations[8 + 3]).toBeCloseTo(Math.cos(Math.PI / 8), 6);
    expect(clip.rotations[12 + 3]).toBe(1); // the hand's rotation: no track, identity keys
    expect(clip.scales[(1 * 2 + 1) * 3]).toBeCloseTo(2, 6);
  });

  it('refuses a bad key rate, an endless or too long clip, and keys that sample to NaN or Infinity, naming the track and time', () => {
    const s = skeletonFromThree(arm());
    const clip = (values: number[], duration = 1) => new THREE.AnimationClip('reach', duration, [new THREE.VectorKeyframeTrack('shoulder.position', [0, 1], values)]);
    const ok = [0, 0, 0, 2, 4, 6];
    for (const frameRate of [0, -5, Number.NaN, 1001]) {
      expect(() => clipFromThree(clip(ok), s, { frameRate })).toThrow(`clipFromThree: frameRate must be above 0 and at most 1000 keys per second, got ${frameRate}`);
    }
    expect(() => clipFromThree(clip(ok, Number.POSITIVE_INFINITY), s)).toThrow("clipFromThree: clip 'reach' has duration Infinity");
    // Refused before it allocates 30 billion frames.
    expect(() => clipFromThree(clip(ok, 1e9), s)).toThrow("clipFromThree: clip 'reach' would need 30000000001 frames of 1 tracks, over the limit of 4000000");
    // A NaN key reaches every frame through three's interpolation (v0 + (v1 - v0) t); so does 1e308 - -1e308.
    expect(() => clipFromThree(clip([0, 0, 0, Number.NaN, 0, 0]), s)).toThrow("clipFromThree: clip 'reach': track 'shoulder.position' gives NaN at 0 s, not finite");
    expect(() => clipFromThree(clip([-1e308, 0, 0, 1e308, 0, 0]), s)).toThrow(/track 'shoulder.position' gives (-?Infinity|NaN) at .* s, not finite/);
    // Finite, but past the bound an AnimGraph (and the asset loader) puts on translations: refused
    // here, where the track can be named, rather than by the graph built from it.
    // (Its first frame past the bound, at 30 keys a second, is frame 16, from three's single-precision keys.)
    expect(() => clipFromThree(clip([0, 0, 0, 2e15, 0, 0]), s)).toThrow("clipFromThree: clip 'reach': track 'shoulder.position' gives 1066666670686208 at 0.5333333333333333 s, beyond ±1e15");
    expect(clipFromThree(clip([0, 0, 0, 9e14, 0, 0]), s).translations[30 * 3]).toBe(Math.fround(9e14));
    // Quaternion tracks were normalised first, which made a NaN, infinite or zero key the identity, silently.
    const turn = (values: number[]) => new THREE.AnimationClip('twist', 1, [new THREE.QuaternionKeyframeTrack('hand.quaternion', [0, 1], values)]);
    expect(() => clipFromThree(turn([Number.NaN, 0, 0, 1, Number.NaN, 0, 0, 1]), s)).toThrow("clipFromThree: clip 'twist': track 'hand.quaternion' gives (NaN, NaN, NaN, NaN) at 0 s, not finite");
    expect(() => clipFromThree(turn([0, 0, 0, 0, 0, 0, 0, 0]), s)).toThrow("clipFromThree: clip 'twist': track 'hand.quaternion' gives (0, 0, 0, 0) at 0 s, which is no rotation");
    // A non-unit key of some length is a rotation: normalised, as before.
    expect(Array.from(clipFromThree(turn([0, 0, 0, 2, 0, 0, 0, 1]), s).rotations.subarray(4, 8))).toEqual([0, 0, 0, 1]);
    expect(clipFromThree(clip(ok, 1), s, { frameRate: 1000 }).frameCount).toBe(1001);
  });
});
