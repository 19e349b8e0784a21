/**
 * measureAllocation (animgraph/node) on frames whose allocation is known, in a plain Node process
 * (see allocation-probe.ts). Prints one JSON line: { array, empty } in bytes per frame.
 */
import { measureAllocation } from '../../host/allocation.ts';

let kept: number[] | null = null;
// An array of 1000 doubles a frame (8000 bytes of elements and 16 of header, 32 for the array; a
// typed array's backing store would be outside V8's heap): 32 MB over 4000 frames, so young
// collections run inside the window.
const makeArray = () => {
  kept = new Array<number>(1000).fill(0.5);
};
for (let i = 0; i < 20000; i++) makeArray();
const array = measureAllocation(4000, makeArray);
let calls = 0;
const empty = measureAllocation(4000, () => {
  calls++;
});
if (kept === null || calls !== 4000) throw new Error('the frames did not run');
console.log(JSON.stringify({ array, empty }));
