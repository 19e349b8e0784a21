import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../host/files.ts';
import { runGraph } from '../../host/runner.ts';
import type { DebugNode } from '../../runtime/node/node.ts';
import { compileStateMachine } from '../../nodes/StateMachine.ts';
import { expectAnimGraphError } from '../support/errors.ts';
import { CMU, describeWithData } from '../support/shared-data.ts';

const player = (clip: string, extra: Record<string, unknown> = {}) => ({ nodes: { p: { type: 'SequencePlayer', properties: { clip, ...extra } } }, output: 'p' });
const asset = (properties: Record<string, unknown>, wrap = false, parameters: Record<string, unknown> = {}) => ({
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  parameters: { speed: { type: 'float', default: 0 }, jump: { type: 'bool', default: false }, v: { type: 'vec3' }, ...parameters },
  nodes: { sm: { type: 'StateMachine', properties }, ...(wrap ? { inert: { type: 'Inertialization', inputs: { pose: 'sm' } } } : {}) },
  output: wrap ? 'inert' : 'sm',
});
const machine = (states: Record<string, unknown>, transitions: unknown[], entry = 'idle', wrap = false) =>
  loadGraphAsset(asset({ entry, states, transitions }, wrap)).createInstance();
const smDebug = (g: ReturnType<typeof machine>): DebugNode => {
  let d = g.gatherDebug().children[0];
  while (d.type !== 'StateMachine') d = d.children[0];
  return d;
};
const weights = (g: ReturnType<typeof machine>) => smDebug(g).values!.weights as number[];
const active = (g: ReturnType<typeof machine>) => smDebug(g).values!.activeState;
const three = { idle: player('idle'), walk: player('walk'), run: player('run') };

