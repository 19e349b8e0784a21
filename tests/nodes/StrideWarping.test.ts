import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NodeRegistry } from '../../graphs/loader.ts';
import { checkGraphAsset, loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { builtInNodeTypes } from '../../nodes/index.ts';
import type { SequencePlayer } from '../../nodes/SequencePlayer.ts';
import type { ComponentPose } from '../../runtime/core/component-pose.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { LocalPoseNode, NO_LINKS, readVec3, type Link, type NodeType, type UpdateContext, type Vec3Property } from '../../runtime/node/node.ts';
import { poseCopy, type Pose } from '../../runtime/core/pose.ts';
import { rootMotionDelta } from '../../runtime/jobs/root-motion.ts';
import { runGraph, type RunResult } from '../../host/runner.ts';
import { sampleSkeleton } from '../../runtime/import/sample-data.ts';
import { bipedInstance, expectClose, hasNaN } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';
import { graphJsonSchema } from '../../editor-meta/schema.ts';

const LEGS = {
  leftThigh: 'CC_Base_L_Thigh', leftCalf: 'CC_Base_L_Calf', leftFoot: 'CC_Base_L_Foot',
  rightThigh: 'CC_Base_R_Thigh', rightCalf: 'CC_Base_R_Calf', rightFoot: 'CC_Base_R_Foot',
};

function cmuGraph(file: string, warp: Record<string, unknown> | null, parameters: Record<string, unknown> = {}): AnimGraph {
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: { bvh: `${CMU}${file}.bvh` },
    clips: { walk: { source: `${CMU}${file}.bvh`, frames: [1, -1], rootMotion: true } },
    parameters,
    nodes: {
      p: { type: 'SequencePlayer', properties: { clip: 'walk', loop: false } },
      ...(warp ? { w: { type: 'StrideWarping', inputs: { pose: 'p' }, properties: { pelvisBone: 'CC_Base_Pelvis', maxScale: 3, ...LEGS, ...warp } } } : {}),
    },
    output: warp ? 'w' : 'p',
  });
}

/** The clip's overall direction of travel in the character's frame at its start. */
function travelDirection(graph: AnimGraph): number[] {
  const clip = graph.clipBindings.get('walk')!.clip;
  const rm = clip.rootMotion!, n = clip.frameCount;
  const dx = rm.translations[(n - 1) * 3] - rm.translations[0], dz = rm.translations[(n - 1) * 3 + 2] - rm.translations[2];
  const c = Math.cos(-rm.headings[0]), s = Math.sin(-rm.headings[0]);
  const d = [c * dx + s * dz, 0, -s * dx + c * dz];
  const len = Math.hypot(d[0], d[2]);
  return [d[0] / len, 0, d[2] / len];
}

/** World position of a bone: the frame's root transform applied to its component-space position. */
function world(run: RunResult, f: number, bone: number): number[] {
  const root = run.frames[f].root!, [x, y, z] = run.frames[f].component![bone];
  const [qx, qy, qz, qw] = root.slice(3);
  const tx = 2 * (qy * z - qz * y), ty = 2 * (qz * x - qx * z), tz = 2 * (qx * y - qy * x);
  return [root[0] + x + qw * tx + (qy * tz - qz * ty), root[1] + y + qw * ty + (qz * tx - qx * tz), root[2] + z + qw * tz + (qx * ty - qy * tx)];
}

/** Stance phases of a foot, from the data: low (near its lowest) and still in world space. */
function stancePhases(run: RunResult, foot: number, fps: number): [number, number][] {
  const heights = run.frames.map((fr) => fr.component![foot][1]);
  const floor = Math.min(...heights);
  const planted = run.frames.map((_, f) => {
    if (f === 0) return false;
    const a = world(run, f - 1, foot), b = world(run, f, foot);
    return heights[f] < floor + 4 && Math.hypot(b[0] - a[0], b[2] - a[2]) * fps < 25;
  });
  const phases: [number, number][] = [];
  for (let f = 0; f < planted.length; f++) {
    if (!planted[f]) continue;
    let e = f;
    while (e + 1 < planted.length && planted[e + 1]) e++;
    if (e - f >= 8) phases.push([f, e]);
    f = e;
  }
  return phases;
}

describeWithData('StrideWarping on CMU walks', () => {
  it('keeps planted feet still in world space when the root moves s times faster (fromRootMotion)', () => {
    const file = '007_04';
    const plainGraph = cmuGraph(file, null);
    const clip = plainGraph.clipBindings.get('walk')!.clip;
    const rm = clip.rootMotion!, n = clip.frameCount, fps = clip.frameRate;
    const distance = Math.hypot(rm.translations[(n - 1) * 3] - rm.translations[0], rm.translations[(n - 1) * 3 + 2] - rm.translations[2]);
    const clipSpeed = distance / clip.duration;
    const plain = runGraph(plainGraph, { frames: n, fps, debug: false });
    const report: string[] = [];
    for (const s of [1.3, 1.6]) {
      const speed = { speed: { type: 'float', default: s * clipSpeed } };
      const warp = { mode: 'fromRootMotion', locomotionSpeed: { param: 'speed' }, minRootMotionSpeed: 5 };
      const warped = runGraph(cmuGraph(file, warp, speed), { frames: n, fps, debug: false });
      const sliding = runGraph(cmuGraph(file, { ...warp, alpha: 0 }, speed), { frames: n, fps, debug: false });
      // The root covers the clip's path s times over: from the first frame, the speed is measured
      // over the whole clip rather than averaged up from the first frame's.
      const travelled = Math.hypot(warped.frames[n - 1].root![0], warped.frames[n - 1].root![2]);
      expect(travelled / ((n - 1) / fps) / (s * clipSpeed)).toBeCloseTo(1, 6);
      let slideWarped = 0, slidePlain = 0, count = 0;
      for (const side of ['L', 'R']) {
        const foot = plain.bones.indexOf(`CC_Base_${side}_Foot`);
        for (const [a, b] of stancePhases(plain, foot, fps)) {
          for (let f = a + 1; f <= b; f++) {
            const speedOf = (run: RunResult) => {
              const p = world(run, f - 1, foot), q = world(run, f, foot);
              return Math.hypot(q[0] - p[0], q[2] - p[2]) * fps;
            };
            slideWarped += speedOf(warped);
            slidePlain += speedOf(sliding);
            count++;
          }
        }
      }
      slideWarped /= count;
      slidePlain /= count;
      report.push(`${file} root ${s}x: planted-foot slide ${slidePlain.toFixed(1)} cm/s without warping, ${slideWarped.toFixed(1)} cm/s with`);
      expect(slideWarped).toBeLessThan(slidePlain / 2);
    }
    console.log(report.join('\n'));
  });

  for (const file of ['007_04', '002_01']) {
    it(`scales each stance by s, keeps heights and bone lengths, lowers the pelvis (${file})`, () => {
      const plainGraph = cmuGraph(file, null);
      const fps = plainGraph.clipBindings.get('walk')!.clip.frameRate;
      const frames = plainGraph.clipBindings.get('walk')!.clip.frameCount;
      const dir = travelDirection(plainGraph);
      const plain = runGraph(plainGraph, { frames, fps, debug: false });
      const bones = plain.bones;
      const pelvis = bones.indexOf('CC_Base_Pelvis');
      const report: string[] = [];
      try {
      for (const s of [0.7, 1.3, 1.6]) {
        // No smoothing (stiffness 0) nor speed cap: the pelvis where the warp needs it on every frame, so the stance
        // geometry is the warp's alone. The default spring lets a trailing foot rise early at
        // heel-off instead (StrideWarping-captures.test.ts measures it).
        const warped = runGraph(cmuGraph(file, { strideScale: s, strideDirection: dir, pelvisStiffness: 0, pelvisMaxSpeed: 0 }), { frames, fps, debug: false });
        for (const side of ['L', 'R']) {
          const foot = bones.indexOf(`CC_Base_${side}_Foot`), calf = bones.indexOf(`CC_Base_${side}_Calf`), thigh = bones.indexOf(`CC_Base_${side}_Thigh`);
          const along = (run: RunResult, f: number) => run.frames[f].component![foot][0] * dir[0] + run.frames[f].component![foot][2] * dir[2];
          const phases = stancePhases(plain, foot, fps);
          expect(phases.length).toBeGreaterThan(0);
          for (const [a, b] of phases) {
            let dhMax = 0;
            const ratio = (along(warped, b) - along(warped, a)) / (along(plain, b) - along(plain, a));
            for (let f = a; f <= b; f++) {
              dhMax = Math.max(dhMax, Math.abs(warped.frames[f].component![foot][1] - plain.frames[f].component![foot][1]));
            }
            report.push(`${file} s=${s} ${side} stance ${a}-${b}: ratio ${ratio.toFixed(3)}, height change up to ${dhMax.toFixed(2)} cm`);
            expect(Math.abs(ratio - s)).toBeLessThan(0.05 * s);
            expect(dhMax).toBeLessThan(1);
          }
          // Bone lengths: thigh to calf and calf to foot, every frame.
          for (let f = 0; f < frames; f += 7) {
            const len = (run: RunResult, i: number, j: number) => {
              const p = run.frames[f].component![i], q = run.frames[f].component![j];
              return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
            };
            expect(len(warped, thigh, calf)).toBeCloseTo(len(plain, thigh, calf), 6);
            expect(len(warped, calf, foot)).toBeCloseTo(len(plain, calf, foot), 6);
          }
        }
        const meanPelvis = (run: RunResult) => run.frames.reduce((sum, fr) => sum + fr.component![pelvis][1], 0) / frames;
        const drop = meanPelvis(warped) - meanPelvis(plain);
        report.push(`${file} s=${s}: mean pelvis height change ${drop.toFixed(2)} cm`);
        if (s > 1) expect(drop).toBeLessThan(-0.5);
      }
      } finally {
        console.log(report.join('\n'));
      }
    });
  }
});

/**
 * `pose` is `input` (every bone to 1e-6 cm) but for the knees, which move less than 0.2 cm: a knee
 * within a few degrees of straight bends toward the learned side (or, before any is learned, the
 * direction of travel), not toward its input's offset of a few millimetres, which says nothing
 * of the way it bends.
 */
function expectInputButKnees(pose: ComponentPose, input: ComponentPose): void {
  const names = input.skeleton.boneNames;
  let knees = 0;
  for (let i = 0; i < input.translations.length; i++) {
    const bone = names[Math.floor(i / 3)], difference = Math.abs(pose.translations[i] - input.translations[i]);
    if (/^calf_/.test(bone)) knees = Math.max(knees, difference);
    else expect(difference, bone).toBeLessThan(1e-6);
  }
  expect(knees).toBeLessThan(0.2);
}

