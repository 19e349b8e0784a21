import type { ClipBinding } from '../runtime/core/clip.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { CLIP_LOOPED, CLOCK_NUMBERS, ClipPlayback, usePlaybackNumbers } from '../runtime/jobs/clip-playback.ts';
import { Crossfade } from '../runtime/jobs/crossfade.ts';
import { blendCurveSchema, LINEAR_BLEND, type BlendCurve } from '../runtime/core/blend-curve.ts';
import { checkBlendCurve, prepareBlendCurve } from '../runtime/jobs/blend-curve-property.ts';
import { InertialTransition, TRANSITION_INTERRUPTED, TRANSITION_STARTED } from '../runtime/jobs/inertial-transition.ts';
import {
  LocalPoseNode, NO_LINKS, ZERO_WEIGHT, readFlag, readScalar,
  type DebugNode, type Link, type NodeType, type ScalarProperty, type UpdateContext,
} from '../runtime/node/node.ts';
import { poseAccumulate, poseNormalizeRotations, poseScaleInto, type Pose } from '../runtime/core/pose.ts';
import {
  FEATURE_CHANNELS, PoseFeatureExtractor, PoseSearchDatabase, PoseSearchQuery, PoseSearchResult, checkFeatures, poseFeaturesSchema, preparePoseSearch,
} from '../runtime/jobs/pose-search/index.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';

export type { PoseSearchShared } from '../runtime/jobs/pose-search/index.ts';

/** Poses a crossfade can hold at once (a switch mid-blend adds one; beyond this the oldest is dropped). */
const MAX_SLOTS = 4;
/** The runner-up shown in debug is the best frame at least this far (in clip time) from the chosen one. */
const RUNNER_UP_GAP_SECONDS = 0.2;
const CHANNEL_LABELS = ['rot', 'pos', 'vel'];
const VELOCITIES = 2;

/**
 * Plays one of a list of clips, chosen by `motion`, and on a switch starts the new clip at the frame
 * whose pose best matches the pose this node has been outputting (with Unreal PoseSearch's
 * features and cost), then blends: a crossfade that keeps the old clip playing, or an
 * inertialization of the difference. See runtime/jobs/pose-search/features.ts for the features and the cost.
 *
 * The query is built from the node's own last two output poses (positions from the last, velocities
 * from the two) with the same extraction as the database; frames of a non-looping clip too close to
 * its end to finish the blend are left out. Without a pose history (a switch before anything was
 * evaluated) the clip starts at 0. A `motion` that is not a clip index keeps the clip playing (clip
 * 0 on the first frame): no search for a clip the asset does not name, only the debug line and a
 * `motionOutOfRange` event.
 */
export class PoseSearchBlend extends LocalPoseNode {
  private readonly dbClip: Int32Array;
  /** The clips playing, oldest first: the last is the one blended to (only the first in inertial mode). */
  private readonly slots: ClipPlayback[];
  /** The slots' playbacks in a fixed order (`slots` reorders them): where each keeps its clock in the instance's numbers. */
  private readonly clocks: readonly ClipPlayback[];
  private readonly slotMotion = new Int32Array(MAX_SLOTS);
  private slotCount = 0;
  private readonly fade = new Crossfade(MAX_SLOTS);
  private readonly weights = this.fade.weights;
  private activeMotion = -1;
  private readonly inertial: boolean;
  /** Owns the poses output (the search's query) and, in inertial mode, the transition. */
  private readonly transition: InertialTransition;
  /** Blend time of the last switch (both modes). */
  private switchBlendTime = 0;
  /** Start time the last switch's search found. */
  private startTime = 0;
  private readonly extractor: PoseFeatureExtractor;
  private readonly raw: Float64Array;
  private readonly query: PoseSearchQuery;
  private readonly best = new PoseSearchResult();
  private readonly runnerUp = new PoseSearchResult();
  /** Whether runnerUp is still to be searched for the last search (see lastRunnerUp). */
  private runnerUpPending = false;
  /** 0: no switch yet; 1: the last switch searched; 2: it had no pose history to search with. */
  private searchState = 0;
  private readonly gapFrames: number;
  /** The last `motion` read, truncated (what debug reports), and whether it was outside the clips. */
  private requestedMotion = 0;
  private outOfRange = false;

