import { AdditiveReferencePose, additiveReferenceSchema, clipFramePose, makeAdditive, referenceFrameIndex, type AdditiveReference } from '../runtime/core/additive.ts';
import { ClipBinding } from '../runtime/core/clip.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { LocalPoseNode, type DebugNode, type Link, type NodeType, type PoseLink, type UpdateContext } from '../runtime/node/node.ts';
import { Pose } from '../runtime/core/pose.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';
import { ScratchNumbers } from '../runtime/core/scratch.ts';
import { nameList, quoted } from '../runtime/core/names.ts';

/** Mesh-space rotations, used within one call: every instance's (see ScratchNumbers). Local space needs none. */
const MESH_ROTATIONS = new ScratchNumbers(), NO_SCRATCH = new Float64Array(0);

/**
 * Turns its input pose into an additive one (Unreal's Make Dynamic Additive): each bone's delta
 * from a reference pose, the skeleton's reference pose or one frame of a clip, in local or mesh
 * space (see runtime/core/additive.ts). What it outputs is meant for ApplyAdditive's `additive` input.
 */
export class MakeAdditive extends LocalPoseNode {
  private readonly inputLinks: readonly Link[];
  /** Component-space rotations of the input, in mesh space (MESH_ROTATIONS', shared). */
  private readonly scratch: Float64Array;

  constructor(
    id: string,
    private readonly input: PoseLink,
    private readonly reference: AdditiveReferencePose,
    private readonly mesh: boolean,
    private readonly referenceText: string,
    boneCount: number,
  ) {
    super(id, 'MakeAdditive');
    this.inputLinks = [input];
    this.scratch = mesh ? MESH_ROTATIONS.atLeast(boneCount * 4) : NO_SCRATCH;
  }

  protected get links(): readonly Link[] {
    return this.inputLinks;
  }

  protected onUpdate(ctx: UpdateContext): void {
    this.input.update(ctx.child());
  }

  protected onEvaluate(out: Pose): void {
    this.input.evaluate(out);
    makeAdditive(out, this.reference, this.mesh, this.graph.skeleton.parents, this.scratch);
  }

  protected override debugDescription(): string {
    return `Reference: ${this.referenceText} (${this.mesh ? 'mesh' : 'local'})`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.values = { reference: this.referenceText, space: this.mesh ? 'mesh' : 'local' };
  }
}

function describeReference(reference: AdditiveReference | undefined): string {
  return reference === undefined || reference === 'skeleton' ? 'skeleton' : `'${reference.clip}' frame ${reference.frame}`;
}

export const MakeAdditiveType: NodeType = defineBuiltInNodeType({
  type: 'MakeAdditive',
  space: 'local',
  properties: {
    reference: { kind: 'object', schema: additiveReferenceSchema },
    space: { kind: 'enum', options: ['local', 'mesh'], default: 'local' },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'local' }],
  additiveOutput: (p) => (p.space as 'local' | 'mesh' | undefined) ?? 'local',
  check(ctx) {
    const reference = ctx.properties.reference as AdditiveReference | undefined;
    if (reference !== undefined && reference !== 'skeleton' && !ctx.clipNames.has(reference.clip)) {
      ctx.report(['reference', 'clip'], 'unknown-clip', `unknown clip ${quoted(reference.clip)} (loaded: ${nameList(ctx.clipNames)})`);
    }
  },
  prepare(ctx): AdditiveReferencePose | undefined {
    const reference = ctx.properties.reference;
    const skeleton = ctx.skeleton;
    if (reference === undefined || reference === 'skeleton') return new AdditiveReferencePose(skeleton.referencePose, skeleton);
    const binding = ctx.clip(reference.clip);
    if (!binding) {
      ctx.report(['reference', 'clip'], 'unknown-clip', `unknown clip ${quoted(reference.clip)}`);
      return undefined;
    }
    // A clip marked additive is referred to as authored, as the asset's additive references are.
    const source = binding.clip.additive?.source;
    const authored = source ? new ClipBinding(source, skeleton) : binding;
    const frame = referenceFrameIndex(reference.frame, authored.clip.frameCount);
    if (frame < 0) {
      ctx.report(['reference', 'frame'], 'schema', `frame ${reference.frame} is outside clip ${quoted(reference.clip)} (frames 0..${authored.clip.frameCount - 1}, or -1..-${authored.clip.frameCount} from the end)`);
      return undefined;
    }
    return new AdditiveReferencePose(clipFramePose(new Pose(skeleton.boneCount), authored, frame), skeleton);
  },
  create: ({ id, boneCount, properties: p, inputs, shared }) => {
    // prepare() reports a reference it cannot build, and then the graph does not load.
    if (!shared) throw new AnimGraphError('invalid-data', `MakeAdditive '${id}': no reference pose`);
    return new MakeAdditive(id, inputs.pose, shared, p.space === 'mesh', describeReference(p.reference), boneCount);
  },
});
