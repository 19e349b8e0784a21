// Graphs loaded from disk: the Node side of the loader, which itself reads no files (it asks a
// resolver for each file the asset names, so the same graph loads from disk, `fetch` or memory).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { AnimGraph } from '../runtime/graph/graph.ts';
import * as core from '../graphs/loader.ts';
import { useNativeSha256, type Sha256Hash } from '../runtime/core/sha256.ts';
import { GraphLoadError, type CheckResult, type LoadOptions, type SyncLoadOptions } from '../graphs/loader.ts';

// Pose-search hashes of large clip libraries took 4-8x longer with the portable SHA-256; Node's
// gives the same digests.
useNativeSha256(() => {
  const hash = createHash('sha256');
  const native: Sha256Hash = { update: (data) => (hash.update(data), native), digestHex: () => hash.digest('hex') };
  return native;
});

/**
 * A resolver reading each file the asset names from disk, relative to `baseDir` (default the
 * working directory). Errors are Node's, with their `code` (ENOENT...) and the full path.
 *
 *   loadGraphAsset(asset, { baseDir: dir, resolveSync: fileResolver(dir) })
 */
export function fileResolver(baseDir: string = process.cwd()): (path: string) => Uint8Array {
  return (path) => readFileSync(resolve(baseDir, path));
}

/** Node's options: the files are read from disk relative to `baseDir` unless a resolver is given. */
function fromDisk(options: SyncLoadOptions): SyncLoadOptions {
  return options.resolveSync ? options : { ...options, resolveSync: fileResolver(options.baseDir) };
}

/**
 * The core's loadGraphAsset, reading the files the asset names from disk relative to
 * `options.baseDir` (default the working directory) unless `resolveSync` is given.
 */
export function loadGraphAsset(json: unknown, options: SyncLoadOptions = {}): AnimGraph {
  return core.loadGraphAsset(json, fromDisk(options));
}

/** The core's checkGraphAsset, reading files from disk as loadGraphAsset here does. */
export function checkGraphAsset(json: unknown, options: SyncLoadOptions = {}): CheckResult {
  return core.checkGraphAsset(json, fromDisk(options));
}

/**
 * Reads, validates and binds a graph file, reading the files it names relative to its folder.
 * Throws GraphLoadError listing every problem.
 */
export function loadGraphFile(path: string, options: Omit<LoadOptions, 'baseDir' | 'source'> = {}): AnimGraph {
  const result = checkGraphFile(path, options);
  if (!result.ok) throw new GraphLoadError(path, result.problems);
  return result.graph;
}

/**
 * loadGraphFile's checks, returning `{ ok, problems }` instead of throwing: a file that cannot be
 * read (`file`) or is not JSON (`schema`) is a problem at `$` like any other, and so is a key an
 * object repeats (`duplicate-key`, listed with the asset's other problems).
 */
export function checkGraphFile(path: string, options: Omit<LoadOptions, 'baseDir' | 'source'> = {}): CheckResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { ok: false, problems: [{ path: '$', code: 'file', message: `cannot read graph file: ${(e as Error).message}` }] };
  }
  const baseDir = dirname(resolve(path));
  // As text: the core parses it and reports what JSON.parse hides (repeated keys).
  return core.checkGraphAsset(text, { ...options, baseDir, source: path, resolveSync: fileResolver(baseDir) });
}
