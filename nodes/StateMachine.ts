import * as z from 'zod';
import type { BlendProfile } from '../runtime/core/blend-profile.ts';
import { Crossfade, evaluatePerBoneInputs, evaluateWeightedInputs } from '../runtime/jobs/crossfade.ts';
import {
  LocalPoseNode, type AnimNode, type DebugNode, type InitializeContext, type Link, type NodeType, type PoseLink, type UpdateContext,
} from '../runtime/node/node.ts';
import type { Pose } from '../runtime/core/pose.ts';
import { InertialRequest } from '../runtime/jobs/inertial-transition.ts';
import { defineNodeType } from '../runtime/node/node-type.ts';
import { SequencePlayer } from './SequencePlayer.ts';

// ---------------------------------------------------------------------------------------------
// The asset: states (sub-graphs or conduits), an entry state and transitions with rules.

/** A state as written: a sub-graph (`nodes` and `output`, like a graph's) or a conduit (rules only). */
export const stateSchema = z.union([
  z.object({
    nodes: z.record(z.string(), z.unknown()).describe("The state's nodes, as a graph's `nodes` (ids are scoped to the state)."),
    output: z.string().describe("The node whose pose is the state's pose."),
    editor: z.record(z.string(), z.unknown()).optional(),
  }).strict(),
  z.object({
    conduit: z.literal(true).describe('A conduit: a state with no pose, passed through within one update when one of its own transitions passes.'),
    editor: z.record(z.string(), z.unknown()).optional(),
  }).strict(),
]);

export const COMPARISONS = ['==', '!=', '<', '<=', '>', '>='] as const;
export type Comparison = (typeof COMPARISONS)[number];

/**
 * A rule as written (checked by the loader, graphs/loader/state-machines.ts, which reports each
 * problem at its path): `true`/`false`; "atEnd" (the state's most relevant clip has no more time
 * left than the transition's duration); `{ timeRemaining: s }`; `{ param, op, value }` (op
 * default "==", value default true for a bool parameter); `{ and: [...] }`, `{ or: [...] }`, `{ not: rule }`.
 */
export type RuleJson =
  | boolean
  | 'atEnd'
  | { timeRemaining: number }
  | { param: string; op?: Comparison; value?: number | boolean }
  | { and: RuleJson[] }
  | { or: RuleJson[] }
  | { not: RuleJson };

/**
 * The most levels of `and`, `or` and `not` a rule may nest. Rules are checked, compiled and
 * tested recursively, the test inside update's own recursion through up to MAX_GRAPH_DEPTH nodes,
 * and a few thousand levels overflowed the stack; a hand-written rule needs a few. The loader
 * reports a deeper rule as `too-deep`; compileStateMachine refuses it with a RangeError.
 */
export const MAX_RULE_DEPTH = 64;

/**
 * How many levels of `and`, `or` and `not` `rule` nests (0 for a single test), measured without
 * recursion and no further than one level past MAX_RULE_DEPTH: a rule may nest without limit.
 */
export function ruleDepth(rule: unknown): number {
  let deepest = 0;
  const stack: { rule: unknown; depth: number }[] = [{ rule, depth: 0 }];
  while (stack.length > 0) {
    const { rule: r, depth } = stack.pop()!;
    if (depth > deepest) deepest = depth;
    if (deepest > MAX_RULE_DEPTH) break;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) continue;
    const o = r as Record<string, unknown>;
    for (const key of ['and', 'or'] as const) {
      const list = Object.hasOwn(o, key) ? o[key] : undefined;
      if (Array.isArray(list)) for (const x of list) stack.push({ rule: x, depth: depth + 1 });
    }
    if (Object.hasOwn(o, 'not')) stack.push({ rule: o.not, depth: depth + 1 });
  }
  return deepest;
}

export const transitionSchema = z.object({
  from: z.string().min(1).describe("The state the transition leaves, or '*' for any state."),
  to: z.string().min(1).describe('The state (or conduit) the transition enters.'),
  rule: z.unknown().describe(
    'When the transition passes: true/false; "atEnd"; {"timeRemaining": seconds}; {"param": name, "op": "==|!=|<|<=|>|>=", "value": number|bool}; '
    + '{"and": [rules]}, {"or": [rules]}, {"not": rule}.',
  ),
  duration: z.number().min(0).max(1e6).optional().describe('Seconds the blend lasts (default 0.2).'),
  blend: z.enum(['crossfade', 'inertial']).optional().describe('crossfade (default) or inertial (through an Inertialization node below).'),
  curve: z.enum(['linear', 'cubic']).optional().describe('The crossfade\'s curve (default linear).'),
  blendProfile: z.string().min(1).optional()
    .describe('A timeFactor or weightFactor profile of the asset\'s blendProfiles: each bone blends at its own pace (crossfade), or over its own time (inertial).'),
  priority: z.number().int().optional().describe('Lower numbers are checked first (default 0; ties in asset order).'),
  allowReentry: z.boolean().optional().describe('Whether the transition may re-enter the active state, restarting it (default false).'),
}).strict();