describe('StrideWarping', () => {
  const warp = (properties: Record<string, unknown>) => bipedInstance({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    w: {
      type: 'StrideWarping', inputs: { pose: 'walk' },
      properties: {
        pelvisBone: 'pelvis', leftThigh: 'thigh_l', leftCalf: 'calf_l', leftFoot: 'foot_l',
        rightThigh: 'thigh_r', rightCalf: 'calf_r', rightFoot: 'foot_r', ...properties,
      },
    },
  }, 'w', { s: { type: 'float', default: 1 }, dir: { type: 'vec3', default: [0, 0, 1] } });

  it('leaves the pose alone at scale 1, and reports scale, scale origins and the pelvis in debug', () => {
    const plain = bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'walk');
    const g = warp({ strideScale: { param: 's' }, scaleSmoothingTime: 0 });
    plain.update(0.3);
    g.update(0.3);
    const a = plain.componentPose(), b = g.componentPose();
    expectInputButKnees(b, a);
    g.setParameter('s', 1.4);
    g.update(0.1);
    g.evaluate();
    const line = g.gatherDebug().children[0];
    expect(line.values?.strideScale).toBe(1.4);
    expect(line.values).toHaveProperty('scaleOrigin.foot_l');
    expect((line.values?.pelvisOffset as number[])[1]).toBeLessThan(0);
    expect(line.description).toMatch(/^Alpha: 100.0% Scale: 1.400 foot_l origin \(/);
  });

  it('clamps the scale to its range and survives degenerate directions and parameters', () => {
    const g = warp({ strideScale: { param: 's' }, strideDirection: { param: 'dir' }, maxScale: 1.5 });
    g.setParameter('s', 9);
    g.update(0.1);
    g.evaluate();
    expect(g.gatherDebug().children[0].values?.strideScale).toBe(1.5);
    for (const dir of [[0, 0, 0], [0, 1, 0], [0, -5, 0]]) {
      g.setParameter('dir', dir);
      g.update(0.1);
      const p = g.evaluate();
      expect(hasNaN(p.translations) || hasNaN(p.rotations)).toBe(false);
    }
    g.update(0);
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
  });

  it('reports unknown leg bones at load with their paths', () => {
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        w: { type: 'StrideWarping', inputs: { pose: 'walk' }, properties: { pelvisBone: 'pelvis', leftThigh: 'thigh_l', leftCalf: 'shin_l', leftFoot: 'foot_l', rightThigh: 'thigh_r', rightCalf: 'calf_r' } },
      },
      output: 'w',
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.path).sort()).toEqual(['$.nodes.w.properties.leftCalf', '$.nodes.w.properties.rightFoot']);
  });
});

// ---------------------------------------------------------------------------------------------
// Options, steps and root motion, on the built-in biped. A SequenceEvaluator holds the walk at
// 0.3 s (left foot ahead, right behind), so the input pose is the same every frame.

const BIPED_LEGS = {
  pelvisBone: 'pelvis', leftThigh: 'thigh_l', leftCalf: 'calf_l', leftFoot: 'foot_l',
  rightThigh: 'thigh_r', rightCalf: 'calf_r', rightFoot: 'foot_r',
};
const HELD = { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: 0.3 } };
type V3 = [number, number, number];

function heldWarp(properties: Record<string, unknown>, parameters: Record<string, unknown> = {}): AnimGraphInstance {
  return bipedInstance({ src: HELD, w: { type: 'StrideWarping', inputs: { pose: 'src' }, properties: { ...BIPED_LEGS, ...properties } } }, 'w', parameters);
}

/** The held input pose in component space (what the node starts from). */
function heldPose(): ComponentPose {
  const g = bipedInstance({ src: HELD }, 'src');
  g.update(0);
  return g.componentPose();
}

