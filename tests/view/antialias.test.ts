/**
 * chooseAntialias: the viewer's and the editor preview's multisampling, by the WebGL renderer's
 * name and the page's query. (In headless Chromium, tests/view/viewer.test.ts checks what the page
 * reports on SwiftShader and with `?antialias=1`.)
 */
import { describe, expect, it } from 'vitest';
import { chooseAntialias, SOFTWARE_RENDERER } from '../../viewer/antialias.ts';

// Names as browsers report them (WEBGL_debug_renderer_info's UNMASKED_RENDERER_WEBGL).
const SWIFTSHADER = 'ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)';
const LLVMPIPE = 'llvmpipe (LLVM 15.0.6, 256 bits)';
const WARP = 'ANGLE (Microsoft, Microsoft Basic Render Driver (0x0000008C) Direct3D11 vs_5_0 ps_5_0, D3D11)';
const NVIDIA = 'ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 (0x00002504) Direct3D11 vs_5_0 ps_5_0, D3D11)';
const APPLE = 'ANGLE (Apple, ANGLE Metal Renderer: Apple M2, Unspecified Version)';
const INTEL_MESA = 'Mesa Intel(R) UHD Graphics 620 (KBL GT2)';

describe('chooseAntialias', () => {
  it('multisamples on a GPU, and not on a software renderer', () => {
    for (const gpu of [NVIDIA, APPLE, INTEL_MESA]) expect(chooseAntialias('', gpu), gpu).toBe(true);
    for (const software of [SWIFTSHADER, LLVMPIPE, WARP, 'softpipe', 'lavapipe']) expect(chooseAntialias('', software), software).toBe(false);
    expect([NVIDIA, APPLE, INTEL_MESA].filter((name) => SOFTWARE_RENDERER.test(name))).toEqual([]);
  });

  it('multisamples where the browser does not name its renderer', () => {
    expect(chooseAntialias('', null)).toBe(true);
  });

  it('does as the page\'s ?antialias says, whatever the renderer', () => {
    for (const renderer of [SWIFTSHADER, NVIDIA, null]) {
      expect(chooseAntialias('?antialias=1', renderer)).toBe(true);
      expect(chooseAntialias('?antialias=true', renderer)).toBe(true);
      expect(chooseAntialias('?x=2&antialias=0', renderer)).toBe(false);
      expect(chooseAntialias('?antialias=false', renderer)).toBe(false);
    }
    // Any other value leaves the choice to the renderer.
    expect(chooseAntialias('?antialias=maybe', SWIFTSHADER)).toBe(false);
    expect(chooseAntialias('?antialias=', NVIDIA)).toBe(true);
  });
});
