/**
 * Where the crowd bench's allocations come from (--alloc-profile): V8's sampling heap profiler
 * over a window of frames, positions mapped back to the TypeScript source.
 */
import { Session } from 'node:inspector/promises';
import { findSourceMap, type SourceMapping } from 'node:module';
import type { Runner } from './runners.ts';

export interface AllocationSite {
  /** Innermost frames first: "function file:line:column". */
  stack: string[];
  /** Estimated bytes per frame (sampled, so approximate). */
  bytesPerFrame: number;
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** "url:line:column" (1-based) in the TypeScript source, through tsx's source maps when there are any. */
function originalPosition(url: string, line: number, column: number): string {
  const found = url.startsWith('file:') ? findSourceMap(url)?.findEntry(line, column) : undefined;
  const entry = found !== undefined && 'originalSource' in found ? (found as SourceMapping) : undefined;
  if (entry?.originalSource) {
    return `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  }
  return `${url}:${line + 1}:${column + 1}`;
}

export async function allocationSites(runner: Runner, frames: number): Promise<AllocationSite[]> {
  const session = new Session();
  session.connect();
  try {
    await session.post('HeapProfiler.enable');
    // Sampling profiles keep only live objects unless told to include those collected since.
    const params = { samplingInterval: 64, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true };
    await session.post('HeapProfiler.startSampling', params as { samplingInterval: number });
    runner.frames(frames);
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } };
    await session.post('HeapProfiler.disable');
    const bySite = new Map<string, AllocationSite>();
    const cwd = `file://${process.cwd()}/`;
    const walk = (node: SamplingNode, stack: string[]): void => {
      const cf = node.callFrame;
      const where = cf.url ? originalPosition(cf.url, cf.lineNumber, cf.columnNumber).replace(cwd, '') : '(native)';
      const here = [`${cf.functionName || '(anonymous)'} ${where}`, ...stack];
      if (node.selfSize > 0) {
        const key = here.slice(0, 4).join(' < ');
        const site = bySite.get(key) ?? { stack: here.slice(0, 4), bytesPerFrame: 0 };
        site.bytesPerFrame += node.selfSize / frames;
        bySite.set(key, site);
      }
      for (const child of node.children) walk(child, here);
    };
    walk(profile.head, []);
    return [...bySite.values()].sort((a, b) => b.bytesPerFrame - a.bytesPerFrame);
  } finally {
    session.disconnect();
  }
}
