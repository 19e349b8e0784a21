/**
 * Bytes per frame of one example graph (argument: its file name in graphs/examples) alone in a
 * fresh process, from its 8000th frame (to the 17,000th): run with --no-concurrent-recompilation, so that V8
 * optimises at the same call counts in every run. It finds a long function whose every-frame path
 * is short, left unoptimised for thousands of frames (see CONTRIBUTING.md, "Numbers in the frame
 * loop"). Float parameters are set to values that are not whole numbers, vec3 ones likewise. With
 * a second argument `switch`, the parameters change every 64 frames instead (or every N, given as
 * a third argument; ints cycle 0-2, bools toggle, floats step by 97.5), measured from the 20,000th
 * frame in windows of 6400: it finds numbers read in a switch's code, which is cold where one
 * character switches now and then (the same section). In a
 * plain Node process (see allocation-probe.ts). Prints one JSON line: { windows } or { skipped: reason }.
 */
import { bytesPerFrame } from './allocation.ts';
import { exampleInstance, runExampleFrame } from './example-instances.ts';

const example = exampleInstance(process.argv[2]);
if ('skipped' in example) {
  console.log(JSON.stringify(example));
  process.exit(0);
}
const { instance: g, definitions } = example;
// Switching, written into parameterValues (setParameter itself boxes a double argument), in the
// frame function: in a function of its own, called once in 64 frames, the probe's own arithmetic
// would stay unoptimised and box.
const values = g.parameterValues, slots = definitions.map(([name, def]) => [g.parameters.slotOf(name), def] as const);
const switching = process.argv[3] === 'switch';
// Frames from one switch to the next (a fourth argument): 64 by default.
const every = Number(process.argv[4] ?? 64) | 0;
const steadyFrame = (): void => runExampleFrame(g);
let frame = 0;
const switchingFrame = (): void => {
  frame++;
  if (frame % every === 0) {
    const k = (frame / every) | 0;
    for (const [slot, def] of slots) {
      if (def.type === 'float') values[slot] = (typeof def.default === 'number' ? def.default : 0) + 0.37 + (k % 3) * 97.5;
      else if (def.type === 'int') values[slot] = k % 3;
      else if (def.type === 'bool') values[slot] = k & 1;
      else if (def.type === 'vec3') {
        values[slot] = 0.31 + (k & 1);
        values[slot + 1] = 1.17;
        values[slot + 2] = 0.73;
      }
    }
  }
  runExampleFrame(g);
};
const { windows } = switching
  ? bytesPerFrame(switchingFrame, { warmup: 20000, windows: 3, frames: 6400 })
  : bytesPerFrame(steadyFrame, { warmup: 8000, windows: 3, frames: 3000 });
console.log(JSON.stringify({ windows }));
