/**
 * Graphs that put one control (an IK chain, a look-at, a bone modifier) over a walk, for the node
 * tests: its load problems on the built-in biped, and instances on the CMU walk.
 */
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';
import type { AnimGraphInstance } from '../../runtime/graph/instance.ts';
import { CMU } from './shared-data.ts';

/**
 * The problems `checkGraphAsset` reports for a node `id` of `type` with `properties` over the
 * built-in walk on the built-in biped, as `path [code] message` lines (`path [code]` without
 * messages); [] when the asset loads.
 */
export function controlProblems(type: string, id: string, properties: Record<string, unknown>, messages = true): string[] {
  const r = checkGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
    nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, [id]: { type, inputs: { pose: 'walk' }, properties } },
    output: id,
  });
  return r.ok ? [] : r.problems.map((p) => (messages ? `${p.path} [${p.code}] ${p.message}` : `${p.path} [${p.code}]`));
}

/** The CMU walk (002_01 from its frame 1) playing in node `walk`, with `nodes` over it and a vec3 parameter `t`, output `output`. */
export function cmuWalkInstance(nodes: Record<string, unknown>, output: string): AnimGraphInstance {
  const file = `${CMU}002_01.bvh`;
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: { bvh: file },
    clips: { walk: { source: file, frames: [1, -1] } },
    parameters: { t: { type: 'vec3', default: [0, 0, 0] } },
    nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, ...nodes },
    output,
  }).createInstance();
}