export type TransitionJson = z.infer<typeof transitionSchema> & { rule: RuleJson };

export const DEFAULT_TRANSITION_DURATION = 0.2;

// ---------------------------------------------------------------------------------------------
// Rules, compiled once per graph (StateMachineTable): objects of one class, tested by one function,
// testRule, which reads doubles from typed arrays and the rule's own fields only (see
// CONTRIBUTING.md, "Numbers in the frame loop"). One function rather than a test method per kind
// of rule: the parameter comparisons every state checks each frame make it hot at once, so a
// time-remaining or at-end rule, checked only while a one-shot state plays, runs optimised too.

const RULE_CONSTANT = 0, RULE_COMPARE = 1, RULE_TIME_REMAINING = 2, RULE_AT_END = 3, RULE_AND = 4, RULE_OR = 5, RULE_NOT = 6;

const OP_CODES: Record<Comparison, number> = { '==': 0, '!=': 1, '<': 2, '<=': 3, '>': 4, '>=': 5 };

class Rule {
  constructor(
    /** RULE_CONSTANT... */
    readonly kind: number,
    /** A comparison's parameter slot. */
    readonly slot: number,
    /** A comparison's OP_CODES value. */
    readonly op: number,
    /** A comparison's value, a time-remaining rule's seconds, or a constant's (1 true, 0 false). */
    readonly value: number,
    /** The rules an and, or or not combines. */
    readonly rules: readonly Rule[],
  ) {}
}

const NO_RULES: readonly Rule[] = [];
const ruleOf = (kind: number, value = 0, rules = NO_RULES, slot = -1, op = 0) => new Rule(kind, slot, op, value, rules);

/** Whether `rule` passes for transition `t` out of state `from`. */
function testRule(rule: Rule, sm: StateMachine, from: number, t: Transition): boolean {
  switch (rule.kind) {
    case RULE_CONSTANT:
      return rule.value !== 0;
    case RULE_COMPARE: {
      const v = sm.parameterValues[rule.slot], c = rule.value;
      switch (rule.op) {
        case 0: return v === c;
        case 1: return v !== c;
        case 2: return v < c;
        case 3: return v <= c;
        case 4: return v > c;
        default: return v >= c;
      }
    }
    case RULE_TIME_REMAINING:
      return sm.readClipRemaining(from) && sm.clipRemaining[0] <= rule.value;
    case RULE_AT_END:
      return sm.readClipRemaining(from) && sm.clipRemaining[0] <= t.duration;
    case RULE_AND: {
      const rules = rule.rules;
      for (let i = 0; i < rules.length; i++) if (!testRule(rules[i], sm, from, t)) return false;
      return true;
    }
    case RULE_OR: {
      const rules = rule.rules;
      for (let i = 0; i < rules.length; i++) if (testRule(rules[i], sm, from, t)) return true;
      return false;
    }
    default:
      return !testRule(rule.rules[0], sm, from, t);
  }
}

/** Builds a rule the loader has checked; anything it could not read is false (never fires). */
function compileRule(json: unknown, slotOf: (name: string) => number): Rule {
  const never = ruleOf(RULE_CONSTANT, 0);
  if (typeof json === 'boolean') return ruleOf(RULE_CONSTANT, json ? 1 : 0);
  if (json === 'atEnd') return ruleOf(RULE_AT_END);
  if (typeof json !== 'object' || json === null) return never;
  const r = json as Record<string, unknown>;
  if (Array.isArray(r.and)) return ruleOf(RULE_AND, 0, r.and.map((x) => compileRule(x, slotOf)));
  if (Array.isArray(r.or)) return ruleOf(RULE_OR, 0, r.or.map((x) => compileRule(x, slotOf)));
  if (Object.hasOwn(r, 'not')) return ruleOf(RULE_NOT, 0, [compileRule(r.not, slotOf)]);
  if (typeof r.timeRemaining === 'number') return ruleOf(RULE_TIME_REMAINING, r.timeRemaining);
  if (typeof r.param === 'string') {
    const slot = slotOf(r.param);
    if (slot < 0) return never;
    const op = typeof r.op === 'string' && Object.hasOwn(OP_CODES, r.op) ? OP_CODES[r.op as Comparison] : 0;
    const value = r.value === undefined ? 1 : typeof r.value === 'boolean' ? (r.value ? 1 : 0) : Number(r.value);
    return ruleOf(RULE_COMPARE, value, NO_RULES, slot, op);
  }
  return never;
}

