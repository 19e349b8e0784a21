import type { Skeleton } from '../../core/skeleton.ts';
import { AnimGraphError } from '../../core/errors.ts';
import { quoted } from '../../core/names.ts';
import type { NamedClip, NodeCheckContext, NodePrepareContext } from '../../node/node-type.ts';
import { PoseSearchDatabase, type IndexedClip } from './database.ts';
import { DEFAULT_FEATURE_SPEC, FEATURE_CHANNELS, featureSpecProblems, PoseFeatureSchema, type PoseFeatureSpec } from './features.ts';
import { deserializePoseSearchDatabase, PoseIndexError } from './index-file.ts';
import { poseFeaturesSchema } from './schema.ts';

/*
 * What a PoseSearchBlend node (nodes/PoseSearchBlend.ts) does with its asset once, at load: check its
 * `features`, and build its database from its clips or read it from its index file.
 */

/** What PoseSearchBlend's prepare builds once per graph and node, shared by every instance. */
export interface PoseSearchShared {
  database: PoseSearchDatabase;
  /** True when the database was read from the node's index file. */
  fromIndexFile: boolean;
}

/**
 * Reports the problems of a node's `features` as written (`raw`), at paths below its properties. A
 * malformed `features` (its schema problems already reported) is still checked part by part, so one
 * load reports an unknown bone next to a negative weight.
 */
export function checkFeatures(raw: unknown, skeleton: Skeleton | undefined, report: NodeCheckContext['report']): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return;
  const shape = poseFeaturesSchema.shape;
  const spec: Record<string, unknown> = {};
  const malformedChannels: string[] = [];
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    // Own keys only: `in` would take `constructor` or `__proto__` for a channel (its schema reports them).
    if (!Object.hasOwn(shape, key)) continue;
    if (shape[key as keyof typeof shape].safeParse(value).success) spec[key] = value;
    else if ((FEATURE_CHANNELS as readonly string[]).includes(key)) malformedChannels.push(key);
  }
  for (const p of featureSpecProblems(spec as PoseFeatureSpec, skeleton)) {
    // "No weighted channel" cannot be told while a channel is unreadable.
    if (p.path.length === 0 && malformedChannels.length > 0) continue;
    report(['features', ...p.path], p.code, p.message);
  }
  for (const channel of malformedChannels) {
    const bones = ((raw as Record<string, unknown>)[channel] as { bones?: unknown } | null)?.bones;
    if (!Array.isArray(bones) || !skeleton) continue;
    bones.forEach((bone, i) => {
      if (typeof bone === 'string' && skeleton.indexOf(bone) < 0) report(['features', channel, 'bones', i], 'unknown-bone', `the skeleton has no bone ${quoted(bone)}`);
    });
  }
}

/**
 * The database of a node's clips (each once, however often the node lists it) under its `features`
 * (default DEFAULT_FEATURE_SPEC): read from the index file `file` (the node's `database`) unless
 * the context says to ignore index files, else built. Reports what fails, at its property, and returns undefined.
 */
export function preparePoseSearch(
  ctx: Pick<NodePrepareContext, 'skeleton' | 'useIndexFiles' | 'readFile' | 'resolvePath' | 'report'>,
  named: readonly NamedClip[], features: PoseFeatureSpec | undefined, file: string | undefined,
): PoseSearchShared | undefined {
  const clips: IndexedClip[] = [];
  for (const { name, binding } of named) if (!clips.some((c) => c.name === name)) clips.push({ name, binding });
  if (clips.length === 0) {
    ctx.report(['clips'], 'schema', 'needs at least one clip');
    return undefined;
  }
  let schema: PoseFeatureSchema;
  try {
    schema = new PoseFeatureSchema(features ?? DEFAULT_FEATURE_SPEC, ctx.skeleton);
  } catch (e) {
    ctx.report(['features'], 'schema', (e as Error).message);
    return undefined;
  }
  if (typeof file === 'string' && ctx.useIndexFiles) {
    let bytes: Uint8Array;
    try {
      bytes = ctx.readFile(file);
    } catch (e) {
      // A resolver's own error by its code (Node's ENOENT says it all); animgraph's by its message, as
      // its code names only the kind of problem (not-supported: no readFile).
      const reason = e instanceof AnimGraphError ? e.message : (e as { code?: unknown }).code ?? (e as Error).message;
      ctx.report(['database'], 'file', `cannot read index file '${file}' (resolved to ${ctx.resolvePath(file)}): ${reason}; write it with \`animgraph index GRAPH --out ${file}\``);
      return undefined;
    }
    try {
      return { database: deserializePoseSearchDatabase(bytes, schema, clips), fromIndexFile: true };
    } catch (e) {
      if (!(e instanceof PoseIndexError)) throw e;
      // Advice to overwrite a file that is no index at all (the graph itself, a BVH) would destroy it.
      const advice = e.foreign
        ? `check that \`database\` names the file \`animgraph index GRAPH --out FILE\` wrote`
        : `rebuild it with \`animgraph index GRAPH --out ${file}\``;
      ctx.report(['database'], e.stale ? 'stale-index' : 'file', `${file}: ${e.message}; ${advice}`);
      return undefined;
    }
  }
  return { database: PoseSearchDatabase.build(schema, clips), fromIndexFile: false };
}
