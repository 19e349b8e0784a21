/**
 * animgraph's public API. Typical use:
 *
 *   const graph = loadGraphFile('graphs/examples/sample-locomotion.json');
 *   const character = graph.createInstance();
 *   character.setParameter('gait', 2);
 *   character.update(1 / 60);
 *   const pose = character.evaluate();
 */
export { loadGraphFile, loadGraphAsset, checkGraphAsset, GraphLoadError, NodeRegistry, jsonPath } from './graphs/loader.ts';
export type { GraphProblem, ProblemCode, LoadOptions, CheckResult } from './graphs/loader.ts';
export { GRAPH_FORMAT, graphEnvelopeSchema } from './graphs/schema.ts';
export { AnimGraph, AnimGraphInstance } from './runtime/graph.ts';
export type { AnimGraphDefinition, CompiledNode, PropertyValue } from './runtime/graph.ts';
export { runGraph, GraphRunner, formatDebugTree } from './runtime/runner.ts';
export { Crowd } from './runtime/crowd.ts';
export type { CrowdOptions, CrowdGraphSource } from './runtime/crowd.ts';
export type { RunOptions, RunResult, FrameResult, BoneRow, ParameterChange } from './runtime/runner.ts';
export { Skeleton, SkeletonError } from './runtime/skeleton.ts';
export type { BoneDefinition, SkeletonSkin } from './runtime/skeleton.ts';
export { Pose, PosePool, poseCopy, poseBlend, poseBlendTwo, poseScaleInto, poseAccumulate, poseNormalizeRotations } from './runtime/pose.ts';
export { ComponentPose } from './runtime/component-pose.ts';
export { Clip, ClipBinding, ClipCursor, sampleClip, sampleClipAt, clipLocalTime } from './runtime/clip.ts';
export { parseBvh, loadBvh, bvhSkeleton, bvhClip, BvhError } from './runtime/bvh.ts';
export { readGltf, gltfRig, gltfSkeleton, gltfClip, gltfSkinIndex, gltfAnimationIndex, GltfDocument, GltfError } from './runtime/gltf.ts';
export type { GltfReadOptions, GltfRig, GltfClipOptions, GltfErrorCode } from './runtime/gltf.ts';
export { Parameters } from './runtime/parameters.ts';
export type { ParameterType, ParameterValue, ParameterDefinition } from './runtime/parameters.ts';
export { AnimGraphEventEmitter } from './runtime/events.ts';
export type { AnimGraphEvents } from './runtime/events.ts';
export {
  AnimNode, LocalPoseNode, ComponentPoseNode, PoseLink, ComponentPoseLink, UpdateContext, InitializeContext,
  CacheBonesContext, ZERO_WEIGHT, NO_LINKS, readScalar, readVec3,
} from './runtime/node.ts';
export type { NodeType, PropertySpec, InputSpec, DebugNode, NodeBuild, ResolvedProperties, ScalarProperty, Vec3Property } from './runtime/node.ts';
export { SkeletalControlNode, BoneTransforms } from './runtime/skeletal-control.ts';
export { sampleSkeleton, sampleClip as sampleDataClip } from './runtime/sample-data.ts';
export { builtInNodeTypes } from './nodes/index.ts';
export {
  PoseFeatureSchema, PoseFeatureExtractor, PoseSearchDatabase, PoseSearchQuery, PoseSearchResult, PoseIndexError,
  serializePoseSearchDatabase, deserializePoseSearchDatabase, poseSearchHash, featureSpecProblems,
} from './runtime/pose-search/index.ts';
export type { PoseFeatureSpec, FeatureChannelSpec, IndexedClip, SearchMode } from './runtime/pose-search/index.ts';
export { PoseSearchBlend, PoseSearchBlendType } from './nodes/PoseSearchBlend.ts';
