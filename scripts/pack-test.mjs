#!/usr/bin/env node
// The package as a user meets it: `npm pack`, install the tarball into a fresh folder with
// `--omit=dev` (no tsx, no TypeScript of ours), then
//  (a) a plain-Node ESM script imports `animgraph` and `animgraph/node`, loads the shipped example,
//      runs frames, and runs a Crowd with a worker thread (the compiled worker, no loader), and
//      both allocation diagnostics;
//  (b) `npx animgraph validate` and `npx animgraph run` (the bin, plain node);
//  (c) `tsc --noEmit` on a TypeScript consumer (module NodeNext, strict, noUncheckedIndexedAccess,
//      skipLibCheck false) that uses the package's types;
//  (d) require() says the package is ES modules only, and the shipped markdown links no missing file;
//  (e) the README walked as written: each install route in an empty folder, then the quick start
//      (scripts/readme-test.mjs).
// Also checks what the tarball holds. Prints one line per check; exits 1 if any failed. The temporary
// folder is removed unless a check failed or PACK_TEST_KEEP is set.
// Needs the npm registry (the package's dependencies and the consumer's TypeScript install from it).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'animgraph-pack-'));
const consumer = join(work, 'consumer');
let failures = 0;

function check(name, ok, detail = '') {
  const shown = detail.length > 6000 ? `${detail.slice(0, 6000)}\n... (${detail.length - 6000} more characters)` : detail;
  // The seconds since the start, so a slow step shows in CI's log.
  const at = `[${((Date.now() - started) / 1000).toFixed(0)} s]`;
  console.log(`pack test: ${ok ? 'ok  ' : 'FAIL'} ${at} ${name}${ok || !shown ? '' : `\n${shown}`}`);
  if (!ok) failures++;
  return ok;
}

/** Runs a command; output is returned (and shown when it fails). */
function run(command, args, cwd) {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', env: cleanEnv(), maxBuffer: 64 << 20 });
  return { ok: r.status === 0, status: r.status, out: r.stdout ?? '', err: r.stderr ?? '', text: `$ ${command} ${args.join(' ')}\n${r.stdout}${r.stderr}${r.error ?? ''}` };
}

// `npm run pack-test` passes npm_config_* (and npm's own lifecycle variables) to its children; the
// consumer's installs must see a plain environment, as a user's shell gives.
function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k)) env[k] = v;
  return env;
}

function finish() {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`pack test: ${failures === 0 ? 'passed' : `${failures} check(s) failed`} in ${seconds} s`);
  if (failures === 0 && !process.env.PACK_TEST_KEEP) rmSync(work, { recursive: true, force: true });
  else console.log(`pack test: left ${work} for a look`);
  process.exit(failures === 0 ? 0 : 1);
}

