/**
 * Pose search (as Unreal's PoseSearch does it): a database of pose features sampled
 * from clips, and an exact nearest-frame search over it. By responsibility:
 * - features.ts: the feature schema (as written in an asset, resolved against a skeleton) and the
 *   extraction shared by database frames and queries; the features, normalisation and cost.
 * - schema.ts: the zod schema of the asset's `features` object.
 * - database.ts: PoseSearchDatabase (build, search, scan); query.ts: PoseSearchQuery and PoseSearchResult.
 * - kd-tree.ts: the tree, its lower bounds, and the cost model deciding which clips keep a subtree.
 * - hash.ts: what a database was built from, hashed; index-file.ts: reading and writing index files.
 * - node-data.ts: a PoseSearchBlend node's load-time work: checking its features, building or reading its database.
 * Nothing here touches files or node:*: callers hand in bytes.
 */
export {
  CLIP_TREE_MIN_LEAVES, CLIP_TREE_SAMPLES, DEFAULT_LEAF_SIZE, TREE_BOX_COST, TREE_FRAME_COST, buildKdTree, clipTreeCosts, type KdTree,
} from './kd-tree.ts';
export { PoseSearchDatabase, keepPayingClipTrees, type IndexedClip, type PoseSearchDatabaseData } from './database.ts';
export {
  DEFAULT_FEATURE_SPEC, DEFAULT_SAMPLE_RATE, FEATURE_CHANNELS, FEATURE_VERSION, PoseFeatureExtractor, PoseFeatureSchema, featureSpecProblems,
  type CanonicalFeatureSpec, type FeatureChannel, type FeatureChannelSpec, type FeatureSpecProblem, type PoseFeatureSpec,
} from './features.ts';
export { poseSearchHash, type PoseSearchHash } from './hash.ts';
export { INDEX_FORMAT, PoseIndexError, deserializePoseSearchDatabase, serializePoseSearchDatabase } from './index-file.ts';
export { CLIP_TREE_FRACTION, PoseSearchQuery, PoseSearchResult, type SearchMode } from './query.ts';
export { poseFeaturesSchema } from './schema.ts';
export { checkFeatures, preparePoseSearch, type PoseSearchShared } from './node-data.ts';
