// The README walked as a new user walks it, on the packed package: each install route of the
// README's install block (the shell block marked `docs-test: walk` under "Install"), run as written
// in its own empty folder, then the Quick start's shell block line by line in that folder, then
// (on the tarball route) the README's TypeScript blocks marked `node` (types stripped, as a user's
// tsx or tsc would) run by plain Node against the installed package. The commands are read from README.md, not copied
// here; the only edits are the placeholders a reader fills in: `/path/to/clone` becomes this
// repository (the git route installs its HEAD commit) and `./animgraph-X.tgz` is the tarball
// `npm pack` wrote, copied into the folder under the name the README gives (which must be the
// packed name).
//
// Run by scripts/pack-test.mjs with its tarball (`npm run pack-test`); alone, `node
// scripts/readme-test.mjs` packs one itself. Needs the npm registry (the routes install the
// package's dependencies; the git route also its devDependencies, to build dist/).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { markdownBlocks } from './markdown-blocks.mjs';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');

/** The README's walk blocks and node blocks, and the command lines of a shell block (comments and blank lines left out). */
export function readmeWalk(text) {
  const blocks = markdownBlocks('README.md', text);
  const walks = blocks.filter((b) => b.marker?.mode === 'walk');
  const commands = (b) => b.code.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  return {
    install: walks[0] && commands(walks[0]),
    quickStart: walks[1] && commands(walks[1]),
    walkCount: walks.length,
    nodeBlocks: blocks.filter((b) => b.marker?.mode === 'node' && /^(ts|typescript|js|javascript)$/.test(b.lang)),
  };
}

/**
 * Walks the README on `tarball` (its file name as npm pack wrote it) in folders under `work`.
 * `check(name, ok, detail)` records a result; `run(command, args, cwd)` runs a command in a plain
 * environment and returns { ok, out, err, text }.
 */
export async function walkReadme({ tarball, tarballName, work, check, run }) {
  const { install, quickStart, walkCount, nodeBlocks } = readmeWalk(readFileSync(join(root, 'README.md'), 'utf8'));
  if (!check('README: two walk blocks (install routes, then the quick start)', walkCount === 2 && install.length > 0 && quickStart.length > 0, `found ${walkCount}`)) return;
  check(`README: ${nodeBlocks.length} TypeScript blocks marked node`, nodeBlocks.length > 0);
  const { transform } = await import('esbuild');
  const dirty = run('git', ['status', '--porcelain'], root);
  let route = 0;
  for (const line of install) {
    const folder = join(work, `readme-route-${++route}`);
    mkdirSync(folder);
    let command = line;
    if (command.includes('/path/to/clone')) {
      command = command.replaceAll('/path/to/clone', root);
      if (dirty.ok && dirty.out.trim() !== '') console.log('readme test: note: the git route installs the HEAD commit; uncommitted changes are not in it');
    }
    const named = /(?:^|\s)\.\/(animgraph-[^\s/]+\.tgz)(?:\s|$)/.exec(command);
    if (named) {
      if (!check(`README names the tarball npm pack writes (${named[1]})`, named[1] === tarballName, `README: ${named[1]}, npm pack: ${tarballName}`)) continue;
      copyFileSync(tarball, join(folder, named[1]));
    }
    const installed = run('sh', ['-c', command], folder);
    if (!check(`README install, route ${route}: ${line}`, installed.ok && existsSync(join(folder, 'node_modules', 'animgraph', 'dist', 'index.js')), installed.text)) continue;
    for (const step of quickStart) {
      const r = run('sh', ['-c', step], folder);
      // Files the line writes (--out F, --poses F, --debug-out F) must be there and not empty.
      const outputs = [...step.matchAll(/--(?:out|poses|debug-out)\s+(\S+)/g)].map((m) => resolve(folder, m[1]));
      const missing = outputs.filter((f) => !existsSync(f) || statSync(f).size === 0);
      check(`README quick start, route ${route}: ${step}`, r.ok && r.err.trim() === '' && missing.length === 0,
        `${r.text}${missing.length > 0 ? `\nmissing or empty: ${missing.join(', ')}` : ''}`);
    }
    // The code runs once, on the tarball route: the git route's dist/ comes from the same build
    // (npm runs `prepare` when it packs the clone), and CI's time is better spent elsewhere.
    if (!named) continue;
    for (const block of nodeBlocks) {
      // A user runs the block with tsx or after tsc; here its types are stripped, and plain Node
      // runs it against the installed package (no TypeScript loader, no repository sources).
      const { code } = await transform(block.code, { loader: 'ts', format: 'esm', target: 'node20' });
      const file = join(folder, `readme-${block.line}.mjs`);
      writeFileSync(file, code);
      const r = run(process.execPath, [file], folder);
      check(`README code, route ${route}: README.md:${block.line} runs in plain Node on the installed package`, r.ok && r.err.trim() === '', r.text);
    }
  }
}

// Alone: pack, walk, report.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const work = mkdtempSync(join(tmpdir(), 'animgraph-readme-'));
  let failures = 0;
  const check = (name, ok, detail = '') => {
    console.log(`readme test: ${ok ? 'ok  ' : 'FAIL'} ${name}${ok || !detail ? '' : `\n${detail.slice(0, 6000)}`}`);
    if (!ok) failures++;
    return ok;
  };
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const run = (command, args, cwd) => {
    const r = spawnSync(command, args, { cwd, encoding: 'utf8', env, maxBuffer: 64 << 20 });
    return { ok: r.status === 0, out: r.stdout ?? '', err: r.stderr ?? '', text: `$ ${command} ${args.join(' ')}\n${r.stdout}${r.stderr}${r.error ?? ''}` };
  };
  const packed = run('npm', ['pack', '--json', '--pack-destination', work], root);
  if (check('npm pack', packed.ok, packed.text)) {
    const info = JSON.parse(packed.out.slice(packed.out.search(/^\[$/m)))[0];
    await walkReadme({ tarball: join(work, info.filename), tarballName: info.filename, work, check, run });
  }
  console.log(`readme test: ${failures === 0 ? 'passed' : `${failures} check(s) failed`}`);
  if (failures === 0) rmSync(work, { recursive: true, force: true });
  else console.log(`readme test: left ${work} for a look`);
  process.exit(failures === 0 ? 0 : 1);
}
