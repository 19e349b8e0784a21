/**
 * The three.js reference of the crowd bench: the same clips as THREE.AnimationClips, one
 * THREE.AnimationMixer per character on its own hierarchy of 65 THREE.Bone objects (the bench
 * skeleton's names, parents and reference transforms), advanced 1/60 s per frame like animgraph.
 *
 * - clips: one VectorKeyframeTrack (`bone.position`) and one QuaternionKeyframeTrack
 *   (`bone.quaternion`) per bone, linear interpolation (three's quaternion tracks slerp), key times
 *   frame / frameRate. three.js stores times and values as Float32Array, so its poses agree with
 *   animgraph's to float precision, not bit for bit.
 * - 'player': one action playing clip A from the character's phase.
 * - 'blend': both actions playing, in a crossFadeTo from A to B held at its half-way point: the
 *   fade is scheduled over 2e9 s centred on the mixer's time 0 (mixer.time is set to -1e9 while
 *   crossFadeTo schedules it, then back to 0), so each action's effective weight is 0.5 (drifting
 *   by under 1e-9 over the bench) and three does the work of a crossfade every frame: both weight
 *   interpolants evaluated, both actions sampled and accumulated.
 * - component space: root.updateMatrixWorld(true) (every bone's local and world matrix).
 * - 'stride' (the nearest three.js has to StrideWarping with IK; three has no stride warping):
 *   the player, root.updateMatrixWorld(true), then per leg an IK target at the FK foot with its
 *   forward (z) offset from the thigh scaled by the stride scale, and examples/jsm's CCDIKSolver
 *   (one iteration, calf and thigh links) moving the foot there. Less work than StrideWarping
 *   (no pelvis adjustment, no thigh correction, no leg-length clamp), so a lower bound on three's cost.
 */
import * as THREE from 'three';
import { CCDIKSolver, type IK } from 'three/examples/jsm/animation/CCDIKSolver.js';
import type { Clip } from '../runtime/core/clip.ts';
import type { Skeleton } from '../runtime/core/skeleton.ts';

export type ThreeCrowdMode = 'player' | 'blend' | 'stride';

/** The same keys as a three.js clip: a position and a quaternion track per animated bone. */
export function makeThreeClip(clip: Clip): THREE.AnimationClip {
  const n = clip.tracks.length;
  const frames = clip.frameCount;
  const times = new Float32Array(frames);
  for (let f = 0; f < frames; f++) times[f] = f / clip.frameRate;
  const tracks: THREE.KeyframeTrack[] = [];
  clip.tracks.forEach((track, t) => {
    if (track.translation) {
      const values = new Float32Array(frames * 3);
      for (let f = 0; f < frames; f++) for (let k = 0; k < 3; k++) values[f * 3 + k] = clip.translations[(f * n + t) * 3 + k];
      tracks.push(new THREE.VectorKeyframeTrack(`${track.bone}.position`, times, values, THREE.InterpolateLinear));
    }
    if (track.rotation) {
      const values = new Float32Array(frames * 4);
      for (let f = 0; f < frames; f++) for (let k = 0; k < 4; k++) values[f * 4 + k] = clip.rotations[(f * n + t) * 4 + k];
      tracks.push(new THREE.QuaternionKeyframeTrack(`${track.bone}.quaternion`, times, values, THREE.InterpolateLinear));
    }
    if (track.scale) throw new Error('makeThreeClip: the bench clips have no scale tracks');
  });
  return new THREE.AnimationClip(clip.name, clip.duration, tracks);
}

/** A character's bones in skeleton order, parented as the skeleton says, at the reference pose. */
export function makeThreeBones(skeleton: Skeleton): THREE.Bone[] {
  const ref = skeleton.referencePose;
  const bones: THREE.Bone[] = [];
  for (let i = 0; i < skeleton.boneCount; i++) {
    const bone = new THREE.Bone();
    bone.name = skeleton.boneNames[i];
    bone.position.set(ref.translations[i * 3], ref.translations[i * 3 + 1], ref.translations[i * 3 + 2]);
    bone.quaternion.set(ref.rotations[i * 4], ref.rotations[i * 4 + 1], ref.rotations[i * 4 + 2], ref.rotations[i * 4 + 3]);
    bone.scale.set(ref.scales[i * 3], ref.scales[i * 3 + 1], ref.scales[i * 3 + 2]);
    const parent = skeleton.parents[i];
    if (parent >= 0) bones[parent].add(bone);
    bones.push(bone);
  }
  return bones;
}

