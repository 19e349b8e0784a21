/**
 * The WebAssembly SIMD sampling kernel in a browser: the core bundled for the browser (esbuild, as
 * a user's bundler would) runs an InstanceBatch in headless Chromium, where the kernel compiles
 * from the module's bytes in the bundle, and its poses match the JavaScript path's bit for bit.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { collectErrors, describeWithBrowser, launchBrowser, type Browser } from '../support/browser.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE = fileURLToPath(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url));

// Runs in the page: the sample locomotion graph (built-in skeleton and clips, no files) as two
// batches of 12 characters, with and without the kernel, 90 frames with gait switches.
const PAGE_SCRIPT = `
import { loadGraphAsset, samplingKernelAvailable } from './index.ts';
const graph = loadGraphAsset(JSON.parse(window.__asset));
const run = (wasm) => {
  const batch = graph.createInstances(12, { wasm, componentSpace: true });
  batch.instances.forEach((c, i) => c.setParameter('gait', i % 3));
  for (let f = 0; f < 90; f++) {
    if (f === 40) batch.instances.forEach((c, i) => c.setParameter('gait', (i + 1) % 3));
    batch.update(1 / 60);
  }
  return batch;
};
const a = run(true), b = run(false);
let differing = 0;
for (const key of ['translations', 'rotations', 'scales', 'componentTranslations', 'componentRotations', 'componentScales']) {
  for (let i = 0; i < a[key].length; i++) if (!Object.is(a[key][i], b[key][i])) differing++;
}
window.__result = { available: samplingKernelAvailable(), wasm: a.wasm, js: b.wasm, differing, values: a.rotations.length, moved: a.rotations.some((v, i) => v !== a.rotations[i % (a.boneCount * 4)]) };
`;

describeWithBrowser('the sampling kernel in headless Chromium', () => {
  let browser: Browser;
  let bundle: string;

  beforeAll(async () => {
    const built = build({
      stdin: { contents: PAGE_SCRIPT, resolveDir: root, loader: 'ts' },
      bundle: true, write: false, format: 'iife', platform: 'browser', target: 'es2022',
    });
    [browser, bundle] = await Promise.all([launchBrowser(), built.then((r) => r.outputFiles[0].text)]);
  }, 60000);
  afterAll(() => browser?.close());

  it('runs an InstanceBatch in WebAssembly SIMD from the bundle, bit-identical to JavaScript', async () => {
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    await page.setContent('<!doctype html><title>kernel</title>');
    await page.evaluate((asset) => { (window as unknown as { __asset: string }).__asset = asset; }, readFileSync(SAMPLE, 'utf8'));
    await page.addScriptTag({ content: bundle });
    const result = await page.evaluate(() => (window as unknown as { __result: Record<string, unknown> }).__result);
    expect(errors).toEqual([]);
    expect(result).toMatchObject({ available: true, wasm: true, js: false, differing: 0 });
    expect(result.values).toBe(12 * 22 * 4);
    expect(result.moved).toBe(true); // the characters differ: the comparison is not of identity poses
    await page.close();
  });
});