const at = (cs: ComponentPose, bone: string): V3 => {
  const i = cs.skeleton.indexOf(bone);
  return [cs.translations[i * 3], cs.translations[i * 3 + 1], cs.translations[i * 3 + 2]];
};
const rotationOf = (cs: ComponentPose, bone: string): number[] => {
  const i = cs.skeleton.indexOf(bone);
  return Array.from(cs.rotations.subarray(i * 4, i * 4 + 4));
};
const sub = (a: V3, b: V3): V3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a: V3, b: V3): V3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const times = (a: V3, k: number): V3 => [a[0] * k, a[1] * k, a[2] * k];
const dot = (a: V3, b: V3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const length = (a: V3) => Math.sqrt(dot(a, a));
const unit = (a: V3): V3 => times(a, 1 / length(a));
/** The warp's debug values; evaluates first, since the scale origins and pelvis are found then. */
const values = (g: AnimGraphInstance) => {
  g.componentPose();
  return g.gatherDebug().children[0].values!;
};
/** Quaternion equality up to sign. */
const expectSameRotation = (a: ArrayLike<number>, b: ArrayLike<number>, tolerance: number) => {
  const sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1 : 1;
  expectClose(Array.from(a, (x) => x * sign), b, tolerance);
};

/**
 * Step 2 by hand: the foot's scale origin (the thigh's gravity line meeting the floor plane through
 * the foot, projected on the plane through it normal to the floor-tangent stride direction) and the
 * warped foot.
 */
function warpedFoot(thigh: V3, foot: V3, scale: number, normal: V3, gravity: V3, stride: V3): { origin: V3; warped: V3 } {
  const n = unit(normal), g = unit(gravity);
  const d = unit(sub(stride, times(n, dot(stride, n))));
  const o = add(thigh, times(g, dot(sub(foot, thigh), n) / dot(g, n)));
  const origin = sub(foot, times(d, dot(sub(foot, o), d)));
  return { origin, warped: add(origin, times(sub(foot, origin), scale)) };
}

const UP: V3 = [0, 1, 0], DOWN: V3 = [0, -1, 0], FORWARD: V3 = [0, 0, 1];

describe('StrideWarping options', () => {
  it('at full alpha warps the pose in place to what the alpha blend of its bone transforms gives', () => {
    // Alpha 1 edits the pose itself; just under 1 - ZERO_WEIGHT the base class blends the node's
    // bone transforms (computed on a copy) into the input. The two must agree to the blend's share.
    const warped = (alpha: number) => {
      const g = heldWarp({ strideScale: 1.5, alpha });
      g.update(0);
      return g.componentPose();
    };
    const inPlace = warped(1), blended = warped(1 - 2e-5), input = heldPose();
    for (const bone of ['pelvis', 'thigh_l', 'calf_l', 'foot_l', 'ball_l', 'thigh_r', 'foot_r', 'spine_01']) {
      const moved = length(sub(at(inPlace, bone), at(input, bone)));
      expectClose(at(inPlace, bone), at(blended, bone), 1e-4 * Math.max(moved, 1));
      expectSameRotation(rotationOf(inPlace, bone), rotationOf(blended, bone), 1e-4);
    }
    // The warp does move the feet (so the comparison above is not of two unwarped poses).
    expect(length(sub(at(inPlace, 'foot_l'), at(input, 'foot_l')))).toBeGreaterThan(1);
  });

  it('smooths the scale exponentially with half-life scaleSmoothingTime', () => {
    const g = heldWarp({ strideScale: { param: 's' }, scaleSmoothingTime: 0.2 }, { s: { type: 'float', default: 1 } });
    g.update(0.05);
    expect(values(g).strideScale).toBe(1); // the first value is taken as it is
    g.setParameter('s', 2);
    for (let k = 1; k <= 8; k++) {
      g.update(0.05);
      // After t seconds the remaining distance to the target is 0.5^(t / half-life).
      expect(values(g).strideScale).toBeCloseTo(2 - 0.5 ** ((k * 0.05) / 0.2), 12);
    }
    expect(values(g).strideScale).toBeCloseTo(1.75, 12); // two half-lives: three quarters of the way
  });

  it('holds bound scales to [0, 1e6], so scales near the largest double cannot put the feet at Infinity', () => {
    // strideScale and maxScale of 1e307 warped the feet to ±Infinity and made the pelvis and pose NaN.
    const g = heldWarp({ strideScale: { param: 's' }, maxScale: { param: 'max' }, minScale: { param: 'min' }, scaleSmoothingTime: 0 },
      { s: { type: 'float', default: 1e307 }, max: { type: 'float', default: 1.7e308 }, min: { type: 'float', default: 0 } });
    g.update(0.1);
    expect(values(g).strideScale).toBe(1e6);
    const pose = g.componentPose();
    expect(hasNaN(pose.translations) || hasNaN(pose.rotations)).toBe(false);
    g.setParameter('min', 1e300);
    g.update(0.1);
    expect(values(g).strideScale).toBe(1e6);
    expect(hasNaN(g.componentPose().translations)).toBe(false);
    // Literals past the range are load problems.
    const asset = { format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: { src: HELD, w: { type: 'StrideWarping', inputs: { pose: 'src' }, properties: { ...BIPED_LEGS, maxScale: 1e7 } } }, output: 'w' };
    const result = checkGraphAsset(asset);
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual(['$.nodes.w.properties.maxScale']);
  });

  it('clamps the scale to minScale and warps the feet by the clamped scale', () => {
    const input = heldPose();
    const g = heldWarp({ strideScale: 0.1, minScale: 0.6, adjustPelvis: false, correctThighs: false });
    g.update(0.1);
    expect(values(g).strideScale).toBe(0.6);
    for (const side of ['l', 'r']) {
      const { origin, warped } = warpedFoot(at(input, `thigh_${side}`), at(input, `foot_${side}`), 0.6, UP, DOWN, FORWARD);
      expectClose(values(g)[`scaleOrigin.foot_${side}`] as number[], origin, 1e-9);
      expectClose(at(g.componentPose(), `foot_${side}`), warped, 1e-6);
      // Only the offset along the stride changes: 0.6 of it, heights and sideways positions kept.
      expect(warped[2] - origin[2]).toBeCloseTo((at(input, `foot_${side}`)[2] - origin[2]) * 0.6, 9);
      expect(warped[1]).toBeCloseTo(at(input, `foot_${side}`)[1], 9);
    }
  });

  it('blends the pelvis adjustment in by pelvisAlpha (bindable)', () => {
    const input = heldPose();
    const g = heldWarp({ strideScale: 1.3, pelvisAlpha: { param: 'a' } }, { a: { type: 'float', default: 1 } });
    g.update(0.1);
    const full = values(g).pelvisOffset as V3;
    expect(full[1]).toBeLessThan(-1);
    expectClose(at(g.componentPose(), 'pelvis'), add(at(input, 'pelvis'), full), 1e-9);
    g.setParameter('a', 0.3);
    g.update(0.1);
    expectClose(values(g).pelvisOffset as V3, times(full, 0.3), 1e-9);
    expectClose(at(g.componentPose(), 'pelvis'), add(at(input, 'pelvis'), times(full, 0.3)), 1e-9);
  });

  it('springs the pelvis adjustment toward its target: a mass on a spring, solved exactly (critically, under- and overdamped)', () => {
    const target = heldWarp({ strideScale: 1.5 });
    target.update(0.05);
    const T = values(target).pelvisOffset as V3;
    expect(T[1]).toBeLessThan(-1);
    // From rest at 0 toward a constant target T, with ω = √(stiffness / mass) and damping ratio ζ:
    // the offset is T (1 - u(t)), u the spring's own decay from 1 at rest.
    const decay = (stiffness: number, zeta: number, mass: number, t: number) => {
      const w = Math.sqrt(stiffness / mass);
      if (zeta === 1) return Math.exp(-w * t) * (1 + w * t);
      if (zeta < 1) {
        const wd = w * Math.sqrt(1 - zeta * zeta);
        return Math.exp(-zeta * w * t) * (Math.cos(wd * t) + ((zeta * w) / wd) * Math.sin(wd * t));
      }
      const r1 = -w * (zeta - Math.sqrt(zeta * zeta - 1)), r2 = -w * (zeta + Math.sqrt(zeta * zeta - 1));
      return (r2 * Math.exp(r1 * t) - r1 * Math.exp(r2 * t)) / (r2 - r1);
    };
    for (const [stiffness, zeta, mass] of [[40, 1, 1], [100, 1, 2.5], [60, 0.4, 1], [30, 2, 1]]) {
      const g = heldWarp({ strideScale: { param: 's' }, scaleSmoothingTime: 0, pelvisStiffness: stiffness, pelvisDamping: zeta, pelvisMass: mass, pelvisMaxSpeed: 0 }, { s: { type: 'float', default: 1 } });
      g.update(0.05);
      expectClose(values(g).pelvisOffset as V3, [0, 0, 0], 1e-9); // scale 1 needs no adjustment
      g.setParameter('s', 1.5);
      let overshoot = 0;
      for (let k = 1; k <= 40; k++) {
        g.update(0.05);
        const offset = values(g).pelvisOffset as V3;
        expectClose(offset, times(T, 1 - decay(stiffness, zeta, mass, k * 0.05)), 1e-9);
        overshoot = Math.max(overshoot, offset[1] / T[1] - 1);
      }
      // Only the underdamped spring passes its target.
      if (zeta < 1) expect(overshoot, `ζ ${zeta}`).toBeGreaterThan(0.1);
      else expect(overshoot, `ζ ${zeta}`).toBeLessThanOrEqual(1e-12);
    }
  });

  it('steps the spring by the frame\'s time, exactly: one 0.1 s frame is two of 0.05 s, the same in every run', () => {
    for (const zeta of [0.5, 1, 3]) {
      const props = { strideScale: { param: 's' }, scaleSmoothingTime: 0, pelvisDamping: zeta, pelvisMaxSpeed: 0 };
      const [long, short, again] = [0, 1, 2].map(() => heldWarp(props, { s: { type: 'float', default: 1 } }));
      for (const g of [long, short, again]) {
        g.update(0.05);
        values(g);
        g.setParameter('s', 1.5);
      }
      for (let k = 0; k < 8; k++) {
        long.update(0.1);
        for (const g of [short, again]) {
          g.update(0.05);
          values(g);
          g.update(0.05);
        }
        expectClose(values(short).pelvisOffset as V3, values(long).pelvisOffset as V3, 1e-9);
        expect(values(again).pelvisOffset).toEqual(values(short).pelvisOffset);
      }
    }
  });

  it('springs the pelvis by the time updated since it last moved: updates without an evaluate add up, a second evaluate adds none', () => {
    const props = { strideScale: { param: 's' }, scaleSmoothingTime: 0, pelvisStiffness: 40, pelvisMaxSpeed: 0 };
    const [every, skipping] = [0, 1].map(() => heldWarp(props, { s: { type: 'float', default: 1 } }));
    for (const g of [every, skipping]) {
      g.update(0.05);
      values(g);
      g.setParameter('s', 1.5);
    }
    for (let k = 0; k < 6; k++) {
      every.update(0.1);
      // Two updates, then evaluated twice: the spring moves 0.1 s, as `every` does in one.
      skipping.update(0.05);
      skipping.update(0.05);
      values(skipping);
      skipping.evaluate();
      expectClose(values(skipping).pelvisOffset as V3, values(every).pelvisOffset as V3, 1e-12);
    }
    expect((values(every).pelvisOffset as V3)[2]).not.toBe(0);
  });

  it('adjusts the pelvis as written: toward each warped foot to its FK distance, pelvisIterations times, then down until both reach', () => {
    const input = heldPose();
    const P0 = at(input, 'pelvis');
    const feet = ['l', 'r'].map((side) => ({
      warped: warpedFoot(at(input, `thigh_${side}`), at(input, `foot_${side}`), 1.4, UP, DOWN, FORWARD).warped,
      reach: length(sub(at(input, `foot_${side}`), P0)),
    }));
    const expected = (iterations: number): V3 => {
      let P = P0;
      for (let it = 0; it < iterations; it++) {
        P = times(feet.reduce<V3>((sum, f) => add(sum, add(f.warped, times(unit(sub(P, f.warped)), f.reach))), [0, 0, 0]), 1 / feet.length);
      }
      // Lower along gravity (-y) to the first height at which every foot is within reach.
      let drop = 0;
      for (const f of feet) {
        const e = sub(P, f.warped), horizontal = e[0] * e[0] + e[2] * e[2];
        if (dot(e, e) > f.reach * f.reach) drop = Math.max(drop, e[1] - Math.sqrt(f.reach * f.reach - horizontal));
      }
      P = [P[0], Math.min(P[1] - drop, P0[1]), P[2]]; // never raised
      return P;
    };
    const pelvisFor = (iterations: number) => {
      const g = heldWarp({ strideScale: 1.4, pelvisIterations: iterations });
      g.update(0.1);
      return values(g).pelvis as V3;
    };
    const one = pelvisFor(1), three = pelvisFor(3), ten = pelvisFor(10);
    expectClose(one, expected(1), 1e-9);
    expectClose(three, expected(3), 1e-9);
    expectClose(ten, expected(10), 1e-9);
    expect(length(sub(one, three))).toBeGreaterThan(1e-3); // the count matters
    // Each warped foot ends within its FK distance of the pelvis, one of them exactly at it.
    const slack = feet.map((f) => length(sub(ten, f.warped)) - f.reach);
    expect(Math.max(...slack)).toBeCloseTo(0, 9);
  });

  it('warps along a tilted floor: feet move along the slope, from origins on their floor plane', () => {
    const input = heldPose();
    const tilt = (15 * Math.PI) / 180;
    const normal: V3 = [0, Math.cos(tilt), -Math.sin(tilt)]; // the floor rises toward +z
    const g = heldWarp({ strideScale: 0.6, floorNormal: normal, adjustPelvis: false, correctThighs: false, clampLegLength: false });
    g.update(0.1);
    for (const side of ['l', 'r']) {
      const foot = at(input, `foot_${side}`);
      const { origin, warped } = warpedFoot(at(input, `thigh_${side}`), foot, 0.6, normal, DOWN, FORWARD);
      expectClose(values(g)[`scaleOrigin.foot_${side}`] as number[], origin, 1e-9);
      expectClose(at(g.componentPose(), `foot_${side}`), warped, 1e-6);
      // On the foot's floor plane, and moved along the slope: its height changes with it.
      expect(dot(sub(warped, foot), normal)).toBeCloseTo(0, 9);
      expect(Math.abs(warped[1] - foot[1])).toBeGreaterThan(1);
    }
  });

  it('follows floorNormal and gravityDirection on a z-up skeleton: the y-up result, turned', () => {
    // The biped with its root turned +90 degrees about x: component space is z-up, forward is -y.
    const skeleton = sampleSkeleton();
    const ref = skeleton.referencePose;
    const s = Math.SQRT1_2;
    const bones = skeleton.boneNames.map((name, i) => ({
      name, ...(skeleton.parents[i] >= 0 ? { parent: skeleton.boneNames[skeleton.parents[i]] } : {}),
      translation: Array.from(ref.translations.subarray(i * 3, i * 3 + 3)),
      rotation: i === 0 ? [s, 0, 0, s] : Array.from(ref.rotations.subarray(i * 4, i * 4 + 4)),
    }));
    const dir = mkdtempSync(join(tmpdir(), 'stride-'));
    const file = join(dir, 'z-up.json');
    writeFileSync(file, JSON.stringify({ bones }));
    const warp = { ...BIPED_LEGS, strideScale: 1.4, pelvisStiffness: 0 };
    const zUp = loadGraphAsset({
      format: 'animgraph/1', skeleton: { file }, clips: { walk: { source: 'builtin:walk' } },
      nodes: { src: HELD, w: { type: 'StrideWarping', inputs: { pose: 'src' }, properties: { ...warp, floorNormal: [0, 0, 1], gravityDirection: [0, 0, -1], strideDirection: [0, -1, 0] } } },
      output: 'w',
    }).createInstance();
    const yUp = heldWarp(warp);
    zUp.update(0.1);
    yUp.update(0.1);
    const a = yUp.componentPose(), b = zUp.componentPose();
    const turn = (v: V3): V3 => [v[0], -v[2], v[1]];
    for (const bone of skeleton.boneNames) {
      expectClose(at(b, bone), turn(at(a, bone)), 1e-6);
      const q = rotationOf(a, bone), r = [s * q[3] + s * q[0], s * q[1] - s * q[2], s * q[2] + s * q[1], s * q[3] - s * q[0]];
      expectSameRotation(rotationOf(b, bone), r, 1e-9);
    }
    // And it did warp: the left foot moved forward (-y) by 0.4 of its offset from its origin.
    const input = heldPose();
    expect(at(b, 'foot_l')[1]).toBeLessThan(-at(input, 'foot_l')[2] - 5);
  });
});

describe('StrideWarping steps', () => {
  const run = (properties: Record<string, unknown>) => {
    const g = heldWarp({ strideScale: 1.3, ...properties });
    g.update(0.1);
    return { g, cs: g.componentPose(), local: g.evaluate(), offset: values(g).pelvisOffset as V3 };
  };
  const input = heldPose();
  const LEG = ['thigh_l', 'calf_l', 'foot_l', 'thigh_r', 'calf_r', 'foot_r'];

  it('warpFeet off: the later steps see the FK feet, so the pose is the input', () => {
    const { g, cs } = run({ warpFeet: false });
    expect(values(g).strideScale).toBe(1.3);
    expectInputButKnees(cs, input);
  });

  it('adjustPelvis off: the pelvis stays where the input has it; on, it drops', () => {
    const off = run({ adjustPelvis: false });
    expectClose(at(off.cs, 'pelvis'), at(input, 'pelvis'), 1e-12);
    expectClose(off.offset, [0, 0, 0], 0);
    expect(run({}).offset[1]).toBeLessThan(-1);
  });

  it('correctThighs and solveIk off: the legs only follow the pelvis', () => {
    const { cs, offset } = run({ correctThighs: false, solveIk: false });
    expect(offset[1]).toBeLessThan(-1);
    for (const bone of LEG) {
      expectClose(at(cs, bone), add(at(input, bone), offset), 1e-9);
      expectSameRotation(rotationOf(cs, bone), rotationOf(input, bone), 1e-12);
    }
  });

  it('thigh correction turns each thigh by the rotation from its FK leg direction to its warped one', () => {
    const { cs, offset, local } = run({ solveIk: false });
    const inputLocal = bipedInstance({ src: HELD }, 'src');
    inputLocal.update(0);
    const fk = inputLocal.evaluate();
    for (const side of ['l', 'r']) {
      const thigh = add(at(input, `thigh_${side}`), offset);
      const { warped } = warpedFoot(at(input, `thigh_${side}`), at(input, `foot_${side}`), 1.3, UP, DOWN, FORWARD);
      const from = unit(sub(at(input, `foot_${side}`), at(input, `thigh_${side}`))), to = unit(sub(warped, thigh));
      // The shortest-arc quaternion from `from` to `to`, times the FK rotation.
      const c: V3 = [from[1] * to[2] - from[2] * to[1], from[2] * to[0] - from[0] * to[2], from[0] * to[1] - from[1] * to[0]];
      const q = [c[0], c[1], c[2], 1 + dot(from, to)], n = Math.hypot(...q);
      const [x, y, z, w] = q.map((k) => k / n), [bx, by, bz, bw] = rotationOf(input, `thigh_${side}`);
      const expected = [w * bx + x * bw + y * bz - z * by, w * by - x * bz + y * bw + z * bx, w * bz + x * by - y * bx + z * bw, w * bw - x * bx - y * by - z * bz];
      expectSameRotation(rotationOf(cs, `thigh_${side}`), expected, 1e-9);
      // So the (unchanged) leg now points at the warped foot.
      expectClose(unit(sub(at(cs, `foot_${side}`), at(cs, `thigh_${side}`))), to, 1e-9);
      // The leg itself is unchanged: as long as in the input.
      expect(length(sub(at(cs, `foot_${side}`), thigh))).toBeCloseTo(length(sub(at(input, `foot_${side}`), at(input, `thigh_${side}`))), 9);
      // The knee and ankle keep their local rotations.
      for (const bone of [`calf_${side}`, `foot_${side}`]) {
        const i = cs.skeleton.indexOf(bone);
        expectSameRotation(local.rotations.subarray(i * 4, i * 4 + 4), fk.rotations.subarray(i * 4, i * 4 + 4), 1e-9);
      }
    }
  });

  it('solveIk places each foot on its warped target (clamped to the FK leg length) with its FK rotation', () => {
    const { cs, offset } = run({});
    for (const side of ['l', 'r']) {
      const thigh = add(at(input, `thigh_${side}`), offset);
      const { warped } = warpedFoot(at(input, `thigh_${side}`), at(input, `foot_${side}`), 1.3, UP, DOWN, FORWARD);
      const fkLength = length(sub(at(input, `foot_${side}`), at(input, `thigh_${side}`)));
      const target = length(sub(warped, thigh)) > fkLength ? add(thigh, times(unit(sub(warped, thigh)), fkLength)) : warped;
      expectClose(at(cs, `foot_${side}`), target, 1e-6);
      expectSameRotation(rotationOf(cs, `foot_${side}`), rotationOf(input, `foot_${side}`), 1e-9);
    }
  });

  it('clampLegLength keeps an out-of-reach foot at the FK leg length; off, the leg extends fully toward it', () => {
    // At 1.6 with the pelvis held, the left foot's target is about 96 cm from the thigh: beyond the 85 cm leg.
    const thigh = at(input, 'thigh_l'), fkLength = length(sub(at(input, 'foot_l'), thigh));
    const { warped } = warpedFoot(thigh, at(input, 'foot_l'), 1.6, UP, DOWN, FORWARD);
    expect(length(sub(warped, thigh))).toBeGreaterThan(90);
    const toward = unit(sub(warped, thigh));
    const clamped = run({ strideScale: 1.6, adjustPelvis: false }).cs;
    expectClose(at(clamped, 'foot_l'), add(thigh, times(toward, fkLength)), 1e-6);
    const free = run({ strideScale: 1.6, adjustPelvis: false, clampLegLength: false }).cs;
    expectClose(at(free, 'foot_l'), add(thigh, times(toward, 43 + 42)), 1e-6);
    expect(85 - fkLength).toBeGreaterThan(0.1); // the two differ
  });
});

// A node that moves the character at a (bindable) velocity, for root motion the warp cannot read
// clips from; its pose is the reference pose.
class Mover extends LocalPoseNode {
  private readonly velocity = new Float64Array(3);
  constructor(id: string, private readonly velocityProperty: Vec3Property) {
    super(id, 'Mover');
  }
  protected get links(): readonly Link[] {
    return NO_LINKS;
  }
  protected onUpdate(ctx: UpdateContext): void {
    readVec3(this.velocity, 0, this.graph.parameterValues, this.velocityProperty);
    for (let k = 0; k < 3; k++) ctx.rootMotion[k] += this.velocity[k] * ctx.deltaTime * ctx.weight;
  }
  protected onEvaluate(out: Pose): void {
    poseCopy(out, this.graph.skeleton.referencePose);
  }
}
const MoverType: NodeType = {
  type: 'Mover', space: 'local', properties: { velocity: { kind: 'vec3', default: [0, 0, 0] } }, inputs: [],
  create: ({ id, properties: p }) => new Mover(id, p.vec3('velocity')),
};

describe('StrideWarping fromRootMotion, on root motion it cannot read clips of', () => {
  const graph = (warp: Record<string, unknown>, alpha = 0.25) => loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: {},
    parameters: { v: { type: 'vec3', default: [0, 0, 100] }, alpha: { type: 'float', default: alpha } },
    nodes: {
      mine: { type: 'Mover', properties: { velocity: { param: 'v' } } },
      w: { type: 'StrideWarping', inputs: { pose: 'mine' }, properties: { ...BIPED_LEGS, mode: 'fromRootMotion', locomotionSpeed: 150, scaleSmoothingTime: 0, ...warp } },
      sibling: { type: 'Mover', properties: { velocity: [50, 0, 0] } },
      b: { type: 'BlendTwo', inputs: { A: 'w', B: 'sibling' }, properties: { alpha: { param: 'alpha' } } },
    },
    output: 'b',
  }, { nodeTypes: new NodeRegistry([...builtInNodeTypes, MoverType]) }).createInstance();
  const line = (g: AnimGraphInstance) => g.gatherDebug().children[0].children[0].values!;

  it('measures its own share over its weight and scales only that share, not the sibling\'s', () => {
    const g = graph({ rootMotionSmoothingTime: 0.2 });
    g.update(0.1);
    expect(line(g).rootMotionSpeed).toBeCloseTo(100, 9); // not 75 (weighted), not 75 + 12.5 (with the sibling)
    expect(line(g).strideScale).toBeCloseTo(1.5, 12);
    expectClose(line(g).strideDirection as number[], [0, 0, 1], 1e-12);
    expectClose(g.rootMotion.subarray(0, 3), [0.25 * 50 * 0.1, 0, 0.75 * 1.5 * 100 * 0.1], 1e-12);
    // The measure does not depend on the weight.
    g.setParameter('alpha', 0.6);
    g.update(0.1);
    expect(line(g).rootMotionSpeed).toBeCloseTo(100, 9);
    expectClose(g.rootMotion.subarray(0, 3), [0.6 * 50 * 0.1, 0, 0.4 * 1.5 * 100 * 0.1], 1e-12);
    // A change of speed is followed with half-life rootMotionSmoothingTime: half-way after 0.2 s.
    g.setParameter('v', [0, 0, 200]);
    g.update(0.1);
    expect(line(g).rootMotionSpeed).toBeCloseTo(100 + 100 * (1 - Math.SQRT1_2), 9);
    g.update(0.1);
    expect(line(g).rootMotionSpeed).toBeCloseTo(150, 9);
    expect(line(g).strideScale).toBeCloseTo(1, 12);
  });

  it('takes root motion over a frame too short to divide by (5e-324 s under a weight below 1/2) as no measurement: the last one holds', () => {
    const g = graph({ rootMotionSmoothingTime: 0.2 }, 0.6); // its weight 0.4: 0.4 × 5e-324 s is 0
    g.update(0.1);
    const measured = line(g).rootMotionSpeed;
    expect(measured).toBeCloseTo(100, 9);
    const scale = line(g).strideScale;
    g.update(5e-324); // 0 / 0 made the speed NaN, for good (the average took it in)
    expect(line(g).rootMotionSpeed).toBe(measured);
    expect(line(g).strideScale).toBe(scale);
    g.update(0.1);
    expect(line(g).rootMotionSpeed).toBeCloseTo(100, 9);
    expect(hasNaN(g.evaluate().rotations)).toBe(false);
  });

  it('keeps scale 1, the root motion as it is and the manual direction below minRootMotionSpeed', () => {
    const g = graph({ minRootMotionSpeed: 5, rootMotionSmoothingTime: 0, strideDirection: [1, 0, 0] }, 0);
    g.setParameter('v', [0, 0, 3]);
    g.update(0.1);
    expect(line(g).rootMotionSpeed).toBeCloseTo(3, 12);
    expect(line(g).strideScale).toBe(1);
    expectClose(line(g).strideDirection as number[], [1, 0, 0], 0);
    expectClose(g.rootMotion.subarray(0, 3), [0, 0, 0.3], 1e-12);
    // Above it: 150 / 6 = 25, clamped to maxScale (2), and the root motion follows the clamped scale.
    g.setParameter('v', [0, 0, 6]);
    g.update(0.1);
    expect(line(g).strideScale).toBe(2);
    expectClose(g.rootMotion.subarray(0, 3), [0, 0, 2 * 0.6], 1e-12);
  });
});

