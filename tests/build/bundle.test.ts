// The package's JavaScript as the build bundles it (scripts/bundle-package.mjs), written to a
// temporary folder: how many modules `import('animgraph')` loads (Node loads each file on its own,
// and ~260 of them, ours and zod's, were most of the import's time), that the entries share one copy
// of each class, that `animgraph validate` loads no other command's code, that the crowd worker's
// URL and package.json's sideEffects fit where esbuild put the code. Counts, no clocks:
// bench/cold-start.ts times the import.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePackage, CHUNKS, LAYERS, PROXY_NAMESPACE, type BundleMeta } from '../../scripts/bundle-package.mjs';

type MetaOutput = BundleMeta['outputs'][string];

const root = fileURLToPath(new URL('../..', import.meta.url));
let out = '';
/** Output files by their path under `out` (e.g. 'index.js', 'chunks/chunk-X.js'). */
let outputs: Map<string, MetaOutput>;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'animgraph-bundle-'));
  // The bundle's imports of three (left external, for animgraph/three) resolve from here.
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  const meta = await bundlePackage({ root, outdir: join(out, 'dist'), existing: existsSync });
  outputs = new Map();
  for (const [file, output] of Object.entries(meta.outputs)) {
    if (!file.endsWith('.js')) continue;
    outputs.set(file.slice(file.indexOf('dist/') + 'dist/'.length), output);
  }
});
afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

/** The output files `name` loads before it runs (static imports, transitively), itself included. */
function staticallyLoaded(name: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of outputs.get(file)!.imports) {
      if (imported.kind !== 'import-statement' || imported.external) continue;
      visit(imported.path.slice(imported.path.indexOf('dist/') + 'dist/'.length));
    }
  };
  visit(name);
  return seen;
}

const sourcesOf = (files: Iterable<string>) => new Set([...files].flatMap((f) => Object.keys(outputs.get(f)!.inputs)));

