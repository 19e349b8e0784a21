import { quatFromTo, quatMultiply, quatRotateVec3, type Floats } from '../core/math.ts';
import { StrideWarpingState } from './stride-warping-state.ts';
import { IK_HINT, solveTwoBoneIK, twoBoneIKOptions } from './two-bone-ik.ts';

/**
 * The stride-warping solver (Unreal 5's AnimationWarping, warping from the FK foot) as a job usable
 * without a node, like solveTwoBoneIK beside it: the StrideWarping node reads its settings, fills
 * a job from its component-space pose, runs it and writes the result back.
 *
 * Per frame, in component space, `run()`:
 * 1. makes the stride direction tangent to the floor;
 * 2. scales each FK foot about its scale origin (the thigh's gravity line meeting the floor plane
 *    through the foot, projected onto the plane normal to the stride direction): only the foot's
 *    offset along the stride direction is scaled, so heights are kept; finds which feet are
 *    planted and which way each knee bends (see kneePole);
 * 3. moves the pelvis toward the warped feet so each leg keeps its FK length (1 to 10 iterations,
 *    averaged over the feet, as Unreal), then lowers it along gravity until every planted foot is
 *    within reach (a foot in the air may fall short: lowering the pelvis for a swinging foot ahead
 *    of a long stride dips the whole body for a step that touches nothing), never upward; smoothed
 *    by a critically damped spring, its speed capped, and blended in by `pelvisAlpha`.
 * Then, per leg, once the caller has moved the pelvis (the job does not know the bones between the
 * pelvis and the thighs), `solveLeg()` (or the node, on its pose):
 * 4. turns the thigh by the rotation between its FK leg direction and its warped one;
 * 5. clamps the foot target to the FK leg length from the moved thigh and solves the leg with the
 *    two-bone IK solver, the foot keeping its FK rotation and the knee bending toward kneePoles.
 *
 * Like ozz-animation's jobs: public fields are the inputs (read only) and outputs (written), the
 * caller owns the buffers (the constructor allocates them for `legCount` legs; any may be replaced)
 * and the state kept across frames (StrideWarpingState), `validate()` checks every rule and
 * `run()` checks them once and then does the work. Nothing here allocates.
 */

/** A foot is planted when its FK height above the lowest it has recently been is at most this fraction of the leg length (5%: about 4 cm on a human, the ankle's rise at heel-off). */
export const PLANTED_HEIGHT = 0.05;
/** Half-life (s) with which a foot's lowest height rises back toward it, so a raised floor is followed. */
export const LOWEST_HALF_LIFE = 2;
/**
 * An FK knee whose offset from its hip-foot line is at least this fraction of the thigh (a bend of
 * about 11 degrees) shows the knee's bend direction clearly enough to learn it from.
 */
export const KNEE_BENT = 0.1;
/**
 * An FK knee whose offset from its hip-foot line is under this fraction of the thigh (a bend of
 * about 6 degrees) counts as straight: its offset (millimetres, from the capture's noise) says
 * nothing of the way it bends, and a warp that bends the leg would bend it that way, sideways or
 * backward. Such a knee takes the learned direction, or before any, the stride direction.
 */
export const KNEE_STRAIGHT = 0.05;
/** How far from unit length (squared) floorNormal and gravityDirection may be. */
const UNIT_TOLERANCE = 1e-6;

