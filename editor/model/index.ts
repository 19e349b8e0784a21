/**
 * The graph editor's model: what the page (editor/page) draws and how an edit changes the asset.
 * Pure TypeScript (no DOM, no React, no node:*), synchronous, and free of side effects: every
 * function takes the asset as parsed JSON and returns new values, leaving its arguments untouched.
 *
 * Canvases: [] is the graph's top level; ['sm'] the states and transitions of the StateMachine
 * node 'sm'; ['sm', 'walk'] state walk's sub-graph; ['sm', 'walk', 'inner'] a machine inside that
 * sub-graph, and so on (graph and machine canvases alternate).
 *
 * Custom node types: pass `{ registry, metas }` (EditorTypes) wherever `types` is taken; a type
 * the registry has but `metas` does not document is drawn with its type name as title, category
 * 'Custom', and its pin and property names as titles.
 *
 * Positions: auto-layout positions are not written into the asset until the user moves a node on
 * a canvas (moveNodes) or places one there (addNode, pasteNodes, addState): then that canvas's
 * positions are all written, so opening and saving an untouched file changes nothing.
 *
 * A session: parse the file's text, `new History(asset)`; draw `canvas(history.current, path)`;
 * each edit returns an EditResult: push its asset, or show its reason (connect's is the loader's
 * own message, `path` its JSON path). Run the loader on `history.current` after each change and
 * place its problems with locateProblem. Save `formatAsset(history.current, originalText)`: the
 * original text where nothing changed, so undoing every edit saves the file byte for byte.
 *
 * Montage timelines (timeline.ts): montageTimeline(spec, clip) is what a montage's strip draws,
 * and a drag, an add or a delete on it returns the montage's spec edited (snapped to the clip's
 * frames, clamped as the loader's checks need), which setAssetEntry makes one edit of the asset.
 */
export * from './types.ts';
export { canvas, ruleText } from './canvas.ts';
export { formatAsset } from './format.ts';
export {
  addNode, addState, addTransition, connect, copyNodes, disconnect, moveNodes, pasteNodes, removeNodes, removeState, renameBlendProfile, renameClip, renameMontage,
  renameNode, renameParameter, renameState, setAssetEntry, setAssetValue, setClip, setParameter, setProperty, setTransition,
} from './edits.ts';
export { History } from './history.ts';
export { assetChoices, assetRowOf, blendProfileExample, clipExample, locateProblem, montageExample, palette, propertyFields } from './panel.ts';
export {
  addMontageNotify, addMontageSection, montageTimeline, moveNotifyTime, moveSectionStart, removeMontageNotify, removeMontageSection, renameMontageNotify,
  renameMontageSection, setMontageNotifyBranching, setMontageSectionNext, snapTime, timelineMarkOf, timelineTicks, timeToX, xToTime,
  type ClipTiming, type MontageTimeline, type TimelineEdit, type TimelineNotify, type TimelineSection,
} from './timeline.ts';
