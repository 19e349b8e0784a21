/**
 * Bytes allocated per frame by clip notifies fired over steps of several loops, listened to, in a
 * plain Node process (see allocation-probe.ts): a sync group's leader 1.2 loops a frame forwards
 * and its follower, a player 1.25 loops a frame backwards, a looping SequenceEvaluator whose
 * explicit time jumps 3 s (4.3 loops) a frame, a blend space's leader and follower, and a player of
 * some 500 loops a frame, held at MAX_NOTIFY_LOOPS. Every player is at absolute weight 1 (the base
 * and full layers of a LayeredBlendPerBone), so that emitting boxes no weight: what is left is
 * the frame's own. Prints one JSON line: { perFrame, windows, eventsPerFrame, byNode }.
 */
import { loadGraphAsset } from '../../host/files.ts';
import { bytesPerFrame } from './allocation.ts';

const layer = { filters: [{ bone: 'spine_01' }], weight: 1 };
const g = loadGraphAsset({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: {
    idle: { source: 'builtin:idle', notifies: [{ name: 'breathe', time: 1 }, { name: 'sway', start: 0.2, end: 1.4 }] },
    walk: { source: 'builtin:walk', notifies: [{ name: 'footL', time: 0.3 }, { name: 'footR', time: 0.85 }, { name: 'swing', start: 0.123, end: 0.456 }] },
    run: { source: 'builtin:run', notifies: [{ name: 'hit', time: 0.35 }, { name: 'trail', start: 0.1, end: 0.6 }] },
    blink: { source: 'builtin:run', frames: [0, 3], notifies: [{ name: 'blink', time: 0.05 }] },
  },
  parameters: { t: { type: 'float', default: 0 } },
  nodes: {
    lead: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 79.2, syncGroup: 'g' } },
    follow: { type: 'SequencePlayer', properties: { clip: 'run', syncGroup: 'g' } },
    back: { type: 'SequencePlayer', properties: { clip: 'idle', playRate: -150 } },
    seek: { type: 'SequenceEvaluator', properties: { clip: 'run', explicitTime: { param: 't' }, loop: true } },
    // At a sample: the walk leads at weight 1, the run follows it (at weight 0: it fires nothing).
    space: { type: 'BlendSpace1D', properties: { samples: [{ clip: 'walk', x: 0 }, { clip: 'run', x: 1 }], x: 0, playRate: 80 } },
    capped: { type: 'SequencePlayer', properties: { clip: 'blink', playRate: 3000 } },
    layers: {
      type: 'LayeredBlendPerBone',
      inputs: { base: 'lead', layers: ['follow', 'back', 'seek', 'space', 'capped'] },
      properties: { layers: [layer, layer, layer, layer, layer] },
    },
  },
  output: 'layers',
}).createInstance();

// Whole seconds: setParameter given a number that is not a whole number boxes it when the call is
// left out of line (as with --max-inlined-bytecode-size=50), which would be the probe's own bytes.
let time = 0;
const frame = () => {
  time = time > 990 ? 0 : time + 3;
  g.setParameter('t', time);
  g.update(1 / 60);
};

// Which nodes fired, over a few frames before the measurement (a count by name per event would be
// the probe's own allocation); then only a count.
const byNode: Record<string, number> = {};
const tally = (_name: string, node: string) => { byNode[node] = (byNode[node] ?? 0) + 1; };
g.events.on('notify', tally);
g.events.on('notifyBegin', tally);
g.events.on('notifyEnd', tally);
for (let i = 0; i < 10; i++) frame();
g.events.removeAllListeners();
const counts = { events: 0 };
const count = () => { counts.events++; };
g.events.on('notify', count);
g.events.on('notifyBegin', count);
g.events.on('notifyEnd', count);

const frames = { warmup: 10000, windows: 5, frames: 10000 };
const { perFrame, windows } = bytesPerFrame(frame, frames);
console.log(JSON.stringify({ perFrame, windows, eventsPerFrame: counts.events / (frames.warmup + frames.windows * frames.frames), byNode }));