export class StrideWarpingJob {
  // Inputs.
  /** Number of legs: a whole number, at most the state's. */
  legCount = 0;
  /** Per leg, the FK chain in component space: [thigh xyz, calf xyz, foot xyz] (9 numbers a leg), finite. */
  legPositions: Float64Array;
  /** Per leg, the FK thigh's component-space rotation (xyzw, 4 a leg), finite: knees are learned in its frame. */
  thighRotations: Float64Array;
  /** The FK pelvis position in component space (3), finite. */
  pelvis = new Float64Array(3);
  /** The factor on each foot's offset along the stride: finite, ≥ 0 (1 keeps the FK feet where they are). */
  strideScale = 1;
  /** Direction of travel (3), finite, any length: made tangent to the floor; zero or along the floor normal: no warp. */
  strideDirection = new Float64Array(3);
  /** Unit floor normal (3). */
  floorNormal = Float64Array.of(0, 1, 0);
  /** Unit direction of gravity (3): the pelvis is lowered along it; scale origins lie on the thighs' gravity lines. */
  gravityDirection = Float64Array.of(0, -1, 0);
  /** Seconds since the last run: finite, ≥ 0. */
  deltaTime = 0;
  /** The character's leg length (thigh to calf to foot), finite, ≥ 0: sizes the planted height and the pelvis speed cap. */
  legLength = 0;
  /** Step 3 on (false: the pelvis stays where it is). */
  adjustPelvis = true;
  /** Pelvis iterations: a whole number from 1 to 10. */
  pelvisIterations = 3;
  /** The pelvis spring's stiffness (per s² at mass 1), ≥ 0, infinite allowed (0 or infinite: no smoothing). */
  pelvisStiffness = 0;
  /** The pelvis spring's damping ratio (critical damping factor: 1 is critically damped), finite, ≥ 0. */
  pelvisDamping = 1;
  /** The pelvis spring's mass, finite, > 0: the frequency is √(stiffness / mass). */
  pelvisMass = 1;
  /** Cap on the pelvis adjustment's speed, leg lengths per second, ≥ 0 (0: no cap). */
  pelvisMaxSpeed = 0;
  /** How much of the pelvis adjustment is applied, 0 to 1. */
  pelvisAlpha = 1;
  /** Steps 4 and 5 (solveLeg): the thigh correction, the clamp of the target to the FK leg length, the IK. */
  correctThighs = true;
  clampLegLength = true;
  solveIk = true;
  /** Carried across frames; owned by the caller. */
  state: StrideWarpingState;

  // Outputs.
  /** Per leg, where the warped foot goes (3 a leg), before clamping to the leg length. */
  footTargets: Float64Array;
  /** Per leg, the knee's bend direction for the IK (3 a leg, unit or zero), perpendicular to the FK hip-foot line. */
  kneePoles: Float64Array;
  /** Per leg, the FK distance from thigh to foot (the longest the warped leg reaches). */
  legReach: Float64Array;
  /** Per leg, the FK distance from the pelvis to the foot (what step 3 keeps). */
  pelvisReach: Float64Array;
  /** Per leg, the point the foot was scaled about (3 a leg). */
  scaleOrigins: Float64Array;
  /** Per leg, 1 when the FK foot counts as planted. */
  planted: Uint8Array;
  /** The adjusted pelvis position (3), and its offset from the FK pelvis (3). */
  warpedPelvis = new Float64Array(3);
  pelvisOffset = new Float64Array(3);

  constructor(legCount: number, state: StrideWarpingState = new StrideWarpingState(legCount)) {
    this.legCount = legCount;
    this.state = state;
    this.legPositions = new Float64Array(legCount * 9);
    this.thighRotations = new Float64Array(legCount * 4);
    for (let i = 0; i < legCount; i++) this.thighRotations[i * 4 + 3] = 1;
    this.footTargets = new Float64Array(legCount * 3);
    this.kneePoles = new Float64Array(legCount * 3);
    this.legReach = new Float64Array(legCount);
    this.pelvisReach = new Float64Array(legCount);
    this.scaleOrigins = new Float64Array(legCount * 3);
    this.planted = new Uint8Array(legCount);
  }

