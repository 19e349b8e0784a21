#!/usr/bin/env node
// Builds the package into dist/ (run by `npm run build` and by `prepare`, so `npm install`, `npm ci`,
// `npm pack` and an install from git all build it): writes the declarations with tsconfig.build.json
// (laid out as the sources: dist/index.d.ts, dist/runtime/...), then
//  - bundles the JavaScript with esbuild (scripts/bundle-package.mjs): one file per entry
//    (dist/index.js, node.js, custom-nodes.js, three/index.js, cli/main.js, host/crowd-worker.js)
//    and shared chunks in dist/chunks/, minified with names kept and with source maps, so that
//    `import('animgraph')` loads a few files, not one per source module, and V8 has less to scan;
//  - copies the crowd worker's launcher beside the compiled worker (crowd-threads.ts starts
//    `./crowd-worker.mjs`; tsc copies no .mjs);
//  - rewrites relative `.ts` specifiers in the declarations to `.js`. tsc rewrites them in the
//    JavaScript only (microsoft/TypeScript#61037); TypeScript reads `.ts` in a .d.ts anyway, but
//    other tools reading the declarations (older compilers, API extractors, editors) look for a
//    file that is not in the package. `.ts` and `.js` are as long, so the source maps stay exact.
//  - bundles the `animgraph view` page (viewer/, three.js and the core) into dist/viewer/ with
//    esbuild, so the installed command serves it without esbuild and without a CDN; and the
//    `animgraph edit` page (editor/page/, React, React Flow, three.js and the core) into dist/editor/.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');

// A clean output: a source removed since the last build must not live on in the package.
rmSync(dist, { recursive: true, force: true });

const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) {
  console.error(`build: tsc failed (${compiled.status ?? compiled.signal})`);
  process.exit(1);
}

const { bundlePackage } = await import('./bundle-package.mjs');
const bundled = await bundlePackage({ root, outdir: dist, existing: existsSync });
const bundledFiles = Object.keys(bundled.outputs).filter((f) => f.endsWith('.js')).length;
copyFileSync(join(root, 'host', 'crowd-worker.mjs'), join(dist, 'host', 'crowd-worker.mjs'));

// import/export ... from '<rel>.ts', import('<rel>.ts') and import '<rel>.ts', relative only.
const relativeTs = /((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]*?)\.ts\2/g;
let declarations = 0;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
  const file = join(entry.parentPath, entry.name);
  const text = readFileSync(file, 'utf8');
  const rewritten = text.replace(relativeTs, '$1$2$3.js$2');
  if (rewritten !== text) writeFileSync(file, rewritten);
  declarations++;
}
const { bundleViewer } = await import('./bundle-viewer.mjs');
const page = await bundleViewer({ outdir: join(dist, 'viewer') });
const { bundleEditor } = await import('./bundle-editor.mjs');
const editor = await bundleEditor({ outdir: join(dist, 'editor') });
const editorScript = [...editor].filter(([name]) => name.endsWith('.js')).reduce((sum, [, body]) => sum + body.length, 0);
console.log(`build: dist/ written (${bundledFiles} JavaScript files, ${declarations} declaration files; the viewer page, ${(page.get('viewer.js').length / 1024).toFixed(0)} KiB of script; the editor page, ${(editorScript / 1024).toFixed(0)} KiB)`);
