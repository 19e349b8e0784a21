import { afterAll, describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset, loadGraphFile } from '../../../host/files.ts';
import { Crowd } from '../../../host/crowd.ts';
import { AnimGraph } from '../../../runtime/graph/graph.ts';
import { InstanceBatch } from '../../../runtime/graph/instance-batch.ts';
import type { ParameterDefinition } from '../../../runtime/node/parameters.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';
import type { DebugNode } from '../../../runtime/node/node.ts';
import { runProbe } from '../../support/allocation.ts';
import { expectRowsLikeAlone } from '../../support/batch-rows.ts';
import { calmToBrisk, CURVE_CLIPS, curveDrivenGraph } from '../../support/curve-graphs.ts';
import { expectAnimGraphError } from '../../support/errors.ts';
import { CMU, describeWithData } from '../../support/shared-data.ts';

/*
 * Curves that drive the graph (runtime/graph/curve-inputs.ts): a property bound to { curve } and a
 * parameter declared with a curve read the curve as the previous update left it. Steps of 0.25 s
 * land on exact binary times of the built-in clips, so values are compared exactly.
 */

function asset(nodes: Record<string, unknown>, output: string, parameters: Record<string, unknown> = {}): Record<string, unknown> {
  return { format: 'animgraph/1', skeleton: 'builtin:biped', clips: CURVE_CLIPS, parameters, nodes, output };
}

/** The idle (whose `ramp` rises 0.5 a second) blended towards the walk (no `ramp` counted: see CURVE_CLIPS) by `alpha`. */
function rampBlend(alpha: unknown, parameters: Record<string, unknown> = {}): AnimGraphInstance {
  return loadGraphAsset(asset({
    idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run' } },
    blend: { type: 'BlendTwo', inputs: { A: 'idle', B: 'run' }, properties: { alpha } },
  }, 'blend', parameters)).createInstance();
}

/** The debug line of node `id` in the instance's tree. */
function debugOf(g: AnimGraphInstance, id: string): DebugNode {
  const find = (n: DebugNode): DebugNode | undefined => (n.id === id ? n : n.children.map(find).find((x) => x !== undefined));
  const found = find(g.gatherDebug());
  if (!found) throw new Error(`no node ${id} in the debug tree`);
  return found;
}

describe('a property bound to a curve', () => {
  it("reads the curve as the previous update left it: a BlendTwo's alpha on the idle's rising ramp, 0 at the first update", () => {
    const g = rampBlend({ curve: 'ramp' });
    const alphas: number[] = [], curves: number[] = [];
    for (let i = 0; i < 5; i++) {
      g.update(0.25);
      g.evaluate();
      alphas.push(debugOf(g, 'blend').values!.alpha as number);
      curves.push(g.curve('ramp'));
    }
    // After update n the idle is at 0.25 n s, its ramp at 0.125 n, weighted by 1 - alpha (the run has no ramp):
    // 0.125, 0.875 * 0.25, (1 - 0.21875) * 0.375, ...
    expect(curves).toEqual([0.125, 0.21875, 0.29296875, 0.353515625, 0.404052734375]);
    expect(alphas).toEqual([0, ...curves.slice(0, 4)]);
    // The debug line says it as it says a parameter-bound alpha.
    expect(debugOf(g, 'blend').description).toBe('Alpha: 35.4%');
  });

  it('gives the same poses, bit for bit, as a parameter set from code to the curve of the frame before', () => {
    const bound = rampBlend({ curve: 'ramp' });
    const manual = rampBlend({ param: 'alpha' }, { alpha: { type: 'float', default: 0 } });
    for (let i = 0; i < 40; i++) {
      bound.update(1 / 30);
      manual.update(1 / 30);
      expect(Array.from(bound.evaluate().rotations)).toEqual(Array.from(manual.evaluate().rotations));
      manual.setParameter('alpha', manual.curve('ramp'));
    }
    expect(bound.curve('ramp')).toBeGreaterThan(0.3); // the blend moved
  });

  it('drives a bool property by whether the curve is not 0: a BlendByBool switching when `flip` steps to 1 at 1 s', () => {
    const g = loadGraphAsset(asset({
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      run: { type: 'SequencePlayer', properties: { clip: 'run' } },
      pick: { type: 'BlendByBool', inputs: { True: 'run', False: 'idle' }, properties: { active: { curve: 'flip' } } },
    }, 'pick')).createInstance();
    const active: number[] = [];
    for (let i = 0; i < 6; i++) {
      g.update(0.25);
      active.push(debugOf(g, 'pick').values!.activeIndex as number);
    }
    // flip is 1 from the idle's 1 s (update 4); update 5 reads it, and the run (index 0, True) takes over,
    // whose lack of `flip` turns it back at update 6.
    expect(active).toEqual([1, 1, 1, 1, 0, 1]);
  });

  it('restarts from 0 on reset, as a new instance', () => {
    const g = rampBlend({ curve: 'ramp' });
    for (let i = 0; i < 3; i++) g.update(0.25);
    g.reset();
    g.update(0.25);
    expect(debugOf(g, 'blend').values!.alpha).toBe(0);
    g.update(0.25);
    expect(debugOf(g, 'blend').values!.alpha).toBe(0.125);
  });
});

