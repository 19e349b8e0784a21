/**
 * The crowd bench's printed output: the table, its rows and the notes under it.
 */
import { availableParallelism } from 'node:os';
import type { AllocationSite } from './allocation-sites.ts';
import type { Options } from './options.ts';
import type { Budget, CaseResult } from './run-case.ts';

const COLUMNS = [
  ['case', 12], ['chars', 5], ['ms/frame', 9], ['Mbones/s', 8], ['B/frame', 7],
  ['ms/frame', 9], ['B/frame', 7], ['ag/peer', 7], ['max diff', 8],
  ['ms/frame', 9], ['B/frame', 8], ['ag/three', 8], ['x faster', 8], ['max diff', 8], ['4MB ns', 7],
] as const;

function row(cells: readonly string[]): string {
  return cells.map((c, i) => (i === 0 ? c.padEnd(COLUMNS[i][1]) : c.padStart(COLUMNS[i][1]))).join('  ');
}

/** The group line above the column names. */
function groupHeader(): string {
  const width = (from: number, to: number): number => COLUMNS.slice(from, to).reduce((sum, [, w]) => sum + w + 2, 0);
  const group = (label: string, from: number, to: number): string => {
    const w = width(from, to);
    const dashes = Math.max(2, w - label.length - 4);
    return `${'-'.repeat(dashes >> 1)} ${label} ${'-'.repeat(dashes - (dashes >> 1))}`.padEnd(w);
  };
  return `${' '.repeat(width(0, 2))}${group('animgraph', 2, 5)}${group('hand-written peer', 5, 9)}${group('three.js', 9, 14)}`.trimEnd();
}

export function formatBytes(b: number): string {
  return Number.isNaN(b) ? 'n/a' : b < 10 ? b.toFixed(1) : Math.round(b).toString();
}

export function formatRow(r: CaseResult): string {
  const p = r.peer, t = r.three;
  return row([
    r.case, String(r.characters), r.animgraphMsPerFrame.toFixed(3), r.animgraphMbonesPerSecond.toFixed(1), formatBytes(r.animgraphBytesPerFrame),
    p ? p.msPerFrame.toFixed(3) : 'none', p ? formatBytes(p.bytesPerFrame) : '-', p ? `${p.ratio.toFixed(2)}${r.peerKind === 'full rate' ? '†' : 'x'}` : '-', p ? p.maxDifference.toExponential(0) : '-',
    t ? t.msPerFrame.toFixed(2) : 'skipped', t ? formatBytes(t.bytesPerFrame) : '-', t ? `${t.ratio.toFixed(3)}x` : '-',
    t ? `${(1 / t.ratio).toFixed(1)}${t.sameWork ? '' : '*'}` : '-', t ? (t.sameWork ? t.maxDifference.toExponential(0) : 'n/a') : '-',
    r.cacheProbeNs ? `${Math.round(r.cacheProbeNs.before)}/${Math.round(r.cacheProbeNs.after)}` : '-',
  ]);
}

/** The run's description and the table's header. */
export function printHeader(boneCount: number, options: Options, budget: Budget, threeRevision: string | null): void {
  console.log(`animgraph crowd bench: ${boneCount}-bone skeleton, 2 clips x 61 keys (30 fps, T+R track per bone), dt 1/60 s, looping`);
  const threeText = threeRevision !== null ? `, then ${budget.threeWindows} against three.js r${threeRevision}` : ', three.js skipped (--no-three)';
  console.log(`node ${process.version}, ${options.quick ? 'quick' : 'full'} run: per case ${budget.windows} interleaved windows of ~${budget.windowMs} ms per side after ${budget.warmupMs} ms warm-up${threeText}`);
  console.log('');
  const header = row(COLUMNS.map(([name]) => name));
  console.log(groupHeader());
  console.log(header);
  console.log('-'.repeat(header.length));
}

/** The --alloc-profile lines of one case: its heaviest allocation sites. */
export function profileLines(name: string, count: number, result: CaseResult, sites: readonly AllocationSite[]): string[] {
  const lines: string[] = [];
  lines.push(`  ${name}, ${count} characters (measured ${formatBytes(result.animgraphBytesPerFrame)} B/frame):`);
  const shown = sites.filter((site) => !site.stack[0].startsWith('allocationSites ')).slice(0, 8);
  if (shown.length === 0) lines.push('    (no samples)');
  for (const site of shown) lines.push(`    ${site.bytesPerFrame.toFixed(0).padStart(8)}  ${site.stack.join('\n              < ')}`);
  return lines;
}

