/**
 * A small skinned character built with three.js for the binding's tests, probe and bench: the
 * graph skeleton's bones (some left out, some added) under an armature group, a SkinnedMesh beside
 * them skinning a few vertices per bone to two bones, all under a character group with a world
 * transform of its own.
 */
import * as THREE from 'three';
import type { Pose } from '../../runtime/core/pose.ts';
import type { Skeleton } from '../../runtime/core/skeleton.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { bipedInstance } from '../support/graphs.ts';

export interface ExtraBone {
  name: string;
  parent: string;
  position: [number, number, number];
  /** Axis-angle: [x, y, z, radians]. */
  rotation?: [number, number, number, number];
}

export interface CharacterOptions {
  /** Graph bones three does not get (leaves only: their children would be orphaned). */
  omit?: readonly string[];
  /** Bones three has and the graph lacks. */
  extra?: readonly ExtraBone[];
  /** The character group's world transform (default: the identity). */
  position?: [number, number, number];
  rotation?: [number, number, number, number];
  scale?: [number, number, number];
  /** The armature group's transform under the character (default: the identity). */
  armatureRotation?: [number, number, number, number];
  armaturePosition?: [number, number, number];
  /** The mesh's offset under the character (default none). */
  meshPosition?: [number, number, number];
  /** Build the SkinnedMesh (default true). */
  mesh?: boolean;
}

export interface Character {
  scene: THREE.Scene;
  character: THREE.Group;
  armature: THREE.Group;
  bones: THREE.Bone[];
  byName: Map<string, THREE.Bone>;
  mesh: THREE.SkinnedMesh | null;
  skeleton: THREE.Skeleton;
}

function axisAngle(q: THREE.Quaternion, r: readonly number[] | undefined): THREE.Quaternion {
  if (r === undefined) return q.identity();
  return q.setFromAxisAngle(new THREE.Vector3(r[0], r[1], r[2]).normalize(), r[3]);
}

export function buildCharacter(skeleton: Skeleton, options: CharacterOptions = {}): Character {
  const scene = new THREE.Scene();
  const character = new THREE.Group();
  character.name = 'character';
  character.position.fromArray(options.position ?? [0, 0, 0]);
  axisAngle(character.quaternion, options.rotation);
  character.scale.fromArray(options.scale ?? [1, 1, 1]);
  scene.add(character);
  const armature = new THREE.Group();
  armature.name = 'armature';
  armature.position.fromArray(options.armaturePosition ?? [0, 0, 0]);
  axisAngle(armature.quaternion, options.armatureRotation);
  character.add(armature);

  const omit = new Set(options.omit ?? []);
  const ref = skeleton.referencePose;
  const bones: THREE.Bone[] = [];
  const byName = new Map<string, THREE.Bone>();
  for (let i = 0; i < skeleton.boneCount; i++) {
    const name = skeleton.boneNames[i];
    if (omit.has(name)) continue;
    const bone = new THREE.Bone();
    bone.name = name;
    bone.position.fromArray(ref.translations, i * 3);
    bone.quaternion.fromArray(ref.rotations, i * 4);
    bone.scale.fromArray(ref.scales, i * 3);
    const parent = skeleton.parents[i];
    (parent >= 0 ? byName.get(skeleton.boneNames[parent])! : armature).add(bone);
    bones.push(bone);
    byName.set(name, bone);
  }
  for (const extra of options.extra ?? []) {
    const bone = new THREE.Bone();
    bone.name = extra.name;
    bone.position.fromArray(extra.position);
    axisAngle(bone.quaternion, extra.rotation);
    byName.get(extra.parent)!.add(bone);
    bones.push(bone);
    byName.set(extra.name, bone);
  }
  scene.updateMatrixWorld(true);
  const threeSkeleton = new THREE.Skeleton(bones);

  let mesh: THREE.SkinnedMesh | null = null;
  if (options.mesh ?? true) {
    // Three vertices around each bone's bind position, each skinned to the bone and its parent.
    const positions: number[] = [], skinIndex: number[] = [], skinWeight: number[] = [];
    const offsets = [[2, 0, 0], [0, 3, -1], [-1, -2, 4]];
    const at = new THREE.Vector3();
    bones.forEach((bone, i) => {
      const parent = bone.parent instanceof THREE.Bone ? bones.indexOf(bone.parent) : i;
      bone.getWorldPosition(at);
      offsets.forEach((o, k) => {
        positions.push(at.x + o[0], at.y + o[1], at.z + o[2]);
        skinIndex.push(i, parent, 0, 0);
        skinWeight.push(1 - 0.3 * k, 0.3 * k, 0, 0);
      });
    });
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
    geometry.setAttribute('skinIndex', new THREE.Uint16BufferAttribute(skinIndex, 4));
    geometry.setAttribute('skinWeight', new THREE.Float32BufferAttribute(skinWeight, 4));
    mesh = new THREE.SkinnedMesh(geometry, new THREE.MeshBasicMaterial());
    mesh.position.fromArray(options.meshPosition ?? [0, 0, 0]);
    character.add(mesh);
    // bind() updates the mesh's world matrix, takes it as the bind matrix and the bones' current
    // world matrices as the bind pose (calculateInverses).
    mesh.bind(threeSkeleton);
  }
  return { scene, character, armature, bones, byName, mesh, skeleton: threeSkeleton };
}

/**
 * three's own path, the reference: the graph's local pose copied into each bone three has, the
 * whole scene's matrices recomposed, and the skeleton's bone matrices rebuilt from them.
 */
export function poseNaively(c: Character, skeleton: Skeleton, pose: Pose): void {
  for (const bone of c.bones) {
    const i = skeleton.indexOf(bone.name);
    if (i < 0) continue;
    bone.position.fromArray(pose.translations, i * 3);
    bone.quaternion.fromArray(pose.rotations, i * 4);
    bone.scale.fromArray(pose.scales, i * 3);
  }
  c.scene.updateMatrixWorld(true);
  c.skeleton.update();
}

/** Walk and run blended, a hand copied and a foot reached for: component-space edits in the pose. */
export function walkRunCharacter(): AnimGraphInstance {
  return bipedInstance({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.3 } },
    blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.35 } },
    copy: { type: 'CopyBone', inputs: { pose: 'blend' }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r', alpha: 0.5 } },
    ik: { type: 'TwoBoneIK', inputs: { pose: 'copy' }, properties: { endBone: 'foot_l', target: [14, 20, 25], hintMode: 'direction', hint: [0, 0, 1] } },
  }, 'ik');
}
