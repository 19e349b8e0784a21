/**
 * The crowd bench's correctness checks: each reference's poses against animgraph's after the same
 * frames, so a ratio is only reported for sides that really do the same work.
 */
import type * as THREE from 'three';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import { createCrowd, crowdPhases } from '../crowd-cases.ts';
import { ThreeCrowd } from '../three-crowd.ts';
import { DT, type CaseDefinition } from './options.ts';
import type { CaseResult } from './run-case.ts';
import type { PeerCrowd } from './peer.ts';
import { GraphCrowd, type ThreadedCrowd } from './runners.ts';

/**
 * The rows that break a promise of bit-identity, each as "case at N characters: what (max diff)":
 * a Crowd against the batch (every case), the hand-written loop against a double-precision batch.
 */
export function bitIdentityFailures(results: readonly CaseResult[], definitions: readonly CaseDefinition[]): string[] {
  const failures: string[] = [];
  for (const r of results) {
    const where = `${r.case} at ${r.characters} characters`;
    if (r.threaded !== null && r.threaded.maxDifference !== 0) failures.push(`${where}: the Crowd against the batch (${r.threaded.maxDifference.toExponential(1)})`);
    const double = (definitions.find((d) => d.name === r.case)?.precision ?? 'double') === 'double';
    if (double && r.peerKind === 'hand-written' && r.peer !== null && r.peer.maxDifference !== 0) failures.push(`${where}: the batch against the hand-written loop (${r.peer.maxDifference.toExponential(1)})`);
  }
  return failures;
}

/** Largest difference between the Crowd's poses and the GraphCrowd's after the same frames (0: bit-identical). */
export function crowdDifference(graph: GraphCrowd, threaded: ThreadedCrowd, component: boolean): number {
  const crowd = threaded.crowd;
  const n = crowd.boneCount;
  let max = 0;
  graph.instances.forEach((instance, i) => {
    const cs = instance.componentPose(); // the last evaluated pose, not evaluated again
    const mine = component ? cs.rotations : cs.local.rotations;
    const theirs = component ? crowd.componentRotations : crowd.rotations;
    for (let k = 0; k < n * 4; k++) max = Math.max(max, Math.abs(mine[k] - theirs[i * n * 4 + k]));
  });
  return max;
}

/** The largest absolute difference between animgraph's poses and the peer's, over all characters. */
export function maxDifference(graph: GraphCrowd, peer: PeerCrowd, component: boolean): number {
  let max = 0;
  const n = peer.boneCount;
  const diff = (a: Float64Array, b: Float64Array, offset: number): void => {
    for (let i = 0; i < a.length; i++) {
      const d = Math.abs(a[i] - b[offset + i]);
      if (!(d <= max)) max = d; // NaN propagates as a huge difference
    }
  };
  graph.instances.forEach((instance, c) => {
    if (component) {
      const cp = instance.componentPose();
      diff(cp.translations, peer.compT, c * n * 3);
      diff(cp.rotations, peer.compR, c * n * 4);
      diff(cp.scales, peer.compS, c * n * 3);
    } else {
      const pose = instance.evaluate();
      diff(pose.translations, peer.localT, c * n * 3);
      diff(pose.rotations, peer.localR, c * n * 4);
      diff(pose.scales, peer.localS, c * n * 3);
    }
  });
  return max;
}

/**
 * The largest absolute difference between two crowds' poses after the same frames (the 'lod' case:
 * interpolated against full-rate poses), local or component space.
 */
export function instancesDifference(a: GraphCrowd, b: GraphCrowd, component: boolean): number {
  let max = 0;
  a.instances.forEach((instance, c) => {
    const mine = component ? instance.componentPose() : instance.componentPose().local;
    const theirs = component ? b.instances[c].componentPose() : b.instances[c].componentPose().local;
    for (const key of ['translations', 'rotations', 'scales'] as const) {
      const x = mine[key], y = theirs[key];
      for (let i = 0; i < x.length; i++) {
        const d = Math.abs(x[i] - y[i]);
        if (!(d <= max)) max = d;
      }
    }
  });
  return max;
}

/**
 * The largest difference between animgraph's poses and three.js's for the same frames: local
 * translations and rotations (sign-aligned), or, with component space, every bone's component
 * translation against its matrixWorld. A small crowd of `count` characters run for `frames` frames.
 */
export function threeDifference(def: CaseDefinition, graph: AnimGraph, clips: readonly [THREE.AnimationClip, THREE.AnimationClip], count = 16, frames = 150): number {
  const phases = crowdPhases(count, graph.clipBindings.get('clipA')!.clip.duration, 99);
  const instances = createCrowd(graph, count, phases, def.component, def.precision);
  def.start?.(instances);
  const three = new ThreeCrowd(graph.skeleton, clips[0], clips[1], count, phases, DT, { mode: def.three.mode, component: def.three.component });
  const crowd = new GraphCrowd(instances, def.component);
  crowd.frames(frames);
  three.frames(frames);
  let max = 0;
  const at = (d: number): void => { if (!(d <= max)) max = d; };
  instances.forEach((instance, c) => {
    const bones = three.bones[c];
    if (def.component) {
      const t = instance.componentPose().translations;
      bones.forEach((bone, i) => {
        const e = bone.matrixWorld.elements;
        for (let k = 0; k < 3; k++) at(Math.abs(e[12 + k] - t[i * 3 + k]));
      });
    } else {
      const pose = instance.evaluate();
      const t = pose.translations, r = pose.rotations;
      bones.forEach((bone, i) => {
        const p = bone.position, q = bone.quaternion;
        at(Math.abs(p.x - t[i * 3])); at(Math.abs(p.y - t[i * 3 + 1])); at(Math.abs(p.z - t[i * 3 + 2]));
        const sign = q.x * r[i * 4] + q.y * r[i * 4 + 1] + q.z * r[i * 4 + 2] + q.w * r[i * 4 + 3] < 0 ? -1 : 1;
        at(Math.abs(sign * q.x - r[i * 4])); at(Math.abs(sign * q.y - r[i * 4 + 1]));
        at(Math.abs(sign * q.z - r[i * 4 + 2])); at(Math.abs(sign * q.w - r[i * 4 + 3]));
      });
    }
  });
  return max;
}
