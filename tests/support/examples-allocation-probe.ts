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
import { readdirSync, readFileSync } from 'node:fs';
import { loadGraphFile } from '../../host/files.ts';
import type { ParameterDefinition } from '../../runtime/parameters.ts';
import { bytesPerFrame } from './allocation.ts';

const dir = new URL('../../graphs/examples/', import.meta.url).pathname;
const runs: { file: string; frame: () => void }[] = [];
const skipped: string[] = [];
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  let graph;
  try {
    graph = loadGraphFile(dir + file);
  } catch (e) {
    if (!/file/.test(String(e))) throw e;
    skipped.push(file);
    continue;
  }
  const instance = graph.createInstance();
  const definitions = (JSON.parse(readFileSync(dir + file, 'utf8')).parameters ?? {}) as Record<string, ParameterDefinition>;
  for (const [name, def] of Object.entries(definitions)) {
    if (def.type === 'float') instance.setParameter(name, (typeof def.default === 'number' ? def.default : 0) + 0.37);
    else if (def.type === 'vec3') instance.setParameter(name, [0.31, 1.17, 0.73]);
  }
  runs.push({
    file,
    frame: () => {
      instance.update(1 / 60);
      instance.evaluate();
      instance.componentPose();
    },
  });
}
const frame = (): void => {
  for (let k = 0; k < runs.length; k++) runs[k].frame();
};
const { perFrame, windows } = bytesPerFrame(frame, { warmup: 10000, windows: 4, frames: 8000 });
console.log(JSON.stringify({ perFrame, windows, graphs: runs.map((r) => r.file), skipped }));
