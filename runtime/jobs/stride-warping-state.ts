/**
 * What a stride warp (StrideWarpingJob) carries from frame to frame for one character, and the
 * layout of its numbers: one block of doubles (an array of its own, or part of an instance's
 * per-frame numbers) that the job reads and writes only through the named views below.
 */

/**
 * StrideWarpingState's numbers, by index from its base: the pelvis spring's offset (3), velocity (3)
 * and whether it has started (1 or 0), then per leg (LEG_NUMBERS from LEGS + leg × LEG_NUMBERS) the
 * lowest FK foot height recently seen, whether there is one, the learned knee axis (3) and whether
 * it is learned.
 */
const SPRING_OFFSET = 0, SPRING_VELOCITY = 3, SPRING_STARTED = 6, LEGS = 7;
const LOWEST_HEIGHT = 0, HAS_LOWEST = 1, KNEE_AXIS = 2, KNEE_LEARNED = 5, LEG_NUMBERS = 6;

/** What one leg carries from frame to frame: a view of its StrideWarpingState's numbers from `at`. */
export class StrideLegState {
  /** The knee's bend direction in the thigh's local frame, learned from a bent FK knee, once `kneeLearned`. */
  readonly kneeAxis: Float64Array;

  /** Made by StrideWarpingState, over its numbers from `at` (LEG_NUMBERS of them). */
  constructor(private readonly numbers: Float64Array, private readonly at: number) {
    this.kneeAxis = numbers.subarray(at + KNEE_AXIS, at + KNEE_AXIS + 3);
  }

  /** The lowest FK foot height (along the floor normal) recently seen, once `hasLowest`. */
  get lowestHeight(): number { return this.numbers[this.at + LOWEST_HEIGHT]; }
  set lowestHeight(value: number) { this.numbers[this.at + LOWEST_HEIGHT] = value; }
  get hasLowest(): boolean { return this.numbers[this.at + HAS_LOWEST] !== 0; }
  set hasLowest(value: boolean) { this.numbers[this.at + HAS_LOWEST] = value ? 1 : 0; }
  get kneeLearned(): boolean { return this.numbers[this.at + KNEE_LEARNED] !== 0; }
  set kneeLearned(value: boolean) { this.numbers[this.at + KNEE_LEARNED] = value ? 1 : 0; }
}

/** The pelvis adjustment spring: its offset from the FK pelvis and its velocity, once `started`. A view of its StrideWarpingState's numbers. */
export class PelvisSpring {
  readonly offset: Float64Array;
  readonly velocity: Float64Array;

  /** Made by StrideWarpingState, over its numbers from `base`. */
  constructor(private readonly numbers: Float64Array, private readonly base: number) {
    this.offset = numbers.subarray(base + SPRING_OFFSET, base + SPRING_OFFSET + 3);
    this.velocity = numbers.subarray(base + SPRING_VELOCITY, base + SPRING_VELOCITY + 3);
  }

  get started(): boolean { return this.numbers[this.base + SPRING_STARTED] !== 0; }
  set started(value: boolean) { this.numbers[this.base + SPRING_STARTED] = value ? 1 : 0; }
}

/**
 * What a stride warp carries from frame to frame, for one character: the caller owns it. Its
 * numbers are one block (an array of its own, or, after useNumbers, part of another such as an
 * instance's per-frame numbers), which `spring` and `legs` view by name.
 */
export class StrideWarpingState {
  /** The block, and where in it the state starts. */
  numbers: Float64Array;
  base = 0;
  spring: PelvisSpring;
  legs: readonly StrideLegState[];

  constructor(legCount: number) {
    this.numbers = new Float64Array(StrideWarpingState.numberCount(legCount));
    this.spring = new PelvisSpring(this.numbers, 0);
    this.legs = Array.from({ length: legCount }, (_, i) => new StrideLegState(this.numbers, LEGS + i * LEG_NUMBERS));
  }

  /** How many numbers the state of `legCount` legs keeps (for useNumbers). */
  static numberCount(legCount: number): number {
    return LEGS + legCount * LEG_NUMBERS;
  }

  /**
   * Keeps the state's numbers in `numbers` from `base` on (numberCount of them), carrying over
   * their values; `spring` and `legs` are made again to view them there.
   */
  useNumbers(numbers: Float64Array, base: number): void {
    if (numbers === this.numbers && base === this.base) return;
    const count = StrideWarpingState.numberCount(this.legs.length);
    numbers.set(this.numbers.subarray(this.base, this.base + count), base);
    this.numbers = numbers;
    this.base = base;
    this.spring = new PelvisSpring(numbers, base);
    this.legs = this.legs.map((_, i) => new StrideLegState(numbers, base + LEGS + i * LEG_NUMBERS));
  }

  /** Starts the pelvis spring and the planted-foot tracking afresh (after a pause); learned knees stay. */
  restart(): void {
    const spring = this.spring;
    spring.offset.fill(0);
    spring.velocity.fill(0);
    spring.started = false;
    for (let i = 0; i < this.legs.length; i++) {
      const leg = this.legs[i];
      leg.lowestHeight = 0;
      leg.hasLowest = false;
    }
  }

  /** Forgets everything, learned knees too. */
  reset(): void {
    this.numbers.fill(0, this.base, this.base + StrideWarpingState.numberCount(this.legs.length));
  }
}