describeWithData('StrideWarping fromRootMotion on CMU walks', () => {
  const CMU_LEGS = { pelvisBone: 'CC_Base_Pelvis', ...LEGS };
  /** A clip's own speed: its root's travel from first to last frame over its duration. */
  const clipSpeed = (graph: AnimGraph, name: string) => {
    const clip = graph.clipBindings.get(name)!.clip, rm = clip.rootMotion!, n = clip.frameCount;
    return Math.hypot(rm.translations[(n - 1) * 3] - rm.translations[0], rm.translations[(n - 1) * 3 + 2] - rm.translations[2]) / clip.duration;
  };

  it('gives scale 1 at the clip\'s own speed from the first frames (and at its own speed times the play rate)', () => {
    const report: string[] = [];
    for (const [file, rate, source] of [['007_04', 1, 'player'], ['002_01', 1, 'player'], ['007_04', 1.5, 'player'], ['007_04', 0.8, 'evaluator']] as const) {
      const asset = (speed: number) => loadGraphAsset({
        format: 'animgraph/1', skeleton: { bvh: `${CMU}${file}.bvh` },
        clips: { walk: { source: `${CMU}${file}.bvh`, frames: [1, -1], rootMotion: true } },
        parameters: { t: { type: 'float', default: 0 } },
        nodes: {
          p: source === 'player'
            ? { type: 'SequencePlayer', properties: { clip: 'walk', loop: false, playRate: rate } }
            : { type: 'SequenceEvaluator', properties: { clip: 'walk', explicitTime: { param: 't' } } },
          w: { type: 'StrideWarping', inputs: { pose: 'p' }, properties: { ...CMU_LEGS, mode: 'fromRootMotion', locomotionSpeed: speed, minRootMotionSpeed: 5 } },
        },
        output: 'w',
      });
      const own = clipSpeed(asset(0), 'walk');
      const graph = asset(own * rate);
      const clip = graph.clipBindings.get('walk')!.clip, fps = clip.frameRate;
      const frames = Math.floor((clip.duration / rate) * fps);
      // The evaluator's time is driven at `rate` clip seconds per second.
      const timeline = source === 'player' ? [] : Array.from({ length: frames }, (_, f) => ({ name: 't', value: (f / fps) * rate, time: f / fps }));
      const run = runGraph(graph, { frames, fps, timeline, poses: false });
      let worst = 0;
      for (let f = 2; f < frames; f++) {
        const line = run.frames[f].debug!.children[0];
        worst = Math.max(worst, Math.abs((line.values!.strideScale as number) - 1));
        expect(line.values!.rootMotionSpeed).toBeCloseTo(own * rate, 6);
      }
      report.push(`${file} ${source} at ${rate}x its own ${own.toFixed(1)} cm/s: scale within ${worst.toExponential(1)} of 1 from frame 2`);
      expect(worst).toBeLessThan(0.01);
    }
    console.log(report.join('\n'));
  });

  it('measures over rootMotionWindow seconds of clip time around the play time, kept inside the clip', () => {
    const graph = loadGraphAsset({
      format: 'animgraph/1', skeleton: { bvh: `${CMU}007_04.bvh` },
      clips: { walk: { source: `${CMU}007_04.bvh`, frames: [1, -1], rootMotion: true } },
      nodes: {
        p: { type: 'SequencePlayer', properties: { clip: 'walk', loop: false } },
        w: { type: 'StrideWarping', inputs: { pose: 'p' }, properties: { ...CMU_LEGS, mode: 'fromRootMotion', locomotionSpeed: 120, rootMotionWindow: 1, scaleSmoothingTime: 0 } },
      },
      output: 'w',
    });
    const clip = graph.clipBindings.get('walk')!.clip, rm = clip.rootMotion!;
    const root = (t: number) => {
      const x = Math.min(t * clip.frameRate, clip.frameCount - 1), f = Math.min(Math.floor(x), clip.frameCount - 2), a = x - f;
      const lerp = (v: Float64Array, k: number, n: number) => v[f * n + k] + (v[(f + 1) * n + k] - v[f * n + k]) * a;
      return { x: lerp(rm.translations, 0, 3), z: lerp(rm.translations, 2, 3), heading: lerp(rm.headings, 0, 1) };
    };
    const fps = 60, run = runGraph(graph, { frames: 200, fps, poses: false });
    const seen: number[] = [];
    for (const f of [5, 60, 120, 199]) {
      const t = f / fps, start = Math.min(Math.max(t - 0.5, 0), clip.duration - 1);
      const a = root(start), b = root(start + 1), h = root(t).heading;
      // The window's travel per clip second, seen from the character's heading at the play time.
      const dx = b.x - a.x, dz = b.z - a.z, c = Math.cos(-h), s = Math.sin(-h);
      const velocity = [c * dx + s * dz, 0, c * dz - s * dx];
      const values = run.frames[f].debug!.children[0].values!;
      expect(values.rootMotionSpeed).toBeCloseTo(Math.hypot(dx, dz), 6);
      expect(values.strideScale).toBeCloseTo(120 / Math.hypot(dx, dz), 6);
      expectClose(values.strideDirection as number[], velocity.map((v) => v / Math.hypot(dx, dz)), 1e-9);
      seen.push(values.rootMotionSpeed as number);
    }
    // It does follow the walk's changes of pace (the whole clip would give one speed).
    expect(Math.max(...seen) - Math.min(...seen)).toBeGreaterThan(3);
  });

  it('under a blend, measures and scales only its own branch\'s root motion', () => {
    for (const warpOn of ['A', 'B'] as const) {
      const graph = loadGraphAsset({
        format: 'animgraph/1', skeleton: { bvh: `${CMU}007_04.bvh` },
        clips: {
          slow: { source: `${CMU}007_04.bvh`, frames: [1, -1], rootMotion: true },
          brisk: { source: `${CMU}007_04.bvh`, frames: [60, -1], rootMotion: true },
        },
        parameters: { alpha: { type: 'float', default: 0.3 } },
        nodes: {
          p: { type: 'SequencePlayer', properties: { clip: 'slow' } },
          w: { type: 'StrideWarping', inputs: { pose: 'p' }, properties: { ...CMU_LEGS, mode: 'fromRootMotion', locomotionSpeed: 150 } },
          q: { type: 'SequencePlayer', properties: { clip: 'brisk', startTime: 1, playRate: 1.4 } },
          b: { type: 'BlendTwo', inputs: warpOn === 'A' ? { A: 'w', B: 'q' } : { A: 'q', B: 'w' }, properties: { alpha: { param: 'alpha' } } },
        },
        output: 'b',
      });
      const g = graph.createInstance();
      const own = clipSpeed(graph, 'slow'), scale = 150 / own;
      const p = g.nodes.get('p') as SequencePlayer, q = g.nodes.get('q') as SequencePlayer;
      const slow = graph.clipBindings.get('slow')!.clip, brisk = graph.clipBindings.get('brisk')!.clip;
      const delta = (clip: typeof slow, from: number, to: number) => rootMotionDelta(new Float64Array(4), clip, clip.rootMotion!, Float64Array.of(from, to, 1, 1));
      g.update(0);
      for (const [frame, alpha] of [[1, 0.3], [2, 0.3], [3, 0.8], [4, 0.8]] as const) {
        g.setParameter('alpha', alpha);
        const p0 = p.time, q0 = q.time;
        g.update(1 / 60);
        const wWarp = warpOn === 'A' ? 1 - alpha : alpha, wSibling = 1 - wWarp;
        const line = g.gatherDebug().children[0].children[warpOn === 'A' ? 0 : 1].values!;
        // The warp's branch alone, at full weight: the slow walk's own speed, whatever the blend.
        expect(line.rootMotionSpeed, `frame ${frame}`).toBeCloseTo(own, 9);
        expect(line.strideScale).toBeCloseTo(scale, 9);
        // Its share scaled, the sibling's as the sibling played it.
        const mine = delta(slow, p0, p.time), sibling = delta(brisk, q0, q.time);
        for (let k = 0; k < 3; k++) expect(g.rootMotion[k]).toBeCloseTo(wWarp * scale * mine[k] + wSibling * sibling[k], 12);
        expect(g.rootMotion[3]).toBeCloseTo(wWarp * mine[3] + wSibling * sibling[3], 12);
        expect(Math.hypot(sibling[0], sibling[2])).toBeGreaterThan(1);
      }
    }
  });

  it('walks the example graph at the speed set on the timeline, and shows the scale in its debug tree', () => {
    const file = new URL('../../graphs/examples/cmu-stride-warping.json', import.meta.url).pathname;
    const graph = loadGraphFile(file);
    const clip = graph.clipBindings.get('walk')!.clip;
    const own = clipSpeed(graph, 'walk');
    const fps = 60, loop = Math.round(clip.duration * fps);
    // As `--set speed=160@1`: from 108 cm/s (the default) to 160 at 1 s; the scale settles (its
    // default smoothing, half-life 0.1 s) within a second; then a whole loop of the clip.
    const seconds = 2 + loop / fps;
    const run = runGraph(graph, { seconds, fps, timeline: [{ name: 'speed', value: 160, time: 1 }], poses: false });
    // The same walk unwarped: the example with its output taken from the player.
    const asset = JSON.parse(readFileSync(file, 'utf8'));
    const plain = runGraph(loadGraphAsset({ ...asset, nodes: { walk: asset.nodes.walk }, output: 'walk' }, { baseDir: dirname(file) }), { seconds, fps, poses: false });
    const warp = (f: number) => run.frames[f].debug!.children[0];
    const scaleAt = (f: number) => warp(f).values!.strideScale as number;
    expect(scaleAt(0)).toBeCloseTo(108 / own, 9);
    expect(scaleAt(30)).toBeCloseTo(108 / own, 9);
    // The change is followed exponentially: 1 - 0.5^((1/60) / 0.1) of the way in its first frame.
    const first = 108 / own + (160 / own - 108 / own) * (1 - 0.5 ** (1 / 60 / 0.1));
    expect(scaleAt(60)).toBeCloseTo(first, 9);
    expect(warp(60).description).toContain(`Scale: ${first.toFixed(3)}`);
    expect(scaleAt(120)).toBeCloseTo(160 / own, 2);
    const root = (r: RunResult, f: number) => r.frames[f].root!;
    const travel = (r: RunResult, a: number, b: number) => Math.hypot(root(r, b)[0] - root(r, a)[0], root(r, b)[2] - root(r, a)[2]);
    const last = run.frames.length - 1;
    // Over a whole loop once settled the character covers 160 cm/s (the loop's own path, scaled:
    // its direction changes a little over the loop, so 1%).
    const speed = travel(run, 120, last) / ((last - 120) / fps);
    console.log(`example graph: ${own.toFixed(1)} cm/s clip, ${speed.toFixed(1)} cm/s after speed=160@1 (scale ${(160 / own).toFixed(3)})`);
    expect(Math.abs(speed / 160 - 1)).toBeLessThan(0.01);
    // Frame by frame, the root moves exactly the frame's scale times the clip's own root motion.
    for (const f of [10, 20, 60, 61, 62, 80, 150, last]) {
      expect(travel(run, f - 1, f) / travel(plain, f - 1, f)).toBeCloseTo(scaleAt(f), 9);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Knees, pelvis, bindings and units on hand-made legs: a node that poses the biped's legs from two vec3
// parameters, [thigh angle, calf angle (both degrees about x: a negative thigh angle swings the
// foot forward, a positive calf angle bends the knee forward, a negative one hyperextends it),
// pelvis lift (left only, cm)].

class LegPoser extends LocalPoseNode {
  private readonly angles = new Float64Array(6);
  constructor(id: string, private readonly left: Vec3Property, private readonly right: Vec3Property) {
    super(id, 'LegPoser');
  }
  protected get links(): readonly Link[] {
    return NO_LINKS;
  }
  protected onUpdate(): void {
    readVec3(this.angles, 0, this.graph.parameterValues, this.left);
    readVec3(this.angles, 3, this.graph.parameterValues, this.right);
  }
  protected onEvaluate(out: Pose): void {
    const skeleton = this.graph.skeleton;
    poseCopy(out, skeleton.referencePose);
    const turn = (bone: string, degrees: number) => {
      const i = skeleton.indexOf(bone), h = (degrees * Math.PI) / 360;
      out.rotations.set([Math.sin(h), 0, 0, Math.cos(h)], i * 4);
    };
    turn('thigh_l', this.angles[0]); turn('calf_l', this.angles[1]);
    turn('thigh_r', this.angles[3]); turn('calf_r', this.angles[4]);
    out.translations[skeleton.indexOf('pelvis') * 3 + 1] += this.angles[2];
  }
}
const LegPoserType: NodeType = {
  type: 'LegPoser', space: 'local', properties: { left: { kind: 'vec3', default: [0, 0, 0] }, right: { kind: 'vec3', default: [0, 0, 0] } }, inputs: [],
  create: ({ id, properties: p }) => new LegPoser(id, p.vec3('left'), p.vec3('right')),
};
const withTestNodes = { nodeTypes: new NodeRegistry([...builtInNodeTypes, LegPoserType, MoverType]) };

function posedWarp(warp: Record<string, unknown>, left: V3, right: V3, parameters: Record<string, unknown> = {}): AnimGraphInstance {
  return loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: {},
    parameters: { left: { type: 'vec3', default: left }, right: { type: 'vec3', default: right }, ...parameters },
    nodes: {
      legs: { type: 'LegPoser', properties: { left: { param: 'left' }, right: { param: 'right' } } },
      w: { type: 'StrideWarping', inputs: { pose: 'legs' }, properties: { ...BIPED_LEGS, ...warp } },
    },
    output: 'w',
  }, withTestNodes).createInstance();
}

/** The knee's offset from its hip-foot line. */
function kneeBend(cs: ComponentPose, side: string): V3 {
  const hip = at(cs, `thigh_${side}`), knee = at(cs, `calf_${side}`), foot = at(cs, `foot_${side}`);
  const line = unit(sub(foot, hip)), k = sub(knee, hip);
  return sub(k, times(line, dot(k, line)));
}
const degreesBetween = (a: V3, b: V3) => (Math.acos(Math.min(1, Math.max(-1, dot(unit(a), unit(b))))) * 180) / Math.PI;
/** Forward (+z) made perpendicular to the leg's hip-foot line: where a knee bending in the leg's sagittal plane points. */
function kneeForward(cs: ComponentPose, side: string): V3 {
  const line = unit(sub(at(cs, `foot_${side}`), at(cs, `thigh_${side}`)));
  return sub(FORWARD, times(line, dot(FORWARD, line)));
}

describe('StrideWarping knees (issue 13, item 4)', () => {
  it('bends a straight or hyperextended input knee forward, in the leg\'s own plane, at 0.6x', () => {
    // Left foot ahead with its knee 2 degrees backward (hyperextended), right foot behind and dead
    // straight: shortening the stride makes both legs bend.
    const g = posedWarp({ strideScale: 0.6 }, [-25, -2, 0], [15, 0, 0]);
    g.update(1 / 60);
    const cs = g.componentPose();
    for (const side of ['l', 'r']) {
      const bend = kneeBend(cs, side);
      expect(length(bend), side).toBeGreaterThan(2); // the leg does bend
      // Forward, not backward, and not sideways: within a degree of +z across the leg.
      expect(degreesBetween(bend, kneeForward(cs, side)), side).toBeLessThan(1);
    }
  });

  it('keeps bending the knee the way the FK knee bent before, whatever the direction of travel', () => {
    // Knees bent forward first (learned), then a hyperextended left knee and a straight right one,
    // warped walking backward: the stride direction no longer says where the knees point.
    const g = posedWarp({ strideScale: 0.6, strideDirection: [0, 0, -1] }, [-25, 30, 0], [15, 30, 0]);
    g.update(1 / 60);
    g.componentPose();
    g.setParameter('left', [-25, -2, 0]);
    g.setParameter('right', [15, 0, 0]);
    for (let f = 0; f < 3; f++) {
      g.update(1 / 60);
      const cs = g.componentPose();
      for (const side of ['l', 'r']) {
        expect(length(kneeBend(cs, side))).toBeGreaterThan(2);
        expect(degreesBetween(kneeBend(cs, side), kneeForward(cs, side)), side).toBeLessThan(1);
      }
    }
  });
});

describe('StrideWarping pelvis (issue 13, item 5)', () => {
  it('lowers the pelvis for planted feet only: a foot in the air, however far ahead, is left to the leg clamp', () => {
    const settings = { strideScale: 1.6, pelvisStiffness: 0, pelvisMaxSpeed: 0, scaleSmoothingTime: 0 };
    // Both feet down first (their lowest heights), then the left foot swings up and ahead.
    const g = posedWarp(settings, [0, 0, 0], [20, 10, 0]);
    g.update(1 / 60);
    g.componentPose();
    g.setParameter('left', [-50, 20, 0]);
    g.update(1 / 60);
    const swung = values(g).pelvisOffset as V3;
    // Expected: the averaged pelvis, lowered only until the planted right foot reaches.
    const input = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: {},
      nodes: { legs: { type: 'LegPoser', properties: { left: [-50, 20, 0], right: [20, 10, 0] } } }, output: 'legs',
    }, withTestNodes).createInstance();
    input.update(0);
    const cs = input.componentPose(), P0 = at(cs, 'pelvis');
    const feet = ['l', 'r'].map((side) => ({
      warped: warpedFoot(at(cs, `thigh_${side}`), at(cs, `foot_${side}`), 1.6, UP, DOWN, FORWARD).warped,
      reach: length(sub(at(cs, `foot_${side}`), P0)),
    }));
    let P = P0;
    for (let it = 0; it < 3; it++) {
      P = times(feet.reduce<V3>((sum, f) => add(sum, add(f.warped, times(unit(sub(P, f.warped)), f.reach))), [0, 0, 0]), 1 / feet.length);
    }
    const lowerFor = (f: { warped: V3; reach: number }) => {
      const e = sub(P, f.warped), horizontal = e[0] * e[0] + e[2] * e[2];
      return dot(e, e) > f.reach * f.reach ? e[1] - Math.sqrt(Math.max(f.reach * f.reach - horizontal, 0)) : 0;
    };
    const expected: V3 = [P[0], Math.min(P[1] - lowerFor(feet[1]), P0[1]), P[2]];
    expectClose(add(P0, swung), expected, 1e-9);
    // The swinging foot alone would have taken the pelvis much further down.
    expect(lowerFor(feet[0]) - lowerFor(feet[1])).toBeGreaterThan(2);
  });

  it('smooths the pelvis by default and caps its speed at pelvisMaxSpeed leg lengths per second', () => {
    // Both feet lifted off the floor (a hop): nothing planted, so only the spring and the cap act.
    const hop = (warp: Record<string, unknown>) => {
      const g = posedWarp({ strideScale: { param: 's' }, scaleSmoothingTime: 0, ...warp }, [-25, 10, 0], [15, 10, 0], { s: { type: 'float', default: 1 } });
      g.update(1 / 60);
      g.componentPose();
      g.setParameter('left', [-25, 10, 12]);
      g.update(1 / 60);
      expectClose(values(g).pelvisOffset as V3, [0, 0, 0], 1e-9);
      g.setParameter('s', 1.8);
      const offsets: V3[] = [];
      for (let f = 0; f < 120; f++) {
        g.update(1 / 60);
        offsets.push(values(g).pelvisOffset as V3);
      }
      return { offsets, steps: offsets.map((o, f) => length(sub(o, f > 0 ? offsets[f - 1] : [0, 0, 0]))) };
    };
    // The target: the same hop warped at 1.8 with no smoothing and no cap.
    const at1 = posedWarp({ strideScale: 1.8, scaleSmoothingTime: 0, pelvisStiffness: 0, pelvisMaxSpeed: 0 }, [-25, 10, 0], [15, 10, 0]);
    at1.update(1 / 60);
    at1.componentPose();
    at1.setParameter('left', [-25, 10, 12]);
    at1.update(1 / 60);
    const target = values(at1).pelvisOffset as V3;
    expect(target[1]).toBeLessThan(-3);
    // By default: a spring (stiffness 100, critically damped) from where the pelvis was, not a jump to the target.
    const smooth = hop({});
    expect(smooth.steps[0]).toBeLessThan(0.05 * length(target));
    expect(Math.max(...smooth.steps)).toBeLessThan(0.1 * length(target));
    expectClose(smooth.offsets[119], target, 1e-3);
    // The cap: 0.2 leg lengths (85 cm) per second is 0.283 cm a frame, which the spring would exceed.
    const capped = hop({ pelvisMaxSpeed: 0.2 });
    expect(Math.max(...capped.steps)).toBeCloseTo((0.2 * 85) / 60, 9);
    expect(Math.max(...smooth.steps)).toBeGreaterThan((0.2 * 85) / 60 + 0.05);
  });
});

describe('StrideWarping instances of one graph', () => {
  // The instances share one solver (its buffers are scratch within a warp); each keeps its own
  // state (pelvis spring, feet, knees) and the results its debug tree shows.
  const asset = {
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
    parameters: { s: { type: 'float', default: 1 } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      w: { type: 'StrideWarping', inputs: { pose: 'walk' }, properties: { ...BIPED_LEGS, strideScale: { param: 's' }, pelvisMaxSpeed: 0 } },
    },
    output: 'w',
  };
  const frame = (g: AnimGraphInstance) => ({ pose: Array.from(g.componentPose().translations), debug: values(g) });

  it('gives each of two interleaved characters the poses and debug values it has alone', () => {
    const graph = loadGraphAsset(asset);
    const a = graph.createInstance(), b = graph.createInstance();
    const aloneA = loadGraphAsset(asset).createInstance(), aloneB = loadGraphAsset(asset).createInstance();
    for (const g of [b, aloneB]) g.setParameter('s', 1.6);
    for (const g of [a, aloneA]) g.setParameter('s', 0.7);
    const dts = [1 / 60, 1 / 30, 0, 1 / 60, 0.05, 1 / 60];
    for (const dt of dts) {
      // Both updated before either is evaluated: what one warp leaves in the solver must not reach the other.
      a.update(dt);
      b.update(dt * 2);
      const fa = frame(a), fb = frame(b);
      aloneA.update(dt);
      aloneB.update(dt * 2);
      expect(fa).toEqual(frame(aloneA));
      expect(fb).toEqual(frame(aloneB));
    }
    // The two differ (the check above would pass for two copies of one character too).
    const da = frame(a).debug, db = frame(b).debug;
    expect(da.strideScale).toBe(0.7);
    expect(db.strideScale).toBe(1.6);
    expect(da.pelvis).not.toEqual(db.pelvis);
    expect(da['scaleOrigin.foot_l']).not.toEqual(db['scaleOrigin.foot_l']);
  });

  it('does the same in a batch, where the results the debug tree shows are in the per-frame numbers', () => {
    const graph = loadGraphAsset(asset);
    const batch = graph.createInstances(3);
    const alone = [0, 1, 2].map(() => loadGraphAsset(asset).createInstance());
    [0.7, 1.3, 1.9].forEach((s, i) => { batch.instances[i].setParameter('s', s); alone[i].setParameter('s', s); });
    for (let f = 0; f < 5; f++) {
      batch.update(1 / 60);
      alone.forEach((g, i) => {
        g.update(1 / 60);
        expect(values(batch.instances[i])).toEqual(values(g));
      });
    }
    expect(values(batch.instances[0]).pelvis).not.toEqual(values(batch.instances[2]).pelvis);
  });
});

describe('StrideWarping bindings (issue 13, item 7)', () => {
  it('honours a binding on every per-frame setting', () => {
    const parameters = { s: { type: 'float', default: 1.8 }, max: { type: 'float', default: 1.2 }, min: { type: 'float', default: 0.5 }, half: { type: 'float', default: 0 } };
    const g = heldWarp({ strideScale: { param: 's' }, maxScale: { param: 'max' }, minScale: { param: 'min' }, scaleSmoothingTime: { param: 'half' } }, parameters);
    g.update(0.1);
    expect(values(g).strideScale).toBe(1.2); // maxScale bound to 1.2 caps the scale at 1.2
    g.setParameter('max', 1.5);
    g.update(0.1);
    expect(values(g).strideScale).toBe(1.5);
    g.setParameter('s', 0.1);
    g.setParameter('min', 0.7);
    g.update(0.1);
    expect(values(g).strideScale).toBe(0.7);
    // A smoothing half-life set from a parameter: 0.1 s, half-way in 0.1 s.
    g.setParameter('half', 0.1);
    g.setParameter('s', 1.5);
    g.update(0.1);
    expect(values(g).strideScale).toBeCloseTo(1.1, 12);
    // NaN from a parameter is no setting: the smoothing off, the range [min, min].
    g.parameterValues[g.parameters.slotOf('half')] = NaN;
    g.parameterValues[g.parameters.slotOf('max')] = NaN;
    g.update(0.1);
    expect(values(g).strideScale).toBe(0.7);
  });

  it('refuses a binding on a property the node reads once, with its path and code, and offers none in the schema', () => {
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      parameters: { on: { type: 'bool', default: true }, n: { type: 'int', default: 3 } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        w: { type: 'StrideWarping', inputs: { pose: 'walk' }, properties: { ...BIPED_LEGS, solveIk: { param: 'on' }, pelvisIterations: { param: 'n' }, maxScale: { param: 'n' } } },
      },
      output: 'w',
    });
    expect(result.ok).toBe(false);
    const problems = !result.ok ? result.problems.map((p) => `${p.path} ${p.code}`).sort() : [];
    expect(problems).toEqual(['$.nodes.w.properties.pelvisIterations not-bindable', '$.nodes.w.properties.solveIk not-bindable']);
    const schema = graphJsonSchema() as { $defs?: Record<string, unknown> };
    const text = JSON.stringify(schema);
    const strideProps = (JSON.parse(text) as Record<string, unknown>);
    const find = (node: unknown): Record<string, unknown> | undefined => {
      if (typeof node !== 'object' || node === null) return undefined;
      const o = node as Record<string, unknown>;
      const props = o.properties as Record<string, unknown> | undefined;
      if (props && typeof props === 'object' && 'solveIk' in props && 'maxScale' in props) return props;
      for (const value of Object.values(o)) {
        const found = find(value);
        if (found) return found;
      }
      return undefined;
    };
    const props = find(strideProps)!;
    expect(JSON.stringify(props.solveIk)).not.toContain('param');
    expect(JSON.stringify(props.pelvisIterations)).not.toContain('param');
    expect(JSON.stringify(props.maxScale)).toContain('param');
  });
});

