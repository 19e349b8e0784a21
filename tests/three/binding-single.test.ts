/**
 * bindThree's precision 'single': apply()'s shortest path from the local pose composed in float32 in
 * the WebAssembly kernel (SamplingKernel.skinLocalSingle). Checked bit for bit against the double
 * path where float32 arithmetic is exact, against three's own skinning on the biped's walk and run
 * and on CMU motion capture within a float32 rounding, and falling back to the double path where
 * the kernel path cannot run.
 */
import * as THREE from 'three';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClipBinding } from '../../runtime/core/clip.ts';
import { clipFramePose } from '../../runtime/core/additive.ts';
import type { ComponentPose } from '../../runtime/core/component-pose.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { Skeleton } from '../../runtime/core/skeleton.ts';
import { loadBvh } from '../../runtime/import/bvh.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { SamplingKernel } from '../../runtime/kernel/sampling-kernel.ts';
import { skinFromLocal } from '../../three/binding.ts';
import { bindThree, type ThreeBinding } from '../../three/index.ts';
import { expectAnimGraphError } from '../support/errors.ts';
import { describeWithData, readShared } from '../support/shared-data.ts';
import { buildCharacter, poseNaively, walkRunCharacter as character, type CharacterOptions } from './scene.ts';

/** Moved, turned and unevenly scaled, a Z-up armature turned to Y-up, every graph bone in three and no other: apply()'s shortest path. */
const BARE: CharacterOptions = {
  position: [120, 5, -40], rotation: [0.2, 1, 0.1, 0.8], scale: [1.5, 2, 0.75],
  armatureRotation: [1, 0, 0, -Math.PI / 2], armaturePosition: [0, 0, 3], meshPosition: [3, 0, 1],
};

/** Largest difference between a and b relative to max(1, |b|), as binding.test.ts measures. */
function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  return worst;
}

/**
 * Largest difference between skinning matrices a and b (16 numbers each) relative to max(1, the
 * largest number of b's matrix): float32 rounds a matrix's small numbers as finely as its largest
 * allows (a translation of 0.9 computed as 400 - 399.1 is off by 400's rounding, not 0.9's).
 */
function matrixError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let m = 0; m < b.length; m += 16) {
    let largest = 1;
    for (let e = 0; e < 16; e++) largest = Math.max(largest, Math.abs(b[m + e]));
    for (let e = 0; e < 16; e++) worst = Math.max(worst, Math.abs(a[m + e] - b[m + e]) / largest);
  }
  return worst;
}

/**
 * Largest distance between `mesh`'s vertices skinned by matrices a and by b (as three's shader
 * skins them: bind matrix, weighted bone matrices) relative to max(1, their distance from the origin).
 */
function vertexError(mesh: THREE.SkinnedMesh, a: Float32Array, b: Float32Array): number {
  const { position, skinIndex, skinWeight } = mesh.geometry.attributes;
  const bound = new THREE.Vector3(), va = new THREE.Vector3(), vb = new THREE.Vector3(), v = new THREE.Vector3(), m = new THREE.Matrix4();
  let worst = 0;
  for (let i = 0; i < position.count; i++) {
    bound.fromBufferAttribute(position as THREE.BufferAttribute, i).applyMatrix4(mesh.bindMatrix);
    va.set(0, 0, 0);
    vb.set(0, 0, 0);
    for (let k = 0; k < 4; k++) {
      const w = skinWeight.getComponent(i, k), j = skinIndex.getComponent(i, k);
      if (w === 0) continue;
      va.addScaledVector(v.copy(bound).applyMatrix4(m.fromArray(a, j * 16)), w);
      vb.addScaledVector(v.copy(bound).applyMatrix4(m.fromArray(b, j * 16)), w);
    }
    worst = Math.max(worst, va.distanceTo(vb) / Math.max(1, vb.length()));
  }
  return worst;
}

/** A pose source whose local pose is `pose` (never composed), on `skeleton`. */
function localSource(skeleton: Skeleton, pose: Pose) {
  return { skeleton, uncomposedPose: () => pose, componentPose: (): ComponentPose => { throw new Error('not asked for'); } };
}

