import { describe, expect, it } from 'vitest';
import type { ComponentPose } from '../../runtime/core/component-pose.ts';
import { quatFromTo, quatMultiply, quatRotateVec3 } from '../../runtime/core/math.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { runProbe } from '../support/allocation.ts';
import { bipedInstance, expectClose, hasNaN } from '../support/graphs.ts';
import { describeWithData } from '../support/shared-data.ts';
import { cmuWalkInstance, controlProblems } from '../support/walk-controls.ts';

type V = [number, number, number];
const sub = (a: V, b: V): V => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: V, b: V) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: V, b: V): V => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a: V): V => a.map((x) => x / Math.hypot(...a)) as V;
// atan2 rather than acos, which near 0 is only good to about 1.5e-8 (acos(1 − ε) ≈ √(2ε)).
const angle = (a: V, b: V) => Math.atan2(Math.hypot(...cross(unit(a), unit(b))), dot(unit(a), unit(b)));
const DEG = 180 / Math.PI;
const pos = (cs: ComponentPose, b: number): V => {
  cs.ensureComponent(b);
  return [cs.translations[b * 3], cs.translations[b * 3 + 1], cs.translations[b * 3 + 2]];
};
/** Bone b's local `axis` in component space. */
const axisOf = (cs: ComponentPose, b: number, axis: V): V => {
  cs.ensureComponent(b);
  const v = quatRotateVec3(new Float64Array(3), 0, cs.rotations, b * 4, Float64Array.from(axis), 0);
  return [v[0], v[1], v[2]];
};

function lookGraph(properties: Record<string, unknown>): AnimGraphInstance {
  return bipedInstance({
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    look: { type: 'LookAt', inputs: { pose: 'walk' }, properties: { bone: 'head', target: { param: 't' }, ...properties } },
  }, 'look', { t: { type: 'vec3', default: [0, 0, 0] }, a: { type: 'float', default: 1 } });
}