describe('a parameter that follows a curve', () => {
  const machine = (rule: unknown) => loadGraphAsset(asset(
    { machine: calmToBrisk([{ from: 'calm', to: 'brisk', rule, duration: 0.2 }]) }, 'machine', { rising: { type: 'float', default: 0.5, curve: 'ramp' }, flipped: { type: 'bool', curve: 'flip' } },
  )).createInstance();

  it('holds its default until the first update, then the curve of the update before, which code reads and rules test', () => {
    const g = machine({ param: 'rising', op: '>', value: 0.3 });
    const started: number[] = [];
    let update = 0;
    g.events.on('transitionStarted', () => started.push(update));
    expect(g.getParameter('rising')).toBe(0.5);
    const seen: number[] = [];
    for (update = 1; update <= 5; update++) {
      g.update(0.25);
      seen.push(g.getParameter('rising') as number);
    }
    // The default for the first update: 0.5 > 0.3 starts the transition to the run (which has no
    // ramp) at once, over within the update, so every later update reads 0.
    expect(seen).toEqual([0.5, 0, 0, 0, 0]);
    expect(started).toEqual([1]);
    // Without a default the first update reads 0. The curve read as this update leaves it (0.375
    // after update 3) would start it at update 3; the previous update's starts it at update 4.
    const k = loadGraphAsset(asset(
      { machine: calmToBrisk([{ from: 'calm', to: 'brisk', rule: { param: 'rising', op: '>', value: 0.3 }, duration: 0.2 }]) }, 'machine', { rising: { type: 'float', curve: 'ramp' } },
    )).createInstance();
    const starts: number[] = [], rising: number[] = [];
    k.events.on('transitionStarted', () => starts.push(update));
    for (update = 1; update <= 5; update++) {
      k.update(0.25);
      rising.push(k.getParameter('rising') as number);
    }
    expect(starts).toEqual([4]);
    // The idle's ramp after update n - 1, 0.125 (n - 1), until the run takes over at update 4.
    expect(rising).toEqual([0, 0.125, 0.25, 0.375, 0]);
  });

  it('a bool parameter is true while the curve is not 0', () => {
    const g = machine({ param: 'flipped' });
    const seen: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      g.update(0.25);
      seen.push(g.getParameter('flipped') as boolean);
    }
    // flip is 1 after update 4 (the idle at 1 s); update 5 reads it and goes to the run (a 0.2 s
    // transition, over within the 0.25 s update), which has no flip: update 6 reads 0.
    expect(seen).toEqual([false, false, false, false, true, false]);
  });

  it('cannot be set from code (each update would overwrite it unseen)', () => {
    const g = machine(true);
    expectAnimGraphError(() => g.setParameter('rising', 1), 'invalid-state', `parameter 'rising' follows curve 'ramp' (its declaration's "curve"): each update sets it from the curve, so it cannot be set`);
    // The instance's Parameters refuse it too: a value set there would be overwritten at the next update.
    expectAnimGraphError(() => g.parameters.set('rising', 1), 'invalid-state', /follows curve 'ramp'/);
    expect(g.getParameter('rising')).toBe(0.5);
  });
});

