import * as z from 'zod';
import { TRANSITION_PROFILE_MODES } from '../runtime/core/blend-profile.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { nameList, quoted } from '../runtime/core/names.ts';
import { blendCurveSchema, LINEAR_BLEND } from '../runtime/core/blend-curve.ts';
import { checkBlendCurve, prepareBlendCurve } from '../runtime/jobs/blend-curve-property.ts';
import { evaluatePerBoneInputs, evaluateWeightedInputs } from '../runtime/jobs/crossfade.ts';
import { TransitionStack } from '../runtime/jobs/state-machine-transitions.ts';
import {
  LocalPoseNode, type AnimNode, type DebugNode, type InitializeContext, type Link, type NodeCheckContext, type NodeType, type PoseLink,
  type SubGraphSource, type UpdateContext,
} from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import {
  compileStateMachine, DEFAULT_MAX_TRANSITIONS_PER_FRAME, DEFAULT_TRANSITION_DURATION, machineSizeProblem, MAX_STATES, MAX_TRANSITIONS,
  type State, type StateMachineTable, type Transition,
} from '../runtime/jobs/state-machine-table.ts';
import { checkRule, MAX_RULE_DEPTH, ruleDepth, testRule, type RuleJson } from '../runtime/jobs/transition-rules.ts';
import { defineBuiltInNodeType } from '../runtime/node/node-type.ts';
import { SequencePlayer } from './SequencePlayer.ts';
import { lazy } from '../runtime/core/lazy.ts';

export { COMPARISONS, MAX_RULE_DEPTH, ruleDepth, type Comparison, type RuleJson } from '../runtime/jobs/transition-rules.ts';
export {
  compileStateMachine, DEFAULT_MAX_TRANSITIONS_PER_FRAME, DEFAULT_TRANSITION_DURATION, MAX_STATES, MAX_TRANSITIONS, type StateMachineTable,
} from '../runtime/jobs/state-machine-table.ts';
export { MAX_ACTIVE_TRANSITIONS } from '../runtime/jobs/state-machine-transitions.ts';

// ---------------------------------------------------------------------------------------------
// The asset: states (sub-graphs or conduits), an entry state and transitions with rules.

/** A state as written: a sub-graph (`nodes` and `output`, like a graph's) or a conduit (rules only). */
export const stateSchema = lazy(() => z.union([
  z.object({
    nodes: z.record(z.string(), z.unknown()).describe("The state's nodes, as a graph's `nodes` (ids are scoped to the state)."),
    output: z.string().describe("The node whose pose is the state's pose."),
    editor: z.record(z.string(), z.unknown()).optional(),
  }).strict(),
  z.object({
    conduit: z.literal(true).describe('A conduit: a state with no pose, passed through within one update when one of its own transitions passes.'),
    editor: z.record(z.string(), z.unknown()).optional(),
  }).strict(),
]));

export const transitionSchema = lazy(() => z.object({
  from: z.string().min(1).describe("The state the transition leaves, or '*' for any state."),
  to: z.string().min(1).describe('The state (or conduit) the transition enters.'),
  rule: z.unknown().describe(
    'When the transition passes: true/false; "atEnd"; {"timeRemaining": seconds}; {"param": name, "op": "==|!=|<|<=|>|>=", "value": number|bool}; '
    + '{"and": [rules]}, {"or": [rules]}, {"not": rule}.',
  ),
  duration: z.number().min(0).max(1e6).optional().describe(`Seconds the blend lasts (default ${DEFAULT_TRANSITION_DURATION}).`),
  blend: z.enum(['crossfade', 'inertial']).optional().describe('crossfade (default) or inertial (through an Inertialization node below).'),
  curve: blendCurveSchema.optional().describe('The crossfade\'s curve (default linear): a named curve, {"keys": [[t, v], ...]} or a clip\'s curve {"clip", "curve"}.'),
  blendProfile: z.string().min(1).optional()
    .describe('A timeFactor or weightFactor profile of the asset\'s blendProfiles: each bone blends at its own pace (crossfade), or over its own time (inertial).'),
  priority: z.number().int().optional().describe('Lower numbers are checked first (default 0; ties in asset order).'),
  allowReentry: z.boolean().optional().describe('Whether the transition may re-enter the active state, restarting it (default false).'),
}).strict());

export type TransitionJson = z.infer<typeof transitionSchema> & { rule: RuleJson };