describe('StateMachine', () => {
  it('crossfades linearly from the state left over the transition duration, starting in the update its rule passes', () => {
    const g = machine(three, [{ from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.4 }]);
    g.update(0.1);
    expect(weights(g)).toEqual([1, 0, 0]);
    g.setParameter('speed', 20);
    g.update(0.1); // the rule passes at the start of this update: the transition advances by its dt at once
    expect(active(g)).toBe('walk');
    expect(weights(g)[0]).toBeCloseTo(0.75, 12);
    expect(weights(g)[1]).toBeCloseTo(0.25, 12);
    g.update(0.1);
    expect(weights(g)[1]).toBeCloseTo(0.5, 12);
    g.update(0.2);
    expect(weights(g)).toEqual([0, 1, 0]);
  });

  it('eases a cubic crossfade: smoothstep of the linear progress', () => {
    const g = machine(three, [{ from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.4, curve: 'cubic' }]);
    g.setParameter('speed', 20);
    g.update(0.1); // p = 0.25: 3p² - 2p³ = 0.15625
    expect(weights(g)[1]).toBeCloseTo(0.15625, 12);
    g.update(0.1); // p = 0.5
    expect(weights(g)[1]).toBeCloseTo(0.5, 12);
  });

  it('checks the active state\'s transitions by priority, lowest first, then any-state ones', () => {
    const transitions = [
      { from: 'idle', to: 'walk', rule: true, priority: 1 },
      { from: '*', to: 'walk', rule: true, priority: -9 },
      { from: 'idle', to: 'run', rule: { param: 'speed', op: '>=', value: 0 }, priority: 0 },
    ];
    const one = loadGraphAsset(asset({ entry: 'idle', states: three, transitions, maxTransitionsPerFrame: 1 })).createInstance();
    one.update(0.1);
    expect(active(one)).toBe('run');
    // With the default of 3, run's any-state transition follows in the same update.
    const g = machine(three, transitions);
    const seen: string[] = [];
    g.events.on('transitionStarted', (_id, from, to) => seen.push(`${from}->${to}`));
    g.update(0.1);
    expect(seen).toEqual(['idle->run', 'run->walk']);
    expect(active(g)).toBe('walk');
  });

  it('follows up to maxTransitionsPerFrame transitions in one update (default 3), each blending from the last', () => {
    // idle -> walk -> run with both rules true: Unreal takes both in one tick.
    const chain = [
      { from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.4 },
      { from: 'walk', to: 'run', rule: { param: 'speed', op: '>', value: 100 }, duration: 0.2 },
    ];
    const g = machine(three, chain);
    g.update(0.1);
    g.setParameter('speed', 200);
    g.update(0.1);
    expect(active(g)).toBe('run');
    // walk entered at α = 0.1 / 0.4 and run over it at 0.1 / 0.2: W = ((0.75, 0.25, 0) × 0.5) + 0.5 run.
    expect(weights(g)[0]).toBeCloseTo(0.375, 12);
    expect(weights(g)[1]).toBeCloseTo(0.125, 12);
    expect(weights(g)[2]).toBeCloseTo(0.5, 12);
    expect(smDebug(g).values!.activeTransitions).toBe(2);
    g.update(0.1); // run's transition completes, and with it the older one beneath it
    expect(weights(g)).toEqual([0, 0, 1]);
    expect(smDebug(g).values!.activeTransitions).toBe(0);
    // With 1, the second waits for the next update.
    const one = loadGraphAsset(asset({ entry: 'idle', states: three, transitions: chain, maxTransitionsPerFrame: 1 })).createInstance();
    one.update(0.1);
    one.setParameter('speed', 200);
    one.update(0.1);
    expect(active(one)).toBe('walk');
    one.update(0.1);
    expect(active(one)).toBe('run');
    const bad = checkGraphAsset(asset({ entry: 'idle', states: three, transitions: chain, maxTransitionsPerFrame: 0 }));
    expect(bad.ok ? [] : bad.problems.map((p) => p.path)).toEqual(['$.nodes.sm.properties.maxTransitionsPerFrame']);
  });

  it('any-state transitions do not re-enter the active state unless allowReentry', () => {
    const seen: string[] = [];
    const trans = (allowReentry: boolean) => [{ from: '*', to: 'run', rule: { param: 'jump' }, duration: 0.1, allowReentry }];
    const g = machine(three, trans(false));
    g.events.on('transitionStarted', (_id, from, to) => seen.push(`${from}->${to}`));
    g.setParameter('jump', true);
    for (let i = 0; i < 5; i++) g.update(0.1);
    expect(seen).toEqual(['idle->run']);
    const r = machine(three, trans(true));
    r.setParameter('jump', true);
    for (let i = 0; i < 5; i++) r.update(0.1);
    // Re-entered at the start of every update: the run state restarts, so its player never gets past one update.
    expect(smDebug(r).children[0].children[0].values!.time).toBeCloseTo(0.1, 12);
    expect(weights(r)).toEqual([0, 0, 1]);
  });

  it('passes through a conduit when one of its transitions passes in the same update, and is blocked otherwise', () => {
    const g = machine({ ...three, land: { conduit: true } }, [
      { from: 'idle', to: 'land', rule: { param: 'jump' } },
      { from: 'land', to: 'run', rule: { param: 'speed', op: '>', value: 100 }, duration: 0.3 },
    ]);
    const seen: unknown[] = [];
    g.events.on('transitionStarted', (...args) => seen.push(args));
    g.setParameter('jump', true);
    g.update(0.1);
    expect(active(g)).toBe('idle');
    g.setParameter('speed', 200);
    g.update(0.1);
    expect(active(g)).toBe('run');
    expect(seen).toEqual([['sm', 'idle', 'run', 0.3]]);
  });

  it('time-remaining and at-end rules read the state\'s most relevant clip', () => {
    // The run clip played once: 'timeRemaining: 0.25' fires at the first update with 0.25 s or less left.
    const duration = (() => {
      const g = machine({ idle: player('run', { loop: false }) }, []);
      g.update(0);
      return smDebug(g).children[0].children[0].values!.duration as number;
    })();
    const dt = 0.05;
    const firstFrame = (rule: unknown, transitionDuration: number) => {
      const g = machine({ idle: player('run', { loop: false }), walk: player('walk') }, [{ from: 'idle', to: 'walk', rule, duration: transitionDuration }]);
      for (let frame = 1; frame < 200; frame++) {
        g.update(dt);
        if (active(g) === 'walk') return frame;
      }
      return -1;
    };
    // The rules are checked at the start of an update, against the clip time of the update before (as Unreal's).
    const expected = (left: number) => {
      for (let frame = 1; ; frame++) if (duration - Math.min(frame * dt, duration) <= left) return frame + 1;
    };
    expect(firstFrame({ timeRemaining: 0.25 }, 0.1)).toBe(expected(0.25));
    expect(firstFrame('atEnd', 0.3)).toBe(expected(0.3));
    expect(firstFrame('atEnd', 0.3)).toBeLessThan(firstFrame('atEnd', 0));
  });

  it('a transition interrupted by another does not pop: weights move at most dt / duration per update', () => {
    const g = machine(three, [
      { from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.4 },
      { from: 'walk', to: 'run', rule: { param: 'speed', op: '>', value: 100 }, duration: 0.2 },
    ]);
    g.update(0.05);
    g.setParameter('speed', 50);
    let previous = weights(g);
    let biggest = 0;
    for (let frame = 0; frame < 20; frame++) {
      if (frame === 4) g.setParameter('speed', 200); // idle -> walk is half way
      g.update(0.05);
      const w = weights(g);
      for (let i = 0; i < 3; i++) biggest = Math.max(biggest, Math.abs(w[i] - previous[i]));
      previous = w;
    }
    expect(active(g)).toBe('run');
    expect(previous).toEqual([0, 0, 1]);
    expect(biggest).toBeLessThanOrEqual(0.05 / 0.2 + 1e-12);
    expect(biggest).toBeGreaterThan(0.2);
  });

  it('inertial transitions switch at once and ask the Inertialization node below', () => {
    const g = machine(three, [{ from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.3, blend: 'inertial' }], 'idle', true);
    const started: number[] = [];
    g.events.on('inertializationStarted', (_id, d) => started.push(d));
    g.update(0.1);
    g.evaluate();
    g.setParameter('speed', 20);
    g.update(0.1);
    g.evaluate();
    expect(weights(g)).toEqual([0, 1, 0]);
    expect(started).toEqual([0.3]);
    const bad = checkGraphAsset(asset({ entry: 'idle', states: three, transitions: [{ from: 'idle', to: 'walk', rule: true, blend: 'inertial' }] }));
    expect(bad.ok ? [] : bad.problems.map((p) => [p.path, p.code])).toEqual([['$.nodes.sm.properties.transitions[0].blend', 'no-inertialization']]);
  });

  it('emits transitionStarted, stateExited, stateEntered in that order', () => {
    const g = machine(three, [{ from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.25 }]);
    const seen: unknown[] = [];
    g.events.on('transitionStarted', (...a) => seen.push(['started', ...a]));
    g.events.on('stateExited', (...a) => seen.push(['exited', ...a]));
    g.events.on('stateEntered', (...a) => seen.push(['entered', ...a]));
    g.update(0.1);
    g.setParameter('speed', 20);
    g.update(0.1);
    expect(seen).toEqual([['entered', 'sm', 'idle'], ['started', 'sm', 'idle', 'walk', 0.25], ['exited', 'sm', 'idle'], ['entered', 'sm', 'walk']]);
  });

  it('shows the active state, the transition under way and each blending state\'s subtree', () => {
    const g = machine(three, [{ from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.4 }]);
    g.update(0.1);
    g.setParameter('speed', 20);
    g.update(0.1);
    const d = smDebug(g);
    expect(d.description).toBe('State: walk Transition: idle -> walk 0.100 / 0.400');
    expect(d.values).toMatchObject({ activeState: 'walk', transitioning: true, transitionFrom: 'idle', transitionElapsed: 0.1, transitionDuration: 0.4 });
    expect(d.children.map((c) => [c.id, c.type, c.description, c.weight])).toEqual([['idle', 'State', 'idle', 0.75], ['walk', 'State', 'walk (active)', 0.25]]);
    expect(d.children[1].children[0]).toMatchObject({ id: 'sm/walk/p', type: 'SequencePlayer', weight: 0.25 });
  });

  it('restarts a state entered with no weight, and lets one still blending out continue', () => {
    const g = machine(three, [
      { from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.4 },
      { from: 'walk', to: 'idle', rule: { param: 'speed', op: '<=', value: 10 }, duration: 0.4 },
    ]);
    const time = (state: string) => smDebug(g).children.find((c) => c.id === state)!.children[0].values!.time as number;
    g.update(0.1);
    g.setParameter('speed', 20);
    g.update(0.1);
    g.update(0.1);
    expect(time('idle')).toBeCloseTo(0.3, 12);
    g.setParameter('speed', 0); // back to idle while it still has weight: it goes on
    g.update(0.1);
    g.update(0.1);
    expect(time('idle')).toBeCloseTo(0.5, 12);
    for (let i = 0; i < 10; i++) g.update(0.1);
    g.setParameter('speed', 20); // walk has had no weight for a while: it starts over, and plays this update
    g.update(0.1);
    expect(time('walk')).toBeCloseTo(0.1, 12);
  });

  it('reports unknown states and bad rules at their paths, with problems inside states, all at once', () => {
    const result = checkGraphAsset(asset({
      entry: 'nowhere',
      states: { idle: player('idle'), walk: { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'sprint' } } }, output: 'p' }, land: { conduit: true } },
      transitions: [
        { from: 'idel', to: 'walk', rule: true },
        { from: 'idle', to: 'flying', rule: { param: 'speeed', op: '>', value: 1 } },
        { from: '*', to: 'idle', rule: { and: [{ param: 'jump', op: '<', value: true }, { not: { param: 'speed', op: '>', value: false } }] } },
        { from: 'walk', to: 'idle', rule: { or: [{ param: 'v', op: '>', value: 1 }, { param: 'jump', value: 2 }, 'soon'] } },
        { from: 'walk', to: 'land' },
      ],
    }));
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems.map((p) => [p.path, p.code]);
    expect(problems).toEqual(expect.arrayContaining([
      ['$.nodes.sm.properties.states.walk.nodes.p.properties.clip', 'unknown-clip'],
      ['$.nodes.sm.properties.entry', 'unknown-state'],
      ['$.nodes.sm.properties.transitions[0].from', 'unknown-state'],
      ['$.nodes.sm.properties.transitions[1].to', 'unknown-state'],
      ['$.nodes.sm.properties.transitions[1].rule.param', 'unknown-parameter'],
      ['$.nodes.sm.properties.transitions[2].rule.and[0].op', 'parameter-type'],
      ['$.nodes.sm.properties.transitions[2].rule.and[1].not.value', 'parameter-type'],
      ['$.nodes.sm.properties.transitions[3].rule.or[0].param', 'parameter-type'],
      ['$.nodes.sm.properties.transitions[3].rule.or[1].value', 'parameter-type'],
      ['$.nodes.sm.properties.transitions[3].rule.or[2]', 'schema'],
      ['$.nodes.sm.properties.transitions[4].rule', 'schema'],
    ]));
    expect(problems, JSON.stringify(problems)).toHaveLength(11);
  });

  it('reports a rule nesting and, or and not more than 64 levels as too-deep at the rule, measured without recursion', () => {
    // Deeper still, an asset is too-deep as a whole before its schema is read (tests/graphs/limits.test.ts).
    const nested = (open: string, close: string, levels: number, leaf: string) => JSON.parse(open.repeat(levels) + leaf + close.repeat(levels));
    const message = 'this rule nests and, or and not more than 64 levels deep (the limit, MAX_RULE_DEPTH)';
    const bad = checkGraphAsset(asset({
      entry: 'idle', states: three, transitions: [
        { from: 'idle', to: 'walk', rule: nested('{"and":[', ']}', 400, 'true') },
        { from: 'walk', to: 'run', rule: nested('{"not":', '}', 900, 'true') },
        // The limit counts the deepest branch, here 65 levels down the second term of an or.
        { from: 'run', to: 'idle', rule: { or: [true, nested('{"not":', '}', 64, '{"param":"nope"}')] } },
      ],
    }));
    expect(bad.ok ? [] : bad.problems).toEqual([
      { path: '$.nodes.sm.properties.transitions[0].rule', code: 'too-deep', message },
      { path: '$.nodes.sm.properties.transitions[1].rule', code: 'too-deep', message },
      { path: '$.nodes.sm.properties.transitions[2].rule', code: 'too-deep', message },
    ]);
    // 64 levels load, and are tested: an even number of nots over true passes.
    const g = machine(three, [{ from: 'idle', to: 'walk', rule: nested('{"not":', '}', 64, 'true'), duration: 0 }]);
    g.update(0.1);
    g.update(0.1);
    expect(active(g)).toBe('walk');
    // A machine compiled from code refuses the deep rule too, rather than overflowing the stack.
    expectAnimGraphError(
      () => compileStateMachine('sm', [{ name: 'a', hasPose: true }], 'a', [{ from: 'a', to: 'a', rule: nested('{"not":', '}', 4000, 'true') }], () => 0),
      'out-of-range', "StateMachine 'sm': a transition rule nests and, or and not more than 64 levels deep (the limit, MAX_RULE_DEPTH)",
    );
    expectAnimGraphError(() => compileStateMachine('sm', [{ name: 'a', hasPose: false }], 'a', [], () => 0), 'invalid-data', "StateMachine 'sm': entry 'a' is not a state with a pose");
  });

  it('a state may apply an additive clip (its player feeds ApplyAdditive as at the top level), and a plain clip there is still not-additive', () => {
    const clips = {
      walk: { source: 'builtin:walk' },
      runPosture: { source: 'builtin:run', frames: [0, 0], additive: { reference: { clip: 'walk', frame: 0 } } },
    };
    const lean = (additive: string) => ({
      walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
      posture: { type: 'SequencePlayer', properties: { clip: additive } },
      lean: { type: 'ApplyAdditive', inputs: { base: 'walk', additive: 'posture' }, properties: { alpha: 0.5 } },
    });
    const inState = (additive: string) => ({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips,
      nodes: { sm: { type: 'StateMachine', properties: { entry: 'lean', states: { lean: { nodes: lean(additive), output: 'lean' } }, transitions: [] } } },
      output: 'sm',
    });
    const inside = loadGraphAsset(inState('runPosture')).createInstance();
    const top = loadGraphAsset({ format: 'animgraph/1', skeleton: 'builtin:biped', clips, nodes: lean('runPosture'), output: 'lean' }).createInstance();
    for (let f = 0; f < 20; f++) {
      inside.update(1 / 30);
      top.update(1 / 30);
    }
    expect(Array.from(inside.evaluate().rotations)).toEqual(Array.from(top.evaluate().rotations));
    const bad = checkGraphAsset(inState('walk'));
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.problems.map((p) => [p.path, p.code])).toEqual([['$.nodes.sm.properties.states.lean.nodes.lean.inputs.additive', 'not-additive']]);
    }
  });

  it('runs the example locomotion machine: idle, walk, run and a jump from any state back to walk', () => {
    const path = new URL('../../graphs/examples/sample-state-machine.json', import.meta.url).pathname;
    const graph = loadGraphAsset(JSON.parse(readFileSync(path, 'utf8')), { baseDir: new URL('../../graphs/examples/', import.meta.url).pathname });
    const result = runGraph(graph, {
      seconds: 3, fps: 20, debug: true,
      timeline: [{ name: 'speed', value: 100, time: 0.2 }, { name: 'speed', value: 300, time: 1 }, { name: 'jump', value: true, time: 1.6 }, { name: 'jump', value: false, time: 1.8 }],
    });
    const activeAt = (t: number) => result.frames[Math.round(t * 20)].debug!.children[0].values!.activeState;
    expect([activeAt(0.1), activeAt(0.5), activeAt(1.2), activeAt(1.7)]).toEqual(['idle', 'walk', 'run', 'jump']);
    // The jump (the run clip at double rate, once) ends and lands through the conduit in run (speed 300).
    expect(activeAt(2.9)).toBe('run');
    // Starting to walk follows the legsFirst profile (speed set at 0.2 s, the blend under way at 0.3 s).
    expect(result.frames[6].debug!.children[0].description).toMatch(/^State: walk Transition: idle -> walk 0\.\d+ \/ 0\.250 Profile: legsFirst$/);
    // From idle straight to 300: idle -> walk -> run in the update the speed changes, the run along its sinusoid.
    const fast = runGraph(graph, { seconds: 0.5, fps: 20, debug: true, timeline: [{ name: 'speed', value: 300, time: 0.2 }] });
    const at = (f: number) => fast.frames[f].debug!.children[0].values!;
    expect([at(3).activeState, at(4).activeState]).toEqual(['idle', 'run']);
    expect(at(4).activeTransitions).toBe(2);
    // run over walk over idle: p = 0.05 / 0.2, sinusoidal r = (sin(πp − π/2) + 1) / 2; beneath it idle -> walk at
    // 0.05 / 0.25 for the upper body, twice that for the legs (legsFirst). A state weighs its largest bone's weight,
    // normalised: idle 0.8 (1 − r), walk 0.4 (1 − r), run r.
    const r = (Math.sin(0.25 * Math.PI - Math.PI / 2) + 1) / 2, total = 1.2 * (1 - r) + r;
    const w = at(4).weights as number[];
    expect(w[0]).toBeCloseTo((0.8 * (1 - r)) / total, 12);
    expect(w[1]).toBeCloseTo((0.4 * (1 - r)) / total, 12);
    expect(w[2]).toBeCloseTo(r / total, 12);
  });

  it('a transition with a blend profile moves each bone at its own pace, and says so in its debug line', () => {
    const held = (clip: string) => player(clip, { playRate: 0, startTime: 0.3 });
    const profiled = (json: Record<string, unknown>) => loadGraphAsset({
      ...asset({ entry: 'idle', states: { idle: held('idle'), walk: held('walk'), run: held('run') }, transitions: [
        { from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.4, blendProfile: 'legsFirst' },
        { from: 'walk', to: 'run', rule: { param: 'speed', op: '>', value: 100 }, duration: 0.2 },
      ] }),
      blendProfiles: { legsFirst: json },
    }).createInstance();
    const g = profiled({ mode: 'timeFactor', branches: [{ bone: 'thigh_l', scale: 0.5 }] });
    const alone = (clip: string) => {
      const m = machine({ only: held(clip) }, [], 'only');
      m.update(0);
      return m.evaluate();
    };
    const idle = Float64Array.from(alone('idle').rotations), walk = Float64Array.from(alone('walk').rotations);
    g.update(0.1);
    g.setParameter('speed', 20);
    g.update(0); // starts, at no time elapsed: the pose is still idle's
    g.evaluate().rotations.forEach((x, k) => expect(x).toBeCloseTo(idle[k], 14));
    g.update(0.2);
    const out = g.evaluate();
    // thigh_l (14) to ball_l (17) are on the walk at half the time; the spine (2) is half way.
    for (let k = 14 * 4; k < 18 * 4; k++) expect(out.rotations[k]).toBeCloseTo(walk[k], 12);
    expect(Math.abs(out.rotations[2 * 4] - walk[2 * 4])).toBeGreaterThan(1e-6);
    expect(Math.abs(out.rotations[2 * 4] - idle[2 * 4])).toBeGreaterThan(1e-6);
    expect(smDebug(g).description).toBe('State: walk Transition: idle -> walk 0.200 / 0.400 Profile: legsFirst');
    expect(smDebug(g).values!.transitionProfile).toBe('legsFirst');
    // Interrupted by the plain transition to run: no pop at the switch.
    const before = Float64Array.from(out.rotations);
    g.setParameter('speed', 200);
    g.update(0);
    g.update(0);
    const after = g.evaluate();
    for (let k = 0; k < before.length; k++) expect(after.rotations[k]).toBeCloseTo(before[k], 12);
    expect(smDebug(g).description).toBe('State: run Transition: walk -> run 0.000 / 0.200 (over 1 more)');
    g.update(0.2);
    expect(Array.from(g.evaluate().rotations)).toEqual(Array.from(alone('run').rotations));
  });

  it('reports a transition\'s unknown blend profile and one of the wrong mode at their paths', () => {
    const result = checkGraphAsset({
      ...asset({ entry: 'idle', states: three, transitions: [
        { from: 'idle', to: 'walk', rule: true, blendProfile: 'nope' },
        { from: 'walk', to: 'run', rule: true, blendProfile: 'mask' },
      ] }),
      blendProfiles: { mask: { mode: 'blendMask', bones: { spine_01: 1 } } },
    });
    expect(result.ok ? [] : result.problems.map((p) => [p.path, p.code])).toEqual([
      ['$.nodes.sm.properties.transitions[0].blendProfile', 'unknown-blend-profile'],
      ['$.nodes.sm.properties.transitions[1].blendProfile', 'blend-profile-mode'],
    ]);
  });
});

