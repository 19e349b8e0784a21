/**
 * The TypeScript sources the tests run outside vitest compiled to JavaScript once per `vitest run`
 * (tests/support/global-setup.ts): the allocation probes, the Crowd's worker (host/crowd-worker.ts)
 * and the CLI (tests/support/cli-source.ts), with every module they import. Through tsx, each such
 * process or worker thread spent about a second of CPU on tsx itself (its start, and each of some
 * two hundred modules passed through its loader) before running anything.
 *
 * Each module is compiled on its own, as tsx compiles it (esbuild's transform with tsx's options:
 * this Node as the target, whitespace minified, names kept, tsconfig.json's settings), into a folder
 * laid out as the repository, relative `.ts` imports pointing at the compiled `.js`. So Node loads
 * the same modules, linked the same way, running the same code as through tsx: what V8 optimises,
 * inlines and allocates is what a probe measures from the sources. (Not a bundle: joined into a
 * few files by esbuild, some probes measured 30 to 700 bytes a frame that through tsx measure none.)
 * A module's `import.meta.url` is its source file's URL, so paths made from it (the examples,
 * ../shared/data, the crowd worker) are those of the sources. Each module carries its source map and
 * runs with --enable-source-maps: a stack trace names the source files and lines.
 *
 * A source file named at run time (a crowd's `{ module: new URL('./crowd-graphs.ts', …) }`, the
 * edit command's `animgraph/nodes`) is compiled too, and loaded as its compiled copy, so that it
 * shares the classes of the compiled modules it imports (a graph is checked with instanceof
 * AnimGraph): in a process, by a resolve hook (compiled-hooks.mjs, registered by `--import`
 * register.mjs: nodeArgs); in a crowd's worker thread, by the worker's entry here
 * (crowd-worker.mjs, which host/crowd-worker.mjs starts when ANIMGRAPH_COMPILED_SOURCES is set),
 * which names the compiled copy in the worker's graph source.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Where the run's compiled sources are (set by global-setup.ts for the run's test processes, whose
 * child processes and worker threads inherit it); unset: everything runs through tsx.
 */
export const COMPILED_SOURCES_ENV = 'ANIMGRAPH_COMPILED_SOURCES';

/** A probe's entry: tests/<folder>/<name>-probe.ts. */
const isProbe = (name: string) => name.endsWith('-probe.ts');

/** The probes, as paths relative to the repository (tests/support/x-probe.ts). */
export function probes(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(root, 'tests'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && isProbe(entry.name)) found.push(relative(root, join(entry.parentPath, entry.name)));
  }
  return found.sort();
}

/**
 * What is compiled besides the probes: the Crowd's worker and the graph module the crowd tests name
 * as a source, the CLI as the tests launch it, and the modules `animgraph edit --nodes` maps
 * `animgraph` and `animgraph/nodes` to (cli/edit.ts).
 */
const ENTRIES = ['host/crowd-worker.ts', 'tests/support/crowd-graphs.ts', 'tests/support/cli-source.ts', 'index.ts', 'custom-nodes.ts'];

/** The compiled copy in `dir` of the source file at `path` (absolute), whether or not it exists. */
export function compiledPath(dir: string, path: string): string {
  return join(dir, relative(root, path).replace(/\.ts$/, '.js'));
}

/**
 * A relative import of a `.ts` module in esbuild's output, whitespace minified: `from"./x.ts"`,
 * `import"./x.ts"`, `import("./x.ts")`.
 */
const RELATIVE_TS_IMPORT = /(\bfrom|\bimport\(?)"(\.\.?\/[^"]*)\.ts"/g;

/** A TypeScript file named at run time: `new URL('./x.ts', import.meta.url)` in a source. */
const NAMED_AT_RUN_TIME = /new URL\(\s*['"](\.\.?\/[^'"]+\.ts)['"]\s*,\s*import\.meta\.url\s*\)/g;
const NAMES_TS_AT_RUN_TIME = new RegExp(NAMED_AT_RUN_TIME.source);

/**
 * Compiles the probes, ENTRIES, and every module they import or name at run time into `dir` (as
 * tests/support/x-probe.js, runtime/graph/graph.js...), with a link to node_modules beside them for
 * the packages they import, and the resolve hook and worker entry of the module comment.
 */
