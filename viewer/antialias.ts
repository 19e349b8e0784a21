/**
 * Whether the 3D view multisamples (4× MSAA). On a GPU it does. On a software renderer (SwiftShader,
 * llvmpipe: a machine or virtual machine without a GPU, headless Chromium) it does not, because
 * there multisampling doubles the CPU a frame of the view costs. The page's `?antialias=1` or
 * `?antialias=0` decides instead.
 */
export function chooseAntialias(search: string, renderer: string | null): boolean {
  const asked = new URLSearchParams(search).get('antialias');
  if (asked === '1' || asked === 'true') return true;
  if (asked === '0' || asked === 'false') return false;
  return renderer === null || !SOFTWARE_RENDERER.test(renderer);
}

/** The names software WebGL renderers give themselves (WEBGL_debug_renderer_info). */
export const SOFTWARE_RENDERER = /swiftshader|llvmpipe|lavapipe|softpipe|software|basic render driver/i;

/**
 * The WebGL renderer's name, read from a throwaway context (a canvas's context attributes, MSAA
 * among them, are fixed when its context is made), which is released at once; null where the
 * browser does not say. RENDERER where it names the renderer (Firefox, which warns that
 * WEBGL_debug_renderer_info is deprecated), else the extension's (Chromium and Safari answer
 * RENDERER with 'WebKit WebGL').
 */
export function webglRendererName(): string | null {
  const gl = document.createElement('canvas').getContext('webgl2');
  if (gl === null) return null;
  let name: unknown = gl.getParameter(gl.RENDERER);
  if (typeof name !== 'string' || name === 'WebKit WebGL') {
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    name = info === null ? null : gl.getParameter(info.UNMASKED_RENDERER_WEBGL);
  }
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return typeof name === 'string' ? name : null;
}