  constructor(
    id: string,
    /** The clip names of `clips`, in motion order. */
    readonly clipNames: readonly string[],
    private readonly bindings: readonly ClipBinding[],
    readonly database: PoseSearchDatabase,
    private readonly motion: ScalarProperty,
    private readonly blendTime: ScalarProperty,
    private readonly loop: ScalarProperty,
    blendMode: string,
    boneCount: number,
    /** Where the inertial transition's numbers go in the instance's per-frame numbers (NodeBuild.numbers), -1: its own. */
    transitionNumbers = -1,
    /** Where the slots' clip clocks go in the instance's per-frame numbers (MAX_SLOTS of them), -1: their own. */
    private readonly clockNumbers = -1,
    /** The curve a crossfaded switch follows. */
    blendCurve: BlendCurve = LINEAR_BLEND,
  ) {
    super(id, 'PoseSearchBlend');
    this.fade.curve = blendCurve;
    this.dbClip = Int32Array.from(clipNames, (name) => database.clipNames.indexOf(name));
    if (this.dbClip.includes(-1) || clipNames.length !== bindings.length) throw new AnimGraphError('invalid-data', `PoseSearchBlend '${id}': the database does not index every clip of the node`);
    this.inertial = blendMode === 'inertial';
    this.slots = Array.from({ length: MAX_SLOTS }, () => new ClipPlayback(bindings[0]));
    for (const slot of this.slots) slot.owner = id;
    this.clocks = [...this.slots];
    this.transition = new InertialTransition(boneCount, transitionNumbers);
    this.extractor = new PoseFeatureExtractor(database.schema);
    this.raw = new Float64Array(database.dims);
    this.query = new PoseSearchQuery(database);
    this.gapFrames = Math.max(1, Math.round(RUNNER_UP_GAP_SECONDS * database.schema.sampleRate));
  }

  protected get links(): readonly Link[] {
    return NO_LINKS;
  }

  /** The clip playing (the one blended to), or null before the first update. */
  get activeClip(): ClipBinding | null {
    return this.slotCount > 0 ? this.slots[this.slotCount - 1].binding : null;
  }

  /** Play time of the active clip in seconds. */
  get time(): number {
    return this.slotCount > 0 ? this.slots[this.slotCount - 1].time : 0;
  }

  /** The last switch's search: the chosen frame (frame -1 before any search). */
  get lastMatch(): PoseSearchResult {
    return this.best;
  }

  /** The last switch's runner-up: the best frame at least 0.2 s from the chosen one. */
  get lastRunnerUp(): PoseSearchResult {
    if (this.runnerUpPending) {
      // Searched when first asked for (debug output, tools), not at every switch: it costs a
      // second search, and the frame loop never reads it.
      this.runnerUpPending = false;
      this.database.searchRunnerUp(this.query, this.best, this.runnerUp, this.gapFrames, 'auto');
    }
    return this.runnerUp;
  }

  protected override onInitialize(): void {
    this.slotCount = 0;
    this.activeMotion = -1;
    this.fade.reset();
    usePlaybackNumbers(this.clocks, this.graph.frameNumbers, this.clockNumbers);
    this.transition.useNumbers(this.graph.frameNumbers);
    this.transition.reset();
    this.switchBlendTime = 0;
    this.startTime = 0;
    this.searchState = 0;
    this.best.frame = -1;
    this.runnerUp.frame = -1;
    this.runnerUpPending = false;
    this.requestedMotion = 0;
    this.outOfRange = false;
  }

  /** Poses recorded before a stretch without updates are not what the graph output since: forget them. */
  protected override onBecomeRelevant(): void {
    this.transition.history.clear();
  }

