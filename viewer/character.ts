/** A character on the page: its graph's instance, the frames it went through, the pose on screen. */
import { ComponentPose } from '../runtime/core/component-pose.ts';
import { Pose } from '../runtime/core/pose.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';
import type { AnimGraph, AnimGraphInstance } from '../runtime/graph/graph.ts';
import { integrateRootMotion, type UpAxis } from '../runtime/jobs/root-motion.ts';
import type { DebugNode } from '../runtime/node/node.ts';
import type { Figure } from './figures.ts';
import { state } from './state.ts';

const HISTORY = 600;

/** The last HISTORY frames (local pose, root transform, time, debug tree), for the scrubber. */
export class History {
  private readonly stride: number;
  private readonly poses: Float64Array;
  private readonly worlds = new Float64Array(HISTORY * 7);
  private readonly times = new Float64Array(HISTORY);
  private readonly trees: (DebugNode | null)[] = new Array<DebugNode | null>(HISTORY).fill(null);
  newest = -1;
  count = 0;

  constructor(private readonly boneCount: number) {
    this.stride = boneCount * 10;
    this.poses = new Float64Array(HISTORY * this.stride);
  }

  get oldest(): number { return this.newest - this.count + 1; }

  record(frame: number, time: number, pose: Pose, world: Float64Array, tree: DebugNode): void {
    const slot = frame % HISTORY, n = this.boneCount, at = slot * this.stride;
    this.poses.set(pose.translations, at);
    this.poses.set(pose.rotations, at + 3 * n);
    this.poses.set(pose.scales, at + 7 * n);
    this.worlds.set(world, slot * 7);
    this.times[slot] = time;
    this.trees[slot] = tree;
    this.newest = frame;
    this.count = Math.min(this.count + 1, HISTORY);
  }

  /** Copies frame `frame` into `pose` and `world`; returns its time. */
  read(frame: number, pose: Pose, world: Float64Array): number {
    const slot = frame % HISTORY, n = this.boneCount, at = slot * this.stride;
    pose.translations.set(this.poses.subarray(at, at + 3 * n));
    pose.rotations.set(this.poses.subarray(at + 3 * n, at + 7 * n));
    pose.scales.set(this.poses.subarray(at + 7 * n, at + 10 * n));
    world.set(this.worlds.subarray(slot * 7, slot * 7 + 7));
    return this.times[slot];
  }

  tree(frame: number): DebugNode | null { return this.trees[frame % HISTORY]; }
}

/** The pose on screen (the newest frame, or one the scrubber went back to): what the figure draws. */
export class DisplayedPose {
  readonly pose: Pose;
  readonly component: ComponentPose;
  readonly world = Float64Array.of(0, 0, 0, 0, 0, 0, 1);
  constructor(readonly skeleton: Skeleton) {
    this.pose = new Pose(skeleton.boneCount);
    this.component = new ComponentPose(skeleton);
  }
  componentPose(): ComponentPose { return this.component; }
  /** Recomputes the component pose after `pose` changed. */
  commit(): void {
    this.component.setFromLocal(this.pose);
    this.component.ensureAllComponent();
  }
}

export interface Character {
  graph: AnimGraph;
  instance: AnimGraphInstance;
  figure: Figure;
  history: History;
  displayed: DisplayedPose;
  world: Float64Array;
  up: UpAxis;
  frame: number;
  time: number;
  skeletonKey: string;
}

function isFiniteArray(a: Float64Array): boolean {
  for (let i = 0; i < a.length; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}

/** Advances the character by dt seconds and records the frame. */
export function simulate(c: Character, dt: number): void {
  c.instance.update(dt);
  integrateRootMotion(c.world, c.instance.rootMotion, c.up);
  const pose = c.instance.evaluate();
  if (c.history.count > 0) c.frame++;
  c.time += dt;
  if (state.finite && !(isFiniteArray(pose.translations) && isFiniteArray(pose.rotations) && isFiniteArray(pose.scales) && isFiniteArray(c.world))) {
    state.finite = false;
    console.warn(`animgraph view: frame ${c.frame} holds a non-finite number`);
  }
  c.history.record(c.frame, c.time, pose, c.world, c.instance.gatherDebug());
  state.frame = c.frame;
  state.root[0] = c.world[0];
  state.root[1] = c.world[1];
  state.root[2] = c.world[2];
}

export function upAxisOf(graph: AnimGraph): UpAxis {
  for (const binding of graph.clipBindings.values()) if (binding.clip.rootMotion) return binding.clip.rootMotion.up;
  return 'y';
}
