/**
 * Every TypeScript and JavaScript block in README.md and docs/*.md, as a user would paste it:
 * type-checked against the package's declarations (emitted from the sources here, laid out as the
 * installed package) under the strict consumer settings the README names (module NodeNext, strict,
 * noUncheckedIndexedAccess, skipLibCheck false); blocks marked `node` run in Node, blocks marked
 * `browser` run in Chromium. The markers and their rules: scripts/markdown-blocks.mjs and
 * CONTRIBUTING.md, "Code in the docs".
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isScript, markdownBlocks, type Block } from '../../scripts/markdown-blocks.mjs';
import { readmeWalk } from '../../scripts/readme-test.mjs';
import { examplesCommand } from '../../cli/examples.ts';
import { collectErrors, describeWithBrowser, launchBrowser, type Browser } from '../support/browser.ts';
import { hasSharedData, SHARED_DATA } from '../support/shared-data.ts';


const root = fileURLToPath(new URL('../../', import.meta.url));
const documents = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const blocks = documents.flatMap((f) => markdownBlocks(f, readFileSync(join(root, f), 'utf8'))).filter(isScript);
const modeOf = (b: Block) => b.marker?.mode ?? 'typecheck';
const nameOf = (b: Block) => `${b.file}:${b.line}`;
const compiled = blocks.filter((b) => modeOf(b) !== 'fragment');
const fileOf = (b: Block) => `${b.file.replace(/[^\w]+/g, '_')}_${b.line}${/^(js|javascript|mjs)$/.test(b.lang) ? '.js' : '.ts'}`;

/** The consumer's options: the README's ("module: NodeNext, noUncheckedIndexedAccess, skipLibCheck: false") with strict. */
const consumerOptions = {
  target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true,
  skipLibCheck: false, noEmit: true, allowJs: true, checkJs: true,
};

/** The package's entries as its sources: the `import` target ./dist/X.js of each export is ./X.ts. */
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | Record<string, string>> };
function sourceOf(specifier: string): string {
  const entry = packageJson.exports[`.${specifier.slice('animgraph'.length)}`];
  const target = typeof entry === 'string' ? entry : entry?.import;
  if (target === undefined) throw new Error(`'${specifier}' is not an export of the package`);
  // An absolute path, which Node (as a URL path) and esbuild both take.
  return join(root, target.replace(/^\.\/dist\//, './').replace(/\.js$/, '.ts'));
}
/** The block as it runs here: `animgraph…` imports pointed at the sources (so nothing runs a stale dist/). */
const runnable = (code: string) => code.replace(/(from\s*|import\s*\(\s*)(['"])(animgraph(?:\/[\w./-]+)?)\2/g, (_, head: string, q: string, spec: string) => `${head}${q}${sourceOf(spec)}${q}`);

let work = '';
/** tsc's diagnostics per block file, and those outside any block (the package's declarations). */
const diagnostics = new Map<string, string[]>();
const elsewhere: string[] = [];

function tsc(project: string): void {
  const r = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project, '--pretty', 'false'], { cwd: work, encoding: 'utf8' });
  let last: string[] = elsewhere;
  for (const line of `${r.stdout}${r.stderr}`.split('\n')) {
    if (line.trim() === '') continue;
    const m = /^(?:blocks\/)?([^(\s]+)\((\d+),(\d+)\): (error .*)$/.exec(line);
    // An indented line continues the diagnostic above it (an elaboration of a type mismatch).
    if (/^\s/.test(line) && last.length > 0) last[last.length - 1] += `\n${line}`;
    else if (m && diagnostics.has(m[1]!)) (last = diagnostics.get(m[1]!)!).push(`line ${m[2]}: ${m[4]}`);
    else (last = elsewhere).push(line);
  }
  if (r.status !== 0 && r.status !== 2 && r.status !== 1) elsewhere.push(`tsc exited ${r.status} ${r.error ?? ''}`);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'animgraph-docs-'));
  // The package as installed: its declarations (relative `.ts` specifiers made `.js`, as the build
  // does) and package.json under node_modules/animgraph, beside the repository's other packages.
  const pkg = join(work, 'node_modules', 'animgraph');
  mkdirSync(pkg, { recursive: true });
  const emitted = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'),
    '--emitDeclarationOnly', '--sourceMap', 'false', '--inlineSources', 'false', '--outDir', join(pkg, 'dist')], { encoding: 'utf8' });
  if (emitted.status !== 0) throw new Error(`declarations: tsc failed\n${emitted.stdout}${emitted.stderr}`);
  for (const entry of readdirSync(join(pkg, 'dist'), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    writeFileSync(file, readFileSync(file, 'utf8').replace(/((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]*?)\.ts\2/g, '$1$2$3.js$2'));
  }
  copyFileSync(join(root, 'package.json'), join(pkg, 'package.json'));
  copyFileSync(join(root, 'animgraph.schema.json'), join(pkg, 'animgraph.schema.json'));
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name === 'animgraph' || name.startsWith('.')) continue;
    symlinkSync(join(root, 'node_modules', name), join(work, 'node_modules', name));
  }
  writeFileSync(join(work, 'package.json'), '{ "name": "docs-consumer", "private": true, "type": "module" }\n');
  mkdirSync(join(work, 'blocks'));
  for (const b of compiled) {
    diagnostics.set(fileOf(b), []);
    writeFileSync(join(work, 'blocks', fileOf(b)), `${b.marker?.prelude ? `${b.marker.prelude}\n` : ''}${b.code}\n`);
  }
  const check = (name: string, options: object, mode: (m: string) => boolean) => {
    const files = compiled.filter((b) => mode(modeOf(b))).map((b) => `blocks/${fileOf(b)}`);
    if (files.length === 0) return;
    writeFileSync(join(work, name), JSON.stringify({ compilerOptions: { ...consumerOptions, ...options }, files }, null, 2));
    tsc(join(work, name));
  };
  // Node and type-check-only blocks with Node's types; browser blocks with the DOM's and no Node types.
  check('tsconfig.json', { types: ['node'] }, (m) => m !== 'browser');
  check('tsconfig.browser.json', { types: [], lib: ['ES2022', 'DOM', 'DOM.Iterable'] }, (m) => m === 'browser');
  // The folder the runnable blocks run in: the example graphs as `animgraph examples` writes them.
  const quiet = { out: () => {}, err: (s: string) => { throw new Error(s); }, errIsTty: false };
  mkdirSync(join(work, 'run'));
  symlinkSync(join(work, 'node_modules'), join(work, 'run', 'node_modules'));
  writeFileSync(join(work, 'run', 'package.json'), '{ "name": "docs-run", "private": true, "type": "module" }\n');
  const cwd = process.cwd();
  try {
    process.chdir(join(work, 'run'));
    expect(examplesCommand([], quiet)).toBe(0);
  } finally {
    process.chdir(cwd);
  }
}, 300_000);

