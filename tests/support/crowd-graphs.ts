/** Graphs for the crowd tests, built in code so that worker threads can build them too (see CrowdGraphSource). */
import { isMainThread } from 'node:worker_threads';
import { NodeRegistry } from '../../graphs/loader.ts';
import { loadGraphAsset, loadGraphFile } from '../../host/files.ts';
import { builtInNodeTypes } from '../../nodes/index.ts';
import type { AnimGraph } from '../../runtime/graph/graph.ts';
import { LocalPoseNode, NO_LINKS, type Link, type NodeType, type PoseLink, type UpdateContext } from '../../runtime/node/node.ts';
import type { Pose } from '../../runtime/core/pose.ts';

/** A node that throws in its evaluate while the graph's bool parameter 'fail' (slot 0) is set (a buggy custom node). */
class FailingNode extends LocalPoseNode {
  constructor(id: string) {
    super(id, 'Failing');
  }
  protected get links(): readonly Link[] {
    return NO_LINKS;
  }
  protected onUpdate(): void {}
  protected onEvaluate(_out: Pose): void {
    if (this.graph.parameterValues[0] === 1) throw new Error('Failing node: told to fail');
  }
}

const FailingType: NodeType = {
  type: 'Failing', space: 'local', properties: {}, inputs: [],
  create: ({ id }) => new FailingNode(id),
};

/** A one-node graph on the built-in biped whose node throws while the parameter 'fail' is true. */
export function failingGraph(): AnimGraph {
  return loadGraphAsset(
    {
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: {}, parameters: { fail: { type: 'bool', default: false } },
      nodes: { f: { type: 'Failing' } }, output: 'f',
    },
    { nodeTypes: new NodeRegistry([...builtInNodeTypes, FailingType]) },
  );
}

/** What a Sabotage node does on its `frame`th update, on a crowd's worker thread only. */
export type Sabotage = 'exit' | 'spin' | 'nan';

/** The bone whose translation a 'nan' Sabotage node makes NaN. */
export const SABOTAGED_BONE = 2;

/**
 * A pass-through node that, on a worker thread, on its instance's `frame`th update since its
 * initialization, calls process.exit(7) ('exit'), never returns ('spin'), or writes NaN into bone
 * SABOTAGED_BONE's translation that frame ('nan'): a custom node's bugs, which a Crowd must survive.
 */
class SabotageNode extends LocalPoseNode {
  private readonly inputLinks: readonly Link[];
  private updates = 0;

  constructor(id: string, private readonly pose: PoseLink, private readonly what: Sabotage, private readonly frame: number) {
    super(id, 'Sabotage');
    this.inputLinks = [pose];
  }
  protected get links(): readonly Link[] {
    return this.inputLinks;
  }
  protected override onInitialize(): void {
    this.updates = 0;
  }
  protected onUpdate(ctx: UpdateContext): void {
    this.pose.update(ctx);
    if (++this.updates !== this.frame || isMainThread) return;
    if (this.what === 'exit') process.exit(7);
    if (this.what === 'spin') for (;;);
  }
  protected onEvaluate(out: Pose): void {
    this.pose.evaluate(out);
    if (this.what === 'nan' && this.updates === this.frame && !isMainThread) out.translations[SABOTAGED_BONE * 3 + 1] = NaN;
  }
}

/**
 * The built-in walk, its play rate the float parameter 'rate', under a Sabotage node that does
 * `what` on a worker thread on the `frame`th update of each of its characters.
 */
export function sabotagedWalkGraph(what: Sabotage, frame: number): AnimGraph {
  const SabotageType: NodeType = {
    type: 'Sabotage', space: 'local', properties: {}, inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
    create: ({ id, inputs }) => new SabotageNode(id, inputs.pose as PoseLink, what, frame),
  };
  return loadGraphAsset(
    {
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk', rootMotion: { bone: 'pelvis' } } },
      parameters: { rate: { type: 'float', default: 1 } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'rate' } } },
        s: { type: 'Sabotage', inputs: { pose: 'walk' } },
      },
      output: 's',
    },
    { nodeTypes: new NodeRegistry([...builtInNodeTypes, SabotageType]) },
  );
}

/** Not a graph: for the test of a source whose function returns something else. */
export function notAGraph(): unknown {
  return { nodes: [] };
}

/** The built-in walk under StrideWarping at full alpha (the in-place path), for the allocation probe. */
export function warpedWalkGraph(): AnimGraph {
  return loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
    parameters: { scale: { type: 'float', default: 1.3 }, gait: { type: 'int', default: 0 } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      w: {
        type: 'StrideWarping', inputs: { pose: 'walk' },
        properties: {
          strideScale: { param: 'scale' }, pelvisBone: 'pelvis', leftThigh: 'thigh_l', leftCalf: 'calf_l', leftFoot: 'foot_l',
          rightThigh: 'thigh_r', rightCalf: 'calf_r', rightFoot: 'foot_r',
        },
      },
    },
    output: 'w',
  });
}

/**
 * The builtin biped's walk blended with its run, both with root motion from the pelvis (the
 * builtin clips walk in place: a heading only), the walk with notifies off the 60 fps frame grid
 * and a curve (the update-rate tests and probe).
 */
