/**
 * Bytes per frame of one example graph (argument: its file name in graphs/examples) alone in a
 * fresh process, from its 5000th frame: run with --no-concurrent-recompilation, so that V8
 * optimises at the same call counts in every run. V8 optimises a function once it has run enough of
 * its bytecode, so a long function whose every-frame path is short (returning at once when idle)
 * stayed unoptimised for thousands of frames, and unoptimised code boxes every number it touches:
 * an idle inertializer's apply (48 B a frame for some 20,000 frames), a skeletal control at alpha 0,
 * the instance's update at full rate. Their short paths are now functions of their own. Float
 * parameters are set to values that are not whole numbers, vec3 ones likewise. In a plain Node
 * process (see allocation-probe.ts). Prints one JSON line: { windows } or { skipped: reason }.
 */
import { readFileSync } from 'node:fs';
import { loadGraphFile } from '../../host/files.ts';
import type { ParameterDefinition } from '../../runtime/parameters.ts';
import { bytesPerFrame } from './allocation.ts';

const path = new URL(`../../graphs/examples/${process.argv[2]}`, import.meta.url).pathname;
let graph;
try {
  graph = loadGraphFile(path);
} catch (e) {
  // An example on ../shared/data where the folder is missing.
  if (!/file/.test(String(e))) throw e;
  console.log(JSON.stringify({ skipped: String(e).split('\n')[0] }));
  process.exit(0);
}
const g = graph.createInstance();
const definitions = (JSON.parse(readFileSync(path, 'utf8')).parameters ?? {}) as Record<string, ParameterDefinition>;
for (const [name, def] of Object.entries(definitions)) {
  if (def.type === 'float') g.setParameter(name, (typeof def.default === 'number' ? def.default : 0) + 0.37);
  else if (def.type === 'vec3') g.setParameter(name, [0.31, 1.17, 0.73]);
}
const { windows } = bytesPerFrame(() => {
  g.update(1 / 60);
  g.evaluate();
  g.componentPose();
}, { warmup: 5000, windows: 3, frames: 3000 });
console.log(JSON.stringify({ windows }));