describeWithData('StateMachine on CMU subject 2 (walk, walk, run)', () => {
  const cmu = {
    format: 'animgraph/1', skeleton: { bvh: `${CMU}002_01.bvh` },
    clips: { walk: { source: `${CMU}002_01.bvh`, frames: [1, -1] }, walk2: { source: `${CMU}002_02.bvh`, frames: [1, -1] }, run: { source: `${CMU}002_03.bvh`, frames: [1, -1] } },
    parameters: { gait: { type: 'int', default: 0 } },
  };
  const gaitTransitions = [
    { from: 'walk', to: 'run', rule: { param: 'gait', op: '==', value: 1 }, duration: 0.25 },
    { from: 'run', to: 'walk', rule: { param: 'gait', op: '==', value: 0 }, duration: 0.25 },
    { from: 'walk', to: 'walk2', rule: { param: 'gait', op: '==', value: 2 }, duration: 0.4 },
    { from: 'walk2', to: 'run', rule: { param: 'gait', op: '==', value: 1 }, duration: 0.4 },
  ];
  const gaits = (transitions: unknown[] = gaitTransitions) => loadGraphAsset({
    ...cmu,
    nodes: { sm: { type: 'StateMachine', properties: { entry: 'walk', states: { walk: player('walk'), walk2: player('walk2'), run: player('run') }, transitions } } },
    output: 'sm',
  }).createInstance();
  const debug = (g: ReturnType<typeof gaits>) => g.gatherDebug().children[0];

  it('starts a transition in the same update as a BlendList switching on the same parameter, frame for frame on the CMU walk and run', () => {
    const sm = loadGraphAsset({
      ...cmu,
      nodes: { sm: { type: 'StateMachine', properties: { entry: 'walk', states: { walk: player('walk'), run: player('run') }, transitions: gaitTransitions.slice(0, 2) } } },
      output: 'sm',
    }).createInstance();
    const list = loadGraphAsset({
      ...cmu,
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } }, run: { type: 'SequencePlayer', properties: { clip: 'run' } },
        list: { type: 'BlendList', inputs: { poses: ['walk', 'run'] }, properties: { activeIndex: { param: 'gait' }, blendTimes: [0.25, 0.25] } },
      },
      output: 'list',
    }).createInstance();
    let biggest = 0;
    for (let frame = 0; frame < 60; frame++) {
      if (frame === 10 || frame === 30) {
        for (const g of [sm, list]) g.setParameter('gait', frame === 10 ? 1 : 0);
      }
      sm.update(1 / 30);
      list.update(1 / 30);
      const ws = weights(sm), wl = list.gatherDebug().children[0].values!.weights as number[];
      expect(ws[0], `frame ${frame}`).toBeCloseTo(wl[0], 12);
      // Until the switch back: the machine then restarts walk (it has no weight left), the list does not.
      if (frame >= 30) continue;
      const a = sm.evaluate().rotations, b = list.evaluate().rotations;
      for (let k = 0; k < a.length; k++) biggest = Math.max(biggest, Math.abs(a[k] - b[k]));
      if (frame === 10) expect(ws[1]).toBeCloseTo((1 / 30) / 0.25, 12);
    }
    expect(biggest).toBeLessThan(1e-12);
  });

  it('shares its compiled states and transitions between instances, each with its own active state and players', () => {
    const graph = loadGraphAsset(asset({ entry: 'idle', states: three, transitions: [
      { from: 'idle', to: 'walk', rule: { param: 'speed', op: '>', value: 10 }, duration: 0.2 },
      { from: 'walk', to: 'idle', rule: 'atEnd', duration: 0.2 },
    ] }));
    const [a, b] = [graph.createInstance(), graph.createInstance()];
    type Inside = { states: unknown; players: { clip: { clip: { name: string } } }[][] };
    const [ia, ib] = [a, b].map((g) => g.nodes.get('sm') as unknown as Inside);
    expect(ia.states).toBe(ib.states); // one table per graph
    a.setParameter('speed', 20);
    for (let f = 0; f < 3; f++) for (const g of [a, b]) g.update(0.1);
    expect([active(a), active(b)]).toEqual(['walk', 'idle']);
    // Each instance's time-remaining rules read its own players.
    expect(ia.players.map((ps) => ps.map((p) => p.clip.clip.name))).toEqual([['idle'], ['walk'], ['run']]);
    expect(ia.players[1][0]).not.toBe(ib.players[1][0]);
  });

  it('follows any of Unreal\'s blend curves, or a clip\'s curve, and reports a bad one at its path', () => {
    const eased = (curve: unknown, clipCurves?: Record<string, [number, number][]>) => {
      const g = loadGraphAsset({
        ...cmu,
        clips: { ...cmu.clips, walk: { ...cmu.clips.walk, ...(clipCurves ? { curves: clipCurves } : {}) } },
        nodes: { sm: { type: 'StateMachine', properties: { entry: 'walk', states: { walk: player('walk'), run: player('run') }, transitions: [
          { from: 'walk', to: 'run', rule: { param: 'gait', op: '==', value: 1 }, duration: 0.4, curve },
        ] } } },
        output: 'sm',
      }).createInstance();
      g.update(1 / 60);
      g.setParameter('gait', 1);
      g.update(0.1); // p = 0.25
      return (debug(g).values!.weights as number[])[1];
    };
    expect(eased('sinusoidal')).toBeCloseTo((1 - Math.SQRT1_2) / 2, 12);
    expect(eased('expInOut')).toBeCloseTo(2 ** -5 / 2, 12);
    expect(eased('quarticInOut')).toBeCloseTo(0.5 ** 4 / 2, 12);
    expect(eased({ keys: [[0, 0], [1, 0.9], [4, 1]] })).toBeCloseTo(0.9, 12); // time 1 of [0, 4]
    expect(eased({ clip: 'walk', curve: 'ease' }, { ease: [[0, 0], [0.5, 0.3], [2, 1]] })).toBeCloseTo(0.3, 12); // time 0.5 of [0, 2]
    const bad = checkGraphAsset(asset({ entry: 'idle', states: three, transitions: [
      { from: 'idle', to: 'walk', rule: true, curve: 'smoothstep' },
      { from: 'walk', to: 'run', rule: true, curve: { keys: [[0, 0], [0.5, 1], [0.5, 1]] } },
      { from: 'run', to: 'idle', rule: true, curve: { clip: 'jog', curve: 'x' } },
    ] }));
    expect(bad.ok ? [] : bad.problems.map((p) => [p.path, p.code])).toEqual([
      ['$.nodes.sm.properties.transitions[0].curve', 'schema'],
      ['$.nodes.sm.properties.transitions[1].curve.keys[2][0]', 'schema'],
      ['$.nodes.sm.properties.transitions[2].curve.clip', 'unknown-clip'],
    ]);
    // A curve the clip does not have is found when the graph is bound.
    const noCurve = checkGraphAsset(asset({ entry: 'idle', states: three, transitions: [{ from: 'run', to: 'walk', rule: true, curve: { clip: 'walk', curve: 'x' } }] }));
    expect(noCurve.ok ? [] : noCurve.problems.map((p) => [p.path, p.code, p.message])).toEqual([
      ['$.nodes.sm.properties.transitions[0].curve.curve', 'schema', "clip 'walk' has no curve 'x' (it has none)"],
    ]);
  });

  it('re-entering a state that still has weight takes the share of the duration it has left to gain', () => {
    const g = gaits();
    g.update(1 / 60);
    g.setParameter('gait', 1);
    g.update(0.065); // walk -> run: run at 0.065 / 0.25 = 0.26, walk at 0.74
    expect((debug(g).values!.weights as number[])[0]).toBeCloseTo(0.74, 12);
    g.setParameter('gait', 0);
    g.update(0.01); // back to walk, at 0.74 of its weight: 0.25 × (1 - 0.74) = 0.065 s
    const d = debug(g).values!;
    expect(d.transitionDuration).toBeCloseTo(0.065, 12);
    // The older transition went on to 0.075 / 0.25 (walk 0.7) beneath the new one's 0.01 / 0.065.
    const alpha = 0.01 / 0.065;
    expect((d.weights as number[])[0]).toBeCloseTo(0.7 * (1 - alpha) + alpha, 12);
    g.update(0.055);
    expect(debug(g).values!.weights).toEqual([1, 0, 0]);
    expect(debug(g).values!.transitioning).toBe(false);
  });

  it('an interrupted crossfade keeps advancing under the new one, and the pose is the weighted blend of the three states', () => {
    const g = gaits();
    g.update(1 / 60);
    g.setParameter('gait', 2);
    g.update(0.2); // walk -> walk2 half way (0.2 / 0.4)
    g.setParameter('gait', 1);
    g.update(0.1); // walk2 -> run starts: 0.1 / 0.4 = 0.25; walk -> walk2 goes on to 0.3 / 0.4 = 0.75 beneath it
    const w = debug(g).values!.weights as number[];
    expect(w[0]).toBeCloseTo(0.25 * 0.75, 12);
    expect(w[1]).toBeCloseTo(0.75 * 0.75, 12);
    expect(w[2]).toBeCloseTo(0.25, 12);
    expect(debug(g).description).toBe('State: run Transition: walk2 -> run 0.100 / 0.400 (over 1 more)');
    // The pose: each state's own pose (players at their own times) weighted so, rotations renormalised.
    const alone = (clip: string, time: number) => {
      const m = loadGraphAsset({ ...cmu, nodes: { p: { type: 'SequencePlayer', properties: { clip, playRate: 0, startTime: time } } }, output: 'p' }).createInstance();
      m.update(0);
      return Float64Array.from(m.evaluate().rotations);
    };
    const poses = [alone('walk', 1 / 60 + 0.3), alone('walk2', 0.3), alone('run', 0.1)];
    const out = g.evaluate().rotations;
    let biggest = 0;
    for (let b = 0; b < out.length; b += 4) {
      const q = [0, 0, 0, 0];
      for (let s = 0; s < 3; s++) {
        // Each pose's rotation in the first's hemisphere, as the blend accumulates them.
        const p = poses[s], sign = p[b] * poses[0][b] + p[b + 1] * poses[0][b + 1] + p[b + 2] * poses[0][b + 2] + p[b + 3] * poses[0][b + 3] < 0 ? -1 : 1;
        for (let c = 0; c < 4; c++) q[c] += w[s] * sign * p[b + c];
      }
      const len = Math.hypot(...q);
      for (let c = 0; c < 4; c++) biggest = Math.max(biggest, Math.abs(q[c] / len - out[b + c]));
    }
    expect(biggest).toBeLessThan(1e-9);
    g.update(0.3); // run's transition completes: both are dropped
    expect(debug(g).values!.weights).toEqual([0, 0, 1]);
  });
});
