/**
 * Measures bytes allocated per frame by AimOffset, AimOffset1D and AimOffsetLookAt (a bound yaw and
 * pitch or target moving every frame, a bound alpha, smoothing, over a locomotion state machine
 * switching states) in a
 * plain Node process, as allocation-probe.ts does for the other nodes (see there why not inside
 * vitest). Prints one JSON line: { perFrame, windows, moved }.
 */
import { fileURLToPath } from 'node:url';
import { loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const examples = fileURLToPath(new URL('../../graphs/examples/', import.meta.url));
const g = loadGraphFile(`${examples}sample-aim-offset.json`).createInstance();
const lookAt = loadGraphFile(`${examples}sample-aim-look-at.json`).createInstance();
const line = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: {
    walk: { source: 'builtin:walk' },
    aimPoses: { source: 'builtin:aim' },
    left: { source: 'builtin:aim', frames: [1, 1], additive: { reference: { clip: 'aimPoses', frame: 0 }, space: 'mesh' } },
    right: { source: 'builtin:aim', frames: [2, 2], additive: { reference: { clip: 'aimPoses', frame: 0 }, space: 'mesh' } },
  },
  parameters: { yaw: { type: 'float', default: 0 }, a: { type: 'float', default: 0.8 } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    aim: {
      type: 'AimOffset1D', inputs: { base: 'walk' },
      properties: { samples: [{ clip: 'left', x: 60 }, { clip: 'right', x: -60 }], x: { param: 'yaw' }, alpha: { param: 'a' }, smoothingTime: 0.1 },
    },
  },
  output: 'aim',
}, { baseDir: examples }).createInstance();

let frame = 0;
// The target set every frame from one array the probe reuses, as a game loop would: setParameter
// of a vec3 checked it with value.every and a closure, 56 bytes a call, before it was written out.
const target = [0, 0, 0];
const step = () => {
  const t = frame++;
  // Yaw and pitch sweep over and beyond the samples every frame (whole numbers: a double handed to
  // setParameter is boxed by the probe, not the graph); alpha steps between 0 and 1; the speed
  // crosses the walk and run thresholds every 120 frames.
  g.setParameter('yaw', (t % 160) - 80);
  g.setParameter('pitch', (t % 110) - 55);
  g.setParameter('aim', ((t / 200) | 0) % 3 === 0 ? 0 : 1);
  g.setParameter('speed', ((t / 120) | 0) % 3 === 0 ? 0 : ((t / 120) | 0) % 3 === 1 ? 150 : 400);
  line.setParameter('yaw', (t % 150) - 75);
  // Round the character, and once in a while at the socket itself (no direction).
  target[0] = (t % 400) - 200;
  target[1] = (t % 90) + 100;
  target[2] = 200 - (t % 333);
  lookAt.setParameter('target', target);
  lookAt.setParameter('speed', ((t / 150) | 0) % 3 === 0 ? 0 : ((t / 150) | 0) % 3 === 1 ? 150 : 400);
  g.update(1 / 60);
  g.evaluate();
  g.componentPose();
  line.update(1 / 60);
  line.evaluate();
  lookAt.update(1 / 60);
  lookAt.evaluate();
};
for (let i = 0; i < 600; i++) step();
const { perFrame, windows } = bytesPerFrame(step, { untilFloor: true });
g.setParameter('yaw', 0);
g.setParameter('pitch', 0);
g.setParameter('aim', 1);
g.update(1);
const still = Float64Array.from(g.evaluate().rotations);
g.setParameter('yaw', 60);
g.update(1);
// The look-at target at the end of the measured loop depends on how many frames it ran (it runs
// until the allocation reading settles), so the check sets a target well off to one side.
target[0] = 150;
target[1] = 150;
target[2] = 100;
lookAt.setParameter('target', target);
lookAt.update(1);
lookAt.evaluate();
const head = 5 * 4;
const lookedAt = lookAt.nodes.get('aim') as unknown as { coordinates: Float64Array };
const moved = Math.abs(g.evaluate().rotations[head + 1] - still[head + 1]) > 0.05 && Math.abs(lookedAt.coordinates[0]) > 1;
console.log(JSON.stringify({ perFrame, windows, moved }));
