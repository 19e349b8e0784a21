/** Graphs whose curves drive properties and parameters (runtime/graph/curve-inputs.ts), for the tests and the allocation probe. */
import { loadGraphAsset } from '../../host/files.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';

/**
 * The built-in clips with curves: `ramp` rises over the idle (0 to 1 over its 2 s) and falls over
 * the walk (1 to 0 over its 1.1 s); `flip` is 0 for the idle's first second, then 1.
 */
export const CURVE_CLIPS = {
  idle: { source: 'builtin:idle', curves: { ramp: [[0, 0], [2, 1]], flip: [[0, 0], [0.999, 0], [1, 1]] } },
  walk: { source: 'builtin:walk', curves: { ramp: [[0, 1], [1.1, 0]] } },
  run: { source: 'builtin:run' },
} as const;

/** A StateMachine node of two states, `calm` (the idle) and `brisk` (the run), with `transitions` between them. */
export function calmToBrisk(transitions: readonly unknown[]) {
  return {
    type: 'StateMachine',
    properties: {
      entry: 'calm',
      states: {
        calm: { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'idle' } } }, output: 'p' },
        brisk: { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'run' } } }, output: 'p' },
      },
      transitions,
    },
  };
}

/**
 * Every way a curve drives: a BlendTwo's alpha bound to `ramp`, a BlendByBool's `active` bound to
 * `flip`, and a state machine whose rule reads `rising`, a float parameter following `ramp`;
 * `flipped` (bool) follows `flip`, `walk` is an ordinary parameter mixing the walk in.
 */
export function curveDrivenGraph(): AnimGraph {
  return loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: CURVE_CLIPS,
    parameters: {
      walk: { type: 'float', default: 0.25 },
      rising: { type: 'float', curve: 'ramp' },
      flipped: { type: 'bool', curve: 'flip' },
    },
    nodes: {
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      mix: { type: 'BlendTwo', inputs: { A: 'idle', B: 'walk' }, properties: { alpha: { param: 'walk' } } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      top: { type: 'BlendTwo', inputs: { A: 'mix', B: 'run' }, properties: { alpha: { curve: 'ramp' } } },
      machine: calmToBrisk([
        { from: 'calm', to: 'brisk', rule: { param: 'rising', op: '>', value: 0.3 }, duration: 0.2 },
        { from: 'brisk', to: 'calm', rule: { param: 'rising', op: '<=', value: 0.3 }, duration: 0.2 },
      ]),
      pick: { type: 'BlendByBool', inputs: { True: 'machine', False: 'top' }, properties: { active: { curve: 'flip' } } },
    },
    output: 'pick',
  });
}