describe('the bundled package', () => {
  it('has one file per entry and its shared chunks, each source module in exactly one file', () => {
    for (const entry of ['index.js', 'node.js', 'custom-nodes.js', 'three/index.js', 'cli/main.js', 'host/crowd-worker.js']) expect(outputs.has(entry), entry).toBe(true);
    for (const file of outputs.keys()) expect(file.includes('/') ? /^(three|cli|host|chunks)\/[^/]+\.js$/.test(file) : true, file).toBe(true);
    // Splitting puts each module's code (each class) in one file that every entry imports.
    const owners = new Map<string, string[]>();
    // (A proxy, `export { m12$Pose as Pose } from './chunks/core.js'`, holds no code of its module.)
    for (const [file, output] of outputs) for (const input of Object.keys(output.inputs)) if (!input.startsWith(`${PROXY_NAMESPACE}:`)) owners.set(input, [...owners.get(input) ?? [], file]);
    const twice = [...owners].filter(([, files]) => files.length > 1);
    expect(twice).toEqual([]);
    expect(owners.get('runtime/core/pose.ts')).toHaveLength(1);
  });

  it('import(animgraph) loads itself and the layer files, zod among them as bundled code, not its ~95 modules', () => {
    const loaded = staticallyLoaded('index.js');
    expect([...loaded].sort()).toEqual(['chunks/core.js', 'chunks/editor-meta.js', 'index.js']);
    expect(LAYERS.map((l) => l.name)).toEqual(['core', 'editor-meta']);
    expect([...staticallyLoaded('custom-nodes.js')].sort()).toEqual(['chunks/core.js', 'custom-nodes.js']);
    // The entry re-exports; the code is in the layers.
    expect(outputs.get('index.js')!.bytes).toBeLessThan(outputs.get('chunks/core.js')!.bytes / 20);
    const coreSources = Object.keys(outputs.get('chunks/core.js')!.inputs);
    expect(coreSources).toContain('runtime/core/pose.ts');
    expect(coreSources).toContain('graphs/loader.ts');
    expect(coreSources.filter((s) => s.startsWith('editor-meta/'))).toEqual([]);
    const external = new Set([...loaded].flatMap((f) => outputs.get(f)!.imports.filter((i) => i.external).map((i) => i.path)));
    // The core is browser-safe and self-contained: no node:* module, no package left as an import
    // (eventemitter3 is bundled in: loading a CommonJS package through Node's ES module loader cost
    // a seventh of the import).
    expect([...external]).toEqual([]);
    const sources = sourcesOf(loaded);
    expect([...sources].some((s) => s.includes('node_modules/zod/'))).toBe(true);
    expect(coreSources.some((s) => s.includes('node_modules/eventemitter3/'))).toBe(true);
    // What only a command or the viewer uses stays out of the main entry.
    expect([...sources].filter((s) => s.startsWith('cli/') || s.startsWith('host/crowd') || s.startsWith('three/'))).toEqual([]);
  });

  it('Node loads that many modules when a program imports animgraph, and the entries share their classes', () => {
    // A loader hook counts every module Node loads (ours, packages', node:*) in a fresh process.
    const hooks = `data:text/javascript,${encodeURIComponent('export async function initialize(port) { globalThis.port = port; } export async function load(url, context, next) { globalThis.port.postMessage(url); return next(url, context); }')}`;
    const program = `import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const { port1, port2 } = new MessageChannel();
const urls = [];
port1.on('message', (url) => urls.push(url));
register(${JSON.stringify(hooks)}, { data: port2, transferList: [port2] });
const dist = ${JSON.stringify(pathToFileURL(join(out, 'dist')).href)};
const core = await import(dist + '/index.js');
await new Promise((resolve) => setTimeout(resolve, 200));
const coreModules = urls.length;
const node = await import(dist + '/node.js');
const nodes = await import(dist + '/custom-nodes.js');
const three = await import(dist + '/three/index.js');
port1.close();
// A graph loaded through animgraph/node is the main entry's AnimGraph, built from its node types.
const graph = node.loadGraphFile(${JSON.stringify(join(root, 'graphs', 'examples', 'sample-locomotion.json'))});
const instance = graph.createInstance();
let eventsFired = 0;
instance.events.on('parameterChanged', () => eventsFired++);
instance.setParameter('gait', 2);
instance.update(1 / 60);
console.log(JSON.stringify({
  coreModules,
  sharedPose: core.Pose === nodes.Pose,
  sharedError: core.AnimGraphError === node.AnimGraphError && core.GraphLoadError === node.GraphLoadError,
  sharedRunner: core.runGraph === node.runGraph,
  poseName: nodes.Pose.name,
  sharedGraph: graph instanceof core.AnimGraph && instance instanceof core.AnimGraphInstance,
  sharedPoseOut: instance.evaluate() instanceof nodes.Pose,
  threeKeys: Object.keys(three).length,
  eventsFired,
}));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: out, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { coreModules: number; eventsFired: number; sharedPose: boolean; sharedError: boolean; sharedRunner: boolean; poseName: string; sharedGraph: boolean; sharedPoseOut: boolean; threeKeys: number };
    // index.js and its chunks, nothing else.
    expect(result.coreModules).toBe(staticallyLoaded('index.js').size);
    expect(result.eventsFired).toBe(1);
    expect(result.sharedPose).toBe(true);
    expect(result.sharedError).toBe(true);
    expect(result.sharedRunner).toBe(true);
    expect(result.sharedGraph).toBe(true);
    expect(result.sharedPoseOut).toBe(true);
    expect(result.threeKeys).toBeGreaterThan(0);
    // Names as in the sources (keepNames), whatever esbuild renamed.
    expect(result.poseName).toBe('Pose');
  });

  it("a browser bundler takes the built main entry as it is: its chunks resolve, no package and no node:* module", async () => {
    const { build } = await import('esbuild');
    const result = await build({
      entryPoints: [join(out, 'dist', 'index.js')], bundle: true, platform: 'browser', format: 'esm', write: false,
      metafile: true, logLevel: 'silent', absWorkingDir: out,
    });
    const output = Object.values(result.metafile.outputs)[0]!;
    expect(output.imports).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((i) => !i.startsWith('dist/'))).toEqual([]);
    expect(inputs.filter((i) => i.startsWith('dist/chunks/')).length).toBe(staticallyLoaded('index.js').size - 1);
  });

  it('keeps the names of the entries\' functions and classes, minified as it is (keepNames)', async () => {
    // The built entries' functions and classes by export name, in a fresh process.
    const program = `const names = {};
for (const entry of ['index.js', 'custom-nodes.js', 'node.js']) {
  for (const [key, value] of Object.entries(await import(${JSON.stringify(pathToFileURL(join(out, 'dist')).href)} + '/' + entry))) {
    if (typeof value === 'function') names[entry + ' ' + key] = value.name;
  }
}
console.log(JSON.stringify(names));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: out, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const built = JSON.parse(run.stdout) as Record<string, string>;
    const sources: Record<string, string> = {};
    for (const [entry, module] of [['index.js', await import('../../index.ts')], ['custom-nodes.js', await import('../../custom-nodes.ts')], ['node.js', await import('../../node.ts')]] as const) {
      for (const [key, value] of Object.entries(module)) if (typeof value === 'function') sources[`${entry} ${key}`] = value.name;
    }
    expect(Object.keys(sources).length).toBeGreaterThan(150);
    expect(built).toEqual(sources);
  });

  it('minifies the layers to ASCII: no comments or indentation for V8 to scan, a one-byte source string', () => {
    for (const layer of LAYERS) {
      const text = readFileSync(join(out, 'dist', CHUNKS, `${layer.name}.js`), 'utf8');
      // Non-ASCII characters (in comments, and in strings unless escaped) make the source a two-byte string.
      expect(text.match(/[^\x00-\x7f]/g) ?? [], layer.name).toEqual([]);
      // Minified, the line breaks left are those inside template strings.
      expect(text.split('\n').length, layer.name).toBeLessThan(1000);
      // keepNames' calls that set the name a function declaration has anyway are blanked out.
      expect([...text.matchAll(/__name\(([\w$]+),"([\w$]*)"\)/g)].filter(([, fn, name]) => fn === name), layer.name).toEqual([]);
    }
    expect(readFileSync(join(out, 'dist', CHUNKS, 'core.js'), 'utf8').match(/__name\(/g)!.length).toBeGreaterThan(100);
  });

  it('maps a stack trace through the minified core to the sources (the blanked calls keep every column)', () => {
    const program = `const { sampleDataClip, Skeleton } = await import(${JSON.stringify(pathToFileURL(join(out, 'dist', 'index.js')).href)});
const frames = [];
for (const bad of [() => sampleDataClip('nope'), () => new Skeleton(['a', 'a'], [-1, 0])]) {
  try { bad(); } catch (e) { frames.push(e.stack.split('\\n').find((l) => l.includes('    at '))); }
}
console.log(JSON.stringify(frames));`;
    const run = spawnSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', program], { cwd: out, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const frames = JSON.parse(run.stdout) as string[];
    const lineOf = (file: string, text: string) => readFileSync(join(root, file), 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;
    expect(frames[0]).toContain(`runtime/import/sample-data.ts:${lineOf('runtime/import/sample-data.ts', 'no built-in clip')}:`);
    expect(frames[1]).toContain(`runtime/core/skeleton.ts:${lineOf('runtime/core/skeleton.ts', 'throw new SkeletonError(')}:`);
  });

  it('`animgraph validate` loads the CLI without the other commands, the editor metadata or the viewer', () => {
    const sources = sourcesOf(staticallyLoaded('cli/main.js'));
    expect(sources.has('cli/main.ts')).toBe(true);
    for (const command of ['cli/run.ts', 'cli/index-cmd.ts', 'cli/schema-docs.ts', 'cli/plot.ts', 'cli/view.ts', 'cli/edit.ts', 'cli/validate.ts']) {
      expect(sources.has(command), command).toBe(false);
    }
    expect([...sources].filter((s) => s.startsWith('editor-meta/') || s.startsWith('three/'))).toEqual([]);
    // validate's own file comes when it runs, with what it imports.
    const validate = [...outputs].find(([, o]) => o.entryPoint === 'cli/validate.ts');
    expect(validate).toBeDefined();
    const withValidate = sourcesOf(staticallyLoaded(validate![0]));
    expect(withValidate.has('host/files.ts')).toBe(true);
    expect(withValidate.has('cli/run.ts')).toBe(false);
  });

  it('the CLI code sits one folder down, where its paths relative to import.meta.url hold', () => {
    // cli/*.ts find ../graphs/examples, ../viewer/, ../index.js from dist/cli/ or dist/chunks/.
    expect(CHUNKS.includes('/')).toBe(false);
    for (const [file, output] of outputs) {
      if (Object.keys(output.inputs).some((s) => s.startsWith('cli/'))) expect(file.split('/')).toHaveLength(2);
    }
  });

  it('the crowd worker launcher resolves from where the code starting it went', () => {
    const starters = [...outputs].filter(([, o]) => Object.keys(o.inputs).includes('host/crowd-threads.ts'));
    expect(starters).toHaveLength(1);
    const [file] = starters[0]!;
    const text = readFileSync(join(out, 'dist', file), 'utf8');
    const url = /new URL\("([^"]*crowd-worker\.mjs)",\s*import\.meta\.url\)/.exec(text);
    expect(url).not.toBeNull();
    expect(join(dirname(join(out, 'dist', file)), url![1]!)).toBe(join(out, 'dist', 'host', 'crowd-worker.mjs'));
  });

  it("package.json's sideEffects names the file holding host/files.ts's top-level hook, and no entry file", () => {
    const patterns = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { sideEffects: string[] }).sideEffects;
    const matches = (file: string) => patterns.some((p) => new RegExp(`^${p.replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`).test(`./dist/${file}`));
    const holders = [...outputs].filter(([, o]) => Object.keys(o.inputs).includes('host/files.ts')).map(([f]) => f);
    expect(holders).toHaveLength(1);
    expect(matches(holders[0]!)).toBe(true);
    expect(matches('index.js')).toBe(false);
    expect(matches('custom-nodes.js')).toBe(false);
  });
});
