// Graphs loaded from disk: the Node side of the loader, which itself reads no files (it asks a
// resolver for each file the asset names, so the same graph loads from disk, `fetch` or memory).
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import type { AnimGraph } from '../runtime/graph/graph.ts';
import * as core from '../graphs/loader.ts';
import { useNativeSha256, type Sha256Hash } from '../runtime/core/sha256.ts';
import { GraphLoadError, type CheckResult, type LoadOptions, type SyncLoadOptions } from '../graphs/loader.ts';
import { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_GRAPH_BYTES, readRegularFileSync } from './read-file.ts';

export { DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_GRAPH_BYTES, FileReadError } from './read-file.ts';

// Pose-search hashes of large clip libraries took 4-8x longer with the portable SHA-256; Node's
// gives the same digests.
useNativeSha256(() => {
  const hash = createHash('sha256');
  const native: Sha256Hash = { update: (data) => (hash.update(data), native), digestHex: () => hash.digest('hex') };
  return native;
});

/** How files are read from disk: each must be a regular file within its size limit. */
export interface FileReadOptions {
  /**
   * The most bytes a file the graph names may hold (skeleton, clip, glTF file or buffer, index
   * file); default DEFAULT_MAX_FILE_BYTES, 1 GiB. A larger file, or a path naming something other
   * than a regular file (/dev/zero, a FIFO, a folder), is a `file` or `clip-file` problem at the
   * JSON path naming it, and is never read.
   */
  maxFileBytes?: number;
}

/** A file a load read from disk: `path` as the asset writes it (the graph's own as given), `file` the absolute path read. */
export interface FileRead {
  path: string;
  file: string;
}

export interface FileResolverOptions extends FileReadOptions {
  /** Called with each file read, once it has been read whole. */
  onRead?: (read: FileRead) => void;
}

/** Options of loadGraphFile and checkGraphFile. */
export interface GraphFileOptions extends Omit<LoadOptions, 'baseDir' | 'source'>, FileReadOptions {
  /** The most bytes the graph file itself may hold; default DEFAULT_MAX_GRAPH_BYTES, 64 MiB. */
  maxGraphBytes?: number;
}

/** checkGraphFile's result: the load's, and every file it read. */
export type GraphFileCheck = CheckResult & {
  /** The files read from disk, in the order read: the graph file first, then the files it names. */
  readonly files: readonly FileRead[];
};

/**
 * A resolver reading each file the asset names from disk, relative to `baseDir` (default the
 * working directory), each a regular file of at most `options.maxFileBytes` (1 GiB). Errors are
 * Node's, with their `code` (ENOENT...) and the full path, or a FileReadError (not a regular file,
 * too large).
 *
 *   loadGraphAsset(asset, { baseDir: dir, resolveSync: fileResolver(dir) })
 */
export function fileResolver(baseDir: string = process.cwd(), options: FileResolverOptions = {}): (path: string) => Uint8Array {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return (path) => {
    const file = resolve(baseDir, path);
    const bytes = readRegularFileSync(file, maxBytes);
    options.onRead?.({ path, file });
    return bytes;
  };
}

/** Node's options: the files are read from disk relative to `baseDir` unless a resolver is given. */
function fromDisk(options: SyncLoadOptions & FileReadOptions): SyncLoadOptions {
  return options.resolveSync ? options : { ...options, resolveSync: fileResolver(options.baseDir, options) };
}

/**
 * The core's loadGraphAsset, reading the files the asset names from disk relative to
 * `options.baseDir` (default the working directory) unless `resolveSync` is given.
 */
export function loadGraphAsset(json: unknown, options: SyncLoadOptions & FileReadOptions = {}): AnimGraph {
  return core.loadGraphAsset(json, fromDisk(options));
}

/** The core's checkGraphAsset, reading files from disk as loadGraphAsset here does. */
export function checkGraphAsset(json: unknown, options: SyncLoadOptions & FileReadOptions = {}): CheckResult {
  return core.checkGraphAsset(json, fromDisk(options));
}

/**
 * Reads, validates and binds a graph file, reading the files it names relative to its folder.
 * Throws GraphLoadError listing every problem.
 */
export function loadGraphFile(path: string, options: GraphFileOptions = {}): AnimGraph {
  const result = checkGraphFile(path, options);
  if (!result.ok) throw new GraphLoadError(path, result.problems);
  return result.graph;
}

/**
 * loadGraphFile's checks, returning `{ ok, problems }` instead of throwing: a file that cannot be
 * read (`file`: missing, not a regular file, over `maxGraphBytes`) or is not JSON (`schema`) is a
 * problem at `$` like any other, and so is a key an object repeats (`duplicate-key`, listed with
 * the asset's other problems). `files` lists every file the load read, the graph first.
 */
export function checkGraphFile(path: string, options: GraphFileOptions = {}): GraphFileCheck {
  const files: FileRead[] = [];
  let text: string;
  try {
    text = readRegularFileSync(path, options.maxGraphBytes ?? DEFAULT_MAX_GRAPH_BYTES, 'maxGraphBytes').toString('utf8');
  } catch (e) {
    return { ok: false, problems: [{ path: '$', code: 'file', message: `cannot read graph file: ${(e as Error).message}` }], files };
  }
  files.push({ path, file: resolve(path) });
  const baseDir = dirname(resolve(path));
  const { maxGraphBytes: _, maxFileBytes, ...load } = options;
  const resolveSync = fileResolver(baseDir, { maxFileBytes, onRead: (read) => files.push(read) });
  // As text: the core parses it and reports what JSON.parse hides (repeated keys).
  return { ...core.checkGraphAsset(text, { ...load, baseDir, source: path, resolveSync }), files };
}
