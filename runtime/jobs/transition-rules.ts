import { nameList, quoted } from '../core/names.ts';
import type { NodeCheckContext } from '../node/node-type.ts';

/*
 * A state machine's transition rules (nodes/StateMachine.ts) as an asset writes them: checked at
 * load (checkRule, called by the node type's check), compiled once per graph (compileRule) and
 * tested every frame (testRule).
 */

export const COMPARISONS = ['==', '!=', '<', '<=', '>', '>='] as const;
export type Comparison = (typeof COMPARISONS)[number];

/**
 * A rule as written (checked at load by checkRule, which reports each problem at its path): `true`/`false`; "atEnd" (the state's most relevant clip has no more time
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
 * reports a deeper rule as `too-deep`; compileStateMachine refuses it (an AnimGraphError, `out-of-range`).
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

// ---------------------------------------------------------------------------------------------
// Rules, compiled once per graph (the machine's StateMachineTable): objects of one class, tested by one function,
// testRule, which reads doubles from typed arrays and the rule's own fields only (see
// CONTRIBUTING.md, "Numbers in the frame loop"). One function rather than a test method per kind
// of rule: the parameter comparisons every state checks each frame make it hot at once, so a
// time-remaining or at-end rule, checked only while a one-shot state plays, runs optimised too
// (a method of its own stayed cold for one character, and boxed the clip time it read).

const RULE_CONSTANT = 0, RULE_COMPARE = 1, RULE_TIME_REMAINING = 2, RULE_AT_END = 3, RULE_AND = 4, RULE_OR = 5, RULE_NOT = 6;

const OP_CODES: Record<Comparison, number> = { '==': 0, '!=': 1, '<': 2, '<=': 3, '>': 4, '>=': 5 };

export class Rule {
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

/** What testRule reads of the machine being updated: its parameters and its states' clip times. */
export interface RuleSubject {
  readonly parameterValues: Float64Array;
  /** Writes into clipRemaining[0] the seconds left in the state's most relevant clip; false when it has none. */
  readClipRemaining(state: number): boolean;
  readonly clipRemaining: Float64Array;
}

/** Whether `rule` passes for a transition of `duration` seconds out of state `from`. */
export function testRule(rule: Rule, sm: RuleSubject, from: number, t: { readonly duration: number }): boolean {
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
export function compileRule(json: unknown, slotOf: (name: string) => number): Rule {
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


// ---------------------------------------------------------------------------------------------
// Checking a rule at load.

const RULE_FORMS = 'a rule is true/false, "atEnd", {"timeRemaining": s}, {"param", "op", "value"}, {"and": [...]}, {"or": [...]} or {"not": rule}';

/**
 * Reports every problem of a transition rule (its shape, its parameters and their types) at `at`,
 * below the node's properties. Recurses per level: measure the rule with ruleDepth first.
 */
export function checkRule(rule: unknown, at: readonly PropertyKey[], ctx: Pick<NodeCheckContext, 'report' | 'parameterType' | 'parameterNames'>): void {
  if (typeof rule === 'boolean' || rule === 'atEnd') return;
  if (!isRecord(rule)) {
    ctx.report(at, 'schema', typeof rule === 'string' ? `unknown rule ${quoted(rule)} (${RULE_FORMS})` : RULE_FORMS);
    return;
  }
  const keys = Object.keys(rule);
  const extra = (allowed: readonly string[]) => {
    for (const k of keys) if (!allowed.includes(k)) ctx.report([...at, k], 'schema', `unexpected key ${quoted(k)} in this rule (${RULE_FORMS})`);
  };
  for (const combine of ['and', 'or'] as const) {
    if (!Object.hasOwn(rule, combine)) continue;
    extra([combine]);
    const list = rule[combine];
    if (!Array.isArray(list) || list.length === 0) ctx.report([...at, combine], 'schema', `"${combine}" takes a non-empty list of rules`);
    else list.forEach((r, i) => checkRule(r, [...at, combine, i], ctx));
    return;
  }
  if (Object.hasOwn(rule, 'not')) {
    extra(['not']);
    checkRule(rule.not, [...at, 'not'], ctx);
    return;
  }
  if (Object.hasOwn(rule, 'timeRemaining')) {
    extra(['timeRemaining']);
    const s = rule.timeRemaining;
    if (typeof s !== 'number' || !Number.isFinite(s) || s < 0) ctx.report([...at, 'timeRemaining'], 'schema', 'timeRemaining takes seconds: a finite number, at least 0');
    return;
  }
  if (!Object.hasOwn(rule, 'param')) {
    ctx.report(at, 'schema', RULE_FORMS);
    return;
  }
  extra(['param', 'op', 'value']);
  const { param, op, value } = rule;
  if (op !== undefined && !(COMPARISONS as readonly unknown[]).includes(op)) {
    ctx.report([...at, 'op'], 'schema', `unknown comparison ${JSON.stringify(op)} (one of ${COMPARISONS.join(' ')})`);
  }
  if (value !== undefined && typeof value !== 'boolean' && !(typeof value === 'number' && Number.isFinite(value))) {
    ctx.report([...at, 'value'], 'schema', 'a rule compares with a finite number or a bool');
  }
  if (typeof param !== 'string') {
    ctx.report([...at, 'param'], 'schema', 'param names a parameter');
    return;
  }
  const type = ctx.parameterType(param);
  if (type === undefined) {
    if (!ctx.parameterNames.has(param)) {
      ctx.report([...at, 'param'], 'unknown-parameter', `unknown parameter ${quoted(param)} (declared: ${nameList(ctx.parameterNames)})`);
    }
    return;
  }
  if (type === 'vec3') {
    ctx.report([...at, 'param'], 'parameter-type', `a rule compares a float, int or bool parameter; ${quoted(param)} is vec3`);
  } else if (type === 'bool') {
    if (op !== undefined && op !== '==' && op !== '!=') ctx.report([...at, 'op'], 'parameter-type', `${quoted(param)} is bool: compare it with == or !=`);
    if (typeof value === 'number') ctx.report([...at, 'value'], 'parameter-type', `${quoted(param)} is bool: compare it with true or false`);
  } else {
    if (value === undefined) ctx.report([...at, 'value'], 'schema', `${quoted(param)} is ${type}: give the value to compare it with`);
    else if (typeof value === 'boolean') ctx.report([...at, 'value'], 'parameter-type', `${quoted(param)} is ${type}: compare it with a number, not a bool`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