  /**
   * True when every rule holds:
   * - legCount is a whole number ≥ 0, and the state has at least that many legs;
   * - legPositions holds ≥ 9 numbers a leg, thighRotations ≥ 4, footTargets, kneePoles and
   *   scaleOrigins ≥ 3, legReach, pelvisReach and planted ≥ 1; pelvis, strideDirection,
   *   floorNormal, gravityDirection, warpedPelvis and pelvisOffset ≥ 3;
   * - the legs' positions and thigh rotations, the pelvis and the stride direction are finite;
   * - floorNormal and gravityDirection are unit length (within 1e-6 in the square);
   * - strideScale, deltaTime and legLength are finite and ≥ 0;
   * - pelvisIterations is a whole number from 1 to 10;
   * - pelvisStiffness and pelvisMaxSpeed are ≥ 0 (infinite allowed: no smoothing, no cap),
   *   pelvisDamping is finite and ≥ 0, pelvisMass is finite and > 0, pelvisAlpha is from 0 to 1.
   * A zero stride direction, or one along the floor normal, is valid: nothing is warped. So is a
   * collapsed leg (its bones on one point): its foot stays, with no knee pole.
   */
  validate(): boolean {
    const n = this.legCount;
    if (!(Number.isInteger(n) && n >= 0) || this.state.legs.length < n) return false;
    if (this.legPositions.length < n * 9 || this.thighRotations.length < n * 4) return false;
    if (this.footTargets.length < n * 3 || this.kneePoles.length < n * 3 || this.scaleOrigins.length < n * 3) return false;
    if (this.legReach.length < n || this.pelvisReach.length < n || this.planted.length < n) return false;
    if (this.pelvis.length < 3 || this.strideDirection.length < 3 || this.floorNormal.length < 3 || this.gravityDirection.length < 3) return false;
    if (this.warpedPelvis.length < 3 || this.pelvisOffset.length < 3) return false;
    if (!allFinite(this.legPositions, n * 9) || !allFinite(this.thighRotations, n * 4)) return false;
    if (!allFinite(this.pelvis, 3) || !allFinite(this.strideDirection, 3)) return false;
    if (!isUnit(this.floorNormal) || !isUnit(this.gravityDirection)) return false;
    if (!(this.strideScale >= 0 && this.strideScale < Infinity)) return false;
    if (!(this.deltaTime >= 0 && this.deltaTime < Infinity)) return false;
    if (!(this.legLength >= 0 && this.legLength < Infinity)) return false;
    const it = this.pelvisIterations;
    if (!(Number.isInteger(it) && it >= 1 && it <= 10)) return false;
    if (!(this.pelvisStiffness >= 0) || !(this.pelvisMaxSpeed >= 0)) return false;
    if (!(this.pelvisDamping >= 0 && this.pelvisDamping < Infinity) || !(this.pelvisMass > 0 && this.pelvisMass < Infinity)) return false;
    return this.pelvisAlpha >= 0 && this.pelvisAlpha <= 1;
  }