afterAll(() => {
  if (work && !process.env.DOCS_TEST_KEEP) rmSync(work, { recursive: true, force: true });
});

describe('code blocks in README.md and docs/*.md', () => {
  it('finds the blocks: TypeScript in the README and docs, some run in Node, some in a browser', () => {
    const count = (mode: string) => blocks.filter((b) => modeOf(b) === mode).length;
    expect(blocks.length).toBeGreaterThanOrEqual(15);
    expect(blocks.filter((b) => b.file === 'README.md').length).toBeGreaterThanOrEqual(3);
    expect(count('node')).toBeGreaterThanOrEqual(3);
    expect(count('browser')).toBeGreaterThanOrEqual(2);
  });

  it('reads markers and preludes as CONTRIBUTING.md describes them', () => {
    const text = ['<!-- docs-test: node -->', '```ts', 'a();', '```', '', '<!-- docs-test: typecheck', 'declare const a: () => void;', '-->', '',
      '  ```ts', '  a();', '  ```', '<!-- docs-test: fragment the middle of a loop -->', '```js', 'continue;', '```', '```ts', 'b;', '```'].join('\n');
    const found = markdownBlocks('x.md', text);
    expect(found.map((b) => [b.line, b.marker?.mode, b.code])).toEqual([[3, 'node', 'a();'], [11, 'typecheck', 'a();'], [15, 'fragment', 'continue;'], [18, undefined, 'b;']]);
    expect(found[1]!.marker!.prelude).toBe('declare const a: () => void;');
    expect(found[2]!.marker!.reason).toBe('the middle of a loop');
    expect(() => markdownBlocks('x.md', '<!-- docs-test: nod -->\n```ts\n```\n')).toThrow(/x.md:1: docs-test marker with an unknown mode 'nod'/);
  });

  it('the README walk finds its blocks: a git URL and a tarball route, and a quick start that copies the examples first', () => {
    // What scripts/readme-test.mjs (run by the pack test, in CI) will run, checked here without packing.
    const { install, quickStart, walkCount } = readmeWalk(readFileSync(join(root, 'README.md'), 'utf8'));
    expect(walkCount).toBe(2);
    expect(install).toEqual(['npm install git+file:///path/to/clone', `npm install ./animgraph-${(packageJson as unknown as { version: string }).version}.tgz`]);
    expect(quickStart![0]).toBe('npx animgraph examples');
    expect(quickStart!.slice(1).every((line) => line.startsWith('npx animgraph ') && line.includes(' examples/sample-'))).toBe(true);
  });

  it('a fragment (not compiled) says why', () => {
    const silent = blocks.filter((b) => modeOf(b) === 'fragment' && b.marker!.reason.length < 8).map(nameOf);
    expect(silent).toEqual([]);
  });

  it('the package\'s declarations check under the same settings (nothing reported outside the blocks)', () => {
    expect(elsewhere).toEqual([]);
  });

  // A diagnostic's line is the block's line in the markdown (the hidden prelude's lines are the marker's).
  it.each(compiled.map((b) => [nameOf(b), modeOf(b), b] as const))('%s (%s) type-checks', (_name, _mode, b) => {
    const prelude = b.marker?.prelude ? b.marker.prelude.split('\n').length : 0;
    const found = (diagnostics.get(fileOf(b)) ?? []).map((d) => d.replace(/^line (\d+)/, (_, n: string) => {
      const line = Number(n);
      return line > prelude ? `${b.file}:${b.line + line - prelude - 1}` : `${b.file}:${b.markerLine} (prelude line ${line})`;
    }));
    expect(found).toEqual([]);
  });

  const nodeBlocks = blocks.filter((b) => modeOf(b) === 'node');
  it.each(nodeBlocks.map((b) => [nameOf(b), b] as const))('%s runs in Node', (_name, b) => {
    const file = join(work, 'run', fileOf(b));
    writeFileSync(file, `${b.marker?.prelude ? `${b.marker.prelude}\n` : ''}${runnable(b.code)}\n`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: join(work, 'run'), encoding: 'utf8', timeout: 240_000 });
    expect(`${r.stderr}${r.error ?? ''}`, r.stdout).toBe('');
    expect(r.status).toBe(0);
  });
});