describe('curve bindings: load problems at their JSON paths', () => {
  const problems = (json: Record<string, unknown>) => {
    const result = checkGraphAsset(json);
    return result.ok ? [] : result.problems.map((p) => [p.path, p.code, p.message]);
  };

  it('reports an unknown curve, a curve on a vec3 or int property, on a property read once, and in a state', () => {
    expect(problems(asset({
      idle: { type: 'SequencePlayer', properties: { clip: 'idle', playRate: { curve: 'rmap' } } },
      bone: { type: 'ModifyBone', inputs: { pose: 'idle' }, properties: { bone: 'spine_01', rotation: { curve: 'ramp' } } },
      machine: {
        type: 'StateMachine',
        properties: {
          entry: 'a',
          states: { a: { nodes: { p: { type: 'SequencePlayer', properties: { clip: 'run', loop: { curve: 'nope' } } } }, output: 'p' } },
          transitions: [],
        },
      },
      list: { type: 'BlendList', inputs: { poses: ['bone', 'machine'] }, properties: { activeIndex: { curve: 'ramp' } } },
    }, 'list'))).toEqual([
      ['$.nodes.idle.properties.playRate.curve', 'unknown-curve', "no clip of the graph has a curve 'rmap' (curves: ramp, flip)"],
      ['$.nodes.bone.properties.rotation.curve', 'curve-type', "property 'rotation' is vec3; a curve drives float and bool properties only"],
      ['$.nodes.list.properties.activeIndex.curve', 'curve-type', "property 'activeIndex' is int; a curve drives float and bool properties only"],
      ['$.nodes.machine.properties.states.a.nodes.p.properties.loop.curve', 'unknown-curve', "no clip of the graph has a curve 'nope' (curves: ramp, flip)"],
    ]);
  });

  it('reports a parameter following an unknown curve, and a curve on an int parameter', () => {
    expect(problems(asset({ idle: { type: 'SequencePlayer', properties: { clip: 'idle' } } }, 'idle', {
      a: { type: 'float', curve: 'ramps' },
      n: { type: 'int', curve: 'ramp' },
    }))).toEqual([
      ['$.parameters.n', 'schema', expect.stringMatching(/^unexpected key "curve": expected .*\{"type": "int", "default"\?: number, "description"\?: string\}/)],
      ['$.parameters.a.curve', 'unknown-curve', "no clip of the graph has a curve 'ramps' (curves: ramp, flip)"],
    ]);
  });
});

describe('curve bindings in a graph built in code', () => {
  it('throw an AnimGraphError for an unknown curve, or a curve on an int property or parameter', () => {
    const loaded = loadGraphAsset(asset({
      idle: { type: 'SequencePlayer', properties: { clip: 'idle' } },
      pick: { type: 'BlendList', inputs: { poses: ['idle'] }, properties: { activeIndex: 0 } },
    }, 'pick'));
    const clips = new Map([...loaded.clipBindings].map(([n, b]) => [n, b.clip]));
    const make = (index: unknown, parameters: Record<string, ParameterDefinition> = {}) => new AnimGraph({
      name: 'code', skeleton: loaded.skeleton, parameters, clips,
      nodes: loaded.nodes.map((n) => (n.id === 'pick' ? { ...n, properties: { activeIndex: index as number } } : n)),
    });
    expectAnimGraphError(() => make(0, { r: { type: 'float', curve: 'rmap' } }), 'unknown-name', "parameter 'r' follows curve 'rmap', which no clip of graph 'code' carries (curves: flip, ramp)");
    expectAnimGraphError(() => make({ curve: 'ramp' }), 'invalid-data', "node 'pick': property 'activeIndex' is int; a curve drives float and bool properties only");
    expectAnimGraphError(() => make(0, { n: { type: 'int', curve: 'ramp' } }), 'invalid-data', "parameter 'n' is int; only float and bool parameters follow a curve");
    const driven = make(0, { r: { type: 'float', curve: 'ramp' } });
    expect(driven.curveInputs?.drivenSlots).toEqual(Uint8Array.of(1));
    expectAnimGraphError(() => driven.createInstance().setParameter('r', 1), 'invalid-state', /follows curve 'ramp'/);
  });
});

