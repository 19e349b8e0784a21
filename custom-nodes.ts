/**
 * `animgraph/nodes`: what a custom node is written with. Everything the built-in nodes import from
 * the runtime is exported here (tests/custom-nodes.test.ts keeps it so), so a node of your own can
 * do what a built-in one does: the node contract and `defineNodeType`, the pose and clip
 * operations, and the jobs the built-in nodes share. Browser-safe, like `animgraph`. The built-in
 * node types themselves are `builtInNodeTypes` (from `animgraph`); docs/api.md, "Custom nodes",
 * shows a node written against this entry.
 */
// The node contract: a node, its links and contexts, its type and properties.
export { AnimNode, LocalPoseNode, ComponentPoseNode, PoseLink, ComponentPoseLink, UpdateContext, InitializeContext, CacheBonesContext, NO_LINKS, ZERO_WEIGHT, readFlag, readScalar, readScalarInto, readVec3 } from './runtime/node/node.ts';
export type { DebugNode, InertializationRequests, Link, NodeCheckContext, NodeType, PropertySpec, InputSpec, NodeBuild, ResolvedProperties, ScalarProperty, SubGraphSource, Vec3Property } from './runtime/node/node.ts';
export { defineNodeType, sameNumbers, sharedWhenSame, checkNodeType, nodeTypeProblems, NodeTypeError, NodeBuildError, NodePrepareError, NODE_PROBLEM_CODES, MAX_NODE_NUMBERS } from './runtime/node/node-type.ts';
export type {
  TypedNodeType, TypedNodeBuild, TypedProperties, TypedInputs, TypedPrepareContext, PrepareProperties, NamedClip, NodeTypeProblem, NodeProblemCode,
  NodePrepareContext,
} from './runtime/node/node-type.ts';
export { SkeletalControlNode } from './runtime/node/skeletal-control.ts';
export { BoneTransforms } from './runtime/node/skeletal-control.ts';
export type { MontagePlayArgs, SlotPlayArgs, SlotPlayer } from './runtime/node/slot-player.ts';
export type { Montage } from './runtime/core/montage.ts';
export type { PoseSnapshotReader } from './runtime/node/pose-snapshot.ts';

// Errors a node throws at build time.
export { AnimGraphError, ANIM_GRAPH_ERROR_CODES } from './runtime/core/errors.ts';
export type { AnimGraphErrorCode } from './runtime/core/errors.ts';

// Poses and clips: data and the operations on them (each runs in the WebAssembly kernel where the poses live there).
export { Pose, poseAccumulate, poseBlendTwo, poseCopy, poseNormalizeRotations, poseScaleInto } from './runtime/core/pose.ts';
export { poseLayerBones, poseLerpBones } from './runtime/core/pose-bones.ts';
export { ComponentPose } from './runtime/core/component-pose.ts';
export type { Skeleton } from './runtime/core/skeleton.ts';
export { Clip, ClipBinding } from './runtime/core/clip.ts';
export { AdditiveReferencePose, additiveReferenceSchema, applyAdditive, clipFramePose, makeAdditive, referenceFrameIndex } from './runtime/core/additive.ts';
export type { AdditiveReference } from './runtime/core/additive.ts';
export { BLEND_CURVES, BlendCurve, LINEAR_BLEND, blendCurveSchema, compileBlendCurve, easeAt, namedBlendCurve, reentryShareAt } from './runtime/core/blend-curve.ts';
export type { BlendCurveJson, BlendCurveName } from './runtime/core/blend-curve.ts';
export { MASK_PROFILE_MODES, TRANSITION_PROFILE_MODES } from './runtime/core/blend-profile.ts';
export type { BlendProfile } from './runtime/core/blend-profile.ts';
export { boneMaskProblems, boneMaskWeights, boneWeightsSchema, branchFiltersSchema, maskedBones } from './runtime/core/bone-mask.ts';
export type { BoneMaskSpec } from './runtime/core/bone-mask.ts';
export {
  clamp, quatConjugateMultiply, quatFromEulerDegrees, quatMultiply, quatNormalize, quatRotateVec3, quatScaleAngle, quatSwingTwist, transformCompose, transformRelative,
} from './runtime/core/math.ts';
export { mirrorPose, mirrorTable, skeletonMirrorTable, MirrorTable } from './runtime/core/mirror.ts';
export { nameList, quoted } from './runtime/core/names.ts';
// A zod schema built on first use, not at import (a node type's property schemas are read when an asset loads).
export { lazy } from './runtime/core/lazy.ts';
export { ScratchNumbers } from './runtime/core/scratch.ts';

