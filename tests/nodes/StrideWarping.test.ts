import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../graphs/loader.ts';
import type { AnimGraph } from '../../runtime/graph.ts';
import { runGraph, type RunResult } from '../../runtime/runner.ts';
import { bipedInstance, hasNaN } from '../support/graphs.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

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
      // The root moves at the requested speed on average (the average needs a moment to settle).
      const travelled = Math.hypot(warped.frames[n - 1].root![0], warped.frames[n - 1].root![2]);
      expect(Math.abs(travelled / ((n - 1) / fps) / (s * clipSpeed) - 1)).toBeLessThan(0.1);
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
        const warped = runGraph(cmuGraph(file, { strideScale: s, strideDirection: dir }), { frames, fps, debug: false });
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
    const g = warp({ strideScale: { param: 's' } });
    plain.update(0.3);
    g.update(0.3);
    const a = plain.componentPose(), b = g.componentPose();
    for (let i = 0; i < a.translations.length; i++) expect(b.translations[i]).toBeCloseTo(a.translations[i], 6);
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
