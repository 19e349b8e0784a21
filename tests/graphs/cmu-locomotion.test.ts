import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { loadGraphFile } from '../../host/files.ts';
import { runGraph } from '../../host/runner.ts';
import { sampleClip } from '../../runtime/core/sampling.ts';
import { Pose } from '../../runtime/core/pose.ts';
import { describeWithData } from '../support/shared-data.ts';

/** Angle in radians between two unit quaternions given as [x, y, z, w]. */
function angle(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const dot = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  return 2 * Math.acos(Math.min(1, dot));
}

describeWithData('graphs/examples/cmu-locomotion.json: a state machine on motion capture with an upper-body layer', () => {
  const graph = loadGraphFile(fileURLToPath(new URL('../../graphs/examples/cmu-locomotion.json', import.meta.url)));
  const skeleton = graph.skeleton;
  const thigh = skeleton.indexOf('CC_Base_L_Thigh');
  const upperarm = skeleton.indexOf('CC_Base_L_Upperarm');
  const fps = 30;
  // speed crosses the walk/run threshold at 0.4 s, frame 12.
  const timeline = [{ name: 'speed', value: 300, time: 0.4 }];
  const run = runGraph(graph, { seconds: 1.2, fps, timeline });
  const noLayer = runGraph(graph, { seconds: 1.2, fps, timeline: [...timeline, { name: 'upperBody', value: 0, time: 0 }] });
  const rotation = (frame: number, bone: number, result = run) => result.frames[frame].local![bone].slice(3, 7);
  const clipRotation = (clip: string, time: number, bone: number) => {
    const pose = new Pose(skeleton.boneCount);
    sampleClip(pose, graph.clipBindings.get(clip)!, time, true);
    return Array.from(pose.rotations.subarray(bone * 4, bone * 4 + 4));
  };
  const states = (frame: number) => JSON.stringify(run.frames[frame].debug);

  it('walks below the threshold: the legs are the walk clip, untouched by the layer', () => {
    expect(thigh).toBeGreaterThan(0);
    expect(states(11)).toContain('State: walk');
    const expected = clipRotation('walk', 11 / fps, thigh);
    rotation(11, thigh).forEach((v, i) => expect(v).toBeCloseTo(expected[i], 12));
  });

  it('switches to run at 0.4 s through the inertialization: no pop, then exactly the run', () => {
    expect(states(12)).toContain('State: run');
    // The run's first frame is far from the walk's pose at 0.4 s, the output is not.
    const jump = angle(clipRotation('run', 0, thigh), rotation(11, thigh));
    const step = angle(rotation(12, thigh), rotation(11, thigh));
    expect(jump).toBeGreaterThan(0.1);
    expect(step).toBeLessThan(jump / 4);
    // 0.3 s after the switch (frame 21) the transition is over: the legs are the run clip, which has
    // played since frame 12's update (the state is entered at its start, and plays that update).
    const after = 22;
    const expected = clipRotation('run', (after - 11) / fps, thigh);
    rotation(after, thigh).forEach((v, i) => expect(v).toBeCloseTo(expected[i], 12));
  });

  it('the upper body follows the second walk take at weight upperBody, the legs do not', () => {
    for (const frame of [5, 20, 30]) {
      expect(rotation(frame, thigh)).toEqual(rotation(frame, thigh, noLayer));
      expect(angle(rotation(frame, upperarm), rotation(frame, upperarm, noLayer))).toBeGreaterThan(0.02);
    }
    expect(run.frames.every((f) => f.local!.flat().every(Number.isFinite))).toBe(true);
  });
});
