/**
 * Crowd benchmark: N characters of one shared AnimGraph as an InstanceBatch (each frame is
 * batch.update: every character updated and evaluated in order, its clips sampled by the
 * WebAssembly SIMD kernel where the engine has it, then, with component space, all composed
 * together), on a 65-bone skeleton, against two references measured in the same run with their
 * windows interleaved: three.js's AnimationMixer on the same clips, and a hand-written typed-array
 * peer doing the same arithmetic in JavaScript with no graph (the floor the graph's abstraction
 * was measured against before the kernel; the kernel now takes the graph below it at 100
 * characters).
 *
 *   node --expose-gc --import tsx bench/crowd.ts [--quick] [--json FILE] [--counts 100,1000]
 *                                                 [--cases player,blend,...] [--no-three]
 *                                                 [--alloc-profile] [--workers N]
 *
 * Cases (every character advances 1/60 s per frame, looping, from its own start phase):
 *   player      SequencePlayer (slerp rotations, lerp translations)
 *   blend       BlendTwo of two SequencePlayers at alpha 0.5
 *   player+cs   player, then instance.componentPose() (forward pass composing parent transforms)
 *   blend+cs    blend, then instance.componentPose()
 *   player/f32, blend/f32, blend+cs/f32
 *               the same three with the kernel sampling in single precision (the batch's and the
 *               Crowd's `precision: 'single'`); ag/peer against the same hand-written peer
 *   inertial    InertialBlend of the two players during a transition (switched once, blend time
 *               1e6 s, so it never ends): one clip sampled plus the decaying per-bone offsets
 *   stride+cs   StrideWarping (manual, scale 1.3, pelvis adjustment, thigh correction, two-bone IK
 *               on both legs) on the player, then instance.componentPose()
 *   posesearch  PoseSearchBlend over both clips, inertial blend 0.2 s; each character flips its
 *               'motion' parameter every 10 frames (staggered across the crowd), so each flip
 *               searches the database for the best start frame
 *   lod         the blend case with update rates mixed across the crowd (a quarter at 1, a quarter at 2,
 *               half at 4: AnimGraphInstance.setUpdateRate, phases spread), timed against the same
 *               crowd at full rate in the peer columns (ag/peer is the saving)
 *   lod-hold    lod with the skipped frames holding the last pose ({ interpolate: false }): a skipped
 *               frame costs nothing
 *   montage     the statemachine case (walk/run switched every 30 frames) under an upper-body Slot and
 *               an AimOffset of four mesh-space additive poses; every 4th character plays a montage
 *               whose middle section links to itself (a section change every second)
 *   bendroll+cs BendRollHelper with four helpers (upper arms' and hands' roll, half of it, onto the
 *               twist bones) on the player, then instance.componentPose()
 * A case whose graph does not build (its node not landed, or changed under the bench) prints a
 * TODO line instead of a row.
 *
 * References:
 *   three.js   one THREE.AnimationMixer per character on 65 THREE.Bone objects (bench/three-crowd.ts):
 *              player = one action; blend = a crossFadeTo held at half way (both weights 0.5);
 *              +cs = root.updateMatrixWorld(true). Nearest equivalents where three.js has no such
 *              node: inertial and posesearch = the crossfade (three's way to transition);
 *              stride+cs = player + updateMatrixWorld + CCDIKSolver on both legs to stride-scaled
 *              feet (less work than StrideWarping); bendroll+cs = player + updateMatrixWorld. Where
 *              it does the same work its poses are compared with animgraph's (float32 keys, ~1e-5).
 *   peer       player and blend cases only (the other cases would mean re-writing the nodes); for lod,
 *              the same crowd at full update rate instead.
 *
 * Time: after warm-up, windows alternate between animgraph and a reference (AB then BA, so drift
 * and machine noise hit both); ms/frame is the median over windows and each ratio is the median
 * of the per-window ratios of ms/frame. Two phases per case: first animgraph against the peer
 * (same frames per window, so at the end their poses are compared: the peer really does the same
 * work), with no three.js object alive; then the three.js crowd is built and its windows alternate
 * with animgraph's again. three.js makes megabytes of garbage per frame and its GC work slowed
 * whatever ran after it by up to a half, so animgraph's ms/frame comes from the first phase and
 * ag/three from the second (where animgraph runs among three.js's garbage: the ratio errs in
 * three.js's favour). three.js, much slower, runs windows of the same duration (~windowMs, at
 * least one frame) instead of the same number of frames.
 *
 * Allocation: with --expose-gc, gc(), read the used size of V8's new and large-object spaces, run a
 * window of frames, read it again (see ALLOCATION_SPACES in crowd/measure.ts for why not old
 * space); a v8.GCProfiler running around the window tells whether a GC happened in between (then
 * the window is halved and repeated, since a GC makes the delta meaningless). Windows come in pairs
 * of f and 2f frames and the per-frame figure is their difference over f, so what a window costs
 * once (the heap-statistics objects, ~3 KB) cancels. Reported: median over the pairs (5; 3 with --quick or from 500 characters;
 * 2 for three.js).
 * three.js allocates megabytes per frame, so GCs run inside its windows: its figure adds up the
 * growth of the allocation spaces between the GCs (GCProfiler's before/after statistics), with no
 * gc() before its windows.
 *
 * 4MB ns: cacheProbe() (crowd/cache-probe.ts) right before and after each case, nanoseconds per
 * dependent load over 4 MB: while it reads 100-150 rather than 20-70, this process is short of
 * last-level cache and the crowds run up to twice as slow (bench/cache-state.ts shows it window by window).
 *
 * This file is the entry; the bench's parts are under bench/crowd/: options.ts (command line and
 * case list), peer.ts, runners.ts (animgraph's side), measure.ts (time and allocation windows), cache-probe.ts,
 * checks.ts (pose differences), run-case.ts (one case), report.ts (printed output) and
 * allocation-sites.ts (--alloc-profile).
 */