  protected onUpdate(ctx: UpdateContext): void {
    const values = this.graph.parameterValues;
    const n = this.bindings.length;
    const r = Math.trunc(readScalar(values, this.motion));
    // `| 0` keeps the index a small integer: see CONTRIBUTING.md, "Numbers in the frame loop"
    let m = 0;
    if (r >= 0 && r < n) {
      m = r | 0;
      this.requestedMotion = m;
      this.outOfRange = false;
    } else {
      // Not a clip (NaN included): keep what plays rather than guess a clip, and say so once per
      // value. Before anything played there is nothing to keep: clip 0.
      m = this.activeMotion < 0 ? 0 : this.activeMotion;
      const previous = this.requestedMotion;
      const changed = !this.outOfRange || (r !== previous && (r === r || previous === previous));
      this.requestedMotion = r;
      this.outOfRange = true;
      if (changed && this.graph.events.has('motionOutOfRange')) this.graph.events.emit('motionOutOfRange', this.id, r, n);
    }
    const looping = readFlag(values, this.loop);
    const t = this.transition;
    if (this.activeMotion < 0) {
      this.slotCount = 1;
      this.startTime = 0;
      this.startSlot(0, m);
      this.fade.jumpTo(0);
      this.fade.elapsed = 0;
      t.update(ctx);
    } else if (m !== this.activeMotion) {
      this.switchTo(ctx, m, looping);
    } else if (t.update(ctx)) this.inertialEnded(false);
    this.activeMotion = m;
    if (!this.inertial) this.updateWeights(ctx);
    for (let i = 0; i < this.slotCount; i++) this.advance(ctx, i, looping);
  }

  /** Puts motion m in slot i, starting at startTime. */
  private startSlot(i: number, m: number): void {
    const slot = this.slots[i];
    this.slotMotion[i] = m;
    slot.binding = this.bindings[m];
    slot.time = this.startTime;
    slot.restart();
  }

  private switchTo(ctx: UpdateContext, m: number, looping: boolean): void {
    // Read inline and written apart: see CONTRIBUTING.md, "Numbers in the frame loop".
    const bt = this.blendTime;
    if (bt.slot >= 0) this.switchBlendTime = this.graph.parameterValues[bt.slot];
    else this.switchBlendTime = bt.constant;
    const blendTime = this.switchBlendTime;
    if (!(blendTime > 0 && blendTime < Infinity)) this.switchBlendTime = 0;
    this.search(m, looping);
    if (this.inertial) {
      this.slotCount = 1;
      this.startSlot(0, m);
      this.weights[0] = 1;
      this.transition.duration = this.switchBlendTime;
      this.transition.update(ctx, true);
      return;
    }
    // Crossfading: no transition runs, this records the delta time for the pose history.
    this.transition.update(ctx);
    if (this.slotCount === MAX_SLOTS) {
      // Drop the oldest pose; the weights are renormalised below.
      const oldest = this.slots[0];
      for (let i = 1; i < MAX_SLOTS; i++) {
        this.slots[i - 1] = this.slots[i];
        this.slotMotion[i - 1] = this.slotMotion[i];
        this.weights[i - 1] = this.weights[i];
      }
      this.slots[MAX_SLOTS - 1] = oldest;
      this.slotCount--;
    }
    const s = this.slotCount++;
    this.startSlot(s, m);
    this.weights[s] = 0;
    this.fade.count = this.slotCount;
    this.fade.duration = this.switchBlendTime;
    this.fade.fadeTo(s);
  }

  /** Finds the start time of motion m for the last output pose (blend time in switchBlendTime), into startTime. */
  private search(m: number, looping: boolean): void {
    const db = this.database, h = this.transition.history, clip = this.dbClip[m];
    this.startTime = 0;
    if (h.count === 0) {
      this.searchState = 2;
      this.best.frame = -1;
      this.runnerUp.frame = -1;
      this.runnerUpPending = false;
      return;
    }
    const measured = this.extractor.extractBy(this.raw, 0, h.previous, h.count > 1 ? h.older : null, h.deltaTimes);
    const q = this.query;
    db.scaleQuery(this.raw, q);
    q.channels[VELOCITIES] = measured ? 1 : 0;
    // A non-looping clip must have blendTime left after the start to finish the blend.
    // (Small integers throughout: `| 0`, and a bound below 2^30.)
    let last = 0x3fffffff;
    if (!looping) {
      const end = Math.floor((db.clipDurations[clip] - this.switchBlendTime) * db.schema.sampleRate + 1e-9);
      last = end > 0 ? Math.min(end, 0x3fffffff) | 0 : 0;
    }
    q.allowOnly(clip, last);
    db.search(q, this.best, 'auto');
    this.runnerUpPending = true;
    this.searchState = 1;
    // The match is for the last pose output; this frame's advance carries the clip on from there.
    if (this.best.frame >= 0) this.startTime = db.frameTime[this.best.frame];
  }

