/**
 * The three.js crowd page (examples/three-crowd: 1000 characters of the locomotion example, each a
 * SkinnedMesh bound with bindThree, every tenth with a hat under its head bone) in headless
 * Chromium, bundled here by its build script's bundleCrowdPage (esbuild). Checks that frames
 * complete, the figures it shows are finite, every character is drawn, and the page reports no error.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CrowdState } from '../../examples/three-crowd/main.ts';
import { canvasVariance, collectErrors, describeWithBrowser, launchBrowser, type Browser } from '../support/browser.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const OUT = join(root, 'out', 'three-crowd');

describeWithBrowser('the three.js crowd page in headless Chromium', () => {
  let browser: Browser;
  let html: string;

  beforeAll(async () => {
    const { bundleCrowdPage } = await import('../../examples/three-crowd/build.mjs');
    [browser, html] = await Promise.all([launchBrowser(), bundleCrowdPage()]);
    mkdirSync(OUT, { recursive: true });
  }, 120000);
  afterAll(() => browser?.close());

  it('draws 1000 characters and their hats, shows the frame\'s CPU split and draw calls, with no page error', async () => {
    const page = await browser.context.newPage();
    const errors = collectErrors(page);
    try {
      await page.setContent(html);
      const crowdState = () => page.evaluate(() => (window as unknown as { __crowd: CrowdState }).__crowd);
      await page.waitForFunction(() => {
        const s = (window as unknown as { __crowd?: CrowdState }).__crowd;
        return s !== undefined && (s.status === 'failed' || s.frame >= 4);
      }, null, { timeout: 240000, polling: 250 });
      const state = await crowdState();
      expect(state.error).toBe('');
      expect(state).toMatchObject({ status: 'running', characters: 1000, wasm: true, finite: true });
      for (const figure of [state.graphMs, state.bindingMs, state.rendererMs]) {
        expect(Number.isFinite(figure)).toBe(true);
        expect(figure).toBeGreaterThan(0);
      }
      // Every body (1000), every hat (100) and the floor: none culled by a bounding sphere of a stale pose.
      expect(state.drawCalls).toBe(1101);
      expect(state.triangles).toBeGreaterThan(1000 * 21 * 12);
      const panel = await page.locator('#stats').textContent();
      expect(panel).toMatch(/^1000 characters x 22 bones \(WebAssembly kernel\)\ngraph +\d+\.\d\d ms\nbinding +\d+\.\d\d ms\nrenderer +\d+\.\d\d ms\ndraw calls 1101, triangles \d+$/);
      expect(await canvasVariance(page)).toBeGreaterThan(20);
      await page.screenshot({ path: join(OUT, 'crowd.png') });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 300000);
});
