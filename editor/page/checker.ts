/**
 * The loader, run in the page on every edit: the files the asset names are fetched from the server
 * once and kept, so a check after an edit that names no new file runs at once (synchronously), and
 * the preview can play the edited graph on the very next frame.
 */
import { checkGraph, checkGraphAsset, type CheckResult, type NodeRegistry } from '../../graphs/loader.ts';
import { normalizePath } from '../../graphs/loader/paths.ts';
import { AnimGraphError } from '../../runtime/core/errors.ts';

/** A file the page has not fetched yet: the synchronous check cannot answer, the asynchronous one fetches it. */
class NotFetched extends Error {}

export class Checker {
  private readonly files = new Map<string, Uint8Array>();
  private readonly fetching = new Map<string, Promise<Uint8Array>>();

  constructor(readonly source: string, readonly nodeTypes?: NodeRegistry) {}

  /** A file as the server serves it (only those the graph file on disk reads). */
  fetchFile(path: string): Promise<Uint8Array> {
    const key = normalizePath(path);
    const have = this.files.get(key);
    if (have) return Promise.resolve(have);
    let pending = this.fetching.get(key);
    if (!pending) {
      pending = fetch(`file?path=${encodeURIComponent(path)}`).then(async (res) => {
        if (!res.ok) throw new AnimGraphError('io', `cannot fetch ${path}: ${res.status} ${(await res.text()).trim()}`);
        const bytes = new Uint8Array(await res.arrayBuffer());
        this.files.set(key, bytes);
        return bytes;
      });
      pending.finally(() => this.fetching.delete(key)).catch(() => {});
      this.fetching.set(key, pending);
    }
    return pending;
  }

  /** Checks with the files fetched so far; undefined when the asset names a file not fetched yet. */
  checkNow(asset: unknown): CheckResult | undefined {
    let missing = false;
    const result = checkGraphAsset(asset, {
      source: this.source, nodeTypes: this.nodeTypes,
      resolveSync: (path) => {
        const bytes = this.files.get(normalizePath(path));
        if (bytes) return bytes;
        missing = true;
        throw new NotFetched(path);
      },
    });
    return missing ? undefined : result;
  }

  /** Checks, fetching what it needs. */
  check(asset: unknown): Promise<CheckResult> {
    return checkGraph(asset, { source: this.source, nodeTypes: this.nodeTypes, resolve: (path) => this.fetchFile(path) });
  }
}
