import * as z from 'zod';
import { gltfRig, type GltfRig } from '../../runtime/import/gltf.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { MAX_BONES, referenceRangeProblems, Skeleton, SkeletonError, tooManyBones, type BoneDefinition, type MirrorSettings } from '../../runtime/core/skeleton.ts';
import { quoted } from '../../runtime/core/names.ts';
import { helperBoneSchema, unitQuaternionSchema, type GraphEnvelope } from '../schema.ts';
import { guardGltf, reportFileError, reportGltfError, type FileCache } from './files.ts';
import { duplicateKeyProblems } from './json-text.ts';
import { jsonPath, type Problems } from './problems.ts';
import { lazy } from '../../runtime/core/lazy.ts';

function loadGltfSkeleton(source: { gltf: string; skin?: number | string }, files: FileCache, problems: Problems, at: readonly PropertyKey[]): GltfRig | undefined {
  const doc = files.loadGltf(source.gltf);
  // What is wrong with the file as a whole (too many nodes) is reported at the file, not the skin.
  if (doc instanceof Error) {
    reportGltfError(doc, [...at, 'gltf'], [...at, 'gltf'], problems);
    return undefined;
  }
  const rig = guardGltf(source.gltf, () => gltfRig(doc, source.skin ?? 0));
  if (rig instanceof Error) {
    reportGltfError(rig, [...at, 'gltf'], [...at, 'skin'], problems);
    return undefined;
  }
  return rig;
}

const jsonSkeletonSchema = lazy(() => z.object({
  bones: z.array(z.object({
    name: z.string().min(1),
    parent: z.string().nullable().optional(),
    translation: z.tuple([z.number(), z.number(), z.number()]).optional(),
    // As helper bones': a zero or scaled quaternion reached the poses unchanged.
    rotation: unitQuaternionSchema.optional(),
    scale: z.tuple([z.number(), z.number(), z.number()]).optional(),
  }).strict()).min(1),
}).strict());

/**
 * The skeleton a source names (the graph's, or a retargeted clip's source skeleton), its problems
 * reported below `at`. For a glTF skin, also its rig (what clips from the same file bind by).
 */
export function loadSkeletonSource(
  source: GraphEnvelope['skeleton'], files: FileCache, problems: Problems, at: readonly PropertyKey[],
): { skeleton: Skeleton; rig?: GltfRig } | undefined {
  if (typeof source === 'object' && 'gltf' in source) {
    const rig = loadGltfSkeleton(source, files, problems, at);
    return rig && { skeleton: rig.skeleton, rig };
  }
  const skeleton = loadOtherSkeleton(source, files, problems, at);
  return skeleton && { skeleton };
}

export function loadSkeleton(source: GraphEnvelope['skeleton'], files: FileCache, problems: Problems): Skeleton | undefined {
  const loaded = loadSkeletonSource(source, files, problems, ['skeleton']);
  if (loaded?.rig && typeof source === 'object' && 'gltf' in source) files.skeletonRig = { file: files.key(source.gltf), rig: loaded.rig };
  return loaded?.skeleton;
}

function loadOtherSkeleton(source: Exclude<GraphEnvelope['skeleton'], { gltf: string }>, files: FileCache, problems: Problems, at: readonly PropertyKey[]): Skeleton | undefined {
  if (source === 'builtin:biped') return sampleSkeleton();
  if ('bvh' in source) {
    const loaded = files.loadBvh(source.bvh);
    if (loaded instanceof Error) {
      reportFileError(loaded, [...at, 'bvh'], problems);
      return undefined;
    }
    return loaded.skeleton;
  }
  const where = [...at, 'file'];
  let json: unknown, text: string;
  try {
    text = files.readText(source.file);
    json = JSON.parse(text);
  } catch (e) {
    problems.add(where, 'file', `cannot read skeleton '${source.file}': ${(e as Error).message}`);
    return undefined;
  }
  // A bone's key given twice ({"name": "a", ..., "name": "b"}) kept the last silently, as in a graph file.
  const repeated = duplicateKeyProblems(text);
  for (const p of repeated) problems.add(where, 'duplicate-key', `${p.path} in ${source.file}: ${p.message}`);
  const bones = typeof json === 'object' && json !== null ? (json as { bones?: unknown }).bones : undefined;
  if (Array.isArray(bones) && bones.length > MAX_BONES) {
    problems.add(where, 'too-large', `${source.file}: ${tooManyBones(bones.length)}`);
    return undefined;
  }
  // Checked on, so the file's other problems come with its repeats; a file with repeats gives no skeleton.
  const parsed = jsonSkeletonSchema.safeParse(json);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.add(where, 'skeleton', `${jsonPath(issue.path)} in ${source.file}: ${issue.message}`);
    return undefined;
  }
  try {
    const skeleton = Skeleton.fromDefinitions(parsed.data.bones);
    return repeated.length > 0 ? undefined : skeleton;
  } catch (e) {
    if (e instanceof SkeletonError) for (const p of e.problems) problems.add(where, 'skeleton', `${source.file}: ${p.message}`);
    else throw e;
    return undefined;
  }
}

