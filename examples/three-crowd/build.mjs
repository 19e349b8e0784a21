/**
 * Bundles the three.js crowd page (main.ts) into one HTML file that opens from disk:
 *
 *   node examples/three-crowd/build.mjs        # writes out/three-crowd/index.html
 *
 * bundleCrowdPage() is what the page's test uses (esbuild, a development dependency).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));

/** The page's HTML with its script inlined. */
export async function bundleCrowdPage() {
  const result = await build({
    entryPoints: [join(here, 'main.ts')],
    define: { LOCOMOTION_ASSET: readFileSync(join(here, '..', '..', 'graphs', 'examples', 'sample-locomotion.json'), 'utf8') },
    bundle: true, write: false, format: 'iife', platform: 'browser', target: 'es2022', minify: true,
  });
  const script = result.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>animgraph: a three.js crowd</title>\n' +
    '<style>html,body{margin:0;height:100%;overflow:hidden;background:#20242c}</style></head>\n' +
    `<body><script>${script}</script></body></html>\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = join(here, '..', '..', 'out', 'three-crowd');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.html'), await bundleCrowdPage());
  console.log(`wrote ${join(out, 'index.html')} (?count=N for another crowd size)`);
}