  /**
   * Steps 1 to 3 into the outputs, advancing the state. False (outputs and state untouched) when
   * validate() is.
   */
  run(): boolean {
    if (!this.validate()) return false;
    const legs = this.legCount, state = this.state;
    const chains = this.legPositions, n = this.floorNormal, g = this.gravityDirection;
    const warped = this.footTargets, origins = this.scaleOrigins, reach = this.legReach, pelvisReach = this.pelvisReach;
    const scale = this.strideScale, dt = this.deltaTime, legLength = this.legLength;
    // 1. Stride direction tangent to the floor.
    const d = direction;
    d[0] = this.strideDirection[0]; d[1] = this.strideDirection[1]; d[2] = this.strideDirection[2];
    const along = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
    d[0] -= along * n[0]; d[1] -= along * n[1]; d[2] -= along * n[2];
    const warp = normalize3(d);
    const p0 = this.pelvis;
    const rise = dt > 0 ? 1 - Math.pow(0.5, dt / LOWEST_HALF_LIFE) : 0;
    // 2. Warp each FK foot about its scale origin.
    for (let i = 0; i < legs; i++) {
      const c = i * 9;
      for (let k = 0; k < 3; k++) {
        hip[k] = chains[c + k];
        knee[k] = chains[c + 3 + k];
        foot[k] = chains[c + 6 + k];
      }
      reach[i] = Math.sqrt((foot[0] - hip[0]) * (foot[0] - hip[0]) + (foot[1] - hip[1]) * (foot[1] - hip[1]) + (foot[2] - hip[2]) * (foot[2] - hip[2]));
      pelvisReach[i] = Math.sqrt((foot[0] - p0[0]) * (foot[0] - p0[0]) + (foot[1] - p0[1]) * (foot[1] - p0[1]) + (foot[2] - p0[2]) * (foot[2] - p0[2]));
      this.kneePole(i);
      // Planted: the FK foot near the lowest it has recently been, along the floor normal.
      const leg = state.legs[i];
      const height = foot[0] * n[0] + foot[1] * n[1] + foot[2] * n[2];
      if (!leg.hasLowest || height < leg.lowestHeight) {
        leg.lowestHeight = height;
        leg.hasLowest = true;
      } else leg.lowestHeight += (height - leg.lowestHeight) * rise;
      this.planted[i] = height - leg.lowestHeight <= PLANTED_HEIGHT * legLength ? 1 : 0;
      // Plane origin: the thigh's gravity line meeting the floor plane through the foot.
      const gn = g[0] * n[0] + g[1] * n[1] + g[2] * n[2];
      if (Math.abs(gn) > 1e-6) {
        const t = ((foot[0] - hip[0]) * n[0] + (foot[1] - hip[1]) * n[1] + (foot[2] - hip[2]) * n[2]) / gn;
        for (let k = 0; k < 3; k++) planeOrigin[k] = hip[k] + g[k] * t;
      } else for (let k = 0; k < 3; k++) planeOrigin[k] = foot[k];
      // Scale origin: the foot projected on the plane through the plane origin normal to the stride direction.
      const o = planeOrigin;
      const offset = warp ? (foot[0] - o[0]) * d[0] + (foot[1] - o[1]) * d[1] + (foot[2] - o[2]) * d[2] : 0;
      for (let k = 0; k < 3; k++) {
        const origin = foot[k] - offset * d[k];
        origins[i * 3 + k] = origin;
        warped[i * 3 + k] = origin + (foot[k] - origin) * scale;
      }
    }
    // 3. Pelvis adjustment: toward each warped foot to its FK distance, averaged.
    const p = this.warpedPelvis;
    for (let k = 0; k < 3; k++) p[k] = p0[k];
    if (this.adjustPelvis && legs > 0) {
      const iterations = this.pelvisIterations;
      for (let it = 0; it < iterations; it++) {
        sum[0] = 0; sum[1] = 0; sum[2] = 0;
        for (let i = 0; i < legs; i++) {
          const fx = warped[i * 3], fy = warped[i * 3 + 1], fz = warped[i * 3 + 2];
          const dist = pelvisReach[i];
          let dx = p[0] - fx, dy = p[1] - fy, dz = p[2] - fz;
          const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
          if (len > 1e-9) { dx /= len; dy /= len; dz /= len; } else { dx = -g[0]; dy = -g[1]; dz = -g[2]; }
          sum[0] += (fx + dx * dist) / legs;
          sum[1] += (fy + dy * dist) / legs;
          sum[2] += (fz + dz * dist) / legs;
        }
        for (let k = 0; k < 3; k++) p[k] = sum[k];
      }
      // The average can leave a foot out of reach: lower the pelvis (along gravity) until every
      // planted warped foot is within its FK distance. A foot in the air is left to the leg clamp.
      this.reachPlantedFeet();
      // Never raise the pelvis: shorter strides are reached by bending the legs, and a raised
      // pelvis would leave the averaged-out foot unable to reach the floor.
      const up = -((p[0] - p0[0]) * g[0] + (p[1] - p0[1]) * g[1] + (p[2] - p0[2]) * g[2]);
      if (up > 0) for (let k = 0; k < 3; k++) p[k] += up * g[k];
      // Smooth the adjustment by the spring (the first frame takes it as it is), cap its speed,
      // then blend by alpha.
      const spring = state.spring, o = spring.offset, v = spring.velocity;
      for (let k = 0; k < 3; k++) springTarget[k] = p[k] - p0[k];
      if (!spring.started) {
        for (let k = 0; k < 3; k++) { o[k] = springTarget[k]; v[k] = 0; }
        spring.started = true;
      } else if (dt > 0) {
        for (let k = 0; k < 3; k++) previous[k] = o[k];
        this.stepSpring(o, v);
        const cap = this.pelvisMaxSpeed * legLength * dt;
        const mx = o[0] - previous[0], my = o[1] - previous[1], mz = o[2] - previous[2];
        const moved = Math.sqrt(mx * mx + my * my + mz * mz);
        if (cap > 0 && moved > cap) {
          const k = cap / moved;
          o[0] = previous[0] + mx * k; o[1] = previous[1] + my * k; o[2] = previous[2] + mz * k;
          // The spring goes on from the capped motion, not from the speed it wanted.
          v[0] = (mx * k) / dt; v[1] = (my * k) / dt; v[2] = (mz * k) / dt;
        }
      }
      for (let k = 0; k < 3; k++) p[k] = p0[k] + o[k];
      const alpha = this.pelvisAlpha;
      for (let k = 0; k < 3; k++) p[k] = p0[k] + (p[k] - p0[k]) * alpha;
    }
    for (let k = 0; k < 3; k++) this.pelvisOffset[k] = p[k] - p0[k];
    return true;
  }