// Jobs the built-in nodes share: playback, crossfades, inertialization, sync groups, blend spaces, IK, stride warping, state machines, pose search.
export { AimOffsetApplication, checkAimOffsetSamples } from './runtime/jobs/aim-offset.ts';
export { BlendSpaceNode, reportSampleRange } from './runtime/jobs/blend-space.ts';
export { checkBlendCurve, prepareBlendCurve } from './runtime/jobs/blend-curve-property.ts';
export { CLIP_LOOPED, CLOCK_NUMBERS, ClipPlayback, usePlaybackNumbers } from './runtime/jobs/clip-playback.ts';
export { MONTAGE_AT_END, MONTAGE_REPLACED, MontagePlay } from './runtime/jobs/montage-play.ts';
export { SLOT_VOICES, SlotTimeline, SlotVoice } from './runtime/jobs/slot-timeline.ts';
export { Crossfade, evaluatePerBoneInputs, evaluateWeightedInputs, restrictBoneWeights } from './runtime/jobs/crossfade.ts';
export { toUnitSquare, triangulate, triangulationProblems } from './runtime/jobs/delaunay.ts';
export { InertialRequest, InertialTransition, TRANSITION_INTERRUPTED, TRANSITION_STARTED } from './runtime/jobs/inertial-transition.ts';
export { FEATURE_CHANNELS, PoseFeatureExtractor, PoseSearchDatabase, PoseSearchQuery, PoseSearchResult, checkFeatures, poseFeaturesSchema, preparePoseSearch } from './runtime/jobs/pose-search/index.ts';
export {
  DEFAULT_MAX_TRANSITIONS_PER_FRAME, DEFAULT_TRANSITION_DURATION, MAX_STATES, MAX_TRANSITIONS, compileStateMachine, machineSizeProblem,
} from './runtime/jobs/state-machine-table.ts';
export { MAX_ACTIVE_TRANSITIONS, TransitionStack } from './runtime/jobs/state-machine-transitions.ts';
export type { State, StateMachineTable, Transition } from './runtime/jobs/state-machine-table.ts';
export { StrideWarpingNumbers, settingBindings } from './runtime/jobs/stride-warping-numbers.ts';
export type { SettingBindings, SettingName } from './runtime/jobs/stride-warping-numbers.ts';
export { readStrideLegs, writeStrideLegs } from './runtime/jobs/stride-warping-pose.ts';
export { StrideWarpingState } from './runtime/jobs/stride-warping-state.ts';
export { StrideWarpingJob, normalize3 } from './runtime/jobs/stride-warping.ts';
export { followSyncPosition, readSyncPosition, syncGroupOf } from './runtime/jobs/sync-group.ts';
export type { SyncGroup, SyncGroupMember, SyncPosition } from './runtime/jobs/sync-group.ts';
export { MAX_RULE_DEPTH, checkRule, ruleDepth, testRule } from './runtime/jobs/transition-rules.ts';
export type { RuleJson } from './runtime/jobs/transition-rules.ts';
export { IK_ALLOW_STRETCH, IK_HINT, IK_KEEP_END_ROTATION, IK_MAX_STRETCH_SCALE, IK_START_STRETCH_RATIO, TWO_BONE_IK_OPTIONS, solveTwoBoneIK } from './runtime/jobs/two-bone-ik.ts';
export {
  CHAIN_IK_OPTIONS, CHAIN_ITERATIONS, CHAIN_LIMIT_ROTATION, CHAIN_MAX_ITERATIONS, CHAIN_PRECISION, CHAIN_REACH_ERROR, CHAIN_START_FROM_TAIL, CHAIN_TARGET,
  chainIKLayout, chainIKWorkLength, solveCCDIK, solveFabrik,
} from './runtime/jobs/chain-ik.ts';
export {
  LOOK_ANGLE, LOOK_AT_INTERPOLATIONS, LOOK_AT_OPTIONS, LOOK_AXIS, LOOK_CLAMP, LOOK_ORIGIN, LOOK_TARGET, LOOK_UP, LOOK_USE_UP, easeInPlace, solveLookAt,
} from './runtime/jobs/look-at.ts';
export type { LookAtInterpolation } from './runtime/jobs/look-at.ts';

// The built-in nodes, to extend or to read as examples.
export { builtInNodeTypes } from './nodes/index.ts';
export { PoseSearchBlend, PoseSearchBlendType } from './nodes/PoseSearchBlend.ts';
