/**
 * Bytes per frame on each thread of a Crowd (the calling thread and one worker) of the locomotion
 * example, its gaits switched per character every 30 frames, measured by Crowd.measureAllocation
 * once warm; with its loop and notify events forwarded, unless run with `quiet`, or with
 * `finite` (no events, every character's frame checked for numbers that are not finite:
 * checkFinite). In a plain Node process (see allocation-probe.ts). Prints one JSON line: { perFrame (per thread, the smallest of
 * five windows), windows, eventsPerFrame (heard on the calling thread while measured) }.
 */
import { fileURLToPath } from 'node:url';
import { Crowd } from '../../host/crowd.ts';

const COUNT = 40, SWITCH_EVERY = 30, FRAMES = 4000;
const quiet = process.argv[2] === 'quiet' || process.argv[2] === 'finite', checkFinite = process.argv[2] === 'finite';
const file = fileURLToPath(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url));
const crowd = await Crowd.create({ source: { file }, count: COUNT, workers: 1, componentSpace: true, events: quiet ? [] : ['sequenceLooped', 'notify'], checkFinite });
let heard = 0;
crowd.events.on('sequenceLooped', () => heard++);
crowd.events.on('notify', () => heard++);
let frame = 0;
function oneFrame(): void {
  for (let i = 0; i < COUNT; i++) if ((frame + i) % SWITCH_EVERY === 0) crowd.setParameter(i, 'gait', ((frame + i) / SWITCH_EVERY) % 3);
  crowd.update(1 / 60);
  frame++;
}
for (let f = 0; f < 6000; f++) oneFrame();
heard = 0;
const windows = Array.from({ length: 5 }, () => crowd.measureAllocation(FRAMES, oneFrame));
await crowd.close();
const perFrame = windows[0].map((_, thread) => Math.min(...windows.map((w) => w[thread])));
console.log(JSON.stringify({ perFrame, windows, eventsPerFrame: heard / (5 * FRAMES) }));