describe('StrideWarping in metres (issue 13, item 3)', () => {
  it('warps a skeleton in metres walking under 1 m/s: the minimum speed is relative to its legs', () => {
    const skeleton = sampleSkeleton();
    const ref = skeleton.referencePose;
    const bones = skeleton.boneNames.map((name, i) => ({
      name, ...(skeleton.parents[i] >= 0 ? { parent: skeleton.boneNames[skeleton.parents[i]] } : {}),
      translation: Array.from(ref.translations.subarray(i * 3, i * 3 + 3), (x) => x * 0.01),
      rotation: Array.from(ref.rotations.subarray(i * 4, i * 4 + 4)),
    }));
    const dir = mkdtempSync(join(tmpdir(), 'stride-m-'));
    const file = join(dir, 'metres.json');
    writeFileSync(file, JSON.stringify({ bones }));
    const asset = (warp: Record<string, unknown>) => loadGraphAsset({
      format: 'animgraph/1', skeleton: { file }, clips: {},
      parameters: { v: { type: 'vec3', default: [0, 0, 0.5] } },
      nodes: {
        legs: { type: 'LegPoser', properties: { left: [-25, 20, 0], right: [15, 20, 0] } },
        w: { type: 'StrideWarping', inputs: { pose: 'legs' }, properties: { ...BIPED_LEGS, ...warp } },
      },
      output: 'w',
    }, withTestNodes).createInstance();
    // The root moves at 0.5 m/s (a Mover adds it; the legs are posed), and should move at 0.75.
    const moving = loadGraphAsset({
      format: 'animgraph/1', skeleton: { file }, clips: {},
      nodes: {
        mover: { type: 'Mover', properties: { velocity: [0, 0, 0.5] } },
        w: { type: 'StrideWarping', inputs: { pose: 'mover' }, properties: { ...BIPED_LEGS, mode: 'fromRootMotion', locomotionSpeed: 0.75, scaleSmoothingTime: 0 } },
      },
      output: 'w',
    }, withTestNodes).createInstance();
    moving.update(0.1);
    expect(values(moving).strideScale).toBeCloseTo(1.5, 12);
    expect(values(moving).rootMotionSpeed).toBeCloseTo(0.5, 12);
    expectClose(moving.rootMotion.subarray(0, 3), [0, 0, 0.075], 1e-12);
    // The same legs at 1.5 in metres are the centimetre warp, scaled: heights kept, the feet moved.
    const metres = asset({ strideScale: 1.5 });
    metres.update(0.1);
    const cm = posedWarp({ strideScale: 1.5 }, [-25, 20, 0], [15, 20, 0]);
    cm.update(0.1);
    for (const bone of ['pelvis', 'foot_l', 'foot_r', 'calf_l']) expectClose(at(metres.componentPose(), bone), times(at(cm.componentPose(), bone), 0.01), 1e-9);
  });
});