// --- pack: `prepare` builds dist/ -----------------------------------------------------------------
const packed = run('npm', ['pack', '--json', '--pack-destination', work], root);
if (!check('npm pack', packed.ok, packed.text)) finish();
const info = JSON.parse(packed.out.slice(packed.out.search(/^\[$/m)))[0]; // after whatever `prepare` printed
const tarball = join(work, info.filename);
const files = info.files.map((f) => f.path);
const required = ['package.json', 'README.md', 'animgraph.schema.json', 'cli/animgraph.mjs', 'dist/index.js', 'dist/index.d.ts',
  'dist/index.js.map', 'dist/node.js', 'dist/node.d.ts', 'dist/cli/main.js', 'dist/host/crowd-worker.js',
  'dist/host/crowd-worker.mjs', 'dist/viewer/index.html', 'dist/viewer/viewer.js', 'dist/viewer/style.css',
  'dist/editor/index.html', 'dist/editor/editor.js', 'dist/editor/style.css', 'dist/editor/nodes.js', 'dist/editor/animgraph.js',
  'graphs/examples/sample-locomotion.json', 'docs/nodes.md',
  // The README's images, so that its links work where the package is installed.
  'docs/viewer.png', 'docs/editor-locomotion.png', 'docs/editor-state-machine.png', 'require.cjs'];
const missing = required.filter((f) => !files.includes(f));
check(`tarball holds the entries, bin, schema and example (${files.length} files, ${(info.size / 1024).toFixed(0)} KiB)`, missing.length === 0, `missing: ${missing.join(', ')}`);
const stray = files.filter((f) => /^(tests|bench|\.ci|scripts|node_modules)\//.test(f) || (/\.ts$/.test(f) && !/\.d\.ts$/.test(f)) || /^graphs\/examples\/cmu-/.test(f));
check('tarball holds no tests, benchmarks, CI, scripts, TypeScript sources or data-dependent examples', stray.length === 0, `stray: ${stray.join(', ')}`);

// --- install into a fresh folder -------------------------------------------------------------------
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const installed = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
mkdirSync(consumer);
writeFileSync(join(consumer, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
// The consumer's own TypeScript and Node types (for (c)) are its dependencies, at the versions this
// repository builds with; the package itself brings only its runtime dependencies.
const install = run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', tarball,
  `typescript@${installed('typescript')}`, `@types/node@${installed('@types/node')}`], consumer);
if (!check('npm install --omit=dev of the tarball into a fresh folder', install.ok, install.text)) finish();
check('tsx, a devDependency, is not installed', !existsSync(join(consumer, 'node_modules', 'tsx')));

// --- (a) plain Node ESM --------------------------------------------------------------------------
writeFileSync(join(consumer, 'smoke.mjs'), `
import assert from 'node:assert/strict';
import * as core from 'animgraph';
import { loadGraphFile, runGraph, Crowd, measureAllocation } from 'animgraph/node';
import * as nodes from 'animgraph/nodes';

await assert.rejects(import('tsx'), { code: 'ERR_MODULE_NOT_FOUND' });
// The main entry is browser-safe: what reads files or starts threads is in animgraph/node only.
assert.equal(core.loadGraphFile, undefined);
assert.equal(core.Crowd, undefined);
assert.equal(core.runGraph, runGraph);
// What a custom node is written with is its own entry, browser-safe too.
assert.equal(typeof nodes.defineNodeType, 'function');
assert.equal(typeof nodes.ClipPlayback, 'function');
assert.equal(core.defineNodeType, undefined);
const file = 'node_modules/animgraph/graphs/examples/sample-locomotion.json';
const graph = loadGraphFile(file);
const character = graph.createInstance();
character.setParameter('gait', 2);
let pose;
for (let frame = 0; frame < 30; frame++) {
  character.update(1 / 30);
  pose = character.evaluate();
  for (const values of [pose.translations, pose.rotations, pose.scales]) assert.ok(values.every(Number.isFinite), 'finite pose');
}
const pelvis = graph.skeleton.indexOf('pelvis');
assert.ok(pose.translations[pelvis * 3 + 1] > 0.5, 'pelvis above the ground');
const fromJson = await core.loadGraph(JSON.parse((await import('node:fs')).readFileSync(file, 'utf8')));
assert.equal(fromJson.skeleton.boneCount, graph.skeleton.boneCount);
const result = runGraph(graph, { frames: 5 });
assert.equal(result.frames.length, 5);
// A worker thread runs the compiled worker with plain Node: its characters match a lone instance.
const crowd = await Crowd.create({ source: { file }, count: 4, workers: 1 });
const alone = graph.createInstance();
for (let frame = 0; frame < 10; frame++) { crowd.update(1 / 60); alone.update(1 / 60); }
const last = alone.evaluate(), n = crowd.boneCount;
assert.equal(crowd.workerCount, 1);
assert.deepEqual(Array.from(crowd.translations.subarray(3 * n * 3, 4 * n * 3)), Array.from(last.translations));
// The allocation diagnostics run from the compiled package, on this thread and the worker's.
assert.equal(crowd.measureAllocation(3, () => crowd.update(1 / 60)).length, 2);
assert.ok(measureAllocation(3, () => alone.update(1 / 60)) >= 0);
await crowd.close();
console.log('smoke: ok');
`);
const smoke = run(process.execPath, ['smoke.mjs'], consumer);
check('(a) plain Node ESM: import animgraph and animgraph/node, run frames and a Crowd worker', smoke.ok && smoke.out.includes('smoke: ok'), smoke.text);

// --- (b) the bin ------------------------------------------------------------------------------------
const example = 'node_modules/animgraph/graphs/examples/sample-locomotion.json';
const validate = run('npx', ['--no-install', 'animgraph', 'validate', example], consumer);
check('(b) npx animgraph validate', validate.ok && /valid \(22 bones/.test(validate.out), validate.text);
const frames = run('npx', ['--no-install', 'animgraph', 'run', example, '--frames', '5', '--debug', 'text'], consumer);
check('(b) npx animgraph run --frames 5', frames.ok && frames.out.includes('frame 4 time 0.133') && !frames.out.includes('frame 5'), frames.text);
// The viewer's and the editor's pages come prebuilt in dist/: the installed command serves them without esbuild.
writeFileSync(join(consumer, 'serve.mjs'), `
import { spawn } from 'node:child_process';
const [command, scriptName] = process.argv.slice(2);
const child = spawn(process.execPath, ['node_modules/animgraph/cli/animgraph.mjs', command, '${example}', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
child.stdout.on('data', (d) => { out += d; });
const deadline = Date.now() + 20000;
while (!/http:[^ ]+\\//.test(out) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
const url = out.match(/http:[^ ]+\\//)?.[0];
const page = url ? await fetch(url) : null;
const script = url ? await fetch(url + scriptName) : null;
const size = script ? (await script.arrayBuffer()).byteLength : 0;
child.kill('SIGINT');
const code = await new Promise((r) => child.on('exit', r));
console.log(JSON.stringify({ url, page: page?.status, script: script?.status, size, code }));
`);
for (const [command, scriptName] of [['view', 'viewer.js'], ['edit', 'editor.js']]) {
  const served = run(process.execPath, ['serve.mjs', command, scriptName], consumer);
  let answers = {};
  try { answers = JSON.parse(served.out.trim().split('\n').pop()); } catch { /* shown below */ }
  check(`(b) animgraph ${command} serves the prebuilt page and stops on SIGINT`, answers.page === 200 && answers.script === 200 && answers.size > 100000 && answers.code === 0, served.text);
}

// --- (c) a strict TypeScript consumer -----------------------------------------------------------------
const hasThree = files.includes('dist/three/index.d.ts');
writeFileSync(join(consumer, 'tsconfig.json'), `${JSON.stringify({
  compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true, skipLibCheck: false, noEmit: true, types: ['node'],
  },
  files: ['consumer.ts'],
}, null, 2)}\n`);
writeFileSync(join(consumer, 'consumer.ts'), `
import { loadGraphAsset, checkGraphAsset, GraphLoadError, NodeRegistry, builtInNodeTypes, Pose, type AnimGraph, type AnimGraphInstance, type GraphProblem } from 'animgraph';
import { loadGraphFile, runGraph, Crowd, type RunResult, type CrowdOptions } from 'animgraph/node';
import { defineNodeType, LocalPoseNode, type ScalarProperty } from 'animgraph/nodes';

const file = 'node_modules/animgraph/graphs/examples/sample-locomotion.json';
const graph: AnimGraph = loadGraphFile(file);
const character: AnimGraphInstance = graph.createInstance();
character.setParameter('gait', 2);
character.update(1 / 60);
const pose: Pose = character.evaluate();
const height: number | undefined = pose.translations[4];
const checked = checkGraphAsset({ format: 'animgraph/1' });
const problems: readonly GraphProblem[] = checked.ok ? [] : checked.problems;
try { loadGraphAsset({}); } catch (e) { if (e instanceof GraphLoadError) console.log(e.problems.length); }
const registry = new NodeRegistry(builtInNodeTypes);
const result: RunResult = runGraph(graph, { frames: 3, timeline: [{ name: 'gait', value: 0, time: 0.05 }] });
const firstBone: string | undefined = result.bones[0];
const options: CrowdOptions = { source: { file }, count: 2, workers: 0 };
const crowd: Promise<Crowd> = Crowd.create(options);
const slotOf = (p: ScalarProperty): number => p.slot;
console.log(height, problems, registry, firstBone, crowd, defineNodeType, LocalPoseNode, slotOf);
${hasThree ? "export * as three from 'animgraph/three';\n" : ''}`);
if (hasThree) {
  const three = run('npm', ['install', '--no-audit', '--no-fund', `three@${installed('three')}`, `@types/three@${installed('@types/three')}`], consumer);
  check('three and @types/three for animgraph/three', three.ok, three.text);
}
const tscBin = join(consumer, 'node_modules', 'typescript', 'bin', 'tsc');
const tsc = run(process.execPath, [tscBin, '-p', consumer], consumer);
check(`(c) tsc --noEmit on a NodeNext, strict, noUncheckedIndexedAccess consumer${hasThree ? ' (with animgraph/three)' : ''}`, tsc.ok, tsc.text);
// The main entry's types do without Node's: a browser project (DOM library, no @types/node) can use them.
writeFileSync(join(consumer, 'tsconfig.core.json'), `${JSON.stringify({
  compilerOptions: {
    target: 'ES2022', lib: ['ES2022', 'DOM'], module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true,
    skipLibCheck: false, noEmit: true, types: [],
  },
  files: ['core.ts'],
}, null, 2)}\n`);
writeFileSync(join(consumer, 'core.ts'), `
import { loadGraphAsset, type AnimGraphInstance } from 'animgraph';
export function step(json: unknown): Float64Array {
  const character: AnimGraphInstance = loadGraphAsset(json).createInstance();
  character.update(1 / 60);
  return character.evaluate().rotations;
}
`);
const core = run(process.execPath, [tscBin, '-p', join(consumer, 'tsconfig.core.json')], consumer);
check('(c) tsc --noEmit on a browser-typed consumer of animgraph (no @types/node)', core.ok, core.text);

// --- (d) what a newcomer meets first ------------------------------------------------------------------
// require() of an ES-module-only package: an error that says so, not Node's "No exports main".
for (const entry of ['animgraph', 'animgraph/node']) {
  const required = run(process.execPath, ['-e', `require(${JSON.stringify(entry)})`], consumer);
  check(`(d) require('${entry}') throws an error naming import()`, !required.ok && /ES module package[\s\S]*await import\('animgraph'\)/.test(required.err), required.text);
}
// Every relative link of the shipped markdown (README, CONTRIBUTING, docs/) names a shipped file.
const dangling = [];
for (const doc of files.filter((f) => f.endsWith('.md'))) {
  const text = readFileSync(join(consumer, 'node_modules', 'animgraph', doc), 'utf8');
  for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const path = posix.normalize(posix.join(posix.dirname(doc), target));
    if (!files.includes(path)) dangling.push(`${doc}: ${target}`);
  }
}
check('(d) the shipped README and docs link only files the tarball holds', dangling.length === 0, dangling.join('\n'));
// The README's install routes and quick start, as written there (scripts/readme-test.mjs).
const { walkReadme } = await import('./readme-test.mjs');
await walkReadme({ tarball, tarballName: info.filename, work, check: (name, ok, detail) => check(`(e) ${name}`, ok, detail), run });

finish();