/**
 * The skeleton with the asset's `helperBones` appended (malformed fields are reported by the
 * envelope check; a helper with a name and a parent still takes its place). Problems name
 * `$.helperBones[i]` and the field; checking then goes on with the helper bones that could be
 * added, so the nodes that use them are still checked.
 */
export function addHelperBones(skeleton: Skeleton, raw: unknown, problems: Problems): Skeleton {
  if (!Array.isArray(raw) || raw.length === 0) return skeleton;
  if (skeleton.boneCount + raw.length > MAX_BONES) {
    problems.add(['helperBones'], 'too-large', `the skeleton's ${skeleton.boneCount.toLocaleString('en-US')} bones and ${raw.length.toLocaleString('en-US')} helper bones make ${tooManyBones(skeleton.boneCount + raw.length)}`);
    return skeleton;
  }
  const indices: number[] = [];
  const bones: BoneDefinition[] = [];
  raw.forEach((item, i) => {
    const parsed = helperBoneSchema.safeParse(item);
    // A helper with a malformed offset still takes its place in the hierarchy (its children name it).
    const { name, parent } = (typeof item === 'object' && item !== null ? item : {}) as { name?: unknown; parent?: unknown };
    if (parsed.success || (typeof name === 'string' && typeof parent === 'string')) {
      indices.push(i);
      bones.push(parsed.success ? parsed.data : { name: name as string, parent: parent as string });
    }
  });
  try {
    return skeleton.withExtraBones(bones);
  } catch (e) {
    if (!(e instanceof SkeletonError)) throw e;
    for (const p of e.problems) problems.add(['helperBones', indices[p.bone], ...(p.field ? [p.field] : [])], 'skeleton', p.message);
  }
  let partial = skeleton;
  for (const bone of bones) {
    try {
      partial = partial.withExtraBones([bone]);
    } catch {
      // Reported above.
    }
  }
  return partial;
}

/**
 * Reports at `$.skeleton` each bone whose reference translation or scale is beyond
 * MAX_KEY_MAGNITUDE. (Helper bones' offsets are bounded tighter by the asset schema.)
 */
export function checkReferenceRange(skeleton: Skeleton, problems: Problems): void {
  for (const message of referenceRangeProblems(skeleton)) problems.add(['skeleton'], 'value-range', message);
}

/**
 * The skeleton with the asset's `mirror` block (Skeleton.mirror). Each pair must name two bones of
 * the skeleton, neither in another pair (reported at `$.mirror.pairs[i]`); the good pairs are kept.
 */
export function withMirrorSettings(skeleton: Skeleton, mirror: MirrorSettings, problems: Problems): Skeleton {
  const taken = new Set<string>();
  const pairs = (mirror.pairs ?? []).filter((pair, i) => {
    let ok = true;
    pair.forEach((bone, k) => {
      if (skeleton.indexOf(bone) < 0) {
        problems.add(['mirror', 'pairs', i, k], 'unknown-bone', `the skeleton has no bone ${quoted(bone)}`);
        ok = false;
      } else if (taken.has(bone)) {
        problems.add(['mirror', 'pairs', i, k], 'schema', `bone ${quoted(bone)} is in two mirror pairs`);
        ok = false;
      }
    });
    if (ok) for (const bone of pair) taken.add(bone);
    return ok;
  });
  return skeleton.withMirror({ ...mirror, pairs });
}
