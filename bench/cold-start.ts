/**
 * Cold start of the package as the build bundles it (scripts/bundle-package.mjs, written to a
 * temporary folder, so the figures are of the sources as they are): `import('animgraph')` in a fresh
 * process, beside three.js's import on the same machine at the same moment, and
 * `animgraph validate` on the shipped locomotion example beside a bare `node -e 0`. Runs are
 * interleaved, so a change in the machine's load touches each column alike; it prints medians of
 * wall time and of CPU time (user + system, which a busy shared machine inflates less), and the load.
 *
 *   node --import tsx bench/cold-start.ts [--runs N] [--quick]   (--quick: 5 runs; default 11)
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundlePackage } from '../scripts/bundle-package.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : args.includes('--quick') ? 5 : 11;
// The package's layout: package.json, dist/ (the bundle), cli/animgraph.mjs, node_modules for its imports.
const pkg = mkdtempSync(join(tmpdir(), 'animgraph-cold-start-'));
process.on('exit', () => rmSync(pkg, { recursive: true, force: true }));
symlinkSync(join(root, 'node_modules'), join(pkg, 'node_modules'), 'dir');
// The package's "type": "module": without it Node parses each .js file twice (as CommonJS, then as
// an ES module), which doubles the time it takes to compile the bundle.
writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'animgraph', type: 'module' }));
await bundlePackage({ root, outdir: join(pkg, 'dist'), existing: existsSync });
copyFileSync(join(root, 'host', 'crowd-worker.mjs'), join(pkg, 'dist', 'host', 'crowd-worker.mjs'));
mkdirSync(join(pkg, 'cli'));
copyFileSync(join(root, 'cli', 'animgraph.mjs'), join(pkg, 'cli', 'animgraph.mjs'));

// In-process import: wall and CPU milliseconds around one dynamic import, printed by the child.
const IMPORT_TIMER = `const c = process.cpuUsage(), t = performance.now();
await import(process.argv[1]);
const u = process.cpuUsage(c);
console.log(JSON.stringify({ wall: performance.now() - t, cpu: (u.user + u.system) / 1000 }));`;

interface Sample { wall: number; cpu: number }

function importTime(url: string): Sample {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_TIMER, url], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cold-start: importing ${url} failed\n${r.stderr}`);
  return JSON.parse(r.stdout) as Sample;
}

// A whole process: wall milliseconds, and its CPU time since it started, which a preloaded hook
// prints to stderr as it exits (bare node and the CLI carry the same hook).
const CPU_AT_EXIT = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\ncpu-ms ' + (u.user + u.system) / 1000 + '\\n'); });",
)}`;

function processTime(argv: readonly string[]): Sample {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--import', CPU_AT_EXIT, ...argv], { cwd: root, encoding: 'utf8' });
  const wall = performance.now() - t;
  const cpu = /cpu-ms ([\d.]+)/.exec(r.stderr);
  if (r.status !== 0 || !cpu) throw new Error(`cold-start: node ${argv.join(' ')} exited ${r.status}\n${r.stderr}`);
  return { wall, cpu: Number(cpu[1]) };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const animgraph = pathToFileURL(join(pkg, 'dist', 'index.js')).href;
const three = pathToFileURL(join(root, 'node_modules', 'three', 'build', 'three.module.js')).href;
const validateArgs = [join(pkg, 'cli', 'animgraph.mjs'), 'validate', join(root, 'graphs', 'examples', 'sample-locomotion.json')];
const samples = { animgraph: [] as Sample[], three: [] as Sample[], validate: [] as Sample[], bare: [] as Sample[] };
const loadBefore = loadavg()[0]!;
for (let i = 0; i < runs; i++) {
  samples.animgraph.push(importTime(animgraph));
  samples.three.push(importTime(three));
  samples.bare.push(processTime(['-e', '0']));
  samples.validate.push(processTime(validateArgs));
}
const m = (list: readonly Sample[], key: keyof Sample) => median(list.map((s) => s[key]));
const ms = (x: number) => `${x.toFixed(0)} ms`;
console.log(`cold start, median of ${runs} interleaved runs (load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after)`);
console.log(`  import('animgraph')  wall ${ms(m(samples.animgraph, 'wall'))}, CPU ${ms(m(samples.animgraph, 'cpu'))}`);
console.log(`  import('three')      wall ${ms(m(samples.three, 'wall'))}, CPU ${ms(m(samples.three, 'cpu'))}`);
console.log(`  ratio animgraph / three: wall ${(m(samples.animgraph, 'wall') / m(samples.three, 'wall')).toFixed(2)}, CPU ${(m(samples.animgraph, 'cpu') / m(samples.three, 'cpu')).toFixed(2)}`);
const above = (key: keyof Sample) => median(samples.validate.map((s, i) => s[key] - samples.bare[i]![key]));
console.log(`  animgraph validate sample-locomotion.json  wall ${ms(m(samples.validate, 'wall'))}, CPU ${ms(m(samples.validate, 'cpu'))}`);
console.log(`  node -e 0                                  wall ${ms(m(samples.bare, 'wall'))}, CPU ${ms(m(samples.bare, 'cpu'))}`);
console.log(`  validate above bare node: wall ${ms(above('wall'))}, CPU ${ms(above('cpu'))}`);
