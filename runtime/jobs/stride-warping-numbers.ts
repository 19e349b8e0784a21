import type { ScalarProperty } from '../node/node.ts';

/** The StrideWarping properties read every frame (into StrideWarpingNumbers), each a literal or a bound parameter. */
export const SETTING_NAMES = [
  'strideScale', 'locomotionSpeed', 'minRootMotionSpeed', 'rootMotionWindow', 'rootMotionSmoothingTime',
  'minScale', 'maxScale', 'scaleSmoothingTime', 'pelvisStiffness', 'pelvisDamping', 'pelvisMass', 'pelvisMaxSpeed', 'pelvisAlpha',
] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

// Numbers kept across calls live in classes with initialised fields: an object literal shares its
// hidden class with every literal of the same leading keys (an asset's `{ strideScale: { param } }`
// too), and a field that has held a non-number boxes the doubles stored in it. See CONTRIBUTING.md,
// "Numbers in the frame loop".

/**
 * Where a setting comes from: a parameter's slot, or -1 and the literal, copied out of its
 * ScalarProperty so that the literal sits in a number field of its own and merges with a
 * parameter's value unboxed.
 */
export class SettingBinding {
  // Initialised: a field declared bare starts as undefined (see above).
  readonly slot: number = -1;
  readonly literal: number = 0;
  constructor(property: ScalarProperty) {
    this.slot = property.slot;
    this.literal = property.constant;
  }
}

export type SettingBindings = Readonly<Record<SettingName, SettingBinding>>;

/** Each setting's binding, from the node's properties. */
export function settingBindings(properties: Readonly<Record<SettingName, ScalarProperty>>): SettingBindings {
  return Object.fromEntries(SETTING_NAMES.map((name) => [name, new SettingBinding(properties[name])])) as Record<SettingName, SettingBinding>;
}

/**
 * StrideWarpingNumbers' numbers, by index from its base: this frame's settings (in SETTING_NAMES'
 * order), then what the debug tree shows of the last warp: the warped pelvis (3), its offset (3),
 * and per leg its scale origin (3).
 */
const STRIDE_SCALE = 0, LOCOMOTION_SPEED = 1, MIN_ROOT_MOTION_SPEED = 2, ROOT_MOTION_WINDOW = 3, ROOT_MOTION_SMOOTHING_TIME = 4,
  MIN_SCALE = 5, MAX_SCALE = 6, SCALE_SMOOTHING_TIME = 7, PELVIS_STIFFNESS = 8, PELVIS_DAMPING = 9, PELVIS_MASS = 10,
  PELVIS_MAX_SPEED = 11, PELVIS_ALPHA = 12, WARPED_PELVIS = 13, PELVIS_OFFSET = 16, SCALE_ORIGINS = 19;

/**
 * A StrideWarping node's per-frame numbers, by name: this frame's settings, read from parameters
 * or literals at update (the pelvis's three are used at evaluate), and the last warp's results,
 * copied out of the solver that every instance shares. An array of its own, or, after useNumbers,
 * part of the instance's per-frame numbers, where they share cache lines with the character's
 * others (thirteen settings as fields were thirteen heap numbers).
 */
export class StrideWarpingNumbers {
  private numbers: Float64Array;
  /** Where the numbers start in `numbers`. */
  private base = 0;

  constructor(private readonly legs: number) {
    this.numbers = new Float64Array(StrideWarpingNumbers.numberCount(legs));
    this.numbers[STRIDE_SCALE] = 1;
  }

  /** How many numbers a StrideWarping of `legs` legs keeps. */
  static numberCount(legs: number): number {
    return SCALE_ORIGINS + legs * 3;
  }

  /**
   * Keeps the numbers in `numbers` from `base` on (a node's reservation in its instance's per-frame
   * numbers), carrying over their values.
   */
  useNumbers(numbers: Float64Array, base: number): void {
    if (numbers === this.numbers && base === this.base) return;
    numbers.set(this.numbers.subarray(this.base, this.base + StrideWarpingNumbers.numberCount(this.legs)), base);
    this.numbers = numbers;
    this.base = base;
  }

  get strideScale(): number { return this.numbers[this.base + STRIDE_SCALE]; }
  get locomotionSpeed(): number { return this.numbers[this.base + LOCOMOTION_SPEED]; }
  get minRootMotionSpeed(): number { return this.numbers[this.base + MIN_ROOT_MOTION_SPEED]; }
  get rootMotionWindow(): number { return this.numbers[this.base + ROOT_MOTION_WINDOW]; }
  get rootMotionSmoothingTime(): number { return this.numbers[this.base + ROOT_MOTION_SMOOTHING_TIME]; }
  get minScale(): number { return this.numbers[this.base + MIN_SCALE]; }
  get maxScale(): number { return this.numbers[this.base + MAX_SCALE]; }
  get scaleSmoothingTime(): number { return this.numbers[this.base + SCALE_SMOOTHING_TIME]; }
  get pelvisStiffness(): number { return this.numbers[this.base + PELVIS_STIFFNESS]; }
  get pelvisDamping(): number { return this.numbers[this.base + PELVIS_DAMPING]; }
  get pelvisMass(): number { return this.numbers[this.base + PELVIS_MASS]; }
  get pelvisMaxSpeed(): number { return this.numbers[this.base + PELVIS_MAX_SPEED]; }
  get pelvisAlpha(): number { return this.numbers[this.base + PELVIS_ALPHA]; }
  private set strideScale(value: number) { this.numbers[this.base + STRIDE_SCALE] = value; }
  private set locomotionSpeed(value: number) { this.numbers[this.base + LOCOMOTION_SPEED] = value; }
  private set minRootMotionSpeed(value: number) { this.numbers[this.base + MIN_ROOT_MOTION_SPEED] = value; }
  private set rootMotionWindow(value: number) { this.numbers[this.base + ROOT_MOTION_WINDOW] = value; }
  private set rootMotionSmoothingTime(value: number) { this.numbers[this.base + ROOT_MOTION_SMOOTHING_TIME] = value; }
  private set minScale(value: number) { this.numbers[this.base + MIN_SCALE] = value; }
  private set maxScale(value: number) { this.numbers[this.base + MAX_SCALE] = value; }
  private set scaleSmoothingTime(value: number) { this.numbers[this.base + SCALE_SMOOTHING_TIME] = value; }
  private set pelvisStiffness(value: number) { this.numbers[this.base + PELVIS_STIFFNESS] = value; }
  private set pelvisDamping(value: number) { this.numbers[this.base + PELVIS_DAMPING] = value; }
  private set pelvisMass(value: number) { this.numbers[this.base + PELVIS_MASS] = value; }
  private set pelvisMaxSpeed(value: number) { this.numbers[this.base + PELVIS_MAX_SPEED] = value; }
  private set pelvisAlpha(value: number) { this.numbers[this.base + PELVIS_ALPHA] = value; }

