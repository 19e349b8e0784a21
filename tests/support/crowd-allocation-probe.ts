/**
 * Bytes per frame on each thread of a Crowd (the calling thread and one worker) of the locomotion
 * example, its gaits switched per character every 30 frames, measured by Crowd.measureAllocation
 * once warm: first a crowd forwarding no events (`quiet`), then, in the same process, one with its
 * loop and notify events forwarded (`loud`; its worker is a new thread, the calling thread's code
 * warm from the quiet crowd, as it would be from the loud crowd's own warm-up). In a plain Node
 * process (see allocation-probe.ts). Up to five windows each, stopping once every thread measured
 * the floor (see bytesPerFrame's untilFloor). Prints one JSON line: { quiet, loud }, each {
 * perFrame (per thread, the smallest window), windows, eventsPerFrame (heard on the calling thread
 * while measured) }; then `finite`, a quiet crowd with checkFinite on, measured the same way.
 */
import { fileURLToPath } from 'node:url';
import { Crowd } from '../../host/crowd.ts';
import { WINDOW_FLOOR_BYTES } from './allocation.ts';

const COUNT = 40, SWITCH_EVERY = 30, FRAMES = 4000, WINDOWS = 5;
const file = fileURLToPath(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url));

async function measure(quiet: boolean, checkFinite = false): Promise<{ perFrame: number[]; windows: number[][]; eventsPerFrame: number }> {
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
  const windows: number[][] = [];
  while (windows.length < WINDOWS) {
    const window = crowd.measureAllocation(FRAMES, oneFrame);
    windows.push(window);
    if (window.every((bytes) => bytes * FRAMES <= WINDOW_FLOOR_BYTES)) break;
  }
  await crowd.close();
  const perFrame = windows[0].map((_, thread) => Math.min(...windows.map((w) => w[thread])));
  return { perFrame, windows, eventsPerFrame: heard / (windows.length * FRAMES) };
}

const quiet = await measure(true);
const loud = await measure(false);
// Every character's frame checked for numbers that are not finite (checkFinite), no events.
const finite = await measure(true, true);
console.log(JSON.stringify({ quiet, loud, finite }));