const unsigned = (a: ArrayLike<number>): number[] => Array.from(a, (v) => v + 0);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("bindThree's precision 'single'", () => {
  it('gives the double path\'s matrices bit for bit where float32 arithmetic is exact: quarter turns, integer translations, scales of 1, 2 and 4', () => {
    // Five bones (the kernel composes rotations four bones to a vector: a partial group), bound at
    // half turns (exact in three's Matrix4.compose), posed with quarter turns of length √2 (normalised on
    // the way, exactly: 2 / |q|² is 1), scales of 1, 2 and 4, uneven under turned children (no shear).
    const skeleton = Skeleton.fromDefinitions([
      { name: 'root', translation: [1, 2, 3], scale: [2, 2, 2] },
      { name: 'spine', parent: 'root', translation: [0, 4, 0], rotation: [0, 0, 1, 0] },
      { name: 'head', parent: 'spine', translation: [3, 0, -1], scale: [1, 2, 4] },
      { name: 'hand', parent: 'root', translation: [-2, 0, 0], rotation: [1, 0, 0, 0] },
      { name: 'tip', parent: 'head', translation: [0, 0, 5], scale: [4, 4, 4] },
    ]);
    const pose = new Pose(skeleton.boneCount);
    pose.translations.set([1, 2, 3, 0, 4, 0, 3, 0, -1, -2, 0, 0, 0, 0, 5]);
    pose.rotations.set([0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, -1, 0, 0, 0, 0]); // the tip's degenerate: the identity
    pose.scales.set([2, 2, 2, 1, 2, 4, 4, 1, 1, 1, 1, 1, 4, 4, 4]);
    const options: CharacterOptions = { position: [10, -3, 5], scale: [2, 2, 2] };
    const one = buildCharacter(skeleton, options), two = buildCharacter(skeleton, options);
    for (const c of [one, two]) c.character.quaternion.set(0, 0, 1, 0); // a half turn, after binding's bind pose
    const double = bindThree(localSource(skeleton, pose), one.mesh!), single = bindThree(localSource(skeleton, pose), two.mesh!, { precision: 'single' });
    expect(double.precision).toBe('double');
    expect(single.precision).toBe('single');
    const skinLocalSingle = vi.spyOn(SamplingKernel.prototype, 'skinLocalSingle');
    for (let frame = 0; frame < 3; frame++) { // the first apply() writes every bone's world matrix; later ones take the kernel
      double.apply();
      single.apply();
      expect(unsigned(two.skeleton.boneMatrices!)).toEqual(unsigned(one.skeleton.boneMatrices!));
    }
    expect(skinLocalSingle).toHaveBeenCalledTimes(2);
    const m = one.skeleton.boneMatrices!;
    expect(m.every(Number.isInteger)).toBe(true); // every number exact, and not trivially so
    expect(new Set(m).size).toBeGreaterThan(8);
    // The tip's degenerate rotation is the identity: its world matrix is the head's turned by nothing.
    const tip = two.byName.get('tip')!;
    single.updateBoneWorlds();
    expect(tip.matrixWorld.elements.every(Number.isFinite)).toBe(true);
  });

  it("skins the biped's walk and run like three's own skinning over many frames, moved, turned and unevenly scaled", () => {
    const g = character();
    const naive = buildCharacter(sampleSkeleton(), BARE), direct = buildCharacter(sampleSkeleton(), BARE);
    const binding = bindThree(g, direct.mesh!, { precision: 'single' });
    expect(binding.precision).toBe('single');
    const skinLocalSingle = vi.spyOn(SamplingKernel.prototype, 'skinLocalSingle');
    let worst = 0, worstVertex = 0;
    for (let frame = 0; frame < 240; frame++) {
      for (const c of [naive, direct]) {
        c.character.position.x += 3.5;
        c.character.rotateY(0.05);
      }
      g.update(frame % 3 === 0 ? 1 / 45 : 1 / 60);
      binding.apply();
      direct.skeleton.update();
      poseNaively(naive, g.skeleton, g.evaluate());
      worst = Math.max(worst, matrixError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!));
      worstVertex = Math.max(worstVertex, vertexError(naive.mesh!, direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!));
      expect(direct.skeleton.boneMatrices!.every(Number.isFinite)).toBe(true);
    }
    expect(skinLocalSingle).toHaveBeenCalledTimes(239);
    // Measured: 2.1e-6 of a matrix's largest number, 6.4e-7 of a vertex's distance from the origin.
    expect(worst).toBeLessThan(4e-6);
    expect(worstVertex).toBeLessThan(1.3e-6);
    expect(worst).toBeGreaterThan(3e-7); // float32 throughout: more than the double path's one rounding
    // The bounds are tight enough for a bug: the hand 1 mm (0.1 units of the biped's centimetres) off.
    const hand = g.skeleton.indexOf('hand_l'), pose = g.evaluate();
    pose.translations[hand * 3] += 0.1;
    poseNaively(naive, g.skeleton, pose);
    pose.translations[hand * 3] -= 0.1;
    expect(matrixError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeGreaterThan(4e-5);
    expect(vertexError(naive.mesh!, direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeGreaterThan(1.3e-5);
  });

  it('gives the same bits for equal instances, and for the same pose drawn twice', () => {
    const g = character(), h = character();
    const one = buildCharacter(sampleSkeleton(), BARE), two = buildCharacter(sampleSkeleton(), BARE);
    const a = bindThree(g, one.mesh!, { precision: 'single' }), b = bindThree(h, two.mesh!, { precision: 'single' });
    for (let frame = 0; frame < 20; frame++) {
      for (const c of [one, two]) c.character.position.z -= 11;
      g.update(1 / 50);
      h.update(1 / 50);
      a.apply();
      b.apply();
      expect(unsigned(two.skeleton.boneMatrices!)).toEqual(unsigned(one.skeleton.boneMatrices!));
    }
    const before = unsigned(one.skeleton.boneMatrices!);
    a.apply();
    expect(unsigned(one.skeleton.boneMatrices!)).toEqual(before);
  });

  it('falls back to the double path where the kernel path cannot run, and still skins right', () => {
    const pose = character().evaluate();
    const expectLikeDouble = (binding: ThreeBinding, target: THREE.Skeleton, skeleton: Skeleton): void => {
      for (let frame = 0; frame < 2; frame++) binding.apply();
      const root = binding.root!;
      root.updateWorldMatrix(true, false);
      const shape = (binding as unknown as { shape: { slotOf: Int32Array; inverses: Float64Array } }).shape;
      const theirs = new Float32Array(target.boneMatrices!.length);
      skinFromLocal(skeleton.parents, pose, Float64Array.from(root.matrixWorld.elements), shape.slotOf, shape.inverses, theirs);
      expect(unsigned(target.boneMatrices!)).toEqual(unsigned(theirs));
    };
    // Five models of one skeleton: the kernel holds four single-precision shapes; the fifth takes the double one.
    const skeleton = sampleSkeleton();
    const models = Array.from({ length: 5 }, (_, c) => buildCharacter(skeleton, { ...BARE, position: [40 * c, 0, 0] }));
    const bindings = models.map((m) => bindThree(localSource(skeleton, pose), m.mesh!, { precision: 'single' }));
    expect(bindings.map((b) => b.precision)).toEqual(['single', 'single', 'single', 'single', 'double']);
    expectLikeDouble(bindings[4], models[4].skeleton, skeleton);
    // No WebAssembly SIMD (no kernel for the skeleton): JavaScript's double path.
    const bare = sampleSkeleton();
    vi.spyOn(SamplingKernel, 'forSkinning').mockReturnValue(null);
    const plain = buildCharacter(bare, BARE);
    const noKernel = bindThree(localSource(bare, pose), plain.mesh!, { precision: 'single' });
    expect(noKernel.precision).toBe('double');
    expectLikeDouble(noKernel, plain.skeleton, bare);
    vi.restoreAllMocks();
    // Off the shortest path (every bone's matrixWorld asked for), or a source with no local pose: double.
    const naive = buildCharacter(sampleSkeleton(), BARE);
    poseNaively(naive, skeleton, pose);
    const asked = buildCharacter(sampleSkeleton(), BARE);
    const all = bindThree(localSource(sampleSkeleton(), pose), asked.mesh!, { precision: 'single', boneWorldMatrices: true });
    expect(all.precision).toBe('double');
    for (const options of [{ writeLocal: true }, { boneWorldMatrices: ['head'] }]) { // a skeleton whose kernel holds no shape yet
      expect(bindThree(localSource(sampleSkeleton(), pose), buildCharacter(sampleSkeleton(), BARE).mesh!, { precision: 'single', ...options }).precision).toBe('double');
    }
    all.apply();
    expect(relativeError(asked.skeleton.boneMatrices!, naive.skeleton.boneMatrices!)).toBeLessThan(3e-7);
    const g = character();
    g.componentPose();
    expect(bindThree({ skeleton: g.skeleton, componentPose: () => g.componentPose() }, buildCharacter(sampleSkeleton(), BARE).mesh!, { precision: 'single' }).precision).toBe('double');
  });

  it('refuses a precision that is neither', () => {
    const c = buildCharacter(sampleSkeleton(), BARE);
    expectAnimGraphError(() => bindThree(character(), c.mesh!, { precision: 'half' as 'single' }), 'invalid-argument', /precision is 'half'/);
  });
});

describeWithData("bindThree's precision 'single' on CMU motion capture (subject 2's walk, 101 joints)", () => {
  it("skins every frame like three's own skinning, within the same bound", () => {
    const { skeleton, clip } = loadBvh(readShared('bvh/cmu/002_01.bvh'), 'walk');
    const take = new ClipBinding(clip, skeleton);
    const pose = new Pose(skeleton.boneCount);
    const options: CharacterOptions = { position: [300, 0, -120], rotation: [0, 1, 0, 2.2], scale: [0.8, 1.1, 0.9] };
    const naive = buildCharacter(skeleton, options), direct = buildCharacter(skeleton, options);
    const binding = bindThree(localSource(skeleton, pose), direct.mesh!, { precision: 'single' });
    expect(binding.precision).toBe('single');
    let worst = 0, worstVertex = 0;
    for (let f = 1; f < clip.frameCount; f++) {
      clipFramePose(pose, take, f);
      binding.apply();
      poseNaively(naive, skeleton, pose);
      worst = Math.max(worst, matrixError(direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!));
      worstVertex = Math.max(worstVertex, vertexError(naive.mesh!, direct.skeleton.boneMatrices!, naive.skeleton.boneMatrices!));
    }
    // Measured: 4.1e-6 of a matrix's largest number, 1.2e-6 of a vertex's distance from the origin
    // (chains of up to 13 bones, in centimetres, some 300 from the origin).
    expect(worst).toBeLessThan(8e-6);
    expect(worstVertex).toBeLessThan(2.5e-6);
    expect(worst).toBeGreaterThan(3e-7);
  });
});