  /** This frame's settings from `values` (parameter values) by `from`, each bound value checked: a NaN or out-of-range parameter never reaches the warp. */
  read(values: Float64Array, from: SettingBindings): void {
    let b = from.strideScale;
    this.strideScale = b.slot >= 0 ? values[b.slot] : b.literal;
    this.locomotionSpeed = (b = from.locomotionSpeed).slot >= 0 ? values[b.slot] : b.literal;
    // Lengths of time, speeds and scales: a negative or NaN value is taken as 0.
    let x = (b = from.minRootMotionSpeed).slot >= 0 ? values[b.slot] : b.literal;
    this.minRootMotionSpeed = x >= 0 ? x : 0;
    x = (b = from.rootMotionWindow).slot >= 0 ? values[b.slot] : b.literal;
    this.rootMotionWindow = x >= 0 && x < Infinity ? x : 0;
    x = (b = from.rootMotionSmoothingTime).slot >= 0 ? values[b.slot] : b.literal;
    this.rootMotionSmoothingTime = x >= 0 ? x : 0;
    // Scales held to the properties' range, [0, 1e6]: feet warped by 1e307 reached ±Infinity and
    // made the pelvis and pose NaN (as TwoBoneIK holds its stretch).
    x = (b = from.minScale).slot >= 0 ? values[b.slot] : b.literal;
    const minScale = x >= 0 ? (x < 1e6 ? x : 1e6) : 0;
    this.minScale = minScale;
    x = (b = from.maxScale).slot >= 0 ? values[b.slot] : b.literal;
    this.maxScale = x >= minScale ? (x < 1e6 ? x : 1e6) : minScale;
    x = (b = from.scaleSmoothingTime).slot >= 0 ? values[b.slot] : b.literal;
    this.scaleSmoothingTime = x >= 0 ? x : 0;
    // The spring's constants: a negative or NaN stiffness or damping is taken as 0, damping and mass
    // are held to their properties' ranges (a NaN mass to the least), so the spring's frequency is never NaN.
    x = (b = from.pelvisStiffness).slot >= 0 ? values[b.slot] : b.literal;
    this.pelvisStiffness = x >= 0 ? x : 0;
    x = (b = from.pelvisDamping).slot >= 0 ? values[b.slot] : b.literal;
    this.pelvisDamping = x >= 0 ? (x < 1e6 ? x : 1e6) : 0;
    x = (b = from.pelvisMass).slot >= 0 ? values[b.slot] : b.literal;
    this.pelvisMass = x >= 1e-6 ? (x < 1e6 ? x : 1e6) : 1e-6;
    x = (b = from.pelvisMaxSpeed).slot >= 0 ? values[b.slot] : b.literal;
    this.pelvisMaxSpeed = x >= 0 ? x : 0;
    x = (b = from.pelvisAlpha).slot >= 0 ? values[b.slot] : b.literal;
    this.pelvisAlpha = x > 0 ? (x < 1 ? x : 1) : 0;
  }

  /** Keeps the last warp's results: the warped pelvis and its offset (3 each), and each leg's scale origin (3 a leg). */
  keepResults(warpedPelvis: Float64Array, pelvisOffset: Float64Array, scaleOrigins: Float64Array): void {
    const numbers = this.numbers, base = this.base;
    for (let k = 0; k < 3; k++) {
      numbers[base + WARPED_PELVIS + k] = warpedPelvis[k];
      numbers[base + PELVIS_OFFSET + k] = pelvisOffset[k];
    }
    for (let k = 0; k < this.legs * 3; k++) numbers[base + SCALE_ORIGINS + k] = scaleOrigins[k];
  }

  /** The last warp's pelvis, for the debug tree. */
  warpedPelvis(): number[] {
    return this.three(WARPED_PELVIS);
  }

  /** The last warp's pelvis offset, for the debug tree. */
  pelvisOffset(): number[] {
    return this.three(PELVIS_OFFSET);
  }

  /** Leg `leg`'s last scale origin, for the debug tree. */
  scaleOrigin(leg: number): number[] {
    return this.three(SCALE_ORIGINS + leg * 3);
  }

  private three(offset: number): number[] {
    const at = this.base + offset;
    return Array.from(this.numbers.subarray(at, at + 3));
  }
}
