import { AnimGraphError } from '../../runtime/core/errors.ts';
import { BvhError, loadBvh } from '../../runtime/import/bvh.ts';
import { decodeGltfUri, GltfError, gltfUriOutsideFolder, readGltf, type GltfDocument, type GltfRig } from '../../runtime/import/gltf.ts';
import type { PropertySpec } from '../../runtime/node/node.ts';
import { SkeletonError } from '../../runtime/core/skeleton.ts';
import type { GraphEnvelope } from '../schema.ts';
import { dirnamePath, joinPath, normalizePath } from './paths.ts';
import type { ProblemCode, Problems } from './problems.ts';
import type { NodeRegistry } from './registry.ts';
import { subGraphsOf } from './sub-graphs.ts';

/** A file's contents as a resolver gives them: text, or bytes (text files are decoded as UTF-8). */
export type ResolvedFile = string | ArrayBuffer | Uint8Array;

/**
 * Returns the contents of a file the asset names, by the path as written in the asset (relative to
 * the graph). Throws (or rejects) when it cannot.
 */
export type FileResolver = (path: string) => ResolvedFile | Promise<ResolvedFile>;

/** A resolver that answers at once (memory, the file system). */
export type SyncFileResolver = (path: string) => ResolvedFile;

export const isGltfPath = (path: string): boolean => /\.gl(b|tf)$/i.test(path);

/** What a file is when the load was given no resolver: reported as a `file` problem. Code `not-supported`. */
export class NoResolverError extends AnimGraphError {
  constructor(message: string) {
    super('not-supported', message);
    this.name = 'NoResolverError';
  }
}

const NO_RESOLVER = 'no file resolver was given (pass `resolve` to loadGraph or `resolveSync` to loadGraphAsset; in Node, '
  + "use loadGraphFile, or resolveSync: fileResolver(folder) from 'animgraph/node')";

/**
 * The files of one load: every file the asset names is fetched before any check (the loader asks
 * for them in rounds, see checkSteps), then the checks read them from here synchronously. Files are
 * kept by normalised asset path, so './walk.bvh' and 'walk.bvh' are read and parsed once.
 */
export class FileCache {
  private readonly contents = new Map<string, ResolvedFile | Error>();
  private readonly bvh = new Map<string, ReturnType<typeof loadBvh> | BvhError | Error>();
  private readonly gltf = new Map<string, GltfDocument | Error>();
  /** The skeleton's glTF skin, so that clips from the same file target its bones by node. */
  skeletonRig: { file: string; rig: GltfRig } | null = null;
  /** Whether a .gltf's buffer URIs may lead out of its folder (LoadOptions.allowGltfUrisOutsideFolder). */
  allowGltfUrisOutsideFolder = false;

  /**
   * @param baseDir names files in messages (a path relative to it), when given
   * @param lateResolver reads a file no round asked for (a custom node's prepare), when it can answer at once
   */
  constructor(readonly baseDir: string | undefined, private readonly lateResolver?: SyncFileResolver) {}

  /** The key of a path written in the asset. */
  key(path: string): string {
    return normalizePath(path);
  }

  /** How a file is named in messages: joined to baseDir when there is one. */
  name(path: string): string {
    return this.baseDir === undefined ? path : joinPath(this.baseDir, path);
  }