  private updateWeights(ctx: UpdateContext): void {
    const fade = this.fade, count = this.slotCount;
    fade.count = count;
    if (!fade.advance(ctx)) return;
    if (count > 1) {
      // The fade is over: the clip faded to is the only one left.
      const last = count - 1, done = this.slots[0];
      this.slots[0] = this.slots[last];
      this.slots[last] = done;
      this.slotMotion[0] = this.slotMotion[last];
      this.slotCount = 1;
    }
    fade.jumpTo(0);
  }

  /** Advances slot i's clip time by this frame's delta time and adds its root motion by weight. */
  private advance(ctx: UpdateContext, i: number, looping: boolean): void {
    const slot = this.slots[i];
    slot.looping = looping;
    const flags = slot.advance(ctx);
    if (flags !== 0 && i === this.slotCount - 1) {
      const events = this.graph.events, event = flags === CLIP_LOOPED ? 'sequenceLooped' : 'sequenceEnded';
      if (events.has(event)) events.emit(event, this.id, slot.binding.clip.name, slot.time);
    }
    const w = this.weights[i];
    if (!(w > ZERO_WEIGHT)) return;
    slot.weight = w;
    slot.reportRootMotion(ctx);
  }

  protected onEvaluate(out: Pose): void {
    if (this.inertial) {
      this.sampleSlot(out, 0);
      // As InertialBlend: the switch frame is time 0 of the transition (it repeats the last pose).
      const flags = this.transition.evaluate(out);
      if ((flags & TRANSITION_INTERRUPTED) !== 0) this.inertialEnded(true);
      if ((flags & TRANSITION_STARTED) !== 0 && this.graph.events.has('inertializationStarted')) {
        this.graph.events.emit('inertializationStarted', this.id, this.transition.startedDuration);
      }
      return;
    }
    const pool = this.graph.posePool;
    let first = true;
    let scratch: Pose | null = null;
    for (let i = 0; i < this.slotCount; i++) {
      const w = this.weights[i];
      if (w <= ZERO_WEIGHT) continue;
      if (first) {
        this.sampleSlot(out, i);
        if (w < 1) poseScaleInto(out, out, this.weights, i);
        first = false;
        continue;
      }
      scratch ??= pool.acquire();
      this.sampleSlot(scratch, i);
      poseAccumulate(out, scratch, this.weights, i);
    }
    if (scratch !== null) {
      poseNormalizeRotations(out);
      pool.release(scratch);
    }
    this.transition.record(out);
  }

  /** Samples slot i's clip at its time into `out`. */
  private sampleSlot(out: Pose, i: number): void {
    this.slots[i].sample(out);
  }

  private inertialEnded(interrupted: boolean): void {
    if (!this.graph.events.has('inertializationEnded')) return;
    const t = this.transition;
    this.graph.events.emit('inertializationEnded', this.id, interrupted ? t.interruptedDuration : t.startedDuration, interrupted);
  }

  /** True while a crossfade or an inertialization is running. */
  get blending(): boolean {
    return this.inertial ? this.transition.active || this.transition.pending : this.slotCount > 1;
  }

  protected override debugDescription(): string {
    const clip = this.activeClip;
    if (clip === null) return 'not started';
    let text = `'${this.clipNames[this.slotMotion[this.slotCount - 1]]}' Time: ${this.time.toFixed(3)}`;
    if (this.blending) {
      const i = this.transition.inertializer;
      const elapsed = this.inertial ? i.elapsed : this.fade.elapsed;
      const duration = this.inertial ? (this.transition.pending ? this.switchBlendTime : i.duration) : this.fade.duration;
      text += ` ${this.inertial ? 'Inertial' : 'Blend'}: ${Math.min(elapsed, duration).toFixed(3)} / ${duration.toFixed(3)}`;
    }
    if (this.searchState === 2) text += ' Match: none (no pose history)';
    else if (this.searchState === 1 && this.best.frame >= 0) {
      const b = this.best, r = this.lastRunnerUp, s = this.database.schema;
      const shares = FEATURE_CHANNELS.map((_, c) => c)
        .filter((c) => s.channelDims(c) > 0)
        .map((c) => (this.query.channels[c] === 1 ? `${CHANNEL_LABELS[c]} ${(b.share(c) * 100).toFixed(0)}%` : `${CHANNEL_LABELS[c]} off`));
      text += ` Match: frame ${b.localFrame} @ ${b.time.toFixed(3)} cost ${b.cost.toPrecision(4)} [${shares.join(' ')}]`;
      if (r.frame >= 0) text += ` runner-up: frame ${r.localFrame} @ ${r.time.toFixed(3)} cost ${r.cost.toPrecision(4)}`;
    }
    if (this.outOfRange) text += ` motion ${this.requestedMotion} out of range [0, ${this.bindings.length - 1}]`;
    return text;
  }

