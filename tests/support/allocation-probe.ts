/**
 * Measures bytes allocated per frame by a graph with every blend and control path active, in a
 * plain Node process (`node --expose-gc --import tsx`). The allocation test runs this instead of
 * measuring inside vitest, whose module transform turns imports into property reads and so
 * changes what V8 inlines (and therefore what it boxes).
 * Prints one JSON line: { perFrame, poolSize, listWeights, perFrameWarped, inertialActive, perSetParameter, perFrameRootMotion,
 * rootMotion, perFrameRootMotionWarped, rootMotionWarped, perFrameCrowd, crowdWarp }.
 */
import { loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { Crowd } from '../../host/crowd.ts';
import { bytesPerFrame } from './allocation.ts';

const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  parameters: { i: { type: 'int', default: 0 }, t: { type: 'vec3', default: [12, 25, 20] } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.2 } },
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.4 } },
    // A blend that lasts the whole probe, so both list inputs stay relevant.
    list: { type: 'BlendList', inputs: { poses: ['idle', 'blend'] }, properties: { activeIndex: { param: 'i' }, blendTimes: [1e6, 1e6] } },
    copy: { type: 'CopyBone', inputs: { pose: 'list' }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r', copyTranslation: true, alpha: 0.5 } },
    ik: {
      type: 'TwoBoneIK', inputs: { pose: 'copy' },
      properties: { endBone: 'foot_l', target: { param: 't' }, hintMode: 'direction', hint: [0, 0, 1], allowStretch: true, keepEndRotation: false, alpha: 0.5 },
    },
    reach: { type: 'TwoBoneIK', inputs: { pose: 'ik' }, properties: { endBone: 'hand_l', targetMode: 'bone', targetBone: 'head', target: [0, 5, 10], hintMode: 'position', hint: [40, 120, -20] } },
  },
  output: 'reach',
}).createInstance();
g.update(0);
g.setParameter('i', 1);
const frame = () => {
  g.update(1 / 60);
  g.evaluate();
  g.componentPose();
};
const { perFrame, windows } = bytesPerFrame(frame, { untilFloor: true });
const list = g.gatherDebug().children[0].children[0].children[0].children[0];

// Second graph: an InertialBlend held in a transition under StrideWarping (IK, pelvis spring, alpha).
const h = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  parameters: { a: { type: 'bool', default: true } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    ib: { type: 'InertialBlend', inputs: { A: 'walk', B: 'run' }, properties: { useA: { param: 'a' }, blendTime: 1e6 } },
    w: {
      type: 'StrideWarping', inputs: { pose: 'ib' },
      properties: {
        strideScale: 1.3, pelvisBone: 'pelvis', leftThigh: 'thigh_l', leftCalf: 'calf_l', leftFoot: 'foot_l',
        rightThigh: 'thigh_r', rightCalf: 'calf_r', rightFoot: 'foot_r', alpha: 0.7, pelvisStiffness: 200,
      },
    },
  },
  output: 'w',
}).createInstance();
h.update(1 / 60);
h.evaluate();
h.setParameter('a', false);
const frame2 = () => {
  h.update(1 / 60);
  h.evaluate();
  h.componentPose();
};
const warped = bytesPerFrame(frame2, { untilFloor: true });
// Third graph: players and an evaluator on root-motion clips, blended (root-motion deltas every frame).
const r = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { walk: { source: 'builtin:walk', rootMotion: { bone: 'pelvis' } }, run: { source: 'builtin:run', rootMotion: { bone: 'pelvis' } } },
  parameters: { t: { type: 'float', default: 0 } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: { param: 't' }, loop: true } },
    mix: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.3 } },
  },
  output: 'mix',
}).createInstance();
const clipTime = r.parameters.slotOf('t');
const rooted = bytesPerFrame(() => {
  // Advanced in the parameter array itself: a double kept in a module-level `let` is boxed on every write.
  r.parameterValues[clipTime] = (r.parameterValues[clipTime] + 1 / 60) % 10;
  r.update(1 / 60);
  r.evaluate();
}, { untilFloor: true });

// Fourth graph: the same players under StrideWarping in fromRootMotion mode, which asks its branch
// for root-motion velocities (every player reports one) and scales what the branch reports.
const rw = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { walk: { source: 'builtin:walk', rootMotion: { bone: 'pelvis' } }, run: { source: 'builtin:run', rootMotion: { bone: 'pelvis' } } },
  parameters: { t: { type: 'float', default: 0 }, speed: { type: 'float', default: 120 } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: { param: 't' }, loop: true } },
    mix: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.3 } },
    w: {
      type: 'StrideWarping', inputs: { pose: 'mix' },
      properties: {
        mode: 'fromRootMotion', locomotionSpeed: { param: 'speed' }, rootMotionWindow: 0.5, pelvisBone: 'pelvis',
        leftThigh: 'thigh_l', leftCalf: 'calf_l', leftFoot: 'foot_l', rightThigh: 'thigh_r', rightCalf: 'calf_r', rightFoot: 'foot_r',
      },
    },
  },
  output: 'w',
}).createInstance();
const warpTime = rw.parameters.slotOf('t');
const rootedWarped = bytesPerFrame(() => {
  rw.parameterValues[warpTime] = (rw.parameterValues[warpTime] + 1 / 60) % 10;
  rw.update(1 / 60);
  rw.evaluate();
}, { untilFloor: true });