export function rateWalkGraph(): AnimGraph {
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: {
      walk: {
        source: 'builtin:walk', rootMotion: { bone: 'pelvis' },
        notifies: [{ name: 'footL', time: 0.31 }, { name: 'footR', time: 0.87 }, { name: 'swing', start: 0.123, end: 0.456 }],
        curves: { lean: [[0, 0], [0.5, 1], [1, 0]] },
      },
      run: { source: 'builtin:run', rootMotion: { bone: 'pelvis' } },
    },
    nodes: {
      // Play rates that keep the loops off the 60 fps frame grid (an event there is one rounding
      // away from the next frame, at any update rate).
      walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: 0.93 } },
      run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.1 } },
      blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.3 } },
    },
    output: 'blend',
  });
}

/**
 * The built-in walk, played at `rate`, with its clip's keys nudged on worker threads only: a
 * source that builds a different graph on each thread, whose workers cannot use the calling
 * thread's copy of the clips in a Crowd's shared kernel memory (they sample in JavaScript).
 */
export function threadDependentWalkGraph(onWorker: boolean | undefined = undefined): AnimGraph {
  const worker = onWorker ?? !isMainThread;
  const graph = loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } }, parameters: {},
    nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk' } } }, output: 'walk',
  });
  if (worker) {
    const clip = graph.clipBindings.get('walk')!.clip;
    // The translation keys of the first track that has them (the pelvis'), half a unit higher.
    const track = clip.tracks.findIndex((t) => t.translation);
    for (let f = 0; f < clip.frameCount; f++) clip.translations[(f * clip.tracks.length + track) * 3 + 1] += 0.5;
  }
  return graph;
}

/** The walk under two Slots on the built-in biped: 'upperBody' (from spine_01) over 'fullBody'. */
export function slotWalkGraph(): AnimGraph {
  return loadGraphAsset({
    format: 'animgraph/1',
    name: 'slot walk',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, idle: { source: 'builtin:idle' }, run: { source: 'builtin:run' } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      fullBody: { type: 'Slot', inputs: { source: 'walk' } },
      upperBody: { type: 'Slot', inputs: { source: 'fullBody' }, properties: { filterBone: 'spine_01', filterDepth: 2 } },
    },
    output: 'upperBody',
  });
}

/**
 * The built-in walk, with notifies (two points and a range) and a play rate from the float
 * parameter 'rate', under a Slot 'fullBody' (the Crowd events tests: notifies, loops, slot ends).
 */
export function notifyWalkGraph(): AnimGraph {
  return loadGraphAsset({
    format: 'animgraph/1',
    skeleton: 'builtin:biped',
    clips: {
      walk: { source: 'builtin:walk', notifies: [{ name: 'footL', time: 0.31 }, { name: 'footR', time: 0.87 }, { name: 'swing', start: 0.123, end: 0.456 }] },
      idle: { source: 'builtin:idle' },
    },
    parameters: { rate: { type: 'float', default: 1 } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk', playRate: { param: 'rate' } } },
      fullBody: { type: 'Slot', inputs: { source: 'walk' } },
    },
    output: 'fullBody',
  });
}

/** The walk blended, by the float parameter 'a', toward the pose snapshot 'held' (the Crowd's savePoseSnapshot tests). */
export function snapshotWalkGraph(): AnimGraph {
  return loadGraphAsset({
    format: 'animgraph/1',
    name: 'snapshot walk',
    skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' } },
    parameters: { a: { type: 'float', default: 0 } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      held: { type: 'PoseSnapshot', properties: { snapshotName: 'held' } },
      blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'held' }, properties: { alpha: { param: 'a' } } },
    },
    output: 'blend',
  });
}

/** The montage example (graphs/examples/sample-montage.json): a state machine, an aim offset and a sectioned montage. */
export function montageExampleGraph(): AnimGraph {
  return loadGraphFile(new URL('../../graphs/examples/sample-montage.json', import.meta.url).pathname);
}

/**
 * Slot name 'Default' twice, as in an Unreal graph: `upperSlot` over the idle, layered on the walk
 * from spine_01 up, and `fullSlot` over the walk, in the other branch of a BlendList (int parameter
 * `pick`, crossfading over 0.25 s). Its montage 'attack' cuts the idle (2 s) into sections at 0, 0.5
 * and 1.5, with a notify at 0.75 (the clip's own `breath` too) and one at 1.625, and blends in and
 * out over 0.25 s (the Slot tests, and the Crowd events tests: one event per play of a slot name).
 */
export function twoSlotsGraph(): AnimGraph {
  return loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: { walk: { source: 'builtin:walk' }, idle: { source: 'builtin:idle', notifies: [{ name: 'breath', time: 0.75 }] } },
    parameters: { pick: { type: 'int', default: 0 } },
    montages: {
      attack: {
        clip: 'idle', slot: 'Default', blendIn: 0.25, blendOut: 0.25,
        sections: [{ name: 'windup', start: 0 }, { name: 'swing', start: 0.5 }, { name: 'recover', start: 1.5 }],
        notifies: [{ name: 'hit', time: 0.75 }, { name: 'late', time: 1.625 }],
      },
    },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      upperSlot: { type: 'Slot', inputs: { source: 'idle' }, properties: { name: 'Default' } },
      layered: { type: 'LayeredBlendPerBone', inputs: { base: 'walk', layers: ['upperSlot'] }, properties: { layers: [{ filters: [{ bone: 'spine_01' }] }] } },
      walk2: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      fullSlot: { type: 'Slot', inputs: { source: 'walk2' }, properties: { name: 'Default' } },
      list: { type: 'BlendList', inputs: { poses: ['layered', 'fullSlot'] }, properties: { activeIndex: { param: 'pick' }, blendTimes: [0.25, 0.25] } },
    },
    output: 'list',
  });
}
