import { describe, expect, it } from 'vitest';
import { NodeRegistry } from '../../../graphs/loader.ts';
import { loadGraphAsset } from '../../../host/files.ts';
import { builtInNodeTypes } from '../../../nodes/index.ts';
import type { SequencePlayer } from '../../../nodes/SequencePlayer.ts';
import { LocalPoseNode, type Link, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext, readScalar } from '../../../runtime/node/node.ts';
import type { Pose } from '../../../runtime/core/pose.ts';
import { rootMotionDelta } from '../../../runtime/jobs/root-motion.ts';
import { expectClose } from '../../support/graphs.ts';

// Root motion travels up through the update. A node that knows nothing of what
// is below it scales what its input reports (here all of it, heading too: the built-in clips turn
// but do not travel), as a stride warp or a root-motion filter would.
class RootMotionScale extends LocalPoseNode {
  private readonly inputLinks: readonly Link[];
  /** What the input reported in the last update, before scaling: [dx, dy, dz, dHeading]. */
  readonly reported = new Float64Array(4);
  constructor(id: string, private readonly input: PoseLink, private readonly factor: ScalarProperty) {
    super(id, 'RootMotionScale');
    this.inputLinks = [input];
  }
  protected get links(): readonly Link[] {
    return this.inputLinks;
  }
  protected onUpdate(ctx: UpdateContext): void {
    const child = ctx.child();
    this.input.update(child);
    this.reported.set(child.rootMotion);
    const k = readScalar(this.graph.parameterValues, this.factor);
    for (let i = 0; i < 4; i++) child.rootMotion[i] *= k;
  }
  protected onEvaluate(out: Pose): void {
    this.input.evaluate(out);
  }
}
const RootMotionScaleType: NodeType = {
  type: 'RootMotionScale', space: 'local', properties: { factor: { kind: 'float', default: 1 } },
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  create: ({ id, properties: p, inputs }) => new RootMotionScale(id, inputs.pose as PoseLink, p.scalar('factor')),
};

describe('root motion flows up through the update (issue 14, item 1)', () => {
  const graph = () => loadGraphAsset({
    format: 'animgraph/1', skeleton: 'builtin:biped',
    clips: {
      walk: { source: 'builtin:walk', rootMotion: { bone: 'pelvis' } },
      run: { source: 'builtin:run', rootMotion: { bone: 'pelvis' } },
    },
    parameters: { k: { type: 'float', default: 3 }, alpha: { type: 'float', default: 0.25 } },
    nodes: {
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      // A skeletal control between the player and the filter: it passes its own context down.
      copy: { type: 'CopyBone', inputs: { pose: 'walk' }, properties: { sourceBone: 'hand_l', targetBone: 'hand_r', alpha: 0.5 } },
      scale: { type: 'RootMotionScale', inputs: { pose: 'copy' }, properties: { factor: { param: 'k' } } },
      run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.3 } },
      mix: { type: 'BlendTwo', inputs: { A: 'scale', B: 'run' }, properties: { alpha: { param: 'alpha' } } },
    },
    output: 'mix',
  }, { nodeTypes: new NodeRegistry([...builtInNodeTypes, RootMotionScaleType]) });

  it('lets a node scale what its branch reports, and the sibling keep its own share', () => {
    const g = graph().createInstance();
    const walk = g.nodes.get('walk') as SequencePlayer, run = g.nodes.get('run') as SequencePlayer;
    const scale = g.nodes.get('scale') as RootMotionScale;
    const walkClip = g.graph.clipBindings.get('walk')!.clip, runClip = g.graph.clipBindings.get('run')!.clip;
    const delta = (clip: typeof walkClip, from: number, to: number) => rootMotionDelta(new Float64Array(4), clip, clip.rootMotion!, Float64Array.of(from, to, 1, 1));
    g.update(0);
    for (const [k, alpha] of [[3, 0.25], [0.5, 0.25], [2, 0.8]] as const) {
      g.setParameter('k', k);
      g.setParameter('alpha', alpha);
      const w0 = walk.time, r0 = run.time;
      g.update(1 / 30);
      const mine = delta(walkClip, w0, walk.time), sibling = delta(runClip, r0, run.time);
      // The scaling node saw its branch's share only (the walk at its absolute weight)...
      expectClose(scale.reported, mine.map((x) => x * (1 - alpha)), 1e-12);
      // ...and the graph's root motion is its scaled share plus the sibling's as played.
      for (let i = 0; i < 4; i++) expect(g.rootMotion[i]).toBeCloseTo((1 - alpha) * k * mine[i] + alpha * sibling[i], 12);
      expect(Math.abs(mine[3])).toBeGreaterThan(1e-3);
      expect(Math.abs(sibling[3])).toBeGreaterThan(1e-3);
    }
  });

  it('gives the same root motion with the filter at 1 as the graph without it, frame after frame', () => {
    const withFilter = graph().createInstance();
    withFilter.setParameter('k', 1);
    const plain = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk', rootMotion: { bone: 'pelvis' } }, run: { source: 'builtin:run', rootMotion: { bone: 'pelvis' } } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.3 } },
        mix: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: 0.25 } },
      },
      output: 'mix',
    }).createInstance();
    for (let f = 0; f < 40; f++) {
      withFilter.update(1 / 60);
      plain.update(1 / 60);
      expect(Array.from(withFilter.rootMotion)).toEqual(Array.from(plain.rootMotion));
    }
  });
});