  /**
   * Moves the pelvis spring (offset `o`, velocity `v`) toward `springTarget` over deltaTime: a mass on
   * a spring, acceleration (stiffness × (target − o) − c × v) / mass with c = damping × 2 √(stiffness × mass),
   * solved exactly for a target held over the frame, so the result does not depend on how the time
   * is cut into frames. A stiffness of 0, or a spring that settles within the frame (its slowest decay
   * underflowing to 0), puts the offset on the target.
   */
  private stepSpring(o: Float64Array, v: Float64Array): void {
    // Read here, not passed: see CONTRIBUTING.md, "Numbers in the frame loop".
    const dt = this.deltaTime;
    const omega = Math.sqrt(this.pelvisStiffness / this.pelvisMass), zeta = this.pelvisDamping;
    // Where ζ is within 1e-4 of 1 the two-root and oscillating forms lose precision (their roots
    // meet): the critically damped form stands in, which they tend to.
    let decay = 0;
    if (omega > 0 && omega < Infinity) {
      if (zeta > 1 + 1e-4) decay = Math.exp((-omega / (zeta + Math.sqrt(zeta * zeta - 1))) * dt);
      else decay = Math.exp(-(zeta < 1 - 1e-4 ? zeta : 1) * omega * dt);
    }
    if (!(decay > 0)) {
      for (let k = 0; k < 3; k++) { o[k] = springTarget[k]; v[k] = 0; }
      return;
    }
    for (let k = 0; k < 3; k++) {
      const x0 = o[k] - springTarget[k], v0 = v[k];
      if (zeta > 1 + 1e-4) {
        // Overdamped: two real roots, r1 (slow) and r2 (fast).
        const root = Math.sqrt(zeta * zeta - 1), r1 = -omega / (zeta + root), r2 = -omega * (zeta + root);
        const c2 = (v0 - r1 * x0) / (r2 - r1), c1 = x0 - c2, e1 = decay, e2 = Math.exp(r2 * dt);
        o[k] = springTarget[k] + c1 * e1 + c2 * e2;
        v[k] = r1 * c1 * e1 + (e2 > 0 ? r2 * c2 * e2 : 0);
      } else if (zeta < 1 - 1e-4) {
        // Underdamped: decaying oscillation at ωd.
        const a = zeta * omega, wd = omega * Math.sqrt(1 - zeta * zeta), c = Math.cos(wd * dt), s = Math.sin(wd * dt);
        const b = (v0 + a * x0) / wd;
        o[k] = springTarget[k] + decay * (x0 * c + b * s);
        v[k] = decay * (v0 * c - (a * b + x0 * wd) * s);
      } else {
        // Critically damped.
        const j1 = v0 + x0 * omega;
        o[k] = springTarget[k] + decay * (x0 + j1 * dt);
        v[k] = decay * (v0 - j1 * omega * dt);
      }
    }
  }

  /**
   * Steps 4 and 5 for leg i, in place on its chain `positions` ([thigh, calf, foot] xyz, 9) and
   * `rotations` (xyzw, 12) in component space, as they are once the pelvis has moved to
   * warpedPelvis (the caller moves it: the job does not know the bones between pelvis and thigh).
   * Uses the outputs of the last run(); the foot keeps the rotation it has on entry. Treats the
   * chain as rigid below the thigh (calf and foot turn with it), as a pose whose calf is the thigh's
   * child does; the node instead reads the chain back from its pose after turning the thigh.
   */
  solveLeg(i: number, positions: Float64Array, rotations: Float64Array): void {
    for (let k = 0; k < 3; k++) {
      hip[k] = positions[k];
      target[k] = this.footTargets[i * 3 + k];
      pole[k] = this.kneePoles[i * 3 + k];
      foot[k] = positions[6 + k];
    }
    for (let k = 0; k < 4; k++) footRotation[k] = rotations[8 + k];
    if (this.correctThighs && thighCorrection(correction, hip, foot, target, this.floorNormal)) {
      for (let b = 0; b < 3; b++) {
        if (b > 0) {
          for (let k = 0; k < 3; k++) offset[k] = positions[b * 3 + k] - hip[k];
          quatRotateVec3(offset, 0, correction, 0, offset, 0);
          for (let k = 0; k < 3; k++) positions[b * 3 + k] = hip[k] + offset[k];
        }
        quatMultiply(rotations, b * 4, correction, 0, rotations, b * 4);
      }
      // The knee's bend direction turns with the thigh.
      quatRotateVec3(pole, 0, correction, 0, pole, 0);
    }
    if (this.clampLegLength) clampToReach(target, hip, this.legReach, i);
    if (this.solveIk) {
      for (let k = 0; k < 4; k++) rotations[8 + k] = footRotation[k];
      solveStrideLegIK(positions, rotations, target, pole);
    }
  }

