/**
 * `npm run bench`: the crowd (the bench's clips, then the shipped locomotion example), update-rate,
 * inertialization, pose-search, three.js binding and cold-start benches one after another, each in its
 * own Node process with its own flags. One bench failing (an exception, a bit-identity check) does
 * not skip the next, as `&&` did; the run exits 1 after the last, naming the ones that failed.
 *
 *   node --import tsx bench/all.ts [ARGS...]   (ARGS go to every bench, e.g. --quick)
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benches: readonly { file: string; flags: readonly string[] }[] = [
  { file: 'crowd.ts', flags: ['--expose-gc'] },
  { file: 'locomotion-crowd.ts', flags: ['--expose-gc'] },
  { file: 'update-rate.ts', flags: [] },
  { file: 'inertial.ts', flags: ['--expose-gc'] },
  { file: 'pose-search.ts', flags: [] },
  { file: 'three-binding.ts', flags: [] },
  { file: 'cold-start.ts', flags: [] },
];

const failed: string[] = [];
for (const { file, flags } of benches) {
  const path = fileURLToPath(new URL(file, import.meta.url));
  console.log(`\n=== bench/${file} ===`);
  const run = spawnSync(process.execPath, [...flags, '--import', 'tsx', path, ...process.argv.slice(2)], { stdio: 'inherit' });
  if (run.status !== 0) failed.push(`bench/${file} (${run.status === null ? `signal ${run.signal}` : `exit ${run.status}`})`);
}
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