describeWithBrowser('browser blocks of README.md and docs/*.md in Chromium', () => {
  const browserBlocks = blocks.filter((b) => modeOf(b) === 'browser');
  let browser: Browser;
  let server: Server;
  let origin = '';
  beforeAll(async () => {
    // Serves the run folder (the examples, and the shared data a block `needs=`), then a page per block.
    server = createServer((req, res) => {
      const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
      const file = join(work, 'run', path);
      if (path.includes('..') || !existsSync(file)) { res.writeHead(404).end(); return; }
      const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json' };
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  it.each(browserBlocks.map((b) => [nameOf(b), b] as const))('%s runs in Chromium', async (_name, b) => {
    const missing = b.marker!.needs.filter((f) => !hasSharedData || !existsSync(join(SHARED_DATA, f)));
    if (missing.length > 0) {
      if (process.env.CI === 'true') throw new Error(`${nameOf(b)} needs ${missing.join(', ')} from ../shared/data, which is missing in CI`);
      console.warn(`skipped ${nameOf(b)}: needs ${missing.join(', ')} from ../shared/data`);
      return;
    }
    for (const f of b.marker!.needs) copyFileSync(join(SHARED_DATA, f), join(work, 'run', basename(f)));
    const name = fileOf(b).replace(/\.(ts|js)$/, '');
    writeFileSync(join(work, 'run', `${name}.src${extname(fileOf(b))}`), `${b.marker?.prelude ? `${b.marker.prelude}\n` : ''}${runnable(b.code)}\n`);
    await build({
      entryPoints: [join(work, 'run', `${name}.src${extname(fileOf(b))}`)], bundle: true, platform: 'browser', format: 'esm', target: 'es2022',
      outfile: join(work, 'run', `${name}.js`), logLevel: 'silent', absWorkingDir: join(work, 'run'),
    });
    writeFileSync(join(work, 'run', `${name}.html`), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
import('./${name}.js').then(() => { window.docsTest = 'ok'; }, (e) => { window.docsTest = 'threw: ' + (e && e.stack || e); });
</script>\n`);
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    try {
      await page.goto(`${origin}/${name}.html`);
      await page.waitForFunction(() => (window as unknown as { docsTest?: string }).docsTest !== undefined, undefined, { timeout: 60_000 });
      expect(await page.evaluate(() => (window as unknown as { docsTest: string }).docsTest)).toBe('ok');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