describe('curve bindings below full update rate', () => {
  it("read the graph's own previous update, not the curve the display interpolates", () => {
    const g = rampBlend({ curve: 'ramp' });
    g.setUpdateRate(3);
    let differs = 0, updates = 0, last = g.updateCounter, expected = 0;
    for (let f = 0; f < 60; f++) {
      g.update(1 / 30);
      g.evaluate();
      if (g.updateCounter === last) continue;
      last = g.updateCounter;
      const blend = debugOf(g, 'blend'), idle = debugOf(g, 'idle');
      const alpha = blend.values!.alpha as number;
      expect(alpha).toBeCloseTo(expected, 12);
      if (Math.abs(alpha - g.curve('ramp')) > 1e-3) differs++;
      // What this update's curves are: the idle's ramp at its time, weighted by 1 - alpha.
      expected = (1 - alpha) * ((idle.values!.time as number) / 2);
      updates++;
    }
    expect(updates).toBeGreaterThan(15);
    expect(differs).toBeGreaterThan(10); // the displayed curve is not what the graph read
  });
});

describe('curve bindings in batches and crowds', () => {
  const crowds: Crowd[] = [];
  afterAll(async () => {
    await Promise.all(crowds.map((c) => c.close()));
  }, 60_000);
  const SUPPORT = new URL('../../support/curve-graphs.ts', import.meta.url).href;
  const DT = [1 / 60, 1 / 30, 0, 1 / 60, 0.05, 1 / 60, 1 / 60, 1 / 30, 1 / 60, 1 / 60, 0.04, 1 / 60];

  /** Characters set apart: their own walk share every frame, some below full rate, one reset. */
  function drive(count: number, set: (i: number, walk: number) => void, rate: (i: number, r: number) => void, reset: (i: number) => void, update: (dt: number) => void): void {
    for (let i = 0; i < count; i++) if (i % 3 === 1) rate(i, 2 + (i % 2));
    DT.forEach((dt, f) => {
      for (let i = 0; i < count; i++) set(i, ((i + f) % 5) / 5);
      if (f === 6) reset(2);
      for (let k = 0; k < 20; k++) update(dt);
    });
  }

  it('an InstanceBatch gives each character the poses it has alone', () => {
    const graph = curveDrivenGraph(), count = 5;
    const batch = new InstanceBatch(graph, count, { componentSpace: true });
    const alone = Array.from({ length: count }, () => graph.createInstance());
    drive(count, (i, w) => {
      batch.instances[i].setParameter('walk', w);
      alone[i].setParameter('walk', w);
    }, (i, r) => {
      batch.instances[i].setUpdateRate(r, i);
      alone[i].setUpdateRate(r, i);
    }, (i) => {
      batch.instances[i].reset();
      alone[i].reset();
    }, (dt) => {
      batch.update(dt);
      for (const a of alone) a.update(dt);
    });
    expectRowsLikeAlone(batch, alone);
    expect(alone.map((a) => a.getParameter('flipped'))).toContain(true);
  });

  for (const workers of [0, 1]) {
    it(`a Crowd with ${workers} worker(s) gives each character the poses it has alone, and refuses its curve-driven parameters`, async () => {
      const count = 5;
      const crowd = await Crowd.create({ source: { module: SUPPORT, export: 'curveDrivenGraph' }, count, workers, componentSpace: true });
      crowds.push(crowd);
      const graph = curveDrivenGraph();
      const alone = Array.from({ length: count }, () => graph.createInstance());
      drive(count, (i, w) => {
        crowd.setParameter(i, 'walk', w);
        alone[i].setParameter('walk', w);
      }, (i, r) => {
        crowd.setUpdateRate(i, r, i);
        alone[i].setUpdateRate(r, i);
      }, (i) => {
        crowd.reset(i);
        alone[i].reset();
      }, (dt) => {
        crowd.update(dt);
        for (const a of alone) a.update(dt);
      });
      expectRowsLikeAlone(crowd, alone);
      expectAnimGraphError(() => crowd.setParameter(0, 'rising', 1), 'invalid-state', /follows curve 'ramp'/);
      expectAnimGraphError(() => crowd.getParameter(0, 'flipped'), 'invalid-state', /follows curve 'flip'/);
      expect(crowd.getParameter(4, 'walk')).toBe(((4 + DT.length - 1) % 5) / 5);
    });
  }
});

