import type { ClipBinding } from '../runtime/core/clip.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { ScratchNumbers } from '../runtime/core/scratch.ts';
import { checkAimOffsetSamples } from '../runtime/jobs/aim-offset.ts';
import { CLOCK_NUMBERS } from '../runtime/jobs/clip-playback.ts';
import { defineBuiltInNodeType, readVec3, type CacheBonesContext, type NodeType, type PoseLink, type ScalarProperty, type Vec3Property } from '../runtime/node/node.ts';
import { AimOffset } from './AimOffset.ts';
import { checkPlaneSamples, PLANE_SAMPLES, planeLayout, type BlendSpace2DLayout } from './BlendSpace2D.ts';

/** The target, read within one call: every instance's (see ScratchNumbers). */
const TARGET = new ScratchNumbers();
/** The blend space's own inputs, unused: the look-at sets its coordinates. */
const NO_INPUT: ScalarProperty = { slot: -1, constant: 0 };
const DEGREES = 180 / Math.PI;

/**
 * Unreal's Aim Offset Look At: an AimOffset whose yaw and pitch come from a target point instead
 * of inputs. Each evaluate it composes the base pose's source socket (a bone and an offset in its
 * space) to component space and measures the direction from it to `target` against the socket's
 * aim axis: yaw, in degrees, counter-clockwise about the up axis (positive to the left of a
 * character facing its axis), and pitch, in degrees, up. The samples, placed at yaw (x) and pitch
 * (y), are weighed at those coordinates and applied onto the base as AimOffset applies them.
 */
export class AimOffsetLookAt extends AimOffset {
  /** The source bone's ancestors from the root down, and the bone itself, once bones are cached. */
  private chain = new Int32Array(0);
  /** [offset x, y, z, axis x, y, z, yaw, pitch]: the socket, its axis normalised, and the last look measured (degrees). */
  private readonly socket = new Float64Array(8);
  /** TARGET's. */
  private readonly targetNumbers = TARGET.atLeast(3);

  constructor(
    id: string, base: PoseLink, alpha: ScalarProperty, boneCount: number,
    samples: readonly ClipBinding[], layout: BlendSpace2DLayout, playRate: ScalarProperty, loop: ScalarProperty,
    private readonly sourceBone: string, offset: Float64Array, axis: Float64Array,
    private readonly targetPoint: Vec3Property,
    /** The up axis is Z (else Y). */
    private readonly zUp: boolean,
    clockNumbers = -1,
  ) {
    super(id, base, alpha, boneCount, samples, layout, NO_INPUT, NO_INPUT, [0, 0], playRate, loop, clockNumbers, 'AimOffsetLookAt');
    const length = Math.hypot(axis[0], axis[1], axis[2]);
    for (let i = 0; i < 3; i++) {
      this.socket[i] = offset[i];
      this.socket[3 + i] = axis[i] / length;
    }
  }

  protected override onInitialize(): void {
    super.onInitialize();
    this.socket[6] = 0;
    this.socket[7] = 0;
  }

  protected override onCacheBones(ctx: CacheBonesContext): void {
    super.onCacheBones(ctx);
    const chain: number[] = [];
    for (let b = ctx.boneIndex(this.id, this.sourceBone); b >= 0; b = ctx.skeleton.parents[b]) chain.unshift(b);
    this.chain = Int32Array.from(chain);
  }

