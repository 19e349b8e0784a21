// Bundles the package's JavaScript with esbuild (scripts/build.mjs runs it after tsc has written the
// declarations): each entry of package.json's exports, the CLI and the crowd worker become one file
// each in dist/, and the code two or more of them use goes into shared chunks in dist/chunks/, so
// every entry runs the same classes and registries (instanceof, the node-type registry, the pose
// kernels) and a program loads a handful of files instead of one per source module. Node loads
// modules one at a time: ~170 separate files took most of `import('animgraph')`'s time.
//
// zod is bundled in (tree-shaken to what the schemas use): as its own ~95 modules it cost more to
// load than the whole core. zod keeps its registry and configuration on globalThis, so a custom
// node's schema from the user's zod composes with the bundled one. three.js (a peer dependency),
// eventemitter3 and node:* stay imports.
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

/**
 * Bundles the entries under `root` (those `existing` finds: three/ is optional) into `outdir`;
 * returns esbuild's metafile. `external` adds packages left as imports (zod, to measure the difference).
 */
export async function bundlePackage({ root, outdir, external = [], existing = () => true }) {
  const { build } = await import('esbuild');
  const entryPoints = Object.fromEntries(Object.entries(ENTRIES).filter(([, source]) => existing(join(root, source))).map(([name, source]) => [name, join(root, source)]));
  const result = await build({
    entryPoints,
    absWorkingDir: root,
    outdir,
    outbase: root,
    bundle: true,
    splitting: true,
    format: 'esm',
    // Neutral: no browser or node resolution conditions; the core imports no node:*, the Node-only
    // entries import node:* modules, left as imports.
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    external: ['node:*', 'three', 'three/*', 'eventemitter3', ...external],
    // Class and function names as in the sources (errors and the debug tree print constructor names),
    // not renamed where two modules declare the same name.
    keepNames: true,
    sourcemap: true,
    chunkNames: `${CHUNKS}/[name]-[hash]`,
    metafile: true,
    logLevel: 'warning',
  });
  // The worker launcher's URL, made relative to wherever esbuild put crowd-threads.ts's code.
  const launcher = join(outdir, 'host', 'crowd-worker.mjs');
  let workerUrls = 0;
  for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'))) {
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
  return result.metafile;
}