describeWithData('StrideWarping on CMU captures (issue 13, items 4-6 and 8)', () => {
  const CMU_LEGS = { pelvisBone: 'CC_Base_Pelvis', ...LEGS };
  const ownSpeed = (graph: AnimGraph) => {
    const clip = graph.clipBindings.get('walk')!.clip, rm = clip.rootMotion!, n = clip.frameCount;
    return Math.hypot(rm.translations[(n - 1) * 3] - rm.translations[0], rm.translations[(n - 1) * 3 + 2] - rm.translations[2]) / clip.duration;
  };
  const asset = (file: string, warp: Record<string, unknown> | null, source: Record<string, unknown> = { type: 'SequencePlayer', properties: { clip: 'walk' } }) => loadGraphAsset({
    format: 'animgraph/1', skeleton: { bvh: `${CMU}${file}.bvh` },
    clips: { walk: { source: `${CMU}${file}.bvh`, frames: [1, -1], rootMotion: true } },
    parameters: { speed: { type: 'float', default: 100 } },
    nodes: { p: source, ...(warp ? { w: { type: 'StrideWarping', inputs: { pose: 'p' }, properties: { ...CMU_LEGS, mode: 'fromRootMotion', locomotionSpeed: { param: 'speed' }, ...warp } } } : {}) },
    output: warp ? 'w' : 'p',
  });
  const bend = (run: RunResult, f: number, side: string): V3 => {
    const c = run.frames[f].component!, i = (name: string) => run.bones.indexOf(`CC_Base_${side}_${name}`);
    const p = (bone: number): V3 => [c[bone][0], c[bone][1], c[bone][2]];
    const hip = p(i('Thigh')), knee = p(i('Calf')), foot = p(i('Foot'));
    const line = unit(sub(foot, hip)), k = sub(knee, hip);
    return sub(k, times(line, dot(k, line)));
  };
  const rotate = (q: number[], v: V3): V3 => {
    const [x, y, z, w] = q, tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
    return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz), v[2] + w * tz + (x * ty - y * tx)];
  };

  it('never swings a knee away from the way it bends, at 0.6x to 1.5x (item 4)', () => {
    const report: string[] = [];
    for (const [file, s] of [['007_04', 0.6], ['007_04', 1.3], ['007_12', 0.7], ['007_12', 1.5], ['002_03', 1.5]] as const) {
      const plainGraph = asset(file, null);
      const own = ownSpeed(plainGraph), fps = 30;
      const frames = Math.floor(plainGraph.clipBindings.get('walk')!.clip.duration * fps * 2);
      const plain = runGraph(plainGraph, { frames, fps, debug: false });
      const warped = runGraph(asset(file, {}), { frames, fps, debug: false, timeline: [{ name: 'speed', value: own * s, time: 0 }] });
      for (const side of ['L', 'R']) {
        const thigh = plain.bones.indexOf(`CC_Base_${side}_Thigh`);
        // The knee's axis in the thigh's frame: the mean direction of the clearly bent FK knee.
        let axis: V3 = [0, 0, 0];
        for (let f = 0; f < frames; f++) {
          const b = bend(plain, f, side);
          if (length(b) > 10) axis = add(axis, rotate(plain.frames[f].component![thigh].slice(3, 7).map((x, k) => (k < 3 ? -x : x)), unit(b)));
        }
        axis = unit(axis);
        // The worst angle between a bent knee (by 2 cm or more) and that axis, FK and warped.
        const worst = (run: RunResult) => {
          let w = 0;
          for (let f = 0; f < frames; f++) {
            const b = bend(run, f, side);
            if (length(b) > 2) w = Math.max(w, degreesBetween(b, rotate(run.frames[f].component![thigh].slice(3, 7), axis)));
          }
          return w;
        };
        const fk = worst(plain), ik = worst(warped);
        report.push(`${file} ${s}x ${side}: knee up to ${ik.toFixed(0)} deg off its axis (FK ${fk.toFixed(0)} deg)`);
        expect(ik, `${file} ${s}x ${side}`).toBeLessThan(fk + 10);
      }
    }
    console.log(report.join('\n'));
  });

  it('moves the pelvis at most 2 cm a frame on a run at 1.5x (item 5)', () => {
    const plainGraph = asset('002_03', null);
    const own = ownSpeed(plainGraph), fps = 30;
    const frames = Math.floor(plainGraph.clipBindings.get('walk')!.clip.duration * fps * 2);
    const plain = runGraph(plainGraph, { frames, fps, debug: false });
    const warped = runGraph(asset('002_03', {}), { frames, fps, debug: false, timeline: [{ name: 'speed', value: own * 1.5, time: 0 }] });
    const pelvis = plain.bones.indexOf('CC_Base_Pelvis');
    const offset = (f: number): V3 => [0, 1, 2].map((k) => warped.frames[f].component![pelvis][k] - plain.frames[f].component![pelvis][k]) as V3;
    let worst = 0, lowest = 0;
    for (let f = 1; f < frames; f++) {
      worst = Math.max(worst, length(sub(offset(f), offset(f - 1))));
      lowest = Math.min(lowest, offset(f)[1]);
    }
    console.log(`002_03 run at 1.5x: pelvis adjustment moves up to ${worst.toFixed(2)} cm a frame, down to ${lowest.toFixed(1)} cm`);
    expect(worst).toBeLessThan(2);
    expect(lowest).toBeLessThan(-2); // it is lowered
  });

  /** The largest distance a foot moves in one frame (world space) while the unwarped clip holds it planted. */
  const plantedStep = (plain: RunResult, run: RunResult, fps: number, from = 1, to = run.frames.length) => {
    let worst = 0;
    for (const side of ['L', 'R']) {
      const foot = plain.bones.indexOf(`CC_Base_${side}_Foot`);
      for (const [a, b] of stancePhases(plain, foot, fps)) {
        for (let f = Math.max(a, from); f <= Math.min(b, to - 1); f++) {
          const p = world(run, f - 1, foot), q = world(run, f, foot);
          worst = Math.max(worst, length(sub(q as V3, p as V3)));
        }
      }
    }
    return worst;
  };

  it('warps from the first frame and follows a speed change without popping planted feet (item 6)', () => {
    const report: string[] = [];
    for (const file of ['007_04', '002_01', '002_02']) {
      const plainGraph = asset(file, null);
      const own = ownSpeed(plainGraph), fps = 60;
      const plain = runGraph(plainGraph, { seconds: 2, fps, poses: true });
      // From 1.5x from the start: frame 0 is warped already, so frame 1 does not jump.
      const fast = runGraph(asset(file, {}), { seconds: 2, fps, timeline: [{ name: 'speed', value: own * 1.5, time: 0 }] });
      expect(fast.frames[0].debug!.children[0].values!.strideScale).toBeCloseTo(1.5, 9);
      const start = plantedStep(plain, fast, fps, 1, 3);
      // From 1x to 1.5x at 1 s: the default scale smoothing against none.
      const timeline = [{ name: 'speed', value: own, time: 0 }, { name: 'speed', value: own * 1.5, time: 1 }];
      const smooth = plantedStep(plain, runGraph(asset(file, {}), { seconds: 2, fps, timeline }), fps, 55, 90);
      const sudden = plantedStep(plain, runGraph(asset(file, { scaleSmoothingTime: 0 }), { seconds: 2, fps, timeline }), fps, 55, 90);
      report.push(`${file}: planted foot moves up to ${start.toFixed(2)} cm in the first frames at 1.5x; at 1x to 1.5x ${smooth.toFixed(2)} cm a frame (${sudden.toFixed(2)} cm unsmoothed)`);
      expect(start).toBeLessThan(2);
      expect(smooth).toBeLessThan(2);
      expect(sudden).toBeGreaterThan(5); // what the smoothing saves
    }
    console.log(report.join('\n'));
  });

  it('keeps the scale at 1 over a PoseSearchBlend playing a clip at its own speed (item 8)', () => {
    const report: string[] = [];
    for (const file of ['007_04', '002_01']) {
      const search = { type: 'PoseSearchBlend', properties: { clips: ['walk'], motion: 0 } };
      const graph = asset(file, {}, search);
      const own = ownSpeed(graph), fps = 30;
      const frames = Math.floor(graph.clipBindings.get('walk')!.clip.duration * fps * 2);
      const run = runGraph(graph, { frames, fps, poses: false, timeline: [{ name: 'speed', value: own, time: 0 }] });
      let worst = 0;
      for (let f = 0; f < frames; f++) worst = Math.max(worst, Math.abs((run.frames[f].debug!.children[0].values!.strideScale as number) - 1));
      report.push(`${file} under PoseSearchBlend at its own speed: scale within ${worst.toExponential(1)} of 1`);
      expect(worst).toBeLessThan(0.01);
    }
    console.log(report.join('\n'));
  });
});

