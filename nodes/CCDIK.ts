import type { CacheBonesContext, ComponentPoseLink, NodeCheckContext, NodeType, ScalarProperty } from '../runtime/node/node.ts';
import { readFlag } from '../runtime/node/node.ts';
import { CHAIN_LIMIT_ROTATION, CHAIN_START_FROM_TAIL, solveCCDIK } from '../runtime/jobs/chain-ik.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';
import { ChainIKNode, chainBetween, chainIKSettings, chainIKProperties, checkChainIK, type ChainIKNodeSettings } from './FABRIK.ts';

/** A CCDIK node's resolved properties beyond the chain's. */
export interface CCDIKNodeSettings extends ChainIKNodeSettings {
  startFromTail: ScalarProperty;
  enableRotationLimits: ScalarProperty;
  /** Degrees, for joints jointLimits does not name. */
  rotationLimit: number;
  jointLimits: readonly { bone: string; limit: number }[];
}

const DEG = Math.PI / 180;

/**
 * Unreal's CCDIK node: the chain from root bone to tip bone reaches for the target by cyclic
 * coordinate descent (solveCCDIK), each joint's total turn optionally limited.
 */
export class CCDIK extends ChainIKNode {
  /** Each joint's limit in radians, root first. */
  private limits = new Float64Array(0);

  constructor(id: string, input: ComponentPoseLink, alpha: ScalarProperty, private readonly ccd: CCDIKNodeSettings) {
    super(id, 'CCDIK', input, alpha, ccd);
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    super.onCacheBones(ctx);
    const chain = this.chain, limits = new Float64Array(chain.length).fill(this.ccd.rotationLimit * DEG);
    for (const { bone, limit } of this.ccd.jointLimits) {
      const at = chain.indexOf(ctx.skeleton.indexOf(bone));
      if (at >= 0) limits[at] = limit * DEG;
    }
    this.limits = limits;
  }

  protected solve(work: Float64Array, count: number, options: Float64Array): void {
    const values = this.graph.parameterValues;
    options[CHAIN_START_FROM_TAIL] = readFlag(values, this.ccd.startFromTail) ? 1 : 0;
    options[CHAIN_LIMIT_ROTATION] = readFlag(values, this.ccd.enableRotationLimits) ? 1 : 0;
    solveCCDIK(work, count, options, this.limits);
  }
}

/** FABRIK's checks, and joint limits on bones of the chain other than the tip, each named once. */
function checkCCDIK(ctx: NodeCheckContext): void {
  checkChainIK(ctx);
  const { properties: p, skeleton } = ctx;
  const joints = p.jointLimits;
  if (!skeleton || !Array.isArray(joints) || typeof p.rootBone !== 'string' || typeof p.tipBone !== 'string') return;
  const root = skeleton.indexOf(p.rootBone), tip = skeleton.indexOf(p.tipBone);
  if (root < 0 || tip < 0) return;
  const chain = Array.from(chainBetween(skeleton, root, tip));
  if (chain.length < 2) return;
  const seen = new Set<string>();
  joints.forEach((joint: unknown, i) => {
    const bone = typeof joint === 'object' && joint !== null ? (joint as { bone?: unknown }).bone : undefined;
    if (typeof bone !== 'string') return;
    const at = chain.indexOf(skeleton.indexOf(bone));
    if (skeleton.indexOf(bone) >= 0 && (at < 0 || at === chain.length - 1)) {
      ctx.report(['jointLimits', i, 'bone'], 'schema', `bone '${bone}' is not a joint of the chain: a limit applies to the bones from rootBone to tipBone's parent`);
    } else if (seen.has(bone)) {
      ctx.report(['jointLimits', i, 'bone'], 'schema', `bone '${bone}' is given a limit twice`);
    }
    seen.add(bone);
  });
}

export const CCDIKType: NodeType = defineBuiltInNodeType({
  type: 'CCDIK',
  space: 'component',
  properties: {
    ...chainIKProperties('keepLocal'),
    startFromTail: { kind: 'bool', default: true },
    enableRotationLimits: { kind: 'bool', default: false },
    rotationLimit: { kind: 'float', default: 30, min: 0, max: 180, bindable: false },
    jointLimits: {
      kind: 'list',
      item: {
        bone: { kind: 'bone' },
        limit: { kind: 'float', default: 30, min: 0, max: 180, bindable: false },
      },
    },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
  },
  inputs: [{ name: 'pose', kind: 'pose', space: 'component' }],
  check: checkCCDIK,
  create: ({ id, properties: p, inputs }) => new CCDIK(id, inputs.pose, p.alpha, {
    ...chainIKSettings(p),
    startFromTail: p.startFromTail,
    enableRotationLimits: p.enableRotationLimits,
    rotationLimit: p.rotationLimit,
    jointLimits: p.jointLimits,
  }),
});
