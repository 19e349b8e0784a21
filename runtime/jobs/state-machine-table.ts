import { LINEAR_BLEND, type BlendCurve, type BlendCurveJson } from '../core/blend-curve.ts';
import type { BlendProfile } from '../core/blend-profile.ts';
import { AnimGraphError } from '../core/errors.ts';
import { InertialRequest } from './inertial-transition.ts';
import { compileRule, MAX_RULE_DEPTH, ruleDepth, type Rule, type RuleJson } from './transition-rules.ts';

/*
 * A state machine's states and transitions (nodes/StateMachine.ts), compiled once per graph from
 * what its asset writes into the table every instance's frame reads.
 */

/**
 * The most states a machine may have. Each state with a pose takes a crossfade slot in every
 * instance (and, in a machine whose transitions follow blend profiles, 24 bytes per bone); machines
 * in use have tens. The loader reports more as `too-large`, and checks none of their sub-graphs.
 */
export const MAX_STATES = 1000;

/**
 * The most transitions a machine may have (its states' own and the any-state ones together):
 * each frame checks the active state's own and every any-state one in turn.
 */
export const MAX_TRANSITIONS = 10_000;

/** The message for a machine over MAX_STATES or MAX_TRANSITIONS. */
export function machineSizeProblem(what: 'states' | 'transitions', count: number): string {
  const max = what === 'states' ? MAX_STATES : MAX_TRANSITIONS;
  return `${count.toLocaleString('en-US')} ${what}, more than the ${max.toLocaleString('en-US')} a machine may have (${what === 'states' ? 'MAX_STATES' : 'MAX_TRANSITIONS'})`;
}

/** Seconds a transition blends when its asset gives no duration. */
export const DEFAULT_TRANSITION_DURATION = 0.2;

/** How many transitions a machine follows in one update when its asset does not say (Unreal's MaxTransitionsPerFrame). */
export const DEFAULT_MAX_TRANSITIONS_PER_FRAME = 3;

/** A transition as the asset writes it (checked by the node type's check). */
export interface TransitionSpec {
  readonly from: string;
  readonly to: string;
  readonly rule: RuleJson;
  readonly duration?: number;
  readonly blend?: 'crossfade' | 'inertial';
  readonly curve?: BlendCurveJson;
  readonly blendProfile?: string;
  readonly priority?: number;
  readonly allowReentry?: boolean;
}

/** A transition, with its settings read once per graph. */
export class Transition {
  constructor(
    /** Index of the state entered (may be a conduit). */
    readonly to: number,
    readonly rule: Rule,
    /** Seconds (number fields of one small class: see CONTRIBUTING.md). */
    readonly duration: number,
    readonly inertial: boolean,
    /** The crossfade's curve (runtime/core/blend-curve.ts). */
    readonly curve: BlendCurve,
    readonly allowReentry: boolean,
    /** The blend profile the transition follows, or null. */
    readonly profile: BlendProfile | null,
  ) {
    this.request.duration = duration;
    this.request.profile = profile;
    this.durationNumbers[0] = duration;
  }

  /** [duration], copied into the machine's TransitionStack when the transition starts (never read there: see its push). */
  readonly durationNumbers = new Float64Array(1);

  /**
   * What an inertial transition asks of the Inertialization node below, made once (never written
   * after): an InertialRequest, the shape a BlendList's requests have too, so that the node reads
   * every request's numbers through objects of one shape (V8 boxes a number read from several).
   * It holds `duration` and `profile` again: read through getters on this request instead, the
   * state machine probe allocated 8.9 B a frame (a getter's double boxed where V8 did not inline it).
   */
  readonly request = new InertialRequest();
}

export interface State {
  readonly name: string;
  readonly conduit: boolean;
  /** Index into the crossfade's weights; -1 for a conduit. */
  readonly slot: number;
  /** The state's own transitions, by priority: checked before the machine's any-state ones (a conduit's only). */
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
  /**
   * The any-state transitions (`from: "*"`), by priority, checked from every state with a pose
   * after its own. Kept once for the machine: compiled into every state's list, 1,000 states and
   * 2,000 of them made two million transitions, and took 16.7 s to load.
   */
  readonly anyState: readonly Transition[];
  /** Whether a transition follows a blend profile (the crossfade then keeps per-bone weights). */
  readonly profiled: boolean;
  /** The most transitions followed in one update (at least 1). */
  readonly maxTransitionsPerFrame: number;
}