import { performance } from 'node:perf_hooks';
import { writeOutputFile } from '../cli/output-file.ts';
import type { AnimGraph } from '../runtime/graph/graph.ts';
import { allocationSites, type AllocationSite } from './crowd/allocation-sites.ts';
import { cacheProbe } from './crowd/cache-probe.ts';
import { bitIdentityFailures } from './crowd/checks.ts';
import { windowOverhead } from './crowd/measure.ts';
import { ALL_CASES, parseOptions, pendingNote } from './crowd/options.ts';
import { formatRow, printAllocating, printHeader, printNotes, printProfiles, printThreaded, profileLines } from './crowd/report.ts';
import { runCase, warmUpCases, type Budget, type CaseResult } from './crowd/run-case.ts';
import { buildCrowdGraph, type CrowdGraphKind } from './crowd-cases.ts';
import { makeThreeClip } from './three-crowd.ts';

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const budget: Budget = options.quick
    ? { warmupMs: 100, windowMs: 15, windows: 4, threeWindows: 4, allocWindows: 3 }
    : { warmupMs: 400, windowMs: 60, windows: 10, threeWindows: 8, allocWindows: 5 };
  const graphs = new Map<CrowdGraphKind, AnimGraph>();
  const pending: string[] = [];
  const cases = ALL_CASES.filter((def) => {
    if (!options.cases.includes(def.name)) return false;
    if (graphs.has(def.kind)) return true;
    try {
      graphs.set(def.kind, buildCrowdGraph(def.kind));
      return true;
    } catch (error) {
      pending.push(pendingNote(def, error));
      return false;
    }
  });
  const kinds = [...graphs.keys()];
  if (kinds.length === 0) throw new Error(`no case to run:\n${pending.join('\n')}`);
  const threeClips = options.three
    ? new Map(kinds.map((kind) => {
      const bindings = graphs.get(kind)!.clipBindings;
      return [kind, [makeThreeClip(bindings.get('clipA')!.clip), makeThreeClip(bindings.get('clipB')!.clip)] as const];
    }))
    : null;
  const boneCount = graphs.get(kinds[0])!.skeleton.boneCount;
  const started = performance.now();

  printHeader(boneCount, options, budget, options.three ? (await import('three')).REVISION : null);
  warmUpCases(cases, budget, graphs, threeClips);

  const results: CaseResult[] = [];
  const sites: Record<string, AllocationSite[]> = {};
  const profiles: string[] = [];
  const threeDiffs = new Map<string, number>();
  for (const count of options.counts) {
    for (const def of cases) {
      const before = cacheProbe();
      const { result, crowd } = await runCase(def, count, budget, graphs, threeClips, threeDiffs, options.workers);
      result.cacheProbeNs = { before, after: cacheProbe() };
      results.push(result);
      console.log(formatRow(result));
      if (options.allocProfile) {
        // Profile the warm crowd right away, while the optimised code is this case's.
        const frames = Math.max(10, Math.min(result.framesPerWindow * 2, 60));
        const found = await allocationSites(crowd, frames);
        sites[`${def.name}/${count}`] = found.filter((site) => site.stack.some((f) => !f.includes('node:') && !f.includes('(native)') && !f.startsWith('allocationSites ')));
        profiles.push(...profileLines(def.name, count, result, sites[`${def.name}/${count}`]));
      }
    }
  }
  for (const line of pending) console.log(line);
  printThreaded(results);
  const seconds = (performance.now() - started) / 1000;
  printNotes(options, budget, seconds, windowOverhead());
  printAllocating(results, options.allocProfile);
  printProfiles(profiles);
  // A pose that should be bit-identical and is not fails the run (npm run bench names it), after the tables.
  const failures = bitIdentityFailures(results, cases);
  if (failures.length > 0) {
    console.error(`Poses that must be bit-identical are not:\n  ${failures.join('\n  ')}`);
    process.exitCode = 1;
  }

  if (options.json !== null) {
    const out = {
      bench: 'crowd',
      node: process.version,
      quick: options.quick,
      boneCount,
      budget,
      measurementOverheadBytes: windowOverhead(),
      seconds,
      results,
      pending,
      allocationSites: sites,
    };
    // Through the CLI's output file: the whole report or the file as it was, never a truncated one.
    writeOutputFile(options.json, `${JSON.stringify(out, null, 2)}\n`);
    console.log(`wrote ${options.json}`);
  }
}

await main();