describe('curve bindings: allocation', () => {
  it('allocate nothing per frame, at full rate and below, with a float, a bool and a rule driven by curves', () => {
    for (const flags of [[], ['--max-inlined-bytecode-size=50']]) {
      const result = runProbe('curve-inputs-allocation-probe.ts', flags);
      expect(result.perFrame).toBeLessThan(1);
      // The curves moved what they drive.
      expect(result.rising).toBeGreaterThan(0);
      expect(typeof result.flipped).toBe('boolean');
    }
  });
});

describe('the example sample-curve-driven.json', () => {
  it('leans the walk by its curve, and its parameter follows the same curve', () => {
    const g = loadGraphFile(new URL('../../../graphs/examples/sample-curve-driven.json', import.meta.url).pathname).createInstance();
    let peak = 0;
    for (let i = 0; i < 66; i++) {
      const before = g.curve('lean');
      g.update(1 / 60);
      const alpha = debugOf(g, 'lean').values!.alpha as number;
      expect(alpha).toBe(i === 0 ? 0 : before);
      expect(g.getParameter('lean')).toBe(alpha);
      peak = Math.max(peak, alpha);
    }
    expect(peak).toBeGreaterThan(0.95); // a step's full lean, at 0.275 s of the walk
  });
});

describeWithData('curve bindings on CMU captures', () => {
  it("a walk's authored stride curve blends in a run, as a parameter set to the curve of the frame before would", () => {
    const json = (alpha: unknown, parameters: Record<string, unknown>) => ({
      format: 'animgraph/1', skeleton: { bvh: `${CMU}002_01.bvh` },
      clips: {
        walk: { source: `${CMU}002_01.bvh`, curves: { stride: [[0, 0], [0.7, 1], [1.4, 0], [2.1, 1], [2.8, 0]] } },
        run: { source: `${CMU}002_03.bvh`, frames: [1, 17] },
      },
      parameters,
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        run: { type: 'SequencePlayer', properties: { clip: 'run' } },
        blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha } },
      },
      output: 'blend',
    });
    const bound = loadGraphAsset(json({ curve: 'stride' }, { stride: { type: 'float', curve: 'stride' } })).createInstance();
    const manual = loadGraphAsset(json({ param: 'alpha' }, { alpha: { type: 'float', default: 0 } })).createInstance();
    let most = 0;
    for (let i = 0; i < 120; i++) {
      bound.update(1 / 30);
      manual.update(1 / 30);
      expect(bound.getParameter('stride')).toBe(manual.getParameter('alpha'));
      expect(Array.from(bound.evaluate().translations)).toEqual(Array.from(manual.evaluate().translations));
      expect(Array.from(bound.evaluate().rotations)).toEqual(Array.from(manual.evaluate().rotations));
      manual.setParameter('alpha', manual.curve('stride'));
      most = Math.max(most, bound.curve('stride'));
    }
    // The run's share reached well into the blend (the walk's curve weighted by its own share).
    expect(most).toBeGreaterThan(0.4);
  });
});
