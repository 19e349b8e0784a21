/** What the page reports about itself: the viewer's state, and the problems of a graph that did not load. */

export interface Problem { path: string; code: string; message: string }

/** What tests (and the curious, from the console) read: `window.__animgraphViewer`. */
export const state = {
  /** 'loading', 'running' (a frame has been drawn) or 'error' (the last load failed; an older graph may still run). */
  status: 'loading' as 'loading' | 'running' | 'error',
  source: '',
  /** The newest simulated frame. */
  frame: 0,
  /** How many graphs have been installed (a reload adds one). */
  loads: 0,
  figure: '' as '' | 'skinned' | 'skeleton',
  bones: 0,
  /** Skinned figures: the graph's bones no three.js bone has (they drive nothing). */
  unboundGraphBones: [] as string[],
  problems: [] as Problem[],
  /** The character's position in the world at the newest frame (root motion moves it), in the graph's axes. */
  root: [0, 0, 0] as number[],
  /** Where the character's root is in the view, x and y from -1 to 1 (the camera follows it, so it stays put). */
  onScreen: [0, 0] as number[],
  /** The WebGL renderer's name (webglRendererName), or null where the browser does not say. */
  renderer: null as string | null,
  /** Whether the 3D view multisamples (chooseAntialias: not on a software renderer, unless `?antialias=1`). */
  antialias: false,
  /** About how many frames a second the view simulates and draws, 0 for every display frame (chooseFrameRate: 30 on a software renderer, unless `?fps=`). */
  frameRate: 0,
  /** Pictures the 3D view has drawn: it draws only when its picture changed (ViewScene.render). */
  drawn: 0,
  /** False once any simulated pose or root transform held a non-finite number. */
  finite: true,
  debugText: '',
  /**
   * The retarget debug view (source-view.ts): whether the source skeleton is drawn, the clip whose
   * source it plays, the clip time it is sampled at, its bone count and its pelvis's component
   * position (source units) on the frame on screen.
   */
  retargetSource: { available: false, shown: false, clip: '', time: 0, bones: 0, pelvis: [0, 0, 0] as number[] },
};
(window as unknown as { __animgraphViewer: typeof state }).__animgraphViewer = state;