/** A transition, with its settings read once per graph. */
class Transition {
  constructor(
    /** Index of the state entered (may be a conduit). */
    readonly to: number,
    readonly rule: Rule,
    /** Seconds (number fields of one small class: see CONTRIBUTING.md). */
    readonly duration: number,
    readonly inertial: boolean,
    readonly cubic: boolean,
    readonly allowReentry: boolean,
    /** The blend profile the transition follows, or null. */
    readonly profile: BlendProfile | null,
  ) {
    this.request.duration = duration;
    this.request.profile = profile;
  }

  /**
   * What an inertial transition asks of the Inertialization node below, made once (never written
   * after): an InertialRequest, the shape a BlendList's requests have too, so that the node reads
   * every request's numbers through objects of one shape. It holds `duration` and `profile` again
   * rather than getters on this request, so that no double crosses a call (see CONTRIBUTING.md,
   * "Numbers in the frame loop").
   */
  readonly request = new InertialRequest();
}

interface State {
  readonly name: string;
  readonly conduit: boolean;
  /** Index into the crossfade's weights; -1 for a conduit. */
  readonly slot: number;
  /** Transitions checked from this state, in order: its own by priority, then the any-state ones. */
  readonly transitions: Transition[];
}

/**
 * A state machine's states, transitions and rules as its asset gives them: compiled once per graph
 * (the node type's `prepare`) and shared by every instance, whose frame then reads them from the
 * cache rather than from objects of its own (a crowd's characters all check the same transitions).
 */
export interface StateMachineTable {
  readonly states: readonly State[];
  /** The state at each crossfade slot. */
  readonly slotStates: readonly number[];
  readonly entry: number;
  /** Whether a transition follows a blend profile (the crossfade then keeps per-bone weights). */
  readonly profiled: boolean;
}

/**
 * Compiles a state machine's table. `stateList` in the asset's order; a state without a pose
 * (`hasPose` false: a conduit, or a state given no sub-graph) takes no crossfade slot. Throws a
 * RangeError when the entry is not a state with a pose, or a rule nests deeper than MAX_RULE_DEPTH.
 */
export function compileStateMachine(
  id: string,
  stateList: readonly { name: string; hasPose: boolean }[],
  entry: string,
  transitions: readonly TransitionJson[],
  slotOf: (name: string) => number,
  profileOf: (name: string) => BlendProfile | null = () => null,
): StateMachineTable {
  const states: State[] = [], slotStates: number[] = [];
  for (const s of stateList) {
    const slot = s.hasPose ? slotStates.length : -1;
    if (slot >= 0) slotStates.push(states.length);
    states.push({ name: s.name, conduit: slot < 0, slot, transitions: [] });
  }
  const index = new Map(states.map((s, i) => [s.name, i]));
  const entryIndex = index.get(entry) ?? slotStates[0] ?? -1;
  if (entryIndex < 0 || states[entryIndex].conduit) throw new RangeError(`StateMachine '${id}': entry '${entry}' is not a state with a pose`);
  // Stable sort by priority; own transitions before any-state ones.
  const ordered = transitions.map((t, i) => ({ t, i })).sort((a, b) => (a.t.priority ?? 0) - (b.t.priority ?? 0) || a.i - b.i);
  for (const t of transitions) {
    if (ruleDepth(t.rule) > MAX_RULE_DEPTH) throw new RangeError(`StateMachine '${id}': a transition rule nests and, or and not more than ${MAX_RULE_DEPTH} levels deep (the limit, MAX_RULE_DEPTH)`);
  }
  const compile = (t: TransitionJson) => new Transition(
    index.get(t.to)!, compileRule(t.rule, slotOf), t.duration ?? DEFAULT_TRANSITION_DURATION,
    t.blend === 'inertial', t.curve === 'cubic', t.allowReentry === true,
    t.blendProfile !== undefined ? profileOf(t.blendProfile) : null,
  );
  for (const { t } of ordered) {
    if (!index.has(t.to) || (t.from !== '*' && !index.has(t.from))) continue;
    if (t.from !== '*') states[index.get(t.from)!].transitions.push(compile(t));
  }
  for (const { t } of ordered) {
    if (t.from !== '*' || !index.has(t.to)) continue;
    // A conduit is passed through by its own transitions only.
    for (const s of states) if (!s.conduit) s.transitions.push(compile(t));
  }
  return { states, slotStates, entry: entryIndex, profiled: transitions.some((t) => t.blendProfile !== undefined) };
}

