import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadGraphAsset } from '../../graphs/loader.ts';

const root = new URL('../../', import.meta.url).pathname;

/** The main entry bundled for a browser, as a page would: nothing external, Node's built-ins unresolvable. */
async function bundle(entry: string, minify: boolean): Promise<{ code: string; metafile: Metafile }> {
  const result = await build({
    entryPoints: [join(root, entry)], bundle: true, platform: 'browser', format: 'esm', minify, write: false,
    metafile: true, logLevel: 'silent', absWorkingDir: root,
  });
  return { code: result.outputFiles[0].text, metafile: result.metafile };
}

describe('the main entry (index.ts) in a browser', () => {
  let built: { code: string; metafile: Metafile };
  beforeAll(async () => {
    built = await bundle('index.ts', true);
  });

  it('bundles for the browser platform with no node:* import (a Node built-in fails the build)', async () => {
    const imported = Object.values(built.metafile.outputs)[0].imports.map((i) => i.path);
    expect(imported).toEqual([]);
    // The check itself: an entry that imports a Node built-in does not bundle.
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-bundle-'));
    writeFileSync(join(dir, 'entry.ts'), `export { loadGraphFile } from ${JSON.stringify(join(root, 'host/files.ts'))};\n`);
    await expect(build({ entryPoints: [join(dir, 'entry.ts')], bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent' }))
      .rejects.toThrow(/Could not resolve "node:fs"/);
  });

  it('keeps zod to its code and one locale: `import * as z from "zod"`, never `import { z }`, which pulls in every locale', () => {
    const bytes = (match: (path: string) => boolean) => Object.entries(Object.values(built.metafile.outputs)[0].inputs)
      .filter(([path]) => match(path)).reduce((sum, [, input]) => sum + input.bytesInOutput, 0);
    // Measured: 99 KB of zod and 2.7 KB of its English locale; `import { z } from 'zod'` anywhere adds 261 KB of locales.
    expect(bytes((path) => /node_modules\/zod\/.*\/locales\//.test(path))).toBeLessThan(10_000);
    expect(bytes((path) => path.includes('node_modules/zod/'))).toBeLessThan(150_000);
  });

  it('loads the sample graph from memory when the bundle is imported as an ES module, with the poses of the sources', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-bundle-'));
    const file = join(dir, 'animgraph.mjs');
    writeFileSync(file, built.code);
    const core = await import(pathToFileURL(file).href);
    const asset = JSON.parse(readFileSync(join(root, 'graphs/examples/sample-locomotion.json'), 'utf8'));
    expect(asset.skeleton).toBe('builtin:biped');
    const fromBundle = (await core.loadGraph(asset)).createInstance();
    const fromSources = loadGraphAsset(asset).createInstance();
    for (const character of [fromBundle, fromSources]) character.setParameter('gait', 2);
    for (let frame = 0; frame < 30; frame++) {
      fromBundle.update(1 / 30);
      fromSources.update(1 / 30);
    }
    const pose = fromBundle.evaluate();
    expect(pose.translations.length).toBe(22 * 3);
    expect(Array.from(pose.rotations)).toEqual(Array.from(fromSources.evaluate().rotations));
    await expect(core.loadGraph({ ...asset, skeleton: { bvh: 'hero.bvh' } })).rejects.toThrow(/no file resolver was given/);
  });
});
