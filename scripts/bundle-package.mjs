// Bundles the package's JavaScript with esbuild (scripts/build.mjs runs it after tsc has written the
// declarations): each entry of package.json's exports, the CLI and the crowd worker become one file
// each in dist/. What the browser-safe entries (index, custom-nodes) reach goes into one core file,
// dist/chunks/core.js (and the editor metadata, which `animgraph validate` does not need, into
// dist/chunks/editor-meta.js); every entry imports that code from there, so all of them run the same
// classes and registries (instanceof, the node-type registry, the pose kernels), and
// `import('animgraph')` loads three files. Node loads and compiles modules one at a time: ~170
// separate files took most of the import's time, and esbuild's own code splitting still made 16.
// The Node-only code (node.js, the CLI's commands, three/, the worker) shares chunks of its own.
// Every file is minified (whitespace and syntax; identifiers and names as in the sources).
//
// zod is bundled in (tree-shaken to what the schemas use): as its own ~95 modules it cost more to
// load than the whole core. zod keeps its registry and configuration on globalThis, so a custom
// node's schema from the user's zod composes with the bundled one. So is eventemitter3, a CommonJS
// package: importing one from an ES module starts Node's CommonJS loader and its export lexer, a
// seventh of the import's time. three.js (a peer dependency) and node:* stay imports.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** The bundled entries: output name (under dist/, without .js) -> source file. */
export const ENTRIES = {
  index: 'index.ts',
  node: 'node.ts',
  'custom-nodes': 'custom-nodes.ts',
  'three/index': 'three/index.ts',
  'cli/main': 'cli/main.ts',
  'host/crowd-worker': 'host/crowd-worker.ts',
};

/** Where the shared chunks go: one level down, as dist/cli/ is, so that the CLI's `new URL('../…', import.meta.url)` paths hold in either place. */
export const CHUNKS = 'chunks';

/** crowd-threads.ts starts its worker as `new URL('./crowd-worker.mjs', import.meta.url)`: beside the worker's launcher in dist/host/. */
const WORKER_LAUNCHER = './crowd-worker.mjs';

/** The browser-safe entries: the modules they reach make the layers. */
const BROWSER_ENTRIES = ['index.ts', 'custom-nodes.ts'];

/**
 * The layers, each one file in dist/chunks/: the core (what the browser-safe entries reach, short of
 * the editor metadata) and the editor metadata (what only `graphJsonSchema`, `editorMeta` and the
 * CLI's schema, docs and edit commands use, so `animgraph validate` loads the core alone).
 */
export const LAYERS = [
  { name: 'core', holds: (input) => !input.startsWith('editor-meta/') },
  { name: 'editor-meta', holds: () => true },
];

/** The namespace of the modules that stand for a layer's module: they re-export it from the layer's file. */
export const PROXY_NAMESPACE = 'animgraph-layer';

/**
 * Drops from each `import { … } from <layer>` the names the file never uses: esbuild imports every
 * name a proxy re-exports, and the layer would keep all the code behind them (all of zod for one
 * `z.object`).
 */
function pruneLayerImports(text) {
  return text.replace(/import\s*\{([^}]*)\}\s*from\s*("__animgraph_layer_[^"]*__");?/g, (statement, list, from) => {
    const rest = text.replace(statement, '');
    const kept = list.split(',').map((s) => s.trim()).filter((s) => s !== '').filter((specifier) => {
      const local = specifier.split(/\s+as\s+/).pop();
      return new RegExp(`(?<![\\w$])${local.replace(/\$/g, '\\$')}(?![\\w$])`).test(rest);
    });
    return kept.length === 0 ? `import ${from};` : `import { ${kept.join(', ')} } from ${from};`;
  });
}

/** Stands for a layer's file in a build; each output gets the path relative to itself. */
const mark = (layer) => `__animgraph_layer_${layer}__`;

/**
 * Bundles the entries under `root` (those `existing` finds: three/ is optional) into `outdir`;
 * returns one metafile for all the builds (an import of a layer as an ordinary import of its file).
 * `external` adds packages left as imports (zod, to measure the difference).
 *
 * The builds: the browser-safe modules go into the layer files, each module's exports renamed to
 * be unique (`m12$Pose`); the entries then import those modules through small modules re-exporting
 * them from the layer file, so every entry runs the same classes and registries. index.js and
 * custom-nodes.js are bundled on their own (no shared chunks: they load the layers and nothing
 * else); node.js, the CLI, three/ and the worker share chunks of what is theirs. Built last to first:
 * a layer exports only the names the files after it import.
 */