// ---------------------------------------------------------------------------------------------

/**
 * A state machine (Unreal's): named states, each a sub-graph of its own, and transitions between
 * them with rules over parameters and clip times. One state is active; a transition crossfades
 * from the weights the states had (so a transition interrupted by another does not pop) or, in
 * inertial mode, switches at once and asks the Inertialization node below for a transition.
 * Only states with weight are updated and evaluated; a state entered with no weight left starts
 * over (its sub-graph is re-initialized: players restart). Transitions are checked once per
 * update, after the states are updated (so rules see this frame's clip times), in order: the
 * active state's own by priority, then any-state ones; the first that passes starts. A transition
 * into a conduit passes only if one of the conduit's own transitions passes in the same update.
 */
export class StateMachine extends LocalPoseNode {
  private readonly states: readonly State[];
  /** Each pose state's sub-graph, by crossfade slot. */
  private readonly poses: readonly PoseLink[];
  /** The state at each crossfade slot. */
  private readonly slotStates: readonly number[];
  private readonly entry: number;
  /** Clip players in each state's sub-graph (by state), for time-remaining rules (found at initialize). */
  private readonly players: SequencePlayer[][];
  private readonly fade: Crossfade;
  /** Normalised weight of each pose state (by slot) this frame. */
  readonly weights: Float64Array;
  /** `weights` restricted to the states updated this frame, renormalised (as BlendList does). */
  private readonly evaluateWeights: Float64Array;
  /** The active state (-1 before the first update) and the one the last transition left. */
  private active = -1;
  private previous = -1;
  private initializeContext: InitializeContext | null = null;
  private playersCollected = false;
  /** Written by readClipRemaining: the seconds left in a state's most relevant clip. */
  readonly clipRemaining = new Float64Array(1);

  /** `poses`: the sub-graph of each of the table's pose states, by crossfade slot. */
  constructor(id: string, table: StateMachineTable, poses: readonly PoseLink[], boneCount = 0) {
    super(id, 'StateMachine');
    if (poses.length !== table.slotStates.length) throw new RangeError(`StateMachine '${id}': ${poses.length} sub-graphs for ${table.slotStates.length} states with a pose`);
    this.states = table.states;
    this.slotStates = table.slotStates;
    this.entry = table.entry;
    this.poses = poses;
    this.players = table.states.map(() => []);
    // Per-bone weights only for a machine whose transitions have profiles.
    this.fade = new Crossfade(poses.length, table.profiled ? boneCount : 0);
    this.weights = this.fade.weights;
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
    return this.fade.fading;
  }

  protected override onInitialize(ctx: InitializeContext): void {
    this.initializeContext = ctx;
    this.fade.reset();
    this.evaluateWeights.fill(0);
    this.active = -1;
    this.previous = -1;
    // The players are the sub-graphs' structure, found once: a state machine nested in a state is
    // re-initialized each time that state is entered, in the frame loop, where nothing may allocate.
    if (!this.playersCollected) this.collectPlayers();
  }

  /**
   * Finds each state's players. A method of its own, so that onInitialize holds no closure (see
   * CONTRIBUTING.md, "Numbers in the frame loop").
   */
  private collectPlayers(): void {
    this.playersCollected = true;
    this.states.forEach((s, i) => { if (s.slot >= 0) collectPlayers(this.poses[s.slot].node, this.players[i]); });
  }

