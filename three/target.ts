/** What bindThree and skeletonFromThree take: three.js bones, as a mesh, a Skeleton, a scene or a list. */
import type { Object3D, Skeleton as ThreeSkeleton, SkinnedMesh } from 'three';
import { AnimGraphError } from '../runtime/core/errors.ts';

/**
 * The bones to drive: a SkinnedMesh (its skeleton), a Skeleton, any other Object3D (every
 * SkinnedMesh under it: a glTF's scene, whose meshes may hold several Skeleton objects over the
 * same bones), or a list of bones (no Skeleton: their matrixWorld is written).
 */
export type ThreeBindTarget = SkinnedMesh | ThreeSkeleton | Object3D | readonly Object3D[];

/** The Skeletons a target holds and their bones (each bone object once, in the order met). */
export function targetParts(target: ThreeBindTarget): { skeletons: ThreeSkeleton[]; bones: Object3D[] } {
  let skeletons: ThreeSkeleton[];
  let listed: readonly (Object3D | undefined | null)[];
  if (Array.isArray(target)) {
    skeletons = [];
    listed = target as readonly Object3D[];
  } else {
    const t = target as Partial<SkinnedMesh> & Partial<ThreeSkeleton> & Partial<Object3D>;
    if (t.isSkinnedMesh === true) {
      if (!t.skeleton) throw new AnimGraphError('invalid-argument', `bindThree: SkinnedMesh '${t.name}' has no skeleton (bind it first)`);
      skeletons = [t.skeleton];
    } else if (Array.isArray(t.bones) && Array.isArray(t.boneInverses)) {
      skeletons = [t as ThreeSkeleton];
    } else if (t.isObject3D === true) {
      const found = new Set<ThreeSkeleton>();
      (t as Object3D).traverse((o) => {
        const mesh = o as SkinnedMesh;
        if (mesh.isSkinnedMesh && mesh.skeleton) found.add(mesh.skeleton);
      });
      if (found.size === 0) throw new AnimGraphError('invalid-argument', `bindThree: no SkinnedMesh with a skeleton under '${t.name}'`);
      skeletons = [...found];
    } else {
      throw new AnimGraphError('invalid-argument', 'bindThree: the target must be a SkinnedMesh, a Skeleton, an Object3D with skinned meshes or a list of bones');
    }
    listed = skeletons.flatMap((s) => s.bones as (Object3D | undefined)[]);
  }
  const bones = [...new Set(listed.filter((b): b is Object3D => b !== undefined && b !== null))];
  return { skeletons, bones };
}