export async function bundlePackage({ root, outdir, external = [], existing = () => true }) {
  const esbuild = await import('esbuild');
  const entries = Object.entries(ENTRIES).filter(([, source]) => existing(join(root, source)));
  const common = {
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    // Neutral: no browser or node resolution conditions; the core imports no node:*, the Node-only
    // entries import node:* modules, left as imports.
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    external: ['node:*', 'three', 'three/*', ...external],
    // Whitespace and syntax minified, identifiers not: V8 scans every byte of a file it loads, and
    // comments and indentation were over a quarter of the core's (their non-ASCII characters also
    // made the whole source a two-byte string, slower to decode and scan). Identifiers keep their
    // names, so stack traces read as the sources do; the source maps give the lines.
    minifyWhitespace: true,
    minifySyntax: true,
    // Class and function names as in the sources (errors and the debug tree print constructor names),
    // not renamed where two modules declare the same name (isRecord2) or a class names itself
    // (`var Clip = class _Clip`).
    keepNames: true,
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  };

  // The modules the browser-safe entries reach, in the order they run (imports first).
  const reach = await esbuild.build({ ...common, entryPoints: BROWSER_ENTRIES.map((e) => join(root, e)), outdir, write: false, splitting: true, sourcemap: false });
  const ordered = [];
  const seen = new Set(BROWSER_ENTRIES);
  const visit = (input) => {
    for (const i of reach.metafile.inputs[input]?.imports ?? []) {
      if (i.external || i.kind !== 'import-statement' || seen.has(i.path)) continue;
      seen.add(i.path);
      visit(i.path);
      ordered.push(i.path);
    }
  };
  for (const entry of BROWSER_ENTRIES) visit(entry);
  const layerOf = new Map();
  for (const input of ordered) layerOf.set(input, LAYERS.find((layer) => layer.holds(input)).name);
  const index = new Map(ordered.map((input, i) => [input, i]));
  // Each module's export names, as esbuild sees them (an entry output's `exports`).
  // (Outputs named by index: eventemitter3's index.mjs and index.js would both write index.js.)
  const named = await esbuild.build({ ...common, entryPoints: Object.fromEntries(ordered.map((input, i) => [`m${i}`, join(root, input)])), outdir: join(outdir, 'names'), write: false, splitting: true, sourcemap: false });
  const exportsOf = new Map();
  for (const output of Object.values(named.metafile.outputs)) if (output.entryPoint) exportsOf.set(output.entryPoint, output.exports);
  const alias = (input, name) => `m${index.get(input)}$${name}`;
  const aliasPattern = /\bm(\d+)\$([A-Za-z_$][\w$]*)/g;

  /** Resolves every import of a layer module (of a layer other than `own`) to its proxy. */
  const proxies = (own) => ({
    name: 'animgraph-layers',
    setup(build) {
      build.onResolve({ filter: /^__animgraph_layer_.*__$/ }, (args) => ({ path: args.path, external: true }));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData?.inner || args.namespace === PROXY_NAMESPACE) return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, namespace: args.namespace, pluginData: { inner: true } });
        if (resolved.errors.length > 0) return undefined;
        if (resolved.external) return resolved;
        const input = relative(root, resolved.path).split(sep).join('/');
        const layer = layerOf.get(input);
        return layer === undefined || layer === own ? resolved : { path: input, namespace: PROXY_NAMESPACE };
      });
      build.onLoad({ filter: /.*/, namespace: PROXY_NAMESPACE }, (args) => {
        const names = exportsOf.get(args.path) ?? [];
        const from = JSON.stringify(mark(layerOf.get(args.path)));
        return { contents: names.length === 0 ? `import ${from};` : `export { ${names.map((n) => `${alias(args.path, n)} as ${n}`).join(', ')} } from ${from};`, loader: 'js' };
      });
    },
  });

  const meta = { inputs: {}, outputs: {} };
  const wanted = new Map(); // module -> the export names later files import
  const layerFile = (layer) => join(outdir, CHUNKS, `${layer}.js`);
  /** Records a build's outputs, points its layer imports at the layer files, notes the names it imports. */
  const settle = (result) => {
    Object.assign(meta.inputs, result.metafile.inputs);
    for (const [file, output] of Object.entries(result.metafile.outputs)) {
      meta.outputs[file] = {
        ...output,
        imports: output.imports.map((i) => {
          const layer = LAYERS.find((l) => i.path === mark(l.name));
          return layer ? { path: relative(root, layerFile(layer.name)).split(sep).join('/'), kind: i.kind } : i;
        }),
      };
      if (!file.endsWith('.js')) continue;
      const path = join(root, file);
      let text = readFileSync(path, 'utf8');
      if (!text.includes('__animgraph_layer_')) continue;
      text = pruneLayerImports(text);
      for (const [, i, name] of text.matchAll(aliasPattern)) {
        const input = ordered[Number(i)];
        if (input !== undefined) wanted.set(input, new Set([...wanted.get(input) ?? [], name]));
      }
      for (const layer of LAYERS) {
        const target = relative(dirname(path), layerFile(layer.name)).split(sep).join('/');
        text = text.replaceAll(JSON.stringify(mark(layer.name)), JSON.stringify(target.startsWith('.') ? target : `./${target}`));
      }
      writeFileSync(path, text);
    }
  };

  const browser = entries.filter(([name]) => BROWSER_ENTRIES.includes(ENTRIES[name]));
  for (const [name, source] of browser) {
    settle(await esbuild.build({ ...common, entryPoints: { [name]: join(root, source) }, outdir, outbase: root, plugins: [proxies(undefined)] }));
  }
  settle(await esbuild.build({
    ...common,
    entryPoints: Object.fromEntries(entries.filter((e) => !browser.includes(e)).map(([name, source]) => [name, join(root, source)])),
    outdir,
    outbase: root,
    splitting: true,
    chunkNames: `${CHUNKS}/[name]-[hash]`,
    plugins: [proxies(undefined)],
  }));
  for (const layer of [...LAYERS].reverse()) {
    const modules = ordered.filter((input) => layerOf.get(input) === layer.name);
    // (A module no later file names is left out: the sources and zod are free of side effects,
    // as package.json's sideEffects says; esbuild would drop a bare import of one anyway.)
    const source = modules.map((input) => {
      const names = [...wanted.get(input) ?? []].filter((n) => exportsOf.get(input)?.includes(n));
      return names.length === 0 ? '' : `export { ${names.map((n) => `${n} as ${alias(input, n)}`).join(', ')} } from ${JSON.stringify(join(root, input))};`;
    }).join('\n');
    settle(await esbuild.build({
      ...common,
      stdin: { contents: source, resolveDir: root, sourcefile: `animgraph-${layer.name}.js`, loader: 'js' },
      outfile: layerFile(layer.name),
      plugins: [proxies(layer.name)],
    }));
  }

  // keepNames follows every function declaration with `__name(f, "f")`, a call at import even where
  // the name it sets is the one the declaration gives (all but a few of ~700 in the core: esbuild
  // renames only where two modules declare the same name, and then the two differ). Those calls
  // become a `0` padded to the same length, so the source maps hold; they were a twentieth of the
  // import's instructions.
  for (const file of Object.keys(meta.outputs).filter((f) => f.endsWith('.js'))) {
    const path = join(root, file);
    const text = readFileSync(path, 'utf8');
    const kept = text.replace(/(?<![\w$.])__name\(([A-Za-z_$][\w$]*),"([\w$]*)"\)/g, (call, fn, name) => (fn === name ? `0${' '.repeat(call.length - 1)}` : call));
    if (kept !== text) writeFileSync(path, kept);
  }

  // The worker launcher's URL, made relative to wherever esbuild put crowd-threads.ts's code.
  const launcher = join(outdir, 'host', 'crowd-worker.mjs');
  let workerUrls = 0;
  for (const file of Object.keys(meta.outputs).filter((f) => f.endsWith('.js'))) {
    const path = join(root, file);
    const text = readFileSync(path, 'utf8');
    const literal = JSON.stringify(WORKER_LAUNCHER);
    if (!text.includes(literal)) continue;
    const target = relative(dirname(path), launcher).split(sep).join('/');
    writeFileSync(path, text.replaceAll(literal, JSON.stringify(target.startsWith('.') ? target : `./${target}`)));
    workerUrls++;
  }
  if (existing(join(root, ENTRIES['host/crowd-worker'])) && workerUrls !== 1) {
    throw new Error(`bundle: expected the crowd worker's URL in one output file, found it in ${workerUrls}`);
  }
  return meta;
}