  /** Lowers warpedPelvis along gravity until every planted warped foot is within its FK distance. */
  private reachPlantedFeet(): void {
    const warped = this.footTargets, legs = this.legCount, p = this.warpedPelvis, g = this.gravityDirection;
    let drop = 0;
    for (let i = 0; i < legs; i++) {
      if (this.planted[i] === 0) continue;
      const ex = p[0] - warped[i * 3], ey = p[1] - warped[i * 3 + 1], ez = p[2] - warped[i * 3 + 2];
      const eg = ex * g[0] + ey * g[1] + ez * g[2];
      const excess = ex * ex + ey * ey + ez * ez - this.pelvisReach[i] * this.pelvisReach[i];
      if (excess <= 0) continue;
      const disc = eg * eg - excess;
      // The first point on the way down at which the foot is in reach (or the closest one).
      const t = disc >= 0 ? -eg - Math.sqrt(disc) : -eg;
      if (t > drop) drop = t;
    }
    for (let k = 0; k < 3; k++) p[k] += drop * g[k];
  }

  /**
   * Leg i's knee bend direction for the IK into kneePoles (component space, perpendicular to the FK
   * hip-foot line), from the FK leg in hip, knee, foot and thighRotations. A bent FK knee gives
   * it: its offset from the hip-foot line, so the warped knee stays in the FK leg's plane, and the
   * direction, in the thigh's frame, is learned. A (nearly) straight FK knee has no plane of its
   * own, and its offset, a few millimetres either way, would flip the knee backward or swing it
   * sideways once the warp makes the leg bend: it takes the learned direction, turned with the
   * thigh, as does a knee bent the other way (hyperextended), so the bend never inverts. Before any
   * bent knee has been seen, the stride direction (tangent to the floor) stands in for it (knees
   * point the way a character walks), and a knee bent a little (KNEE_STRAIGHT to KNEE_BENT) keeps
   * its own side where that agrees with it.
   */
  private kneePole(i: number): void {
    const poles = this.kneePoles, o = i * 3;
    const leg = this.state.legs[i], axis = leg.kneeAxis;
    const line = tmp, bend = tmp2, learnedPole = tmp3;
    for (let k = 0; k < 4; k++) thighRotation[k] = this.thighRotations[i * 4 + k];
    // Unit hip-foot line, and the knee's offset from it.
    for (let k = 0; k < 3; k++) { line[k] = foot[k] - hip[k]; bend[k] = knee[k] - hip[k]; }
    const thighLength = Math.sqrt(bend[0] * bend[0] + bend[1] * bend[1] + bend[2] * bend[2]);
    if (!normalize3(line)) { poles[o] = 0; poles[o + 1] = 0; poles[o + 2] = 0; return; }
    const kl = bend[0] * line[0] + bend[1] * line[1] + bend[2] * line[2];
    for (let k = 0; k < 3; k++) bend[k] -= kl * line[k];
    const bent = Math.sqrt(bend[0] * bend[0] + bend[1] * bend[1] + bend[2] * bend[2]);
    const learned = leg.kneeLearned;
    // The learned direction, in component space.
    if (learned) quatRotateVec3(learnedPole, 0, thighRotation, 0, axis, 0);
    else for (let k = 0; k < 3; k++) learnedPole[k] = direction[k];
    const agrees = bend[0] * learnedPole[0] + bend[1] * learnedPole[1] + bend[2] * learnedPole[2] >= 0;
    if (bent > KNEE_BENT * thighLength && (agrees || !learned)) {
      for (let k = 0; k < 3; k++) poles[o + k] = bend[k] / bent;
      // Learn it in the thigh's frame: inverse(thigh rotation) applied to the pole.
      thighRotation[0] = -thighRotation[0]; thighRotation[1] = -thighRotation[1]; thighRotation[2] = -thighRotation[2];
      quatRotateVec3(axis, 0, thighRotation, 0, poles, o);
      leg.kneeLearned = true;
      return;
    }
    if (!learned && bent > KNEE_STRAIGHT * thighLength && agrees) {
      // Slightly bent, nothing learned: the FK side, which agrees with the direction of travel.
      for (let k = 0; k < 3; k++) poles[o + k] = bend[k] / bent;
      return;
    }
    // The learned (or stand-in) direction, made perpendicular to the hip-foot line.
    const kd = learnedPole[0] * line[0] + learnedPole[1] * line[1] + learnedPole[2] * line[2];
    for (let k = 0; k < 3; k++) poles[o + k] = learnedPole[k] - kd * line[k];
    if (!normalize3At(poles, o)) { poles[o] = 0; poles[o + 1] = 0; poles[o + 2] = 0; }
  }
}