  protected override onGatherDebug(node: DebugNode): void {
    node.poseSource = true;
    const clip = this.activeClip;
    const values: NonNullable<DebugNode['values']> = {
      motion: this.activeMotion,
      requestedMotion: this.requestedMotion,
      motionOutOfRange: this.outOfRange,
      clip: clip ? this.clipNames[this.slotMotion[this.slotCount - 1]] : '',
      time: this.time,
      duration: clip?.clip.duration ?? 0,
      blending: this.blending,
      blendMode: this.inertial ? 'inertial' : 'crossfade',
      clips: Array.from({ length: this.slotCount }, (_, i) => this.slotMotion[i]),
      weights: Array.from(this.weights.subarray(0, this.slotCount)),
    };
    if (this.searchState === 1 && this.best.frame >= 0) {
      const b = this.best, r = this.lastRunnerUp;
      values.matchFrame = b.localFrame;
      values.matchTime = b.time;
      values.matchCost = b.cost;
      values.matchShares = [0, 1, 2].map((c) => b.share(c));
      values.velocityMatched = this.query.channels[VELOCITIES] === 1;
      values.framesScored = b.scored;
      values.runnerUpFrame = r.frame >= 0 ? r.localFrame : -1;
      values.runnerUpTime = r.frame >= 0 ? r.time : 0;
      values.runnerUpCost = r.frame >= 0 ? r.cost : 0;
    }
    node.values = values;
  }
}

// ---------------------------------------------------------------------------------------------
// The node type: asset properties, and the database built once per graph (runtime/jobs/pose-search/node-data.ts).

export const PoseSearchBlendType: NodeType = defineBuiltInNodeType({
  type: 'PoseSearchBlend',
  space: 'local',
  properties: {
    clips: { kind: 'clipList', minCount: 1 },
    motion: { kind: 'int', default: 0, min: 0 },
    blendTime: { kind: 'float', default: 0.2, min: 0 },
    blendMode: { kind: 'enum', options: ['crossfade', 'inertial'], default: 'crossfade' },
    blendCurve: { kind: 'object', schema: blendCurveSchema },
    loop: { kind: 'bool', default: true },
    features: { kind: 'object', schema: poseFeaturesSchema },
    database: { kind: 'file' },
  },
  inputs: [],
  check: (ctx) => {
    checkFeatures(ctx.rawProperties.features, ctx.skeleton, ctx.report);
    checkBlendCurve(ctx.rawProperties.blendCurve, ['blendCurve'], ctx);
  },
  prepare: (ctx) => {
    const search = preparePoseSearch(ctx, ctx.properties.clips, ctx.properties.features, ctx.properties.database);
    return search && { ...search, blendCurve: prepareBlendCurve(ctx.properties.blendCurve, ['blendCurve'], ctx) };
  },
  create: ({ id, properties: p, shared, boneCount, numbers }) => {
    if (!shared) throw new AnimGraphError('invalid-data', `PoseSearchBlend '${id}': no database (the node type's prepare did not run)`);
    // Only an inertial blend applies offsets; a crossfading one keeps the (unused) inertializer's numbers to itself.
    const transitionNumbers = p.blendMode === 'inertial' ? numbers(InertialTransition.numberCount(boneCount)) : -1;
    return new PoseSearchBlend(
      id, p.clips.map((c) => c.name), p.clips.map((c) => c.binding), shared.database, p.motion, p.blendTime, p.loop, p.blendMode, boneCount,
      transitionNumbers, numbers(MAX_SLOTS * CLOCK_NUMBERS), shared.blendCurve,
    );
  },
});
