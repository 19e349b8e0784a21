/**
 * Bytes allocated per frame by the skeletal controls of issue 38 and the pose snapshot, one graph
 * per node type named on the command line (FABRIK, CCDIK, LookAt, ModifyBone, PoseSnapshot), each
 * at full and half alpha with its targets moving every frame, in a plain Node process (see
 * allocation-probe.ts). Prints one JSON line: { perFrame, windows, ...what the node reports }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const which = process.argv[2];
const graphs: Record<string, Record<string, unknown>> = {
  FABRIK: {
    arm: { type: 'FABRIK', inputs: { pose: 'walk' }, properties: { rootBone: 'spine_01', tipBone: 'hand_l', target: { param: 't' }, precision: 0.01, maxIterations: 20 } },
    out: {
      type: 'FABRIK', inputs: { pose: 'arm' },
      properties: { rootBone: 'clavicle_r', tipBone: 'hand_r', targetMode: 'bone', targetBone: 'head', target: [-20, 0, 25], tipRotation: 'keepLocal', alpha: 0.5 },
    },
  },
  CCDIK: {
    arm: { type: 'CCDIK', inputs: { pose: 'walk' }, properties: { rootBone: 'spine_01', tipBone: 'hand_l', target: { param: 't' }, precision: 0.01, maxIterations: 20 } },
    out: {
      type: 'CCDIK', inputs: { pose: 'arm' },
      properties: {
        rootBone: 'clavicle_r', tipBone: 'hand_r', target: { param: 't' }, startFromTail: false, enableRotationLimits: true,
        jointLimits: [{ bone: 'upperarm_r', limit: 40 }], tipRotation: 'copyTarget', targetRotation: [0, 30, 0], alpha: 0.5,
      },
    },
  },
  LookAt: {
    head: {
      type: 'LookAt', inputs: { pose: 'walk' },
      properties: { bone: 'head', target: { param: 't' }, clampAngle: 60, interpolation: 'sinusoidal', interpolationTime: 0.3, interpolationTriggerThreshold: 1 },
    },
    out: {
      type: 'LookAt', inputs: { pose: 'head' },
      properties: { bone: 'spine_02', targetMode: 'bone', targetBone: 'hand_l', target: [0, 5, 0], useUpAxis: true, interpolation: 'easeInOutExponent3', interpolationTime: 0.2, alpha: 0.5 },
    },
  },
  ModifyBone: {
    a: { type: 'ModifyBone', inputs: { pose: 'walk' }, properties: { bone: 'head', rotation: { param: 't' }, rotationMode: 'additive', rotationSpace: 'bone', translation: [0, 1, 0], translationMode: 'additive', translationSpace: 'parent' } },
    b: { type: 'ModifyBone', inputs: { pose: 'a' }, properties: { bone: 'hand_l', scale: [1.2, 1, 1], scaleMode: 'replace', scaleSpace: 'parent', rotation: [0, 0, 30], rotationMode: 'replace', rotationSpace: 'component', alpha: 0.5 } },
    out: { type: 'ModifyBone', inputs: { pose: 'b' }, properties: { bone: 'pelvis', translation: { param: 't' }, translationMode: 'replace', translationSpace: 'component', scale: [1, 1.1, 1], scaleMode: 'additive', scaleSpace: 'bone' } },
  },
  PoseSnapshot: {
    snap: { type: 'PoseSnapshot', properties: { snapshotName: 'held' } },
    out: { type: 'BlendTwo', inputs: { A: 'snap', B: 'walk' }, properties: { alpha: 0.5 } },
  },
};
if (!(which in graphs)) throw new Error(`usage: controls-allocation-probe.ts ${Object.keys(graphs).join('|')}`);

const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { walk: { source: 'builtin:walk' } },
  parameters: { t: { type: 'vec3', default: [30, 120, 25] } },
  nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, ...graphs[which] },
  output: 'out',
}).createInstance();

const values = g.parameterValues, slot = g.parameters.slotOf('t');
// The clock in an array: a double kept in a module-level `let` is boxed on every write.
const clock = new Float64Array(1);
const snapshot = which === 'PoseSnapshot';
const frame = () => {
  clock[0] += 1 / 60;
  values[slot] = 30 + 20 * Math.sin(clock[0] * 1.3);
  values[slot + 1] = 120 + 15 * Math.cos(clock[0] * 0.7);
  values[slot + 2] = 25 + 10 * Math.sin(clock[0] * 2.1);
  g.update(1 / 60);
  g.evaluate();
  g.componentPose();
  if (snapshot) g.savePoseSnapshot('held');
};
const { perFrame, windows } = bytesPerFrame(frame, { untilFloor: true });
const line = g.gatherDebug().children[0];
console.log(JSON.stringify({ perFrame, windows, ...(line.values ?? {}), description: line.description }));
