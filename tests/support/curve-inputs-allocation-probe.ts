/**
 * Bytes per frame of a graph whose curves drive a float property, a bool property and a
 * parameter a state machine's rules read (curve-graphs.ts), one instance at full rate and one at
 * update rate 3, in a plain Node process (see allocation-probe.ts). Prints one JSON line:
 * { perFrame, windows, rising, flipped }, the last two read after the run (the curves moved).
 */
import { bytesPerFrame } from './allocation.ts';
import { curveDrivenGraph } from './curve-graphs.ts';

const graph = curveDrivenGraph();
const full = graph.createInstance(), lod = graph.createInstance();
lod.setUpdateRate(3, 1);
let frame = 0;
const { perFrame, windows } = bytesPerFrame(() => {
  // A new walk share now and then: a parameter set between frames, as a game sets them.
  if ((++frame & 255) === 0) full.setParameter('walk', (frame & 1023) / 1024);
  full.update(1 / 60);
  full.evaluate();
  lod.update(1 / 60);
  lod.evaluate();
}, { untilFloor: true });
console.log(JSON.stringify({ perFrame, windows, rising: full.getParameter('rising'), flipped: lod.getParameter('flipped') }));