describe('StrideWarping pelvis spring at extreme constants (issue 13, item 11)', () => {
  const warp = (spring: Record<string, number>) => bipedInstance({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    w: {
      type: 'StrideWarping', inputs: { pose: 'walk' },
      properties: {
        pelvisBone: 'pelvis', leftThigh: 'thigh_l', leftCalf: 'calf_l', leftFoot: 'foot_l',
        rightThigh: 'thigh_r', rightCalf: 'calf_r', rightFoot: 'foot_r', strideScale: 1.6, ...spring,
      },
    },
  }, 'w');

  it('a spring that settles within the frame is no smoothing; none gives NaN', () => {
    // ω = √(stiffness / mass) of 1e6 to 1e150: the spring's decay over a frame underflows to 0, and
    // the offset is the target's, exactly.
    const unsmoothed = warp({ pelvisStiffness: 0 });
    for (const spring of <Record<string, number>[]>[{ pelvisStiffness: 1e300 }, { pelvisStiffness: 1e6, pelvisMass: 1e-6 }, { pelvisStiffness: 1e300, pelvisDamping: 0 }, { pelvisStiffness: 1e300, pelvisDamping: 1e6 }]) {
      const g = warp(spring);
      for (const dt of [0, 0.1, 0.1, 1e6]) {
        g.update(dt);
        unsmoothed.update(dt);
        const pose = g.evaluate();
        expect(hasNaN(pose.translations) || hasNaN(pose.rotations), JSON.stringify(spring)).toBe(false);
        if (spring.pelvisDamping === undefined) expectClose(pose.translations, unsmoothed.evaluate().translations, 0);
      }
      unsmoothed.reset();
    }
    // The default spring over a 1e6 s frame has settled: exactly the unsmoothed pose.
    const g = warp({});
    const plain = warp({ pelvisStiffness: 0 });
    for (const dt of [0, 0.1, 1e6]) {
      g.update(dt);
      plain.update(dt);
    }
    expectClose(g.evaluate().translations, plain.evaluate().translations, 0);
    // An undamped spring (damping 0) oscillates for ever, never NaN; an overdamped one (1e6) barely moves.
    for (const pelvisDamping of [0, 1e6]) {
      const h = warp({ pelvisDamping });
      for (let f = 0; f < 200; f++) {
        h.update(f === 0 ? 0 : 1 / 30);
        const pose = h.evaluate();
        expect(hasNaN(pose.translations)).toBe(false);
      }
    }
  });
});

