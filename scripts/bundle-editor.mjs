// Bundles the editor page (editor/page/main.tsx with React, React Flow, three.js and the animgraph
// core) with esbuild: the build writes it to dist/editor/ (scripts/build.mjs), and `animgraph edit`
// run from the TypeScript sources bundles it in memory at start (cli/edit-server.ts), so the page
// is never stale and never comes from a CDN.
//
// Three entries share their code through chunks: editor.js (the page), nodes.js (`animgraph/nodes`)
// and animgraph.js (`animgraph`). The page's import map names the last two, so a module of custom
// node types (`animgraph edit --nodes`) that imports them gets the very classes the page's loader
// checks against.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'editor', 'page');

/**
 * Bundles the page; returns its files by name (index.html, style.css, editor.js, nodes.js,
 * animgraph.js and the shared chunks) and writes them into `outdir` when given.
 */
export async function bundleEditor({ outdir } = {}) {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { editor: join(source, 'main.tsx'), nodes: join(root, 'custom-nodes.ts'), animgraph: join(root, 'index.ts') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    minify: true,
    legalComments: 'eof',
    define: { 'process.env.NODE_ENV': '"production"' },
    chunkNames: 'chunk-[hash]',
    write: false,
    outdir: 'out',
    logLevel: 'silent',
  });
  // The chunks editor.js imports, named in the page so the browser fetches them beside editor.js
  // rather than after parsing it (the first paint waits for all of them).
  const editorOut = result.outputFiles.find((f) => f.path.endsWith('/editor.js'));
  const imported = [...new Set([...editorOut.text.matchAll(/from\s*"\.\/(chunk-[A-Z0-9]+\.js)"/g)].map((m) => m[1]))];
  const html = readFileSync(join(source, 'index.html'), 'utf8')
    .replace('<!-- modulepreload -->', imported.map((chunk) => `<link rel="modulepreload" href="${chunk}">`).join('\n'));
  const files = new Map([
    ['index.html', Buffer.from(html)],
    ['style.css', Buffer.concat([readFileSync(createRequire(import.meta.url).resolve('@xyflow/react/dist/style.css')), readFileSync(join(source, 'style.css'))])],
  ]);
  for (const file of result.outputFiles) files.set(file.path.slice(file.path.lastIndexOf('/') + 1), file.contents);
  if (outdir) {
    await rm(outdir, { recursive: true, force: true });
    await mkdir(outdir, { recursive: true });
    for (const [name, body] of files) await writeFile(join(outdir, name), body);
  }
  return files;
}
