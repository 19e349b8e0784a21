/** What the page reports about itself, for tests and the curious: `window.__animgraphEditor`. */
export interface EditorProblem { path: string; code: string; message: string }

export const editorState = {
  /** 'loading', 'ready' (the canvas is drawn) or 'error' (the file could not be read or is not JSON). */
  status: 'loading' as 'loading' | 'ready' | 'error',
  source: '',
  /** The canvas shown (a CanvasPath). */
  canvas: [] as string[],
  /** Nodes and edges of the canvas shown, as the model gives them. */
  nodes: 0,
  edges: 0,
  /** The loader's problems of the asset being edited (and those of the file's text). */
  problems: [] as EditorProblem[],
  /** Whether the asset being edited loads (the preview plays it). */
  loads: false,
  /** Graphs installed in the preview (each edit that loads adds one). */
  installs: 0,
  /** The frame on screen in the preview, and the newest simulated. */
  frame: 0,
  /** Milliseconds from the start of navigation to the first paint of the canvas with every node measured. */
  firstPaint: 0,
  /** Milliseconds from the start of navigation to: the page's script running, the graph read from the server. */
  timings: { script: 0, graph: 0 },
  /** The last notice shown (a refused edit's reason, a save's outcome). */
  notice: '',
  /** Saves answered by the server with ok. */
  saves: 0,
  dirty: false,
  /** Edge id -> the weight it is drawn with (the weight of the pose flowing through it), while playing. */
  weights: {} as Record<string, number>,
  /** The montage playing in the preview (Play in the montage rows) and its section, as 'name/section', or null. */
  montage: null as string | null,
  /** The bones the details panel offers (of the skeleton the asset names, as last loaded). */
  bones: [] as string[],
  /** The preview frame `weights` were read from. */
  weightsFrame: -1,
  /**
   * The last edit that reached the preview: the frame on screen when it was made, the first frame
   * simulated with the edited graph, and that frame's debug tree as `animgraph run --debug text` prints it.
   */
  lastEdit: null as null | { atFrame: number; firstFrame: number; debugText: string },
};
(window as unknown as { __animgraphEditor: typeof editorState }).__animgraphEditor = editorState;