  /**
   * Writes into clipRemaining[0] the seconds left in the clip of the state's player with the most
   * weight this frame (to the clip's end: a clip played backward counts toward its end too); false when the
   * state has no relevant player.
   */
  readClipRemaining(state: number): boolean {
    const players = this.players[state];
    let best = -1;
    let bestWeight = 0;
    for (let i = 0; i < players.length; i++) {
      const w = players[i].weight;
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
    const fade = this.fade;
    if (this.active < 0) {
      this.active = this.entry;
      fade.jumpTo(this.states[this.entry].slot);
      const events = this.graph.events;
      if (events.has('stateEntered')) events.emit('stateEntered', this.id, this.states[this.entry].name);
    }
    fade.advance(ctx);
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
    const leg = this.checkTransitions();
    if (leg !== null) {
      // The transition starts here, in code every frame runs, rather than in a function called only
      // at a switch (see CONTRIBUTING.md, "Numbers in the frame loop").
      const events = this.graph.events, states = this.states, from = this.active, to = leg.to;
      if (events.has('transitionStarted')) events.emit('transitionStarted', this.id, states[from].name, states[to].name, leg.duration);
      if (events.has('stateExited')) events.emit('stateExited', this.id, states[from].name);
      if (events.has('stateEntered')) events.emit('stateEntered', this.id, states[to].name);
      const slot = states[to].slot;
      const reentry = to === from;
      // A state still blending out continues where it is; one with no weight left starts over.
      if (reentry || !(this.evaluateWeights[slot] > 0)) this.poses[slot].initialize(this.initializeContext!);
      this.previous = from;
      this.active = to;
      if (leg.inertial || reentry) {
        // A crossfade cannot fade a state into itself, so a re-entry switches at once (smoothly only when inertial).
        fade.jumpTo(slot);
        // The transition's own request (its duration and profile), read by the inertializer at evaluate.
        if (leg.inertial) ctx.inertializer?.requestInertialization(leg.request, this);
        // The entered state joins this frame's update with no time step, so it has a pose to evaluate.
        const child = ctx.child();
        child.deltaTime = 0;
        this.poses[slot].update(child);
        this.evaluateWeights.fill(0);
        this.evaluateWeights[slot] = 1;
      } else {
        fade.duration = leg.duration;
        fade.cubic = leg.cubic;
        fade.profile = leg.profile;
        fade.fadeTo(slot);
      }
    }
    if (fade.perBone) fade.restrictBones(this.evaluateWeights);
  }

  /** The transition to start from the active state (its `to` past any conduits), or null. */
  private checkTransitions(): Transition | null {
    const from = this.active, states = this.states;
    const list = states[from].transitions;
    for (let i = 0; i < list.length; i++) {
      const first = list[i];
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
    if (this.fade.perBone) evaluatePerBoneInputs(out, this.poses, this.evaluateWeights, this.fade, this.graph.posePool);
    else evaluateWeightedInputs(out, this.poses, this.evaluateWeights, this.graph.posePool);
  }

  protected override debugDescription(): string {
    const f = this.fade;
    const transition = this.transitioning && this.previous >= 0
      ? ` Transition: ${this.states[this.previous].name} -> ${this.activeState} ${Math.min(f.elapsed, f.duration).toFixed(3)} / ${f.duration.toFixed(3)}`
        + (f.runningProfile !== null ? ` Profile: ${f.runningProfile.name}` : '')
      : '';
    return `State: ${this.activeState || '(none)'}${transition}`;
  }

  protected override onGatherDebug(node: DebugNode): void {
    const f = this.fade;
    node.values = {
      activeState: this.activeState,
      transitioning: this.transitioning,
      transitionFrom: this.transitioning && this.previous >= 0 ? this.states[this.previous].name : '',
      transitionElapsed: Math.min(f.elapsed, f.duration),
      transitionDuration: f.duration,
      weights: Array.from(this.weights),
    };
    if (f.runningProfile !== null) node.values.transitionProfile = f.runningProfile.name;
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

export const StateMachineType: NodeType = defineNodeType({
  type: 'StateMachine',
  space: 'local',
  properties: {
    entry: { kind: 'object', schema: z.string().min(1).describe('The state entered on the first update (not a conduit).') },
    states: { kind: 'object', schema: z.record(z.string(), stateSchema).describe('The states by name.') },
    transitions: { kind: 'object', schema: z.array(transitionSchema).describe('The transitions, checked in priority order.') },
  },
  inputs: [],
  requestsInertialization: (p) => Array.isArray(p.transitions) && p.transitions.some((t: { blend?: string }) => t?.blend === 'inertial'),
  prepare: (ctx): StateMachineTable => {
    const p = ctx.properties as { entry?: string; states?: Record<string, object>; transitions?: TransitionJson[] };
    const states = Object.entries(p.states ?? {}).map(([name, s]) => ({ name, hasPose: !('conduit' in s) && ctx.subGraphs.includes(name) }));
    return compileStateMachine(ctx.id, states, p.entry ?? '', p.transitions ?? [], (name) => ctx.parameterSlot(name), (name) => ctx.blendProfile(name));
  },
  create: ({ id, boneCount, subGraphs, shared }) => {
    const table = shared!;
    return new StateMachine(id, table, table.slotStates.map((state) => subGraphs[table.states[state].name]), boneCount);
  },
});
