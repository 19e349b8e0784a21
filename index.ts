/**
 * animgraph's public API, browser-safe: nothing here reads files or starts threads (that is
 * `animgraph/node`: loadGraphFile, fileResolver, Crowd), and what a custom node is written with is
 * `animgraph/nodes`. Typical use:
 *
 *   const graph = await loadGraph(asset, { resolve: (path) => fetch(new URL(path, base)).then((r) => r.arrayBuffer()) });
 *   const character = graph.createInstance();
 *   character.setParameter('gait', 2);
 *   character.update(1 / 60);
 *   const pose = character.evaluate();
 */
export { AnimGraphError, ANIM_GRAPH_ERROR_CODES } from './runtime/core/errors.ts';
export type { AnimGraphErrorCode } from './runtime/core/errors.ts';
export { loadGraph, checkGraph, loadGraphAsset, checkGraphAsset, GraphLoadError, NodeRegistry, jsonPath, duplicateKeyProblems } from './graphs/loader.ts';
export type { RegisterOptions } from './graphs/loader/registry.ts';
// The loader's limits (docs/reliability.md, "Assets and limits").
export { MAX_ASSET_DEPTH, MAX_ASSET_VALUES, MAX_GRAPH_NODES, MAX_PROBLEMS, shortJsonPath } from './graphs/loader/problems.ts';
export { MAX_GLTF_NODES } from './runtime/import/gltf-container.ts';
export { MAX_STATES, MAX_TRANSITIONS } from './runtime/jobs/state-machine-table.ts';
export { INT_PARAMETER_MAX, INT_PARAMETER_MIN } from './runtime/node/parameters.ts';
export type {
  GraphProblem, ProblemCode, LoadOptions, SyncLoadOptions, AsyncLoadOptions, CheckResult, FileResolver, SyncFileResolver, ResolvedFile,
} from './graphs/loader.ts';
export { GRAPH_FORMAT, graphEnvelopeSchema } from './graphs/schema.ts';
export { AnimGraph } from './runtime/graph/graph.ts';
export type { CompiledGraph } from './runtime/graph/compiled-graph.ts';
export { AnimGraphInstance } from './runtime/graph/instance.ts';
export { MAX_DELTA_TIME } from './runtime/graph/instance-frame.ts';
export type { InstanceOutput } from './runtime/graph/instance-build.ts';
export { MAX_GRAPH_DEPTH } from './runtime/graph/definition.ts';
export type { AnimGraphDefinition, CompiledNode, PropertyValue } from './runtime/graph/definition.ts';
export type { SlotPlayArgs, SlotPlayOptions, SlotPlayer } from './runtime/graph/slot-play.ts';
export { InstanceBatch, characterOutput } from './runtime/graph/instance-batch.ts';
export { samplingKernelAvailable, type KernelPrecision } from './runtime/kernel/sampling-kernel.ts';
export { MAX_UPDATE_RATE } from './runtime/graph/update-rate.ts';
export type { UpdateRateOptions } from './runtime/graph/update-rate.ts';
export type { BatchPoseArrays, InstanceBatchOptions } from './runtime/graph/instance-batch.ts';
export { runGraph, GraphRunner, formatDebugTree, MAX_KEPT_ROWS, TimelineError } from './host/runner.ts';
export type { RunOptions, RunResult, FrameResult, BoneRow, ParameterChange } from './host/runner.ts';
export { Skeleton, SkeletonError, MAX_BONES } from './runtime/core/skeleton.ts';
export type { BoneDefinition, SkeletonSkin } from './runtime/core/skeleton.ts';
export { Pose, PosePool, poseCopy, poseBlend, poseBlendTwo, poseScaleInto, poseAccumulate, poseNormalizeRotations } from './runtime/core/pose.ts';
export { ComponentPose } from './runtime/core/component-pose.ts';
export { Clip, ClipBinding } from './runtime/core/clip.ts';
export type { ClipRetarget } from './runtime/core/clip.ts';
export { ClipCursor, sampleClip, sampleClipAt, clipLocalTime } from './runtime/core/sampling.ts';
export { ClipCurve, ClipNotifyTrack, clipCurves } from './runtime/core/clip-events.ts';
export type { ClipNotifyDefinition } from './runtime/core/clip-events.ts';
export { parseBvh, loadBvh, bvhSkeleton, bvhClip, BvhError } from './runtime/import/bvh.ts';
export { readGltf, gltfRig, gltfSkeleton, gltfClip, gltfSkinIndex, gltfAnimationIndex, GltfDocument, GltfError } from './runtime/import/gltf.ts';
export type { GltfReadOptions, GltfRig, GltfClipOptions, GltfErrorCode } from './runtime/import/gltf.ts';
export { retargetClip, retargetFootSlide, RetargetPlan } from './runtime/jobs/retarget.ts';
export type { FootSlide, RetargetInfo, RetargetOptions } from './runtime/jobs/retarget.ts';
export { autoBoneMap, boneRole, boneRoles, boneSide, mirroredName, mirrorPartners } from './runtime/core/bone-names.ts';
export { mirrorClip, mirrorPose, mirrorTable, skeletonMirrorTable, MirrorTable } from './runtime/core/mirror.ts';
export type { MirrorSettings } from './runtime/core/skeleton.ts';
export { Parameters } from './runtime/node/parameters.ts';
export type { ParameterType, ParameterValue, ParameterDefinition } from './runtime/node/parameters.ts';
export { AnimGraphEventEmitter } from './runtime/node/events.ts';
export type { AnimGraphEvents } from './runtime/node/events.ts';
// Writing a node of your own: defineNodeType, the node base classes, the pose operations and the
// jobs the built-in nodes share are in `animgraph/nodes` (custom-nodes.ts). Its errors are here.
export { NodeTypeError, NodeBuildError, NodePrepareError, NODE_PROBLEM_CODES } from './runtime/node/node-type.ts';
export type { NodeType, DebugNode } from './runtime/node/node.ts';
export { sampleSkeleton, sampleClip as sampleDataClip } from './runtime/import/sample-data.ts';
export { builtInNodeTypes } from './nodes/index.ts';
export {
  PoseFeatureSchema, PoseFeatureExtractor, PoseSearchDatabase, PoseSearchQuery, PoseSearchResult, PoseIndexError,
  serializePoseSearchDatabase, deserializePoseSearchDatabase, poseSearchHash, featureSpecProblems,
} from './runtime/jobs/pose-search/index.ts';
export type { PoseFeatureSpec, FeatureChannelSpec, IndexedClip, SearchMode } from './runtime/jobs/pose-search/index.ts';
export { graphJsonSchema } from './editor-meta/schema.ts';
export { editorMeta } from './editor-meta/index.ts';
export type { NodeEditorMeta, NodeCategory, DocEntry, PropertyDoc } from './editor-meta/types.ts';