/**
 * Step 4: into `out` (a quaternion), the smallest rotation turning the leg's direction from the
 * thigh to `foot` into its direction from the thigh to `target`, a half turn (never for a leg
 * within one frame) being about `halfTurnAxis` (the floor normal). False (out unchanged) when
 * either direction is degenerate (within 1e-9 of the thigh).
 */
export function thighCorrection(out: Floats, thigh: Floats, foot: Floats, target: Floats, halfTurnAxis: Floats): boolean {
  for (let k = 0; k < 3; k++) {
    legFrom[k] = foot[k] - thigh[k];
    legTo[k] = target[k] - thigh[k];
  }
  if (!normalize3(legFrom) || !normalize3(legTo)) return false;
  quatFromTo(out, 0, legFrom, 0, legTo, 0, halfTurnAxis, 0);
  return true;
}

/** Step 5's clamp: moves `target` (in place) to `reach[leg]` from `thigh` when it is further away. */
export function clampToReach(target: Floats, thigh: Floats, legReach: Floats, leg: number): void {
  const reach = legReach[leg];
  const dx = target[0] - thigh[0], dy = target[1] - thigh[1], dz = target[2] - thigh[2];
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (len > reach && len > 1e-9) {
    const k = reach / len;
    target[0] = thigh[0] + dx * k; target[1] = thigh[1] + dy * k; target[2] = thigh[2] + dz * k;
  }
}

/**
 * Step 5's IK, in place on a leg chain ([thigh, calf, foot] positions, 9, and rotations, 12), the
 * foot keeping its rotation and the knee bending toward `pole` (zero: the chain's own bend).
 */
export function solveStrideLegIK(positions: Float64Array, rotations: Float64Array, target: Floats, pole: Floats): void {
  ikOptions[IK_HINT] = pole[0]; ikOptions[IK_HINT + 1] = pole[1]; ikOptions[IK_HINT + 2] = pole[2];
  solveTwoBoneIK(positions, rotations, positions, rotations, target, 0, ikOptions);
}

const ikOptions = twoBoneIKOptions({ keepEndRotation: true });

// Scratch, at module scope so that nothing allocates (jobs never run concurrently).
const direction = new Float64Array(3); // the stride direction made tangent to the floor, unit
const hip = new Float64Array(3), knee = new Float64Array(3), foot = new Float64Array(3); // a leg's chain
const thighRotation = new Float64Array(4);
const planeOrigin = new Float64Array(3);
const sum = new Float64Array(3), previous = new Float64Array(3), springTarget = new Float64Array(3); // step 3
const tmp = new Float64Array(3), tmp2 = new Float64Array(3), tmp3 = new Float64Array(3);
const target = new Float64Array(3), pole = new Float64Array(3), offset = new Float64Array(3);
const footRotation = new Float64Array(4), correction = new Float64Array(4);
const legFrom = new Float64Array(3), legTo = new Float64Array(3);

// Helpers pass no doubles as arguments or results (offsets into arrays instead): see CONTRIBUTING.md, "Numbers in the frame loop".

/** Normalises a 3-vector in place; false (and unchanged) when its length is 1e-9 or less. */
export function normalize3(a: Floats): boolean {
  return normalize3At(a, 0);
}

function normalize3At(a: Floats, o: number): boolean {
  const len = Math.sqrt(a[o] * a[o] + a[o + 1] * a[o + 1] + a[o + 2] * a[o + 2]);
  if (!(len > 1e-9)) return false;
  a[o] /= len; a[o + 1] /= len; a[o + 2] /= len;
  return true;
}

function allFinite(a: Floats, count: number): boolean {
  for (let i = 0; i < count; i++) if (!Number.isFinite(a[i])) return false;
  return true;
}

function isUnit(a: Floats): boolean {
  return Math.abs(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] - 1) <= UNIT_TOLERANCE;
}