/**
 * Compiles a state machine's table. `stateList` in the asset's order; a state without a pose
 * (`hasPose` false: a conduit, or a state given no sub-graph) takes no crossfade slot. Throws an
 * AnimGraphError when the entry is not a state with a pose (`invalid-data`), a rule nests deeper
 * than MAX_RULE_DEPTH, or the machine has more than MAX_STATES states or MAX_TRANSITIONS
 * transitions (`out-of-range`).
 */
export function compileStateMachine(
  id: string,
  stateList: readonly { name: string; hasPose: boolean }[],
  entry: string,
  transitions: readonly TransitionSpec[],
  slotOf: (name: string) => number,
  profileOf: (name: string) => BlendProfile | null = () => null,
  curveOf: (transition: number) => BlendCurve = () => LINEAR_BLEND,
  maxTransitionsPerFrame = DEFAULT_MAX_TRANSITIONS_PER_FRAME,
): StateMachineTable {
  if (stateList.length > MAX_STATES) throw new AnimGraphError('out-of-range', `StateMachine '${id}': ${machineSizeProblem('states', stateList.length)}`);
  if (transitions.length > MAX_TRANSITIONS) throw new AnimGraphError('out-of-range', `StateMachine '${id}': ${machineSizeProblem('transitions', transitions.length)}`);
  const states: State[] = [], slotStates: number[] = [];
  for (const s of stateList) {
    const slot = s.hasPose ? slotStates.length : -1;
    if (slot >= 0) slotStates.push(states.length);
    states.push({ name: s.name, conduit: slot < 0, slot, transitions: [] });
  }
  const index = new Map(states.map((s, i) => [s.name, i]));
  const entryIndex = index.get(entry) ?? slotStates[0] ?? -1;
  if (entryIndex < 0 || states[entryIndex].conduit) throw new AnimGraphError('invalid-data', `StateMachine '${id}': entry '${entry}' is not a state with a pose`);
  if (!(Number.isInteger(maxTransitionsPerFrame) && maxTransitionsPerFrame >= 1)) {
    throw new AnimGraphError('out-of-range', `StateMachine '${id}': maxTransitionsPerFrame is a whole number, at least 1 (got ${maxTransitionsPerFrame})`);
  }
  // Stable sort by priority; own transitions before any-state ones.
  const ordered = transitions.map((t, i) => ({ t, i })).sort((a, b) => (a.t.priority ?? 0) - (b.t.priority ?? 0) || a.i - b.i);
  for (const t of transitions) {
    if (ruleDepth(t.rule) > MAX_RULE_DEPTH) throw new AnimGraphError('out-of-range', `StateMachine '${id}': a transition rule nests and, or and not more than ${MAX_RULE_DEPTH} levels deep (the limit, MAX_RULE_DEPTH)`);
  }
  const compile = (t: TransitionSpec, i: number) => new Transition(
    index.get(t.to)!, compileRule(t.rule, slotOf), t.duration ?? DEFAULT_TRANSITION_DURATION,
    t.blend === 'inertial', curveOf(i), t.allowReentry === true,
    t.blendProfile !== undefined ? profileOf(t.blendProfile) : null,
  );
  for (const { t, i } of ordered) {
    if (!index.has(t.to) || (t.from !== '*' && !index.has(t.from))) continue;
    if (t.from !== '*') states[index.get(t.from)!].transitions.push(compile(t, i));
  }
  // A conduit is passed through by its own transitions only.
  const anyState: Transition[] = [];
  for (const { t, i } of ordered) if (t.from === '*' && index.has(t.to)) anyState.push(compile(t, i));
  return { states, slotStates, entry: entryIndex, anyState, profiled: transitions.some((t) => t.blendProfile !== undefined), maxTransitionsPerFrame };
}