describe('StrideWarping fromRootMotion at paces near the largest double', () => {
  // 'walk' (built in) keeps its root motion bone in place; 'glide' moves it 150 cm/s along +z.
  const glide = (() => {
    const frames = Array.from({ length: 31 }, (_, f) => `0 95 ${5 * f} 0 0 0`).join('\n');
    const file = join(mkdtempSync(join(tmpdir(), 'stride-glide-')), 'glide.bvh');
    writeFileSync(file, `HIERARCHY\nROOT pelvis\n{\n  OFFSET 0 95 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n`
      + `  End Site\n  {\n    OFFSET 0 10 0\n  }\n}\nMOTION\nFrames: 31\nFrame Time: 0.0333333333333\n${frames}\n`);
    return file;
  })();
  const warp = (source: Record<string, unknown>) => loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk', rootMotion: { bone: 'pelvis' } }, glide: { source: glide, rootMotion: { bone: 'pelvis' } } },
    parameters: { r: { type: 'float', default: 1 } },
    nodes: {
      s: source,
      w: { type: 'StrideWarping', inputs: { pose: 's' }, properties: { ...BIPED_LEGS, mode: 'fromRootMotion', locomotionSpeed: 150, rootMotionWindow: 0.2, minRootMotionSpeed: 1 } },
    },
    output: 'w',
  }).createInstance();
  const values = (g: AnimGraphInstance) => g.gatherDebug().children[0].values!;
  const finite = (g: AnimGraphInstance) => {
    const numbers: number[] = [];
    const pose = g.evaluate();
    JSON.stringify(values(g), (_, v) => (typeof v === 'number' && numbers.push(v), v));
    return numbers.every(Number.isFinite) && ![pose.translations, pose.rotations, g.rootMotion].some(hasNaN);
  };
  const player = (clip: string) => ({ type: 'SequencePlayer', properties: { clip, playRate: { param: 'r' } } });
  const evaluator = (clip: string) => ({ type: 'SequenceEvaluator', properties: { clip, explicitTime: { param: 'r' }, loop: true } });

  it('takes a velocity reported beyond a double (a play rate of 1.7e308 over a 0.2 s window) as no measurement: the last one holds', () => {
    const g = warp(player('glide'));
    g.update(0.1);
    const before = values(g);
    expect(before.rootMotionSpeed).toBeCloseTo(150, 6);
    for (const rate of [1.7e308, -1.7e308, 1e300]) {
      g.setParameter('r', rate);
      g.update(0.1); // the speed was Infinity
      expect(values(g).rootMotionSpeed).toBe(before.rootMotionSpeed);
      expect(values(g).strideDirection).toEqual(before.strideDirection);
      expect(finite(g)).toBe(true);
    }
    g.setParameter('r', 1);
    g.update(0.1);
    expect(values(g).rootMotionSpeed).toBeCloseTo(150, 6);
    // An explicit time jumping from -1.7e308 to 1.7e308 in a frame: a pace of Infinity.
    const e = warp(evaluator('glide'));
    for (const t of [0.3, 0.4, -1.7e308, 1.7e308, 0.5]) {
      e.setParameter('r', t);
      e.update(0.1);
      expect(finite(e)).toBe(true);
    }
  });

  it('measures a still root as still at any pace (0 × Infinity was NaN)', () => {
    for (const rate of [1.7e308, -1.7e308]) {
      const g = warp(player('walk'));
      g.setParameter('r', rate);
      for (const dt of [0.1, 5e-324, 1e6]) {
        g.update(dt);
        expect(values(g).rootMotionSpeed).toBe(0);
        expect(finite(g)).toBe(true);
      }
    }
    // A jump of 1 s of clip time in 5e-324 s: a pace of Infinity.
    const e = warp(evaluator('walk'));
    e.setParameter('r', 0.1);
    e.update(0.1);
    e.setParameter('r', 1.1);
    e.update(5e-324);
    expect(values(e).rootMotionSpeed).toBe(0);
    expect(finite(e)).toBe(true);
  });
});
