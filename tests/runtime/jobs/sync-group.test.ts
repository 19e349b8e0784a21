import { describe, expect, it } from 'vitest';
import { checkGraphAsset, loadGraphAsset } from '../../../host/files.ts';
import type { SequencePlayer } from '../../../nodes/SequencePlayer.ts';
import type { AnimGraphInstance } from '../../../runtime/graph/instance.ts';

// walk lasts 1.1 s, run 0.7 s.
const markers = {
  walk: [{ name: 'footL', time: 0.1 }, { name: 'footR', time: 0.65 }],
  run: [{ name: 'footR', time: 0.6 }, { name: 'footL', time: 0.3 }], // written out of order: sorted at load
};
const pair = (withMarkers: boolean, extra: Record<string, unknown> = {}) => loadGraphAsset({
  format: 'animgraph/1', skeleton: 'builtin:biped',
  clips: {
    walk: { source: 'builtin:walk', ...(withMarkers ? { syncMarkers: markers.walk } : {}) },
    run: { source: 'builtin:run', ...(withMarkers ? { syncMarkers: markers.run } : {}) },
  },
  parameters: { alpha: { type: 'float', default: 0.3 } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk', syncGroup: 'gait', ...extra } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', syncGroup: 'gait' } },
    blend: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'alpha' } } },
  },
  output: 'blend',
}).createInstance();
const time = (g: AnimGraphInstance, id: string) => (g.nodes.get(id) as SequencePlayer).time;

describe('sync groups', () => {
  it('a follower of another length keeps the leader\'s normalised time, across the leader\'s loop', () => {
    const g = pair(false);
    for (let i = 1; i <= 15; i++) {
      g.update(0.13);
      const walk = (0.13 * i) % 1.1;
      expect(time(g, 'walk')).toBeCloseTo(walk, 9);
      expect(time(g, 'run')).toBeCloseTo((walk / 1.1) * 0.7, 9);
    }
  });

  it('the member of highest weight leads from the next frame, going on from where it followed', () => {
    const g = pair(false);
    g.update(0.1);
    g.setParameter('alpha', 0.8); // run now weighs more
    g.update(0.1); // walk still leads this frame
    expect(time(g, 'walk')).toBeCloseTo(0.2, 12);
    const runBefore = time(g, 'run');
    g.update(0.1);
    expect(time(g, 'run')).toBeCloseTo(runBefore + 0.1, 12);
    expect(time(g, 'walk') / 1.1).toBeCloseTo(time(g, 'run') / 0.7, 12);
    expect(g.gatherDebug().children[0].children[1].description).toMatch(/Sync: gait \(leader\)$/);
  });

  it('with markers of the same names, a follower is the same fraction between the same two markers', () => {
    const g = pair(true);
    g.update(0.375); // walk at 0.375: halfway from footL (0.1) to footR (0.65)
    expect(time(g, 'run')).toBeCloseTo(0.3 + 0.5 * 0.3, 12); // halfway from footL (0.3) to footR (0.6)
    g.update(0.525); // walk at 0.9: 0.25 / 0.55 of the way from footR (0.65) to footL (1.2, next loop)
    expect(time(g, 'run')).toBeCloseTo(0.6 + (0.25 / 0.55) * 0.4 - 0.7, 12); // from footR (0.6) to footL (1.0), wrapped
  });

  it('a follower emits sequenceLooped when the leader\'s position wraps it', () => {
    const g = pair(false);
    let loops = 0;
    g.events.on('sequenceLooped', (id) => { if (id === 'run') loops++; });
    for (let i = 0; i < 23; i++) g.update(0.1); // 2.3 s: walk loops twice
    expect(loops).toBe(2);
  });

  it('a follower moves as many loops as the leader, however far the leader goes in a frame', () => {
    const g = pair(false);
    const loops = { walk: 0, run: 0 };
    g.events.on('sequenceLooped', (id) => { if (id === 'walk' || id === 'run') loops[id]++; });
    // 0.7 loops a frame, 6.3 in all: six wraps. The follower took each of these frames as 0.3 loops
    // backwards (the nearer way to its new phase): it wrapped on the frames the leader did not.
    for (let i = 0; i < 9; i++) g.update(0.77);
    expect(loops).toEqual({ walk: 6, run: 6 });
    for (let i = 0; i < 10; i++) g.update(1.1 * 2.25); // two loops and a quarter a frame: one event each
    expect(loops).toEqual({ walk: 16, run: 16 });
    expect(time(g, 'run') / 0.7).toBeCloseTo(time(g, 'walk') / 1.1, 9);
  });

  it('rejects a sync marker past the clip\'s end at its path', () => {
    const result = checkGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { walk: { source: 'builtin:walk', syncMarkers: [{ name: 'footL', time: 0.2 }, { name: 'footR', time: 5 }] } },
      nodes: { walk: { type: 'SequencePlayer', properties: { clip: 'walk', syncGroup: '' } } },
      output: 'walk',
    });
    expect(result.ok ? [] : result.problems.map((p) => `${p.path} [${p.code}]`))
      .toEqual(['$.nodes.walk.properties.syncGroup [schema]', '$.clips.walk.syncMarkers[1].time [schema]'].sort());
  });

  it('a blend space follows a player in its group', () => {
    const g = loadGraphAsset({
      format: 'animgraph/1', skeleton: 'builtin:biped',
      clips: { idle: { source: 'builtin:idle' }, walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
      nodes: {
        lead: { type: 'SequencePlayer', properties: { clip: 'idle', syncGroup: 'g' } },
        bs: { type: 'BlendSpace1D', properties: { samples: [{ clip: 'walk', x: 0 }, { clip: 'run', x: 1 }], x: 0.5, syncGroup: 'g' } },
        blend: { type: 'BlendTwo', inputs: { A: 'lead', B: 'bs' }, properties: { alpha: 0.4 } },
      },
      output: 'blend',
    }).createInstance();
    for (let i = 0; i < 5; i++) g.update(0.1);
    const times = g.gatherDebug().children[0].children[1].values?.times as number[];
    expect(times[0] / 1.1).toBeCloseTo(0.5 / 2, 12);
    expect(times[1] / 0.7).toBeCloseTo(0.5 / 2, 12);
  });
});
