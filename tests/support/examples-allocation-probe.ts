/**
 * Bytes per frame of every example graph in graphs/examples running together in one process, an
 * instance of each updated and evaluated every frame, as a program showing several kinds of
 * character does: what V8 compiles for one graph changes what it does for the next (an object
 * literal's hidden class shared across graphs, a load that sees two element kinds), so a graph
 * that allocates nothing alone can allocate beside others. Each graph's float parameters are set to
 * values that are not whole numbers, vec3 ones likewise, and left there: the steady state, not
 * switches. Examples whose files are missing (those on ../shared/data) are listed as skipped. In a
 * plain Node process (see allocation-probe.ts). Measured one graph after another instead, each
 * right after the others, a graph can allocate for its first tens of thousands of frames while V8
 * re-optimises code the others specialised: a transient, which this avoids.
 * Prints one JSON line: { perFrame, windows, graphs: [file], skipped: [file] }.
 */
import { readdirSync } from 'node:fs';
import { bytesPerFrame } from './allocation.ts';
import { EXAMPLES_DIR, exampleInstance, runExampleFrame } from './example-instances.ts';

const runs: { file: string; frame: () => void }[] = [];
const skipped: string[] = [];
for (const file of readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.json')).sort()) {
  const example = exampleInstance(file);
  if ('skipped' in example) {
    skipped.push(file);
    continue;
  }
  runs.push({ file, frame: () => runExampleFrame(example.instance) });
}
const frame = (): void => {
  for (let k = 0; k < runs.length; k++) runs[k].frame();
};
const { perFrame, windows } = bytesPerFrame(frame, { warmup: 10000, windows: 4, frames: 8000, untilFloor: true });
console.log(JSON.stringify({ perFrame, windows, graphs: runs.map((r) => r.file), skipped }));