  /** Of `paths`, those not fetched yet, once each, as first written. */
  missing(paths: readonly string[]): string[] {
    const seen = new Set<string>();
    return paths.filter((path) => {
      const key = this.key(path);
      if (this.contents.has(key) || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** Stores what the resolver gave for `path` (or why it gave nothing). */
  put(path: string, contents: unknown): void {
    this.contents.set(this.key(path), checkContents(path, contents));
  }

  /** Stores, for every one of `paths`, that no resolver was given. */
  putUnresolvable(paths: readonly string[]): void {
    for (const path of paths) this.contents.set(this.key(path), new NoResolverError(NO_RESOLVER));
  }

  private get(path: string): ResolvedFile | Error {
    const key = this.key(path);
    let got = this.contents.get(key);
    if (got === undefined) {
      if (this.lateResolver) {
        let value: unknown;
        try {
          value = this.lateResolver(path);
        } catch (e) {
          value = e instanceof Error ? e : new Error(String(e));
        }
        got = checkContents(path, value);
      } else got = new AnimGraphError('not-supported', `'${path}' was not fetched before the load (only files the asset names in its skeleton, clips and file properties are)`);
      this.contents.set(key, got);
    }
    return got;
  }

  /**
   * A file's bytes; throws the resolver's error (with its `code`, e.g. ENOENT, when it has one), or
   * an AnimGraphError: a NoResolverError, a file not fetched before the load, a resolver's answer
   * that is no file's contents.
   */
  readFile(path: string): Uint8Array {
    const got = this.get(path);
    if (got instanceof Error) throw got;
    if (typeof got === 'string') return new TextEncoder().encode(got);
    return got instanceof Uint8Array ? got : new Uint8Array(got);
  }

  /** A file's text (bytes decoded as UTF-8); throws like readFile. */
  readText(path: string): string {
    const got = this.get(path);
    if (got instanceof Error) throw got;
    return typeof got === 'string' ? got : new TextDecoder('utf-8').decode(got);
  }

  loadBvh(path: string): ReturnType<typeof loadBvh> | BvhError | Error {
    const key = this.key(path);
    let cached = this.bvh.get(key);
    if (cached === undefined) {
      try {
        cached = loadBvh(this.readText(path), path, this.name(path));
      } catch (e) {
        cached = e instanceof BvhError ? e : cannotRead(path, e);
      }
      this.bvh.set(key, cached);
    }
    return cached;
  }

  /** A glTF file parsed once per load, whichever clips name it; external buffers relative to it. */
  loadGltf(path: string): GltfDocument | Error {
    const key = this.key(path);
    let cached = this.gltf.get(key);
    if (cached === undefined) {
      let bytes: Uint8Array | undefined;
      try {
        bytes = this.readFile(path);
      } catch (e) {
        cached = cannotRead(path, e);
      }
      if (bytes) cached = guardGltf(path, () => readGltf(bytes, {
        source: path, readUri: (uri) => this.readFile(bufferPath(path, uri)), allowUrisOutsideFolder: this.allowGltfUrisOutsideFolder,
      }));
      this.gltf.set(key, cached!);
    }
    return cached!;
  }

  /**
   * The external buffers (by asset path) of the glTF files among `paths`: a text .gltf names its
   * binary data by URI relative to itself, known only once its JSON is read.
   */
  gltfBuffers(paths: readonly string[]): string[] {
    const out: string[] = [];
    for (const path of paths) {
      if (!isGltfPath(path)) continue;
      const doc = this.loadGltf(path);
      if (doc instanceof Error) continue;
      const buffers = doc.json.buffers;
      if (!Array.isArray(buffers)) continue;
      for (const b of buffers) {
        const uri = (b as { uri?: unknown } | null)?.uri;
        // A URI leading out of the folder is not fetched; the import reports it.
        if (typeof uri === 'string' && !/^data:/i.test(uri) && (this.allowGltfUrisOutsideFolder || gltfUriOutsideFolder(uri) === undefined)) out.push(bufferPath(path, uri));
      }
    }
    return out;
  }
}

/** The asset path of a buffer a glTF file names by (percent-encoded) URI relative to itself. */
function bufferPath(gltfPath: string, uri: string): string {
  return joinPath(dirnamePath(gltfPath), decodeGltfUri(uri));
}

/**
 * Why `path` could not be read, what reading it threw being `e`: a NoResolverError still (the loader
 * reports it as `file`, not `clip-file`), else an AnimGraphError of the same code as `e` or, for a
 * resolver's own error, `io`.
 */
function cannotRead(path: string, e: unknown): AnimGraphError {
  const message = `cannot read '${path}': ${(e as Error).message}`;
  if (e instanceof NoResolverError) return new NoResolverError(message);
  return new AnimGraphError(e instanceof AnimGraphError ? e.code : 'io', message, { cause: e });
}

function checkContents(path: string, value: unknown): ResolvedFile | Error {
  if (value instanceof Error) return value;
  if (typeof value === 'string' || value instanceof Uint8Array || value instanceof ArrayBuffer) return value;
  const what = value === null ? 'null' : typeof value === 'object' ? (value.constructor?.name ?? 'an object') : typeof value;
  return new AnimGraphError('invalid-argument', `the resolver gave ${what} for '${path}', not text, an ArrayBuffer or a Uint8Array`);
}

/** Runs an import; an error other than GltfError (a bug, not the file) is still reported, never thrown. */
export function guardGltf<T>(path: string, run: () => T): T | Error {
  try {
    return run();
  } catch (e) {
    return e instanceof GltfError ? e : new GltfError(path, 'malformed', [`cannot import: ${(e as Error).message}`]);
  }
}

/** A glTF problem at the asset path it concerns: the file, the skin or the animation named. */
export function reportGltfError(error: Error, file: readonly PropertyKey[], named: readonly PropertyKey[], problems: Problems): void {
  if (!(error instanceof GltfError)) {
    problems.add(file, 'file', error.message);
    return;
  }
  const where = {
    malformed: [file, 'gltf'], unreadable: [file, 'file'], 'too-large': [named, 'too-large'], 'unknown-skin': [named, 'unknown-skin'],
    'skin-not-tree': [named, 'skeleton'], 'unknown-animation': [named, 'unknown-animation'], 'empty-animation': [named, 'empty-animation'],
  } as const satisfies Record<GltfError['gltfCode'], readonly [unknown, ProblemCode]>;
  const [keys, code] = where[error.gltfCode];
  for (const p of error.problems) problems.add(keys as readonly PropertyKey[], code, `${error.source}: ${p}`);
}

export function reportFileError(error: BvhError | Error, where: readonly PropertyKey[], problems: Problems): void {
  if (error instanceof BvhError) {
    for (const p of error.problems) problems.add(where, p.tooLarge ? 'too-large' : 'bvh', `${p.tooLarge ? 'BVH' : 'malformed BVH'} ${error.source} line ${p.line}: ${p.message}`);
  } else if (error instanceof SkeletonError) {
    for (const p of error.problems) problems.add(where, 'skeleton', p.message);
  } else problems.add(where, error instanceof NoResolverError ? 'file' : 'clip-file', error.message);
}

/**
 * Every file the asset names, as written: the skeleton's, the clips' sources, and the `file`
 * properties of known node types (index files, unless they are to be ignored), in the top-level
 * nodes and in their sub-graphs (a state machine's states). Malformed parts name nothing here; their checks report them.
 */
export function referencedFiles(
  asset: Partial<GraphEnvelope>, raw: Partial<Record<keyof GraphEnvelope, unknown>>, registry: NodeRegistry, useIndexFiles: boolean,
): string[] {
  const out: string[] = [];
  const skeletonFile = (skeleton: GraphEnvelope['skeleton'] | undefined) => {
    if (typeof skeleton === 'object') out.push('gltf' in skeleton ? skeleton.gltf : 'bvh' in skeleton ? skeleton.bvh : skeleton.file);
  };
  skeletonFile(asset.skeleton);
  for (const def of Object.values(asset.clips ?? {})) {
    if (!def.source.startsWith('builtin:')) out.push(def.source);
    skeletonFile(def.retarget?.skeleton);
  }
  if (useIndexFiles) for (const value of nodeFileValues(raw.nodes, registry)) if (typeof value === 'string') out.push(value);
  return out;
}

/**
 * The values of the `file` properties (list items' too) of the nodes of `rawNodes` whose type
 * `registry` knows, and of the nodes of every sub-graph below them (NodeType.subGraphs: a state
 * machine's states), at any depth, so an index file named there is fetched like any other.
 * Values are as written, not checked (a caller keeps the strings). Walks with a stack, not
 * recursion, as the loader's other walks do.
 */
export function nodeFileValues(rawNodes: unknown, registry: NodeRegistry): unknown[] {
  const out: unknown[] = [];
  const fileValues = (specs: Readonly<Record<string, PropertySpec>>, values: unknown): void => {
    if (!isRecord(values)) return;
    for (const [name, spec] of Object.entries(specs)) {
      if (!Object.hasOwn(values, name)) continue;
      const value = values[name];
      if (spec.kind === 'file') out.push(value);
      else if (spec.kind === 'list' && Array.isArray(value)) for (const item of value) fileValues(spec.item, item);
    }
  };
  const graphs: unknown[] = [rawNodes];
  while (graphs.length > 0) {
    const nodes = graphs.pop();
    if (!isRecord(nodes)) continue;
    for (const node of Object.values(nodes)) {
      if (!isRecord(node)) continue;
      const nodeType = typeof node.type === 'string' ? registry.get(node.type) : undefined;
      if (!nodeType) continue;
      fileValues(nodeType.properties, node.properties);
      try {
        for (const sub of subGraphsOf(nodeType, node.properties)) graphs.push(sub.nodes);
      } catch {
        // Its check reports the hook's failure.
      }
    }
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