// setParameter between frames, as a crowd sets its parameters every frame: ints and bools with
// nobody listening allocate nothing (a double is boxed by the call itself, outside our control).
let k = 0;
// A vec3's setParameter is measured by the aim offset probe, which moves a look-at target every
// frame: here V8 inlines its check, so a closure allocated there would not show.
const setting = bytesPerFrame(() => {
  k++;
  g.setParameter('i', k & 1);
  h.setParameter('a', (k & 2) === 0);
}, { untilFloor: true });
const inertialActive = h.gatherDebug().children[0].children[0].values?.active;

// A crowd of 8 under StrideWarping at full alpha (warped in place), one worker thread: the calling
// thread's share and the frame handshake, with an int parameter set on two characters every frame.
const crowd = await Crowd.create({
  source: { module: new URL('./crowd-graphs.ts', import.meta.url).href, export: 'warpedWalkGraph' }, count: 8, workers: 1, componentSpace: true,
  // Forwarded, listened to, and never fired (the walk has no notifies, the graph no slots): the recorders cost nothing.
  events: ['notify', 'slotEnded'],
});
crowd.events.on('notify', () => {});
let gait = 0;
const crowdFrame = bytesPerFrame(() => {
  gait ^= 1;
  crowd.setParameter(0, 'gait', gait);
  crowd.setParameter(7, 'gait', gait);
  crowd.update(1 / 60);
}, { untilFloor: true });
const crowdWarp = crowd.instanceOf(0)!.gatherDebug().children[0].values?.strideScale;
await crowd.close();

// A crowd forwarding its characters' notifies and loops, half of them from a worker thread: what
// delivering each costs on the calling thread (emitting boxes its number, as an instance's emit does).
const noisy = await Crowd.create({
  source: { module: new URL('./crowd-graphs.ts', import.meta.url).href, export: 'notifyWalkGraph' }, count: 8, workers: 1,
  events: ['notify', 'notifyBegin', 'notifyEnd', 'sequenceLooped'],
});
// The sum in an array: a double added to a `let` the listeners share would be boxed by the listeners themselves.
let delivered = 0;
const weights = new Float64Array(1);
noisy.events.on('notify', (_c, _name, _node, weight) => { delivered++; weights[0] += weight; });
noisy.events.on('notifyBegin', (_c, _name, _node, weight) => { delivered++; weights[0] += weight; });
noisy.events.on('notifyEnd', (_c, _name, _node, weight) => { delivered++; weights[0] += weight; });
noisy.events.on('sequenceLooped', (_c, _node, _clip, time) => { delivered++; weights[0] += time; });
for (let i = 0; i < 8; i++) noisy.setParameter(i, 'rate', 0.8 + 0.1 * i);
const noisyFrame = bytesPerFrame(() => noisy.update(1 / 60), { warmup: 5000, windows: 5, frames: 5000, untilFloor: true });
const crowdEventsPerFrame = delivered / noisyFrame.frames;
await noisy.close();

// An InstanceBatch of the shipped locomotion graph (component space too), characters switching
// gait by turns so crossfades start and end every few frames.
const batch = loadGraphFile(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url).pathname).createInstances(12, { componentSpace: true });
let batchFrame = 0;
const batchFrames = bytesPerFrame(() => {
  batchFrame++;
  const who = batchFrame % batch.count;
  batch.instances[who].setParameter('gait', (batchFrame >> 2) % 3);
  batch.update(1 / 60);
}, { untilFloor: true });

console.log(JSON.stringify({
  perFrame, windows, poolSize: g.posePool.size, listWeights: list.values?.weights,
  perFrameWarped: warped.perFrame, warpedWindows: warped.windows, inertialActive, perSetParameter: setting.perFrame, perFrameRootMotion: rooted.perFrame, rootMotion: Array.from(r.rootMotion),
  perFrameRootMotionWarped: rootedWarped.perFrame, rootMotionWarped: Array.from(rw.rootMotion),
  perFrameCrowd: crowdFrame.perFrame, crowdWarp, perFrameBatch: batchFrames.perFrame,
  crowdEventsPerFrame, bytesPerCrowdEvent: noisyFrame.perFrame / crowdEventsPerFrame, crowdEventWeights: weights[0],
}));
