import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../graphs/loader.ts';
import { expectClose } from '../support/graphs.ts';
import { Clip } from '../../runtime/clip.ts';
import { quatFromAxisAngle } from '../../runtime/math.ts';
import { extractRootMotion, integrateRootMotion, rootMotionDelta } from '../../runtime/root-motion.ts';
import { runGraph } from '../../runtime/runner.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

/** A root that walks 10 units along +Z per key while turning 90 degrees over the clip (5 keys at 4 fps). */
function turningClip(): Clip {
  const c = new Clip({ name: 'turn', frameRate: 4, frameCount: 5, tracks: [{ bone: 'root', translation: true, rotation: true, scale: false }] });
  for (let f = 0; f < 5; f++) {
    c.translations.set([0, 90, 10 * f], f * 3);
    quatFromAxisAngle(c.rotations, f * 4, 0, 1, 0, (Math.PI / 2) * (f / 4));
  }
  return c;
}

describe('root motion', () => {
  it('takes the horizontal translation and heading out of the root, keeping its height', () => {
    const c = turningClip();
    const motion = extractRootMotion(c, 'root');
    expect(Array.from(c.translations.subarray(6, 9))).toEqual([0, 90, 0]);
    expectClose(c.rotations.subarray(8, 12), [0, 0, 0, 1], 1e-12);
    expect(motion.headings[4]).toBeCloseTo(Math.PI / 2, 12);
    expect(motion.translations[4 * 3 + 2]).toBe(40);
  });

  it('gives deltas in the character frame at the start, and wraps across a loop', () => {
    const c = turningClip();
    const motion = extractRootMotion(c, 'root');
    const out = new Float64Array(4);
    // From key 2 (heading 45 degrees) to key 3: 10 along world +Z is, in a frame turned 45 degrees, (-sin45, cos45) * 10.
    rootMotionDelta(out, c, motion, Float64Array.of(0.5, 0.75, 0, 1));
    expect(out[0]).toBeCloseTo(-10 * Math.SQRT1_2, 12);
    expect(out[2]).toBeCloseTo(10 * Math.SQRT1_2, 12);
    expect(out[3]).toBeCloseTo(Math.PI / 8, 12);
    // Looping from 0.75 s to 0.25 s (wrapped): the last quarter then the first, heading change 45 degrees in all.
    rootMotionDelta(out, c, motion, Float64Array.of(0.75, 0.25, 1, 1));
    expect(out[3]).toBeCloseTo(Math.PI / 4, 12);
    // Leg one: world +Z seen from heading 67.5 degrees; leg two: +Z from heading 0, turned by the 22.5 degrees so far.
    const a = (67.5 * Math.PI) / 180, b = (22.5 * Math.PI) / 180;
    expect(out[0]).toBeCloseTo(-10 * Math.sin(a) + 10 * Math.sin(b), 12);
    expect(out[2]).toBeCloseTo(10 * Math.cos(a) + 10 * Math.cos(b), 12);
  });

  it('integrates deltas into a world transform that follows the original root path', () => {
    const c = turningClip();
    const motion = extractRootMotion(c, 'root');
    const world = Float64Array.of(0, 0, 0, 0, 0, 0, 1);
    const d = new Float64Array(4);
    for (let k = 0; k < 4; k++) integrateRootMotion(world, rootMotionDelta(d, c, motion, Float64Array.of(k / 4, (k + 1) / 4, 0, 1)));
    expect(world[2]).toBeCloseTo(40, 9); // heading 0 at the start, so the world path is the clip's
    expect(world[0]).toBeCloseTo(0, 9);
    expect(2 * Math.atan2(world[4], world[6])).toBeCloseTo(Math.PI / 2, 12);
  });

  it('is a load error on a clip that does not animate the root bone', () => {
    // The built-in clips play in place: their root has no track.
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk', rootMotion: true }, run: { source: 'builtin:run', rootMotion: { bone: 'tail' } } },
      nodes: { p: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'p',
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.map((p) => p.path)).toEqual(['$.clips.walk.rootMotion', '$.clips.run.rootMotion.bone']);
  });
});

describeWithData('root motion on the CMU walk', () => {
  const asset = (rootMotion: boolean, nodes?: Record<string, unknown>) => loadGraphAsset({
    format: 'animgraph/1',
    skeleton: { bvh: `${CMU}002_01.bvh` },
    clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1], rootMotion } },
    nodes: nodes ?? { p: { type: 'SequencePlayer', properties: { clip: 'walk', loop: false } } },
    output: nodes ? 'b' : 'p',
  });

  it('plays in place, and root + component space puts the feet where the capture had them', () => {
    const withMotion = asset(true);
    const plain = runGraph(asset(false), { frames: 160, fps: 60, debug: false });
    const moved = runGraph(withMotion, { frames: 160, fps: 60, debug: false });
    const motion = withMotion.clipBindings.get('walk')!.clip.rootMotion!;
    const [h0x, , h0z] = motion.translations;
    const yaw0 = motion.headings[0];
    const foot = plain.bones.indexOf('CC_Base_L_Foot');
    let travelled = 0;
    for (const f of [0, 40, 80, 159]) {
      const root = moved.frames[f].root!;
      const rootBone = moved.frames[f].component![0];
      expect(Math.abs(rootBone[0]) + Math.abs(rootBone[2])).toBeLessThan(1e-9); // in place horizontally
      // World foot = root transform applied to the in-place component-space foot.
      const [fx, fy, fz] = moved.frames[f].component![foot];
      const [qx, qy, qz, qw] = root.slice(3);
      const tx = 2 * (qy * fz - qz * fy), ty = 2 * (qz * fx - qx * fz), tz = 2 * (qx * fy - qy * fx);
      const wx = root[0] + fx + qw * tx + (qy * tz - qz * ty);
      const wy = root[1] + fy + qw * ty + (qz * tx - qx * tz);
      const wz = root[2] + fz + qw * tz + (qx * ty - qy * tx);
      // The capture's foot, seen from the character's start (its first root position and heading).
      const [px, py, pz] = plain.frames[f].component![foot];
      const dx = px - h0x, dz = pz - h0z, c = Math.cos(-yaw0), s = Math.sin(-yaw0);
      const ex = c * dx + s * dz, ez = -s * dx + c * dz;
      expect(Math.hypot(wx - ex, wy - py, wz - ez)).toBeLessThan(1e-6);
      travelled = Math.hypot(root[0], root[2]);
    }
    expect(travelled).toBeGreaterThan(100); // the walk covers more than a metre
  });

  it('blends root motion by weight', () => {
    const nodes = {
      a: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      c: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0 } },
      b: { type: 'BlendTwo', inputs: { A: 'a', B: 'c' }, properties: { alpha: 0.25 } },
    };
    const blended = asset(true, nodes).createInstance();
    const single = asset(true).createInstance();
    blended.update(0.1);
    single.update(0.1);
    for (let k = 0; k < 4; k++) expect(blended.rootMotion[k]).toBeCloseTo(single.rootMotion[k] * 0.75, 12);
    expect(Math.abs(single.rootMotion[2]) + Math.abs(single.rootMotion[0])).toBeGreaterThan(1);
  });
});