export async function compileSources(dir: string): Promise<void> {
  const { transform } = await import('esbuild');
  const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  // ES modules, as the repository's package.json says of its own: without it Node parses each .js
  // as CommonJS first, and only on a syntax error as a module (a tenth of a second of a CLI's start).
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  const seen = new Set<string>();
  const compile = async (rel: string): Promise<void> => {
    if (seen.has(rel)) return;
    seen.add(rel);
    const path = join(root, rel);
    const text = readFileSync(path, 'utf8');
    const named = [...text.matchAll(NAMED_AT_RUN_TIME)].map((m) => join(dirname(rel), m[1])).filter((f) => existsSync(join(root, f)));
    const source = text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href));
    const { code, map } = await transform(source, {
      // tsx's options for an ES module (tsx/dist: format esm, target this Node, sourcemap, minified
      // whitespace, names kept) and the tsconfig.json tsx reads.
      loader: 'ts',
      format: 'esm',
      target: `node${process.versions.node}`,
      sourcemap: 'external',
      sourcefile: path,
      minifyWhitespace: true,
      keepNames: true,
      tsconfigRaw: tsconfig,
    });
    const imports: string[] = [];
    const out = code.replace(RELATIVE_TS_IMPORT, (_, keyword: string, specifier: string) => {
      imports.push(join(dirname(rel), `${specifier}.ts`));
      return `${keyword}"${specifier}.js"`;
    });
    const target = join(dir, rel.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, `${out}//# sourceMappingURL=${basename(target)}.map\n`);
    writeFileSync(`${target}.map`, map);
    await Promise.all([...imports, ...named].map(compile));
  };
  await Promise.all([...probes(), ...ENTRIES].map(compile));
  const here = fileURLToPath(new URL('.', import.meta.url));
  copyFileSync(join(here, 'compiled-hooks.mjs'), join(dir, 'compiled-hooks.mjs'));
  const data = JSON.stringify({ root: pathToFileURL(root).href, dir: pathToFileURL(`${dir}/`).href });
  writeFileSync(join(dir, 'register.mjs'), `// Loads the repository's .ts files as their compiled copies here (compiled-hooks.mjs), on a process's main thread.
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
if (isMainThread) register('./compiled-hooks.mjs', import.meta.url, { data: ${data} });
`);
  writeFileSync(join(dir, 'crowd-worker.mjs'), `// A crowd's worker thread on the compiled sources (host/crowd-worker.mjs starts it): its graph
// source, if a module compiled here, is the compiled copy, as a process's resolve hook would load it.
import { workerData } from 'node:worker_threads';
import { compiledUrl } from './compiled-hooks.mjs';
const data = ${data};
const source = workerData.source;
if (typeof source.module === 'string') source.module = compiledUrl(source.module, data.root, data.dir) ?? source.module;
await import('./host/crowd-worker.js');
`);
}

/**
 * The arguments of a Node process running the source `path` (absolute): its compiled copy, with
 * source maps, when the run compiled it; else through tsx. `hooks`: with the resolve hook, for a
 * process that names a source file at run time (the hook's thread costs some 0.4 s of CPU, so only
 * those): by default, a source that names one in its text (a probe starting a crowd of
 * crowd-graphs.ts).
 */
export function nodeArgs(path: string, hooks = NAMES_TS_AT_RUN_TIME.test(readFileSync(path, 'utf8'))): string[] {
  const dir = process.env[COMPILED_SOURCES_ENV];
  const compiled = dir ? compiledPath(dir, path) : undefined;
  if (compiled === undefined || !existsSync(compiled)) return ['--import', 'tsx', path];
  return ['--enable-source-maps', ...(hooks ? ['--import', pathToFileURL(join(dir!, 'register.mjs')).href] : []), compiled];
}

/**
 * The arguments of a Node process running the CLI from its sources (tests/support/cli-source.ts)
 * with `args`, as nodeArgs gives them: with the resolve hook for --nodes, whose module imports
 * `animgraph`, which the edit command maps to the source index.ts.
 */
export function cliArgs(args: readonly string[]): string[] {
  return [...nodeArgs(join(root, 'tests/support/cli-source.ts'), args.includes('--nodes')), ...args];
}