/** The second table: the same crowds as one Crowd on several threads. */
export function printThreaded(results: readonly CaseResult[]): void {
  const threadedRows = results.filter((r) => r.threaded !== null);
  if (threadedRows.length > 0) {
    const w = threadedRows[0].threaded!.workers;
    console.log('');
    console.log(`The same crowds as one Crowd (host/crowd.ts) on ${w + 1} threads: the calling thread and ${w} worker thread${w === 1 ? '' : 's'} (${availableParallelism()} cores):`);
    const head = `${'case'.padEnd(12)} ${'chars'.padStart(5)}  ${'ms/frame'.padStart(8)}  ${'vs 1 thread'.padStart(11)}  ${'x faster than three.js'.padStart(22)}  ${'B/frame'.padStart(7)}  ${'workers B/frame'.padStart(15)}  ${'max diff'.padStart(8)}`;
    console.log(head);
    console.log('-'.repeat(head.length));
    for (const r of threadedRows) {
      const t = r.threaded!;
      const faster = t.threeRatio === null ? '-' : `${(1 / t.threeRatio).toFixed(1)}${r.three?.sameWork === false ? '*' : ''}`;
      console.log(`${r.case.padEnd(12)} ${String(r.characters).padStart(5)}  ${t.msPerFrame.toFixed(3).padStart(8)}  ${`${(1 / t.ratio).toFixed(2)}x`.padStart(11)}  ${faster.padStart(22)}  ${formatBytes(t.bytesPerFrame).padStart(7)}  ${formatBytes(t.workersBytesPerFrame).padStart(15)}  ${t.maxDifference.toExponential(0).padStart(8)}`);
    }
    console.log('vs 1 thread: median of per-window ratios against the instances above (interleaved); x faster than three.js:');
    console.log("  likewise against three.js's windows in the three.js phase; B/frame: the calling thread's; workers B/frame:");
    console.log('  the most any worker thread allocated (Crowd.measureAllocation, over f and 2f frames); max diff: against');
    console.log('  the instances after the same frames (0: bit-identical).');
  }
}

/** What the columns mean, and the run's total time. */
export function printNotes(options: Options, budget: Budget, seconds: number, overheadBytes: number): void {
  console.log('');
  console.log('ms/frame: median over windows; ag/peer, ag/three: median of per-window ratios of animgraph ms/frame to the');
  console.log("  reference's (interleaved windows; against three.js in a second phase, where animgraph runs among three.js's");
  console.log("  garbage, so ag/three errs in three.js's favour); x faster: 1 / ag/three.");
  console.log('B/frame: steady-state allocation per frame: growth of V8 new + large-object space over GC-free windows of 2f');
  console.log(`  frames minus f frames, divided by f (the ${overheadBytes} bytes a window itself costs cancel).`);
  console.log("peer max diff: largest difference between animgraph's and the peer's poses after the same frames;");
  console.log("  three max diff: the same against three.js on 16 characters after 150 frames (float32 keys; component");
  console.log('  translations for +cs cases). A few B/frame on one case only is JIT tiering, not steady state.');
  console.log('† lod: the peer columns are the same crowd at full update rate (ag/peer = the LOD crowd\'s time over it: the');
  console.log('  saving; max diff: interpolated against full-rate poses). A quarter of the characters at rate 1, a quarter at');
  console.log('  2, half at 4 (AnimGraphInstance.setUpdateRate), phases spread.');
  console.log('4MB ns: nanoseconds per dependent load over 4 MB of cache lines in random order, right before and after');
  console.log('  the case: 20-70 while this process has the last-level cache for it, 100-150 while it does not (other');
  console.log("  tenants of the host), when the crowds' times rise and their ratios move (docs/performance.md).");
  console.log('peer: none for inertial, stride+cs, posesearch, statemachine, layered and bendroll+cs (a hand-written equivalent');
  console.log('  would re-write the nodes).');
  if (options.three) {
    console.log('three.js: player = one AnimationMixer action; blend = crossFadeTo held at half way (weights 0.5);');
    console.log('  +cs = root.updateMatrixWorld(true). * = nearest equivalent, not the same work: inertial, posesearch,');
    console.log('  statemachine (walk/run switched every 30 frames, 0.2 s crossfades) and layered (clipB above spine_01 over clipA)');
  console.log('  against the crossfade; stride+cs against player + updateMatrixWorld + CCDIKSolver to stride-scaled feet');
    console.log('  (no pelvis adjustment or thigh correction); bendroll+cs against player + updateMatrixWorld. three.js');
    console.log(`  windows: ~${budget.windowMs} ms each (at least one frame), not the same frame count; B/frame counted across GCs.`);
  }
  console.log(`total ${seconds.toFixed(1)} s`);
}

/** For the cases where animgraph allocates in steady state, the bytes of each phase of the frame. */
export function printAllocating(results: readonly CaseResult[], allocProfile: boolean): void {
  const allocating = results.filter((r) => r.animgraphBreakdown !== undefined);
  if (allocating.length > 0) {
    console.log('');
    console.log('animgraph allocates in steady state; bytes/frame by phase of the frame, each measured alone:');
    for (const r of allocating) {
      const parts = Object.entries(r.animgraphBreakdown!).map(([phase, bytes]) => `${phase} ${formatBytes(bytes)}`).join(', ');
      console.log(`  ${r.case.padEnd(12)} ${String(r.characters).padStart(5)} chars: ${parts}  (${formatBytes(r.animgraphBytesPerFrame / r.characters)} B per character per frame)`);
    }
    if (!allocProfile) console.log('  (run with --alloc-profile for V8 sampling-heap-profiler allocation sites)');
  }
}

/** The --alloc-profile section (see profileLines). */
export function printProfiles(profiles: readonly string[]): void {
  if (profiles.length > 0) {
    console.log('');
    console.log('allocation sites (V8 sampling heap profiler over a window of the warm crowd; estimated bytes/frame;');
    console.log('function positions, innermost frame first, inlined frames included):');
    for (const line of profiles) console.log(line);
  }
}
