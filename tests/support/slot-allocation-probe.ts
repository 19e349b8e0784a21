/**
 * Bytes per frame of clip notifies, clip curves and Slot one-shots, in a
 * plain Node process (see allocation-probe.ts): a looping player crossing notifies and ranges every
 * loop, curves blended under a BlendTwo, a filtered and an unfiltered Slot each given a new clip by
 * playSlot every 45 frames (so clips blend in, out and interrupt one another; the unfiltered one with
 * no options, their defaults), the filtered one's name shown by a second Slot under the BlendTwo. `perFrame` with
 * nobody listening; `perFrameListened` with a listener on every event (which does nothing), for
 * what emitting costs; `notifies` and `ended` count what the listened run saw.
 * Then a Crowd's playSlot and stopSlot calls, applied by its update (`perFrameCrowd`). With the
 * argument `slow`, only a lone character playing a clip on each slot every 10 s: { windows }.
 * Prints one JSON line: { perFrame, perFrameListened, perFrameCrowd, notifies, ended, lean }.
 */
import { Crowd } from '../../host/crowd.ts';
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const graph = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: {
    idle: { source: 'builtin:idle', notifies: [{ name: 'breathe', time: 1 }, { name: 'sway', start: 0.2, end: 1.4 }], curves: { lean: [[0, 0], [2, 1]] } },
    walk: { source: 'builtin:walk', notifies: [{ name: 'footL', time: 0.3 }, { name: 'footR', time: 0.85 }], curves: { lean: [[0, 2]], arms: [[0, 0], [1.1, 1]] } },
    run: { source: 'builtin:run', notifies: [{ name: 'hit', time: 0.35 }, { name: 'trail', start: 0.1, end: 0.6 }], curves: { arms: [[0, 1], [0.7, 0]] } },
  },
  nodes: {
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: -1.1 } },
    // A second Slot of the name 'upper', under the blend: it shows the name's clips too (played and
    // advanced once, by whichever of the two the frame reaches first).
    walkSlot: { type: 'Slot', inputs: { source: 'walk' }, properties: { name: 'upper' } },
    blend: { type: 'BlendTwo', inputs: { A: 'idle', B: 'walkSlot' }, properties: { alpha: 0.4 } },
    upper: { type: 'Slot', inputs: { source: 'blend' }, properties: { filterBone: 'spine_01', filterDepth: 2 } },
    full: { type: 'Slot', inputs: { source: 'upper' } },
  },
  output: 'full',
});

function probe(listen: boolean): { perFrame: number; notifies: number; ended: number; lean: number } {
  const g = graph.createInstance();
  const counts = { notifies: 0, ended: 0 };
  if (listen) {
    g.events.on('notify', () => { counts.notifies++; });
    g.events.on('notifyBegin', () => { counts.notifies++; });
    g.events.on('notifyEnd', () => { counts.notifies++; });
    g.events.on('slotEnded', () => { counts.ended++; });
  }
  const options = { blendIn: 0.25, blendOut: 0.3, playRate: 1.3 };
  let n = 0;
  const frame = () => {
    if (n % 45 === 0) g.playSlot('upper', n % 90 === 0 ? 'run' : 'walk', options);
    // With no options: their defaults, with nothing made per call.
    if (n % 45 === 20) g.playSlot('full', 'run');
    n++;
    g.update(1 / 60);
    g.evaluate();
  };
  const { perFrame } = bytesPerFrame(frame);
  return { perFrame, notifies: counts.notifies, ended: counts.ended, lean: g.curve('lean') };
}

if (process.argv[2] === 'slow') {
  // One character playing a one-shot on each slot every 10 seconds, from its 20,000th frame (run
  // with --no-concurrent-recompilation): the code that runs only while a clip plays stays cold.
  const g = graph.createInstance();
  const options = { blendIn: 0.25, blendOut: 0.3, playRate: 1.3 };
  let n = 0;
  const { windows } = bytesPerFrame(() => {
    if (n % 600 === 0) g.playSlot('upper', n % 1200 === 0 ? 'run' : 'walk', options);
    if (n % 600 === 300) g.playSlot('full', 'run');
    n++;
    g.update(1 / 60);
    g.evaluate();
  }, { warmup: 20000, windows: 3, frames: 6400 });
  console.log(JSON.stringify({ windows }));
  process.exit(0);
}

const quiet = probe(false);
const listened = probe(true);

// A Crowd's slot calls, on the calling thread (no workers): played and stopped between frames.
const crowd = await Crowd.create({ source: { module: new URL('./crowd-graphs.ts', import.meta.url).href, export: 'slotWalkGraph' }, count: 4, workers: 0 });
const crowdOptions = { blendIn: 0.25, blendOut: 0.3, playRate: 1.3 };
let f = 0;
const crowdFrame = bytesPerFrame(() => {
  if (f % 45 === 0) crowd.playSlot(f % 4, 'upperBody', f % 90 === 0 ? 'run' : 'walk', crowdOptions);
  if (f % 45 === 20) crowd.playSlot((f + 1) % 4, 'fullBody', 'run');
  if (f % 45 === 30) crowd.stopSlot(f % 4, 'upperBody', 0.25);
  f++;
  crowd.update(1 / 60);
});
await crowd.close();
console.log(JSON.stringify({
  perFrame: quiet.perFrame, perFrameListened: listened.perFrame, perFrameCrowd: crowdFrame.perFrame, notifies: listened.notifies, ended: listened.ended, lean: quiet.lean,
}));
