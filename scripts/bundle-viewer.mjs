// Bundles the viewer page (viewer/main.ts with three.js and the animgraph core) with esbuild: the
// build writes it to dist/viewer/ (scripts/build.mjs), and `animgraph view` run from the TypeScript
// sources bundles it in memory at start (cli/view-server.ts), so the page is never stale and never
// comes from a CDN.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'viewer');

/**
 * Bundles the page; returns its files by name (index.html, style.css, viewer.js) and writes them
 * into `outdir` when given.
 */
export async function bundleViewer({ outdir } = {}) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [join(source, 'main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'eof',
    write: false,
    outfile: 'viewer.js',
    logLevel: 'silent',
  });
  const files = new Map([
    ['index.html', readFileSync(join(source, 'index.html'))],
    ['style.css', readFileSync(join(source, 'style.css'))],
    ['viewer.js', result.outputFiles[0].contents],
  ]);
  if (outdir) {
    await mkdir(outdir, { recursive: true });
    for (const [name, body] of files) await writeFile(join(outdir, name), body);
  }
  return files;
}
