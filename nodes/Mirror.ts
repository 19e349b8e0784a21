import { mirrorPose, skeletonMirrorTable, type MirrorTable } from '../runtime/core/mirror.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { LocalPoseNode, readFlag, type DebugNode, type Link, type NodeType, type PoseLink, type ScalarProperty, type UpdateContext } from '../runtime/node/node.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

/**
 * Mirrors its input's pose across the skeleton's mirror plane (Unreal's Mirror node): each bone
 * takes its partner's transform reflected (runtime/core/mirror.ts), by the asset's mirror table or
 * the one found from the bone names. The root motion its branch reports is mirrored too: its
 * component along the plane's normal and its turn negated. With `mirror` false the pose and root
 * motion pass through.
 */
export class Mirror extends LocalPoseNode {
  /** 1 when this frame's update mirrored (read in evaluate). */
  private readonly state = new Uint8Array(1);
  private readonly inputLinks: readonly Link[];

  constructor(id: string, private readonly input: PoseLink, private readonly enabled: ScalarProperty, private readonly table: MirrorTable) {
    super(id, 'Mirror');
    this.inputLinks = [input];
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected override onInitialize(): void {
    this.state[0] = 0;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const child = ctx.child();
    this.input.update(child);
    const on = readFlag(this.graph.parameterValues, this.enabled);
    this.state[0] = on ? 1 : 0;
    if (!on) return;
    // A vertical plane: the motion's component along its normal and the turn about up change sign.
    const axis = this.table.axis, rm = child.rootMotion, rv = child.rootVelocity;
    rm[axis] = -rm[axis];
    rm[3] = -rm[3];
    rv[axis] = -rv[axis];
  }

  protected onEvaluate(out: Pose): void {
    this.input.evaluate(out);
    if (this.state[0] === 1) mirrorPose(out, this.table);
  }

  protected override debugDescription(): string {
    return this.state[0] === 1 ? 'Mirrored' : 'Off';
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.values = { mirrored: this.state[0] === 1 };
  }
}

export const MirrorType: NodeType = defineBuiltInNodeType({
  type: 'Mirror',
  space: 'local',
  properties: { mirror: { kind: 'bool', default: true } },
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  // One table per skeleton, shared by every node and instance.
  prepare: ({ skeleton }) => skeletonMirrorTable(skeleton),
  create: ({ id, properties: p, inputs, shared }) => {
    if (!shared) throw new AnimGraphError('invalid-data', `Mirror '${id}': no mirror table (the node type's prepare did not run)`);
    return new Mirror(id, inputs.pose, p.mirror, shared);
  },
});