  protected override aimAt(base: Pose): void {
    const chain = this.chain;
    if (chain.length === 0) return;
    const t = base.translations, r = base.rotations, s = base.scales, socket = this.socket;
    // The socket bone in component space: position p, rotation q, scale k.
    let px = 0, py = 0, pz = 0, qx = 0, qy = 0, qz = 0, qw = 1, kx = 1, ky = 1, kz = 1;
    for (let i = 0; i <= chain.length; i++) {
      // The last step places the socket's offset; the others each bone of the chain.
      const last = i === chain.length, b = last ? 0 : chain[i];
      const vx = kx * (last ? socket[0] : t[b * 3]), vy = ky * (last ? socket[1] : t[b * 3 + 1]), vz = kz * (last ? socket[2] : t[b * 3 + 2]);
      // p += q · v: v + 2w (u × v) + 2 u × (u × v)
      const cx = 2 * (qy * vz - qz * vy), cy = 2 * (qz * vx - qx * vz), cz = 2 * (qx * vy - qy * vx);
      px += vx + qw * cx + (qy * cz - qz * cy);
      py += vy + qw * cy + (qz * cx - qx * cz);
      pz += vz + qw * cz + (qx * cy - qy * cx);
      if (last) break;
      const b4 = b * 4, bx = r[b4], by = r[b4 + 1], bz = r[b4 + 2], bw = r[b4 + 3];
      const nx = qw * bx + qx * bw + qy * bz - qz * by;
      const ny = qw * by - qx * bz + qy * bw + qz * bx;
      const nz = qw * bz + qx * by - qy * bx + qz * bw;
      qw = qw * bw - qx * bx - qy * by - qz * bz;
      qx = nx; qy = ny; qz = nz;
      kx *= s[b * 3]; ky *= s[b * 3 + 1]; kz *= s[b * 3 + 2];
    }
    // The aim axis in component space: q · axis.
    const ax = socket[3], ay = socket[4], az = socket[5];
    const cx = 2 * (qy * az - qz * ay), cy = 2 * (qz * ax - qx * az), cz = 2 * (qx * ay - qy * ax);
    const fx = ax + qw * cx + (qy * cz - qz * cy), fy = ay + qw * cy + (qz * cx - qx * cz), fz = az + qw * cz + (qx * cy - qy * cx);
    const target = readVec3(this.targetNumbers, 0, this.graph.parameterValues, this.targetPoint);
    const dx = target[0] - px, dy = target[1] - py, dz = target[2] - pz;
    // Horizontal components (h1, h2, yaw measured from h2 toward h1, counter-clockwise about up) and up.
    let yaw = 0, pitch = 0;
    if (this.zUp) {
      yaw = Math.atan2(dy, dx) - Math.atan2(fy, fx);
      pitch = Math.atan2(dz, Math.sqrt(dx * dx + dy * dy)) - Math.atan2(fz, Math.sqrt(fx * fx + fy * fy));
    } else {
      yaw = Math.atan2(dx, dz) - Math.atan2(fx, fz);
      pitch = Math.atan2(dy, Math.sqrt(dx * dx + dz * dz)) - Math.atan2(fy, Math.sqrt(fx * fx + fz * fz));
    }
    if (yaw > Math.PI) yaw -= 2 * Math.PI;
    else if (yaw < -Math.PI) yaw += 2 * Math.PI;
    // A target at the socket has no direction, and a NaN no place: the last look stays.
    if (dx * dx + dy * dy + dz * dz > 1e-12 && yaw - yaw === 0 && pitch - pitch === 0) {
      socket[6] = yaw * DEGREES;
      socket[7] = pitch * DEGREES;
    }
    this.sampleWeights();
  }

  /**
   * Weighs the samples at the last look measured: in evaluate, once measured; in update (which
   * leads playback and fires the samples' notifies), the previous evaluate's.
   */
  protected override sampleWeights(): void {
    this.coordinates[0] = this.socket[6];
    this.coordinates[1] = this.socket[7];
    super.sampleWeights();
  }
}

export const AimOffsetLookAtType: NodeType = defineBuiltInNodeType({
  type: 'AimOffsetLookAt',
  space: 'local',
  properties: {
    samples: PLANE_SAMPLES,
    target: { kind: 'vec3', default: [0, 0, 1000] },
    sourceBone: { kind: 'bone' },
    socketOffset: { kind: 'vec3', default: [0, 0, 0], bindable: false },
    sourceAxis: { kind: 'direction', default: [0, 0, 1] },
    up: { kind: 'enum', options: ['y', 'z'], default: 'y' },
    alpha: { kind: 'float', default: 1, min: 0, max: 1 },
    playRate: { kind: 'float', default: 1 },
    loop: { kind: 'bool', default: true },
  },
  inputs: [{ name: 'base', kind: 'pose', space: 'local' }],
  check(ctx) {
    // The samples' places as a BlendSpace2D's: in range, distinct, not all on one line.
    checkPlaneSamples(ctx, 'AimOffsetLookAt', 'AimOffset1D');
    checkAimOffsetSamples(ctx, 'AimOffsetLookAt');
  },
  prepare: (ctx) => planeLayout(ctx.properties.samples),
  create: ({ id, boneCount, properties: p, inputs, shared, numbers }) => {
    if (!shared || shared.triangles.length === 0) throw new AnimGraphError('invalid-data', `AimOffsetLookAt '${id}': its samples have no triangle (the loader reports why)`);
    return new AimOffsetLookAt(
      id, inputs.base, p.alpha, boneCount, p.samples.map((s) => s.clip), shared, p.playRate, p.loop,
      p.sourceBone, p.socketOffset, p.sourceAxis, p.target, p.up === 'z', numbers(p.samples.length * CLOCK_NUMBERS),
    );
  },
});