/** Held half-way crossfade: see the file comment. */
const FADE_HALF_SPAN = 1e9;

interface StrideLeg {
  thigh: THREE.Bone;
  foot: THREE.Bone;
  target: THREE.Object3D;
}

export interface ThreeCrowdOptions {
  mode: ThreeCrowdMode;
  component: boolean;
  /** Stride mode: forward scale of each foot's offset from its thigh (default 1.3). */
  strideScale?: number;
  /** Stride mode: the legs as [thigh, calf, foot] bone names. */
  legs?: readonly (readonly [string, string, string])[];
}

export class ThreeCrowd {
  readonly count: number;
  readonly mixers: THREE.AnimationMixer[] = [];
  readonly roots: THREE.Bone[] = [];
  readonly bones: THREE.Bone[][] = [];
  private readonly solvers: CCDIKSolver[] = [];
  private readonly legs: StrideLeg[][] = [];
  private readonly dt: number;
  private readonly strideScale: number;
  private readonly mode: ThreeCrowdMode;
  private readonly component: boolean;

  constructor(
    skeleton: Skeleton,
    clipA: THREE.AnimationClip,
    clipB: THREE.AnimationClip,
    count: number,
    phases: Float64Array,
    dt: number,
    options: ThreeCrowdOptions,
  ) {
    this.count = count;
    this.dt = dt;
    this.mode = options.mode;
    this.component = options.component;
    this.strideScale = options.strideScale ?? 1.3;
    for (let c = 0; c < count; c++) {
      const bones = makeThreeBones(skeleton);
      const root = bones[0];
      const mixer = new THREE.AnimationMixer(root);
      const a = mixer.clipAction(clipA);
      a.time = phases[c * 2];
      a.play();
      if (options.mode === 'blend') {
        const b = mixer.clipAction(clipB);
        b.time = phases[c * 2 + 1];
        b.play();
        mixer.time = -FADE_HALF_SPAN;
        a.crossFadeTo(b, 2 * FADE_HALF_SPAN, false);
        mixer.time = 0;
      }
      if (options.mode === 'stride') {
        const legs: StrideLeg[] = [];
        const iks: IK[] = [];
        const all: THREE.Object3D[] = [...bones];
        for (const [thigh, calf, foot] of options.legs ?? []) {
          const index = (name: string): number => {
            const i = skeleton.indexOf(name);
            if (i < 0) throw new Error(`ThreeCrowd: no bone '${name}'`);
            return i;
          };
          const target = new THREE.Object3D(); // no parent: its matrixWorld is in the root's space
          all.push(target);
          legs.push({ thigh: bones[index(thigh)], foot: bones[index(foot)], target });
          iks.push({ target: all.length - 1, effector: index(foot), links: [{ index: index(calf) }, { index: index(thigh) }], iteration: 1 });
        }
        // CCDIKSolver reads only mesh.skeleton.bones.
        this.solvers.push(new CCDIKSolver({ skeleton: { bones: all } } as unknown as THREE.SkinnedMesh, iks));
        this.legs.push(legs);
      }
      this.mixers.push(mixer);
      this.roots.push(root);
      this.bones.push(bones);
    }
  }

  frames(frameCount: number): void {
    const mixers = this.mixers, roots = this.roots, n = this.count, dt = this.dt;
    for (let f = 0; f < frameCount; f++) {
      if (this.mode === 'stride') {
        for (let c = 0; c < n; c++) {
          mixers[c].update(dt);
          roots[c].updateMatrixWorld(true);
          this.placeTargets(c);
          this.solvers[c].update();
        }
      } else if (this.component) {
        for (let c = 0; c < n; c++) {
          mixers[c].update(dt);
          roots[c].updateMatrixWorld(true);
        }
      } else {
        for (let c = 0; c < n; c++) mixers[c].update(dt);
      }
    }
  }

  /** Each leg's target: the FK foot, its z offset from the thigh scaled by the stride scale. */
  private placeTargets(c: number): void {
    const legs = this.legs[c];
    const s = this.strideScale;
    for (let i = 0; i < legs.length; i++) {
      const leg = legs[i];
      const f = leg.foot.matrixWorld.elements, h = leg.thigh.matrixWorld.elements;
      leg.target.position.set(f[12], f[13], h[14] + (f[14] - h[14]) * s);
      leg.target.updateMatrixWorld();
    }
  }
}