/** The states with a sub-graph (not conduits, nor malformed: the properties' schema reports those), for the loader. */
function stateGraphs(properties: Readonly<Record<string, unknown>>): SubGraphSource[] {
  const states = properties.states;
  // A machine over the limit is refused as a whole (checkMachine): its states are not checked.
  if (!isRecord(states) || Object.keys(states).length > MAX_STATES) return [];
  const out: SubGraphSource[] = [];
  for (const [name, state] of Object.entries(states)) {
    const parsed = stateSchema.safeParse(state);
    if (parsed.success && 'nodes' in parsed.data) out.push({ name, path: ['states', name], nodes: parsed.data.nodes, output: parsed.data.output });
  }
  return out;
}

/** Reports what the properties' schema cannot: states and the entry, transitions' state names, rules and blend profiles. */
function checkMachine(ctx: NodeCheckContext): void {
  const raw = ctx.rawProperties;
  const rawStates = raw.states;
  const states = new Map<string, boolean>(); // name -> conduit
  if (rawStates === undefined) ctx.report(['states'], 'schema', 'a StateMachine needs its states');
  else if (isRecord(rawStates)) {
    const count = Object.keys(rawStates).length;
    if (count > MAX_STATES) {
      ctx.report(['states'], 'too-large', `the machine has ${machineSizeProblem('states', count)}`);
      return;
    }
    if (count === 0) ctx.report(['states'], 'schema', 'a StateMachine needs at least one state');
    if (Object.hasOwn(rawStates, '*')) {
      ctx.report(['states', '*'], 'schema', "a state cannot be named '*': a transition's from '*' means any state, so it could never leave this one by name");
    }
    // A malformed state is reported by the properties' schema; its name still counts.
    for (const [name, state] of Object.entries(rawStates)) states.set(name, isRecord(state) && state.conduit === true);
    if (![...states.values()].some((conduit) => !conduit) && states.size > 0) {
      ctx.report(['states'], 'schema', 'a StateMachine needs at least one state with a pose (not a conduit)');
    }
  }
  const stateList = () => nameList(states.keys());
  if (raw.entry === undefined) ctx.report(['entry'], 'schema', 'a StateMachine needs an entry state');
  else if (typeof raw.entry === 'string' && isRecord(rawStates)) {
    if (!states.has(raw.entry)) ctx.report(['entry'], 'unknown-state', `unknown state ${quoted(raw.entry)} (states: ${stateList()})`);
    else if (states.get(raw.entry)) ctx.report(['entry'], 'unknown-state', `the entry state ${quoted(raw.entry)} is a conduit; enter a state with a pose`);
  }
  if (!Array.isArray(raw.transitions)) return;
  if (raw.transitions.length > MAX_TRANSITIONS) {
    ctx.report(['transitions'], 'too-large', `the machine has ${machineSizeProblem('transitions', raw.transitions.length)}`);
    return;
  }
  raw.transitions.forEach((t: unknown, i) => {
    if (!isRecord(t)) return;
    const at = ['transitions', i];
    if (isRecord(rawStates)) {
      for (const end of ['from', 'to'] as const) {
        const name = t[end];
        if (typeof name !== 'string' || (end === 'from' && name === '*')) continue;
        if (!states.has(name)) {
          ctx.report([...at, end], 'unknown-state', `unknown state ${quoted(name)} (states: ${stateList()}${end === 'from' ? "; '*' is any state" : ''})`);
        }
      }
    }
    // A missing rule is reported by the properties' schema.
    if (Object.hasOwn(t, 'rule')) {
      // Measured first, without recursion: checkRule recurses per level.
      if (ruleDepth(t.rule) > MAX_RULE_DEPTH) {
        ctx.report([...at, 'rule'], 'too-deep', `this rule nests and, or and not more than ${MAX_RULE_DEPTH} levels deep (the limit, MAX_RULE_DEPTH)`);
      } else checkRule(t.rule, [...at, 'rule'], ctx);
    }
    if (typeof t.blendProfile === 'string') ctx.checkBlendProfile([...at, 'blendProfile'], t.blendProfile, TRANSITION_PROFILE_MODES);
    checkBlendCurve(t.curve, [...at, 'curve'], ctx);
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------

/**
 * A state machine (Unreal's): named states, each a sub-graph of its own, and transitions between
 * them with rules over parameters and clip times. One state is active. Each update first checks the
 * rules (against the previous update's clip times, as Unreal does), in order: the active state's own
 * by priority, then any-state ones; the first that passes starts, and the new active state's rules
 * are checked in turn, up to maxTransitionsPerFrame transitions in one update. Then every transition
 * under way advances by the update's time (one started in this update included, so its state has
 * weight at once), and the states with weight are updated. A transition into a conduit passes only
 * if one of the conduit's own transitions passes in the same update.
 *
 * Crossfades stack (runtime/jobs/state-machine-transitions.ts): a transition started during another
 * blends from the pose that one gives while the older one keeps advancing beneath it; one into a
 * state that still has weight w is shortened to its duration × (1 − w). Each follows its curve
 * (runtime/core/blend-curve.ts) and, if it has one, its blend profile. An inertial transition
 * switches at once and asks the Inertialization node below for the blend. A state entered with no
 * weight left starts over (its sub-graph is re-initialized: players restart); one still blending out
 * continues.
 */
export class StateMachine extends LocalPoseNode {
  private readonly states: readonly State[];
  /** Each pose state's sub-graph, by crossfade slot. */
  private readonly poses: readonly PoseLink[];
  /** The state at each crossfade slot. */
  private readonly slotStates: readonly number[];
  private readonly entry: number;
  /** The any-state transitions, checked from every state after its own (StateMachineTable.anyState). */
  private readonly anyState: readonly Transition[];
  private readonly maxTransitionsPerFrame: number;
  /** Clip players in each state's sub-graph (by state), for time-remaining rules (found at initialize). */
  private readonly players: SequencePlayer[][];
  private readonly stack: TransitionStack;
  /** Normalised weight of each pose state (by slot) this frame. */
  readonly weights: Float64Array;
  /** `weights` restricted to the states updated this frame, renormalised (as BlendList does). */
  private readonly evaluateWeights: Float64Array;
  /** The active state (-1 before the first update). */
  private active = -1;
  private initializeContext: InitializeContext | null = null;
  private playersCollected = false;
  /** Written by readClipRemaining: [the seconds left in a state's most relevant clip, scratch]. */
  readonly clipRemaining = new Float64Array(2);

  /** `poses`: the sub-graph of each of the table's pose states, by crossfade slot. */
  constructor(id: string, table: StateMachineTable, poses: readonly PoseLink[], boneCount = 0) {
    super(id, 'StateMachine');
    if (poses.length !== table.slotStates.length) throw new AnimGraphError('invalid-data', `StateMachine '${id}': ${poses.length} sub-graphs for ${table.slotStates.length} states with a pose`);
    this.states = table.states;
    this.slotStates = table.slotStates;
    this.entry = table.entry;
    this.anyState = table.anyState;
    this.maxTransitionsPerFrame = table.maxTransitionsPerFrame;
    this.poses = poses;
    this.players = table.states.map(() => []);
    // Per-bone weights only for a machine whose transitions have profiles.
    this.stack = new TransitionStack(poses.length, table.profiled ? boneCount : 0, LINEAR_BLEND);
    this.weights = this.stack.weights;
    this.evaluateWeights = new Float64Array(poses.length);
  }

  protected get links(): readonly Link[] {
    return this.poses;
  }

  get parameterValues(): Float64Array {
    return this.graph.parameterValues;
  }

  /** The active state's name ('' before the first update). */
  get activeState(): string {
    return this.active >= 0 ? this.states[this.active].name : '';
  }

  /** True while a crossfade between states is under way. */
  get transitioning(): boolean {
    return this.stack.count > 0;
  }

  /** How many crossfades are under way (the newest over the older ones). */
  get activeTransitions(): number {
    return this.stack.count;
  }

  protected override onInitialize(ctx: InitializeContext): void {
    this.initializeContext = ctx;
    this.stack.jumpTo(0);
    this.weights.fill(0);
    this.evaluateWeights.fill(0);
    this.active = -1;
    // The players are the sub-graphs' structure, found once: a state machine nested in a state is
    // re-initialized each time that state is entered, in the frame loop, where nothing may allocate.
    if (!this.playersCollected) this.collectPlayers();
  }

  /**
   * Finds each state's players. A method of its own: a closure in onInitialize, even on a branch not
   * taken, made V8 allocate a context for `this` at each call (35 B a nested machine's re-entry).
   */
  private collectPlayers(): void {
    this.playersCollected = true;
    this.states.forEach((s, i) => { if (s.slot >= 0) collectPlayers(this.poses[s.slot].node, this.players[i]); });
  }

  /**
   * Writes into clipRemaining[0] the seconds left in the clip of the state's player with the most
   * weight at its latest update (to the clip's end: a clip played backward counts toward its end
   * too); false when the state has no player updated in this frame or the previous one (a state just
   * entered has none yet).
   */
  readClipRemaining(state: number): boolean {
    const players = this.players[state];
    let best = -1;
    let bestWeight = 0;
    const latest = this.clipRemaining;
    for (let i = 0; i < players.length; i++) {
      // Through clipRemaining[1] (see AnimNode.writeLatestWeight).
      players[i].writeLatestWeight(latest, 1);
      const w = latest[1];
      if (w > bestWeight) {
        bestWeight = w;
        best = i;
      }
    }
    if (best < 0) return false;
    const p = players[best];
    this.clipRemaining[0] = p.clip.clip.duration - p.time;
    return true;
  }

  protected onUpdate(ctx: UpdateContext): void {
    const stack = this.stack;
    if (this.active < 0) {
      this.active = this.entry;
      stack.jumpTo(this.states[this.entry].slot);
      const events = this.graph.events;
      if (events.has('stateEntered')) events.emit('stateEntered', this.id, this.states[this.entry].name);
    }
    for (let taken = 0; taken < this.maxTransitionsPerFrame; taken++) {
      const leg = this.checkTransitions();
      if (leg === null) break;
      // The transition starts here rather than in a function of its own: this update runs every
      // frame and is optimised early, while a function called only at a switch stays cold where one
      // character switches now and then, and V8 boxes each number cold code reads (see
      // CONTRIBUTING.md, "Numbers in the frame loop").
      const events = this.graph.events, states = this.states, from = this.active, to = leg.to;
      if (events.has('transitionStarted')) events.emit('transitionStarted', this.id, states[from].name, states[to].name, leg.duration);
      if (events.has('stateExited')) events.emit('stateExited', this.id, states[from].name);
      if (events.has('stateEntered')) events.emit('stateEntered', this.id, states[to].name);
      const slot = states[to].slot;
      const reentry = to === from;
      // A state still blending out continues where it is; one with no weight left starts over.
      if (reentry || !(this.weights[slot] > 0)) this.poses[slot].initialize(this.initializeContext!);
      this.active = to;
      if (leg.inertial || reentry) {
        // A crossfade cannot fade a state into itself, so a re-entry switches at once (smoothly only when inertial).
        stack.jumpTo(slot);
        // The transition's own request (its duration and profile), read by the inertializer at evaluate.
        if (leg.inertial) ctx.inertializer?.requestInertialization(leg.request, this);
      } else stack.push(states[from].slot, slot, leg.durationNumbers, leg.curve, leg.profile);
    }
    stack.advance(ctx);
    const n = this.poses.length;
    let updatedSum = 0;
    let dropped = false;
    for (let i = 0; i < n; i++) {
      // The link decides relevance on the absolute weight (see Link.update).
      const child = ctx.child();
      child.weight *= this.weights[i];
      const updated = this.poses[i].update(child);
      this.evaluateWeights[i] = updated ? this.weights[i] : 0;
      if (updated) updatedSum += this.weights[i];
      else if (this.weights[i] > 0) dropped = true;
    }
    if (dropped) {
      if (updatedSum > 0) {
        for (let i = 0; i < n; i++) this.evaluateWeights[i] /= updatedSum;
      } else this.evaluateWeights[this.states[this.active].slot] = 1;
    }
    if (stack.perBone) stack.restrictBones(this.evaluateWeights);
  }

  /** The transition to start from the active state (its `to` past any conduits), or null. */
  private checkTransitions(): Transition | null {
    const from = this.active, states = this.states;
    // The state's own, then the any-state ones (one list for the machine): the i-th of both.
    const own = states[from].transitions, any = this.anyState, count = own.length + any.length;
    for (let i = 0; i < count; i++) {
      const first = i < own.length ? own[i] : any[i - own.length];
      if (!testRule(first.rule, this, from, first)) continue;
      let leg = first;
      let to = first.to;
      // Through conduits, each by the first of its own transitions that passes; a conduit with none blocks.
      for (let hops = 0; to >= 0 && states[to].conduit; hops++) {
        const conduit = to;
        to = -1;
        if (hops >= states.length) break;
        const out = states[conduit].transitions;
        for (let j = 0; j < out.length; j++) {
          if (testRule(out[j].rule, this, conduit, out[j])) {
            leg = out[j];
            to = out[j].to;
            break;
          }
        }
      }
      if (to < 0 || states[to].conduit) continue;
      if (to === from && !leg.allowReentry) continue;
      return leg;
    }
    return null;
  }

  protected onEvaluate(out: Pose): void {
    const stack = this.stack;
    if (stack.perBone) evaluatePerBoneInputs(out, this.poses, this.evaluateWeights, stack.evaluateBoneWeights, stack.boneCount, this.graph.posePool);
    else evaluateWeightedInputs(out, this.poses, this.evaluateWeights, this.graph.posePool);
  }

  /** The newest transition's state left, elapsed and duration, and profile, for the debug views. */
  private newestTransition(): { from: string; elapsed: number; duration: number; profile: string | null } | null {
    const stack = this.stack;
    if (stack.count === 0) return null;
    const times = new Float64Array(2);
    stack.newestTimes(times);
    const profile = stack.newestProfile;
    return { from: this.states[this.slotStates[stack.newestFrom]].name, elapsed: times[0], duration: times[1], profile: profile !== null ? profile.name : null };
  }

  protected override debugDescription(): string {
    const t = this.newestTransition();
    const transition = t !== null
      ? ` Transition: ${t.from} -> ${this.activeState} ${t.elapsed.toFixed(3)} / ${t.duration.toFixed(3)}`
        + (this.stack.count > 1 ? ` (over ${this.stack.count - 1} more)` : '')
        + (t.profile !== null ? ` Profile: ${t.profile}` : '')
      : '';
    return `State: ${this.activeState || '(none)'}${transition}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    const t = this.newestTransition();
    node.values = {
      activeState: this.activeState,
      transitioning: t !== null,
      transitionFrom: t !== null ? t.from : '',
      transitionElapsed: t !== null ? t.elapsed : 0,
      transitionDuration: t !== null ? t.duration : 0,
      activeTransitions: this.stack.count,
      weights: Array.from(this.weights),
    };
    if (t !== null && t.profile !== null) node.values.transitionProfile = t.profile;
    // One line per state with weight this frame, over its sub-graph's tree.
    const children: DebugNode[] = [];
    for (let i = 0; i < this.poses.length; i++) {
      if (!(this.evaluateWeights[i] > 0)) continue;
      const state = this.states[this.slotStates[i]];
      children.push({
        id: state.name, type: 'State', weight: this.weight * this.weights[i],
        description: `${state.name}${this.slotStates[i] === this.active ? ' (active)' : ''}`,
        values: { weight: this.weights[i], active: this.slotStates[i] === this.active },
        children: [node.children[i]],
      });
    }
    node.children = children;
  }
}

/** The SequencePlayers of a branch (into nested state machines too), found once at initialize. */
function collectPlayers(root: AnimNode, out: SequencePlayer[]): void {
  const stack: AnimNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node instanceof SequencePlayer) out.push(node);
    // `links` is the node's own business; reading it here is the only walk below a node there is.
    for (const link of (node as unknown as { links: readonly Link[] }).links) stack.push(link.node);
  }
}

export const StateMachineType: NodeType = defineBuiltInNodeType({
  type: 'StateMachine',
  space: 'local',
  properties: {
    entry: { kind: 'object', schema: lazy(() => z.string().min(1).describe('The state entered on the first update (not a conduit).')) },
    maxTransitionsPerFrame: { kind: 'int', default: DEFAULT_MAX_TRANSITIONS_PER_FRAME, min: 1, max: 64, bindable: false },
    states: { kind: 'object', schema: lazy(() => z.record(z.string(), stateSchema).describe('The states by name.')) },
    transitions: { kind: 'object', schema: lazy(() => z.array(transitionSchema).describe('The transitions, checked in priority order.')) },
  },
  inputs: [],
  subGraphs: stateGraphs,
  check: checkMachine,
  requestsInertialization: (p) => Array.isArray(p.transitions) && p.transitions.some((t: { blend?: string }) => t?.blend === 'inertial'),
  // At the first inertial transition's blend.
  inertializationPath: (p) => {
    const i = Array.isArray(p.transitions) ? p.transitions.findIndex((t: { blend?: string }) => t?.blend === 'inertial') : -1;
    return i >= 0 ? ['transitions', i, 'blend'] : ['transitions'];
  },
  prepare: (ctx): StateMachineTable => {
    const p = ctx.properties;
    const states = Object.entries(p.states ?? {}).map(([name, s]) => ({ name, hasPose: !('conduit' in s) && ctx.subGraphs.includes(name) }));
    // The loader checked each rule (checkMachine); the schema reads it as unknown.
    const transitions = (p.transitions ?? []) as TransitionJson[];
    const curves = transitions.map((t, i) => prepareBlendCurve(t.curve, ['transitions', i, 'curve'], ctx));
    return compileStateMachine(
      ctx.id, states, p.entry ?? '', transitions, (name) => ctx.parameterSlot(name), (name) => ctx.blendProfile(name), (i) => curves[i],
      p.maxTransitionsPerFrame,
    );
  },
  create: ({ id, boneCount, subGraphs, shared }) => {
    const table = shared!;
    return new StateMachine(id, table, table.slotStates.map((state) => subGraphs[table.states[state].name]), boneCount);
  },
});
