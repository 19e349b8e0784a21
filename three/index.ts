/**
 * animgraph/three: drives three.js skinned meshes from a graph instance (binding.ts: bindThree,
 * ThreeBinding), and makes graph skeletons and clips from three's (convert.ts: skeletonFromThree,
 * clipFromThree).
 *
 *   const binding = bindThree(character, gltf.scene);   // or a SkinnedMesh, a Skeleton, a list of bones
 *   // each frame, after moving the character's root Object3D:
 *   character.update(dt);
 *   binding.apply();
 *   renderer.render(scene, camera);
 *
 * Only `three`'s types are imported: this module does not load three itself.
 */
export { bindThree, ThreeBinding, type ThreeBindingOptions, type ThreePoseSource } from './binding.ts';
export { clipFromThree, skeletonFromThree } from './convert.ts';
export type { ThreeBindTarget } from './target.ts';
