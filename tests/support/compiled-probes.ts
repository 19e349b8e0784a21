/**
 * The probes compiled to JavaScript once per `vitest run` (tests/support/global-setup.ts), for
 * runProbe (allocation.ts) to run in plain Node. Through tsx, a probe's process spent about a second
 * of CPU on tsx itself (its start, and each of some two hundred modules passed through its loader)
 * before its first frame.
 *
 * Each module is compiled on its own, as tsx compiles it (esbuild's transform with tsx's options:
 * this Node as the target, whitespace minified, names kept, tsconfig.json's settings), into a folder
 * laid out as the repository, relative `.ts` imports pointing at the compiled `.js`. So Node loads
 * the same modules, linked the same way, running the same code as through tsx: what V8 optimises,
 * inlines and allocates is what the probe measures from the sources. (Not a bundle: joined into a
 * few files by esbuild, some probes measured 30 to 700 bytes a frame that through tsx measure none.)
 * A module's `import.meta.url` is its source file's URL, so paths made from it (the examples,
 * ../shared/data, the crowd worker) are those of the sources. Each module carries its source map and
 * the probe runs with --enable-source-maps: a stack trace names the source files and lines.
 *
 * A probe that names a TypeScript file at run time (a crowd's `{ module: new URL('./x.ts', …) }`
 * source) is not compiled: its process imports that module by its URL, which needs tsx, and the
 * module must share the classes of the sources it imports (a graph is checked with instanceof
 * AnimGraph), which a compiled copy would not. Those run through tsx as before.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Where the run's compiled probes are (set by global-setup.ts for the run's test processes); unset: every probe runs through tsx. */
export const COMPILED_PROBES_ENV = 'ANIMGRAPH_COMPILED_PROBES';

/** A probe's entry: tests/<folder>/<name>-probe.ts. */
const isProbe = (name: string) => name.endsWith('-probe.ts');

/** A TypeScript file named at run time: `new URL('./x.ts', import.meta.url)`. */
const NAMES_TS_AT_RUN_TIME = /new URL\(\s*['"][^'"]+\.ts['"]\s*,\s*import\.meta\.url\s*\)/;

/** The probes that can be compiled, as paths relative to the repository (tests/support/x-probe.ts). */
export function compilableProbes(): string[] {
  const probes: string[] = [];
  for (const entry of readdirSync(join(root, 'tests'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !isProbe(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    if (!NAMES_TS_AT_RUN_TIME.test(readFileSync(file, 'utf8'))) probes.push(relative(root, file));
  }
  return probes.sort();
}

/** The compiled probe at `path` (absolute) in `dir`, whether or not it exists (runProbe uses tsx when it does not). */
export function compiledProbe(dir: string, path: string): string {
  return join(dir, relative(root, path).replace(/\.ts$/, '.js'));
}

/**
 * A relative import of a `.ts` module in esbuild's output, whitespace minified: `from"./x.ts"`,
 * `import"./x.ts"`, `import("./x.ts")`.
 */
const RELATIVE_TS_IMPORT = /(\bfrom|\bimport\(?)"(\.\.?\/[^"]*)\.ts"/g;

/**
 * Compiles every probe compilableProbes() lists, and every module it imports, into `dir` (as
 * tests/support/x-probe.js, runtime/graph/graph.js...), with a link to node_modules beside them for
 * the packages they import.
 */
export async function compileProbes(dir: string): Promise<void> {
  const { transform } = await import('esbuild');
  const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const seen = new Set<string>();
  const compile = async (rel: string): Promise<void> => {
    if (seen.has(rel)) return;
    seen.add(rel);
    const path = join(root, rel);
    const source = readFileSync(path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href));
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
    await Promise.all(imports.map(compile));
  };
  await Promise.all(compilableProbes().map(compile));
}
