/**
 * What the viewer draws for a character: the skinned glTF mesh when the skeleton comes from a glTF
 * (driven by animgraph/three's bindThree), else bones as lines and joints as spheres.
 */
import * as THREE from 'three';
import type { ComponentPose } from '../runtime/core/component-pose.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';
import { bindThree, type ThreeBinding, type ThreePoseSource } from '../three/index.ts';

export interface Figure {
  /** Added under the character's root, whose transform is the graph's component space in the world. */
  readonly object: THREE.Object3D;
  /** Draws the source's current component pose. */
  apply(): void;
  dispose(): void;
}

/** Bounds of a component pose's joints: [min x, y, z, max x, y, z]. */
export function poseBounds(pose: ComponentPose, boneCount: number): Float64Array {
  const b = Float64Array.of(Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity);
  const t = pose.translations;
  for (let i = 0; i < boneCount; i++) {
    for (let k = 0; k < 3; k++) {
      const v = t[i * 3 + k];
      if (!Number.isFinite(v)) continue;
      if (v < b[k]) b[k] = v;
      if (v > b[k + 3]) b[k + 3] = v;
    }
  }
  for (let k = 0; k < 3; k++) if (b[k] > b[k + 3]) { b[k] = 0; b[k + 3] = 0; }
  return b;
}

/** Bones as line segments from each bone to its parent, joints as instanced spheres. */
export class StickFigure implements Figure {
  readonly object = new THREE.Group();
  private readonly lines: THREE.LineSegments;
  private readonly joints: THREE.InstancedMesh;
  private readonly linePositions: Float32Array;
  private readonly pairs: Int32Array;
  private readonly matrix = new THREE.Matrix4();

  constructor(private readonly source: ThreePoseSource, jointRadius: number) {
    const skeleton: Skeleton = source.skeleton;
    const pairs: number[] = [];
    for (let i = 0; i < skeleton.boneCount; i++) if (skeleton.parents[i] >= 0) pairs.push(skeleton.parents[i], i);
    this.pairs = Int32Array.from(pairs);
    this.linePositions = new Float32Array(pairs.length * 3);
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(this.linePositions, 3).setUsage(THREE.DynamicDrawUsage));
    this.lines = new THREE.LineSegments(geometry, new THREE.LineBasicMaterial({ color: 0xf0c674 }));
    this.lines.frustumCulled = false;
    this.joints = new THREE.InstancedMesh(
      new THREE.SphereGeometry(jointRadius, 12, 8), new THREE.MeshStandardMaterial({ color: 0x5fa8e8, roughness: 0.5 }), skeleton.boneCount);
    this.joints.frustumCulled = false;
    this.object.add(this.lines, this.joints);
  }

  apply(): void {
    const t = this.source.componentPose().translations;
    const p = this.linePositions, pairs = this.pairs;
    for (let k = 0; k < pairs.length; k++) {
      const bone = pairs[k];
      p[k * 3] = t[bone * 3];
      p[k * 3 + 1] = t[bone * 3 + 1];
      p[k * 3 + 2] = t[bone * 3 + 2];
    }
    this.lines.geometry.attributes.position.needsUpdate = true;
    for (let i = 0; i < this.joints.count; i++) {
      this.joints.setMatrixAt(i, this.matrix.makeTranslation(t[i * 3], t[i * 3 + 1], t[i * 3 + 2]));
    }
    this.joints.instanceMatrix.needsUpdate = true;
  }

  dispose(): void {
    this.lines.geometry.dispose();
    (this.lines.material as THREE.Material).dispose();
    this.joints.geometry.dispose();
    (this.joints.material as THREE.Material).dispose();
    this.joints.dispose();
  }
}

const IDENTITY = new THREE.Matrix4();

/** A glTF scene whose skinned meshes the graph drives. */
export class SkinnedFigure implements Figure {
  readonly object: THREE.Object3D;
  private readonly binding: ThreeBinding;

  constructor(source: ThreePoseSource, scene: THREE.Object3D) {
    this.object = scene;
    scene.traverse((o) => { o.frustumCulled = false; });
    // The loader bakes the armature's ancestors (Blender's Z-up turn and scale) into the root
    // bone, so the graph's component space is the glTF scene's: the scene is the root, not the
    // armature node. Bone world matrices too: the robot hangs rigid meshes (hands, head) under bones.
    this.binding = bindThree(source, scene, { root: scene, boneWorldMatrices: true });
  }

  apply(): void {
    this.binding.apply();
  }

  get unusedGraphBones(): readonly string[] {
    return this.binding.unusedGraphBones;
  }

  /** The world matrix of the binding's component space (the armature's parent). */
  rootMatrix(): THREE.Matrix4 {
    const root = this.binding.root;
    if (!root) return IDENTITY;
    root.updateWorldMatrix(true, false);
    return root.matrixWorld;
  }

  dispose(): void {
    this.binding.release();
    this.object.traverse((o) => {
      const mesh = o as THREE.Mesh;
      if (!mesh.isMesh) return;
      mesh.geometry.dispose();
      for (const m of Array.isArray(mesh.material) ? mesh.material : [mesh.material]) m.dispose();
    });
  }
}
