// Types of markdown-blocks.mjs, for the TypeScript tests that import it.
export interface Marker {
  /** `typecheck`, `node`, `browser`, `fragment` or `walk`. */
  mode: string;
  /** The marker's words after the mode (a fragment's reason). */
  reason: string;
  /** Files from ../shared/data a browser block's page serves beside it (`needs=gltf/X.glb`). */
  needs: string[];
  /** Hidden lines prepended to the block when it is compiled. */
  prelude: string;
}
export interface Block {
  file: string;
  /** 1-based line of the block's first code line. */
  line: number;
  lang: string;
  code: string;
  marker: Marker | undefined;
  /** 1-based line of the marker's first line (0 without one). */
  markerLine: number;
}
export function markdownBlocks(file: string, text: string): Block[];
export function isScript(block: Block): boolean;
export function markdownSection(text: string, heading: string): { text: string; line: number } | undefined;