describe('LookAt on the built-in biped (head, look axis +Z)', () => {
  const fk = bipedInstance({ walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, 'walk');
  fk.update(0.3);
  const f = fk.componentPose();
  const HEAD = f.skeleton.indexOf('head'), HAND = f.skeleton.indexOf('hand_l');
  const head = pos(f, HEAD), forward = axisOf(f, HEAD, [0, 0, 1]);
  const solved = (properties: Record<string, unknown>, target: V) => {
    const g = lookGraph(properties);
    g.setParameter('t', target);
    g.update(0.3);
    return g.componentPose();
  };
  // 80 degrees to the left of where the head faces, and a little up.
  const target: V = [head[0] + 100, head[1] + 20, head[2] + 20];

  it('turns the look axis onto the target by the smallest rotation, the head staying where it is', () => {
    expect(angle(forward, sub(target, head)) * DEG).toBeGreaterThan(60);
    const cs = solved({}, target);
    expect(angle(axisOf(cs, HEAD, [0, 0, 1]), sub(target, head))).toBeLessThan(1e-12);
    expectClose(pos(cs, HEAD), head, 1e-12);
    // By hand: the smallest rotation from the old axis to the target direction, before the head's own.
    const s = new Float64Array(12);
    s.set(forward, 0); s.set(sub(target, head), 3);
    quatFromTo(s, 6, s, 0, s, 3, s, 9);
    const expected = quatMultiply(new Float64Array(4), 0, s, 6, f.rotations, HEAD * 4);
    expectClose(cs.rotations.subarray(HEAD * 4, HEAD * 4 + 4), expected, 1e-12);
  });

  it('turns at most clampAngle, exactly that far toward a target beyond it, and straight at one within it', () => {
    const cs = solved({ clampAngle: 30 }, target);
    const now = axisOf(cs, HEAD, [0, 0, 1]), total = angle(forward, sub(target, head));
    expect(Math.abs(angle(forward, now) * DEG - 30)).toBeLessThan(1e-9);
    expect(Math.abs(angle(now, sub(target, head)) - (total - 30 / DEG))).toBeLessThan(1e-9);
    // On the great circle toward the target: in the plane of the old axis and the target direction.
    expect(Math.abs(dot(now, unit(cross(forward, sub(target, head)))))).toBeLessThan(1e-12);
    const near: V = [head[0] + 10, head[1], head[2] + 40];
    expect(angle(forward, sub(near, head)) * DEG).toBeLessThan(30);
    expect(angle(axisOf(solved({ clampAngle: 30 }, near), HEAD, [0, 0, 1]), sub(near, head))).toBeLessThan(1e-12);
  });

  it('with useUpAxis turns only about the up axis: the up axis stays, the look axis faces the target seen from above', () => {
    const cs = solved({ useUpAxis: true }, target);
    const up = axisOf(f, HEAD, [0, 1, 0]);
    expectClose(axisOf(cs, HEAD, [0, 1, 0]), up, 1e-12);
    const flat = (v: V): V => sub(v, up.map((x) => x * dot(v, up)) as V);
    expect(angle(flat(axisOf(cs, HEAD, [0, 0, 1])), flat(sub(target, head)))).toBeLessThan(1e-12);
  });

  it('looks at a bone through an offset in its space (a socket) as at the same point given as a vector', () => {
    const offset: V = [0, 10, 5];
    const turnedOffset = quatRotateVec3(new Float64Array(3), 0, f.rotations, HAND * 4, Float64Array.from(offset), 0);
    const socket = pos(f, HAND).map((x, i) => x + turnedOffset[i]) as V;
    const byBone = solved({ targetMode: 'bone', targetBone: 'hand_l', target: offset }, [0, 0, 0]);
    const byVector = solved({}, socket);
    expectClose(byBone.rotations, byVector.rotations, 1e-12);
    expect(angle(axisOf(byBone, HEAD, [0, 0, 1]), sub(socket, head))).toBeLessThan(1e-12);
  });

  it('interpolates to a new target over interpolationTime, eased, and ignores moves below the trigger threshold', () => {
    const g = lookGraph({ interpolationTime: 1, interpolationTriggerThreshold: 10 });
    const A: V = [0, 160, 100], B: V = [80, 160, 20];
    const looked = () => { g.evaluate(); return g.gatherDebug().children[0].values!.target as number[]; };
    g.setParameter('t', A);
    g.update(0.3);
    expectClose(looked(), A, 0); // the first target at once
    g.setParameter('t', B);
    g.update(0.25);
    expectClose(looked(), A, 1e-12); // a move starts here
    g.update(0.25);
    expectClose(looked(), A.map((x, i) => x + (B[i] - x) * 0.25), 1e-12);
    g.update(0.25);
    expectClose(looked(), A.map((x, i) => x + (B[i] - x) * 0.5), 1e-12);
    g.update(0.75);
    expectClose(looked(), B, 0);
    // 5 units is below the threshold: no move.
    g.setParameter('t', [85, 160, 20]);
    g.update(0.25);
    expectClose(looked(), B, 0);
    const eased = lookGraph({ interpolationTime: 1, interpolation: 'sinusoidal' });
    eased.setParameter('t', A); eased.update(0.3); eased.evaluate();
    eased.setParameter('t', B); eased.update(0.25); eased.evaluate();
    eased.update(0.25); eased.evaluate();
    const k = (1 - Math.cos(Math.PI / 4)) / 2;
    expectClose(eased.gatherDebug().children[0].values!.target as number[], A.map((x, i) => x + (B[i] - x) * k), 1e-12);
  });

  it('blends by alpha and reports the angle turned; alpha 0 leaves the pose alone', () => {
    const g = lookGraph({ alpha: { param: 'a' } });
    g.setParameter('t', target);
    g.update(0.3);
    g.evaluate();
    const line = g.gatherDebug().children[0];
    expect(line.description).toBe('Alpha: 100.0% head -> target');
    expect(Math.abs((line.values!.angle as number) - angle(forward, sub(target, head)) * DEG)).toBeLessThan(1e-9);
    g.setParameter('a', 0);
    g.update(0);
    expectClose(g.evaluate().rotations, f.local.rotations, 0);
  });

  it('never gives NaN: a target on the head, straight behind with and without a clamp or the up axis', () => {
    const behind = head.map((x, i) => x - forward[i] * 50) as V;
    for (const t of [head, behind]) {
      for (const props of [{}, { clampAngle: 45 }, { useUpAxis: true }, { useUpAxis: true, clampAngle: 10 }]) {
        const cs = solved(props, t);
        expect(hasNaN(cs.rotations) || hasNaN(cs.translations)).toBe(false);
      }
    }
    expect(angle(axisOf(solved({ clampAngle: 45 }, behind), HEAD, [0, 0, 1]), forward) * DEG).toBeCloseTo(45, 9);
  });

  it('is deterministic and allocates nothing per frame (0 B once warm)', () => {
    const [a, b] = [0, 1].map(() => lookGraph({ interpolationTime: 0.2, interpolation: 'cubic', clampAngle: 50 }));
    for (let frame = 0; frame < 120; frame++) {
      const t: V = [60 * Math.sin(frame / 9), 150, 60 * Math.cos(frame / 13)];
      for (const g of [a, b]) { g.setParameter('t', t); g.update(1 / 60); }
      expect(Array.from(a.evaluate().rotations)).toEqual(Array.from(b.evaluate().rotations));
    }
    const result = runProbe<Record<string, number>>('controls-allocation-probe.ts', [], ['LookAt']);
    expect(result.perFrame).toBeLessThan(0.5);
  });
});

describe('LookAt load checks', () => {
  const problems = (look: Record<string, unknown>) => controlProblems('LookAt', 'look', look);

  it('needs a target bone in bone mode, an up axis not parallel to the look axis, axes that are not zero', () => {
    expect(problems({ bone: 'head' })).toEqual([]);
    expect(problems({ bone: 'head', targetMode: 'bone' })).toEqual(["$.nodes.look.properties.targetBone [schema] targetMode 'bone' needs a targetBone"]);
    expect(problems({ bone: 'head', lookAxis: [0, 2, 0], useUpAxis: true })).toEqual([
      '$.nodes.look.properties.upAxis [schema] upAxis is parallel to lookAxis: the bone turning only about it could never aim the look axis',
    ]);
    expect(problems({ bone: 'head', lookAxis: [0, 2, 0] })).toEqual([]);
    expect(problems({ bone: 'head', lookAxis: [0, 0, 0] })).toEqual([expect.stringMatching(/lookAxis \[schema\]/)]);
    expect(problems({ bone: 'head', clampAngle: 181 })).toEqual([expect.stringMatching(/clampAngle \[schema\]/)]);
    expect(problems({ bone: 'head', interpolation: 'quintic' })).toEqual([expect.stringMatching(/interpolation \[schema\]/)]);
  });
});

describeWithData('LookAt on the CMU walk (CC_Base_Head)', () => {
  it('every frame the head’s look axis is within the clamp of the walk’s, and on the target when the target is within it', () => {
    const graph = cmuWalkInstance;
    const fk = graph({}, 'walk');
    const look = graph({ look: { type: 'LookAt', inputs: { pose: 'walk' }, properties: { bone: 'CC_Base_Head', target: { param: 't' }, clampAngle: 45 } } }, 'look');
    const HEAD = fk.skeleton.indexOf('CC_Base_Head');
    let within = 0, beyond = 0;
    for (let frame = 0; frame < 240; frame++) {
      const dt = frame === 0 ? 0 : 1 / 120;
      fk.update(dt);
      const f = fk.componentPose(), head = pos(f, HEAD), before = axisOf(f, HEAD, [0, 0, 1]);
      // A target circling the head, 100 units out.
      const target: V = [head[0] + 100 * Math.sin(frame / 20), head[1] + 10, head[2] + 100 * Math.cos(frame / 20)];
      look.setParameter('t', target);
      look.update(dt);
      const cs = look.componentPose(), after = axisOf(cs, HEAD, [0, 0, 1]);
      expect(hasNaN(cs.rotations)).toBe(false);
      expectClose(pos(cs, HEAD), head, 1e-9);
      expect(angle(before, after) * DEG).toBeLessThanOrEqual(45 + 1e-9);
      if (angle(before, sub(target, head)) * DEG <= 45) {
        expect(angle(after, sub(target, head))).toBeLessThan(1e-9);
        within++;
      } else {
        expect(Math.abs(angle(before, after) * DEG - 45)).toBeLessThan(1e-9);
        beyond++;
      }
    }
    expect(within).toBeGreaterThan(20);
    expect(beyond).toBeGreaterThan(20);
  });
});
