/**
 * Headless Chromium for the browser tests: Debian's `chromium` (scripts/install-chromium.sh
 * installs it) driven by playwright-core, which downloads no browser of its own. Tests skip with
 * a reason where it is missing, and CI=true makes a missing browser an error.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { describe, inject, it } from 'vitest';
import type { PageAssets } from '../../cli/local-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's websocket endpoint (tests/support/global-setup.ts); '' when each file launches its own. */
    chromiumEndpoint: string;
    /** A folder with the viewer page bundled (index.html, style.css, viewer.js); '' when not built. */
    viewerPageDir: string;
    /** A folder with the editor page bundled (what loadEditorAssets gives); '' when not built. */
    editorPageDir: string;
  }
}

export const CHROMIUM = process.env.ANIMGRAPH_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

if (!hasChromium && process.env.CI === 'true') {
  throw new Error(`CI=true but ${CHROMIUM} is missing: run scripts/install-chromium.sh (browser tests cannot be skipped in CI)`);
}

/** describe() for browser tests: skipped with the reason when Chromium is missing. */
export const describeWithBrowser = (hasChromium
  ? describe
  : ((name: string) => describe(`${name} (skipped: ${CHROMIUM} not found; scripts/install-chromium.sh installs it)`, () => {
      it.skip('needs Chromium', () => {});
    }))) as typeof describe;

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Chromium's flags: nothing reaching the network on its own; WebGL on SwiftShader, Chromium's
 * software renderer, since test machines have no GPU.
 */
export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
];

const VIEWPORT = { width: 1100, height: 640 };

/**
 * A fresh browser context of headless Chromium: of the Chromium the run shares
 * (tests/support/global-setup.ts), a new context with its own cookies and storage; without one, a
 * Chromium of its own (its own profile folder, removed on close). Closing it closes what it opened.
 */
export async function launchBrowser(): Promise<Browser> {
  const endpoint = inject('chromiumEndpoint');
  if (endpoint) {
    const browser = await chromium.connect(endpoint);
    const context = await browser.newContext({ viewport: VIEWPORT });
    return {
      context,
      close: async () => {
        await context.close();
        await browser.close(); // a connected browser's close() disconnects; the shared Chromium runs on
      },
    };
  }
  const profile = mkdtempSync(join(tmpdir(), 'animgraph-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: VIEWPORT,
    args: CHROMIUM_ARGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Everything a page reports as an error: console.error calls, failed loads, uncaught exceptions. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  return errors;
}

/**
 * The variance of the canvas's luminance (0..255²): about 0 for a canvas of one colour (nothing
 * drawn, or a cleared background), hundreds for a scene.
 */
export function canvasVariance(page: Page, selector = 'canvas'): Promise<number> {
  return page.evaluate((sel) => {
    const source = document.querySelector(sel) as HTMLCanvasElement;
    const copy = document.createElement('canvas');
    copy.width = source.width;
    copy.height = source.height;
    const ctx = copy.getContext('2d')!;
    ctx.drawImage(source, 0, 0);
    const data = ctx.getImageData(0, 0, copy.width, copy.height).data;
    let sum = 0, sum2 = 0;
    const n = data.length / 4;
    for (let i = 0; i < data.length; i += 4) {
      const y = 0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2];
      sum += y;
      sum2 += y * y;
    }
    const mean = sum / n;
    return sum2 / n - mean * mean;
  }, selector);
}

/**
 * The viewer page's files (what `animgraph view` serves from the sources): the bundle the run made
 * once (tests/support/global-setup.ts), or bundled now (loadPageAssets) without one.
 */
export async function viewerAssets(): Promise<PageAssets> {
  const dir = inject('viewerPageDir');
  return dir ? readAssets(dir) : (await import('../../cli/view-server.ts')).loadPageAssets();
}

/**
 * The editor page's files (what `animgraph edit` serves from the sources): the bundle the run made
 * once (tests/support/global-setup.ts), or bundled now (loadEditorAssets) without one.
 */
export async function editorAssets(): Promise<PageAssets> {
  const dir = inject('editorPageDir');
  return dir ? readAssets(dir) : (await import('../../cli/edit-server.ts')).loadEditorAssets();
}

async function readAssets(dir: string): Promise<PageAssets> {
  const { contentType } = await import('../../cli/local-server.ts');
  return new Map(readdirSync(dir).map((f) => [f, { body: new Uint8Array(readFileSync(join(dir, f))), type: contentType(f) }]));
}
