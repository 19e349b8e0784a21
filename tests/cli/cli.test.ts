import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { graphJsonSchema } from '../../editor-meta/schema.ts';
import { loadGraphFile } from '../../host/files.ts';
import { runGraph } from '../../host/runner.ts';
import { cliArgs } from '../support/compiled-sources.ts';

const root = new URL('../../', import.meta.url).pathname;
const sample = `${root}graphs/examples/sample-locomotion.json`;

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return cliWith({ errIsTty: false }, ...args);
}

async function cliWith(options: { errIsTty: boolean }, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const io: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: options.errIsTty };
  const code = await main(args, io);
  return { code, out, err };
}

/**
 * Runs the CLI as a process (from its sources: see tests/support/cli-source.ts) in a shell pipeline
 * whose reader stops early, and returns the CLI's own exit status (pipefail) and its stderr.
 */
function pipeline(args: string, reader: string): { status: number | null; stderr: string; stdout: string } {
  const node = [process.execPath, ...cliArgs([])].map((a) => `"${a}"`).join(' ');
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', `${node} ${args} | ${reader}`], { encoding: 'utf8', cwd: root });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

describe('animgraph run', () => {
  it('prints a ShowDebug-style tree per frame', async () => {
    const { code, out } = await cli('run', sample, '--frames', '3', '--debug', 'text', '--set', 'gait=2@0.03');
    expect(code).toBe(0);
    const frames = out.split('\n\n').filter((b) => b.trim());
    expect(frames).toHaveLength(3);
    expect(frames[1]).toContain('frame 1 time 0.033');
    // Switching to run (index 2) blends over its 0.2 s: 1/30 s in, walk keeps 5/6 of the weight.
    expect(frames[1]).toContain("    BlendList[locomotion]<W:100.0%> (Active: 2 Blend: 0.033 / 0.200)");
    expect(frames[1]).toContain("      SequencePlayer[walk]<W:83.3%> ('walk' Play Time: 0.033)");
    expect(frames[1]).toContain("      SequencePlayer[run]<W:16.7%> ('run' Play Time: 0.033)");
  });

  it('writes poses as JSON lines in the documented format, matching runGraph', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-cli-'));
    const poses = join(dir, 'poses.jsonl');
    const { code, out } = await cli('run', sample, '--seconds', '0.5', '--fps', '20', '--poses', poses, '--set', 'speed=1.5');
    expect(code).toBe(0);
    expect(out).toContain('evaluated 11 frames (0.500 s at 20 fps), 22 bones');
    expect((await cli('run', sample, '--seconds', '0')).out).toContain('evaluated 1 frame (0.000 s at 30 fps)');
    const lines = readFileSync(poses, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(12);
    expect(lines[0].bones[1]).toBe('pelvis');
    expect(lines[0].parents.slice(0, 3)).toEqual([-1, 0, 1]);
    const last = lines[11];
    expect(last).toMatchObject({ frame: 10, time: 0.5, root: [0, 0, 0, 0, 0, 0, 1] }); // the sample clips play in place
    expect(last.local).toHaveLength(22);
    expect(last.local[0]).toHaveLength(10);
    const api = runGraph(loadGraphFile(sample), { seconds: 0.5, fps: 20, timeline: [{ name: 'speed', value: 1.5 }] });
    // JSON keeps every digit of a double (only -0 becomes 0), so compare as JSON text.
    expect(JSON.stringify(last.local)).toBe(JSON.stringify(api.frames[10].local));
    expect(JSON.stringify(last.component)).toBe(JSON.stringify(api.frames[10].component));
    // The root is at rest, so the pelvis's component transform is its local one; the head's is not.
    expect(JSON.stringify(last.component[1])).toBe(JSON.stringify(last.local[1]));
    expect(last.component[5][1]).toBeGreaterThan(140); // head height in cm
  });

  it('writes one JSON debug tree per frame to a file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-cli-'));
    const file = join(dir, 'debug.jsonl');
    const { code } = await cli('run', sample, '--frames', '4', '--debug', 'jsonl', '--debug-out', file);
    expect(code).toBe(0);
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.frame)).toEqual([0, 1, 2, 3]);
    expect(lines[3].tree.children[0].children[0].id).toBe('locomotion');
  });

  it('--update-rate N [--hold] runs the character at a level of detail, as runGraph with updateRate does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-cli-'));
    const poses = join(dir, 'poses.jsonl');
    const { code } = await cli('run', sample, '--frames', '9', '--update-rate', '4', '--hold', '--poses', poses);
    expect(code).toBe(0);
    const lines = readFileSync(poses, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l));
    const full = runGraph(loadGraphFile(sample), { frames: 9 });
    const held = runGraph(loadGraphFile(sample), { frames: 9, updateRate: 4, holdSkippedFrames: true });
    expect(JSON.stringify(lines.map((l) => l.local))).toBe(JSON.stringify(held.frames.map((f) => f.local)));
    // The first frame updates the new graph at once; then it is updated on one frame in four (frames
    // 3 and 7 here) at the shown time, the pose held between.
    const rows = (r: typeof full, f: number) => JSON.stringify(r.frames[f].local);
    for (const f of [0, 3, 7]) {
      held.frames[f].local!.forEach((row, b) => row.forEach((v, i) => expect(v).toBeCloseTo(full.frames[f].local![b][i], 9)));
    }
    expect(rows(held, 1)).toBe(rows(held, 0));
    expect(rows(held, 2)).toBe(rows(held, 0));
    expect(rows(held, 6)).toBe(rows(held, 3));
    expect(rows(held, 4)).not.toBe(rows(full, 4));
    expect(held.frames[1].debug!.weight).toBe(1); // nodes stay relevant on the frames skipped
    // Interpolating (no --hold) the frames between evaluations are neither held nor full-rate.
    const lod = runGraph(loadGraphFile(sample), { frames: 9, updateRate: 4 });
    expect(rows(lod, 5)).not.toBe(rows(lod, 4));
    expect((await cli('run', sample, '--hold')).err).toContain('--hold needs --update-rate N');
    for (const bad of ['0', '256', '1.5', 'x']) {
      const { code, err } = await cli('run', sample, '--update-rate', bad);
      expect(code).toBe(2);
      expect(err).toContain('--update-rate: an update rate is a whole number of frames from 1 (every frame) to 255');
    }
  });

  it('plays montages at their times with --montage, and rejects unknown ones with a usage error', async () => {
    const montage = `${root}graphs/examples/sample-montage.json`;
    const { code, out } = await cli('run', montage, '--frames', '12', '--debug', 'text', '--montage', 'combo:strike@0.2');
    expect(code).toBe(0);
    const frames = out.split('\n\n').filter((b) => b.trim());
    // Played before frame 6 (0.2 s): by frame 7 it has moved 2/30 s from the strike's 0.25, and its
    // weight is the cubic blend in at a third of its 0.2 s, 3/9 − 2/27 = 25.9%.
    expect(frames[5]).toContain("Slot[upperBody]<W:100.0%> ('upperBody' (source))");
    expect(frames[7]).toContain("('upperBody' 'run' 25.9% Play Time: 0.317");
    expect((await cli('run', montage, '--montage', 'nope')).err).toBe("animgraph run: --montage 'nope': no montage 'nope' (montages: combo)\n");
    expect((await cli('run', montage, '--montage', 'combo:nope')).err).toContain("--montage 'combo:nope': montage 'combo' has no section 'nope' (sections: windup, strike, recover)");
    expect((await cli('run', montage, '--frames', '2', '--montage', 'combo@5')).err).toContain("--montage 'combo@5': 'combo' time must be seconds from 0 to the run's last frame");
    expect((await cli('run', montage, '--montage', 'combo@-1')).code).toBe(2);
  });

  it('rejects bad flags and parameter values with a usage error', async () => {
    expect((await cli('run', sample, '--set', 'gait=fast')).err).toContain("'fast' is not a valid int");
    expect((await cli('run', sample, '--set', 'nope=1')).err).toContain("unknown parameter 'nope'");
    // A change after the last frame would never apply: it ran, exit 0, without it.
    const late = await cli('run', sample, '--frames', '2', '--set', 'speed=1.5', '--set', 'gait=2@100');
    expect([late.code, late.err]).toEqual([2, "animgraph run: --set 'gait=2@100': 'gait' at 100 s is after the run's last frame (frame 1 at 0.033333 s), so it would never apply\n"]);
    expect((await cli('run', sample, '--seconds', '1', '--set', 'gait=2@1', '--quiet')).code).toBe(0);
    expect((await cli('plot', sample, '--out', join(tmpdir(), 'late.svg'), '--frames', '2', '--set', 'gait=2@0.5')).err).toContain("--set 'gait=2@0.5': 'gait' at 0.5 s is after the run's last frame");
    expect((await cli('run', sample, '--frames', '0')).code).toBe(2);
    expect((await cli('run', sample, '--debug', 'xml')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
  });
});

describe('output and progress', () => {
  it('stops quietly with exit 0 when the reader of stdout goes away (| head)', () => {
    // 3000 frames of debug text are megabytes, far more than a pipe holds: head has long exited
    // when the CLI writes again, so the write meets a closed pipe (EPIPE).
    const run = pipeline(`run "${sample}" --frames 3000 --debug text`, 'head -n 2');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('frame 0 time 0.000\nOutput[output]<W:100.0%>\n');
    // `true` reads nothing and exits at once, long before the CLI has loaded and writes its schema.
    const schema = pipeline('schema', 'true');
    expect(schema.stderr).toBe('');
    expect(schema.status).toBe(0);
  });

  it('still fails on a real error in a pipeline', () => {
    const bad = pipeline('run /nonexistent/graph.json --debug text', 'head -n 2');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('cannot read graph file');
  });

  it('shows a progress bar on stderr when it is a terminal, for runs of 300 frames or more', async () => {
    const { code, err } = await cliWith({ errIsTty: true }, 'run', sample, '--frames', '300', '--fps', '60');
    expect(code).toBe(0);
    const updates = err.split('\r').filter((s) => s !== '');
    // Frames 1, 51, ..., 251 and the last, each redrawn over the previous with a carriage return.
    expect(updates).toHaveLength(7);
    expect(updates[0]).toBe(`[${'.'.repeat(30)}]   0% frame 1/300`);
    expect(updates[3]).toBe(`[${'#'.repeat(15)}${'.'.repeat(15)}]  50% frame 151/300`);
    expect(updates[6]).toBe(`[${'#'.repeat(30)}] 100% frame 300/300\n`);
    expect((await cliWith({ errIsTty: true }, 'run', sample, '--frames', '300', '--quiet')).err).toBe('');
    expect((await cliWith({ errIsTty: true }, 'run', sample, '--frames', '299')).err).toBe('');
    expect((await cliWith({ errIsTty: false }, 'run', sample, '--frames', '300')).err).toBe('');
  });
});

describe('the inertial example', () => {
  it('switches walk to run and back with --set, as the README shows', async () => {
    const { code, out } = await cli('run', `${root}graphs/examples/sample-inertial.json`, '--seconds', '1.2', '--set', 'running=true@0.3', '--set', 'running=false@0.8', '--debug', 'text');
    expect(code).toBe(0);
    const frame = (n: number) => out.split('\n\n').find((b) => b.startsWith(`frame ${n} `))!;
    expect(frame(12)).toContain("InertialBlend[gait]<W:100.0%> ('Active' Time: 0.100 / 0.300 (33%) Input: A)");
    expect(frame(24)).toContain("('Active' Time: 0.000 / 0.300 (0%) Input: B)");
    expect(frame(36)).toContain("('Inactive' Input: B)");
  });
});

describe('animgraph validate', () => {
  it('prints a one-line summary and exits 0 for a valid graph', async () => {
    const { code, out } = await cli('validate', sample);
    expect(code).toBe(0);
    expect(out.trim()).toBe(`${sample}: valid (22 bones, 3 clips, 5 nodes, 3 parameters)`);
  });

  it('prints every problem with its JSON path and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-cli-'));
    const bad = JSON.parse(readFileSync(sample, 'utf8'));
    bad.nodes.walk.type = 'Walker';
    bad.nodes.headFollowsHand.properties.sourceBone = 'tail';
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(bad));
    const { code, err } = await cli('validate', file);
    expect(code).toBe(1);
    expect(err).toContain('2 problems');
    expect(err).toContain("$.nodes.walk.type: unknown node type 'Walker'");
    expect(err).toContain("$.nodes.headFollowsHand.properties.sourceBone: the skeleton has no bone 'tail' [unknown-bone]");
    // run (and plot, index) print them alike: they printed no codes.
    const run = await cli('run', file, '--frames', '2');
    expect(run.code).toBe(1);
    expect(run.err).toBe(err);
    // A file that cannot be read or parsed is a problem at $ with its code, as run prints it too (validate printed neither).
    const text = join(dir, 'text.json');
    writeFileSync(text, '{ "format": ');
    const invalid = await cli('validate', text);
    expect(invalid.code).toBe(1);
    expect(invalid.err.startsWith(`${text}: 1 problem\n  $: not valid JSON: `)).toBe(true);
    expect(invalid.err.endsWith(' [schema]\n')).toBe(true);
    expect((await cli('run', text)).err).toBe(invalid.err);
    const missing = await cli('validate', join(dir, 'none.json'));
    expect([missing.code, missing.err]).toEqual([1, `${join(dir, 'none.json')}: 1 problem\n  $: cannot read graph file: ENOENT: no such file or directory, open '${join(dir, 'none.json')}' [file]\n`]);
  });
});

describe('animgraph schema', () => {
  it('prints the JSON Schema, and the committed animgraph.schema.json is current', async () => {
    const { code, out } = await cli('schema');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual(graphJsonSchema());
    expect(readFileSync(`${root}animgraph.schema.json`, 'utf8')).toBe(out);
  });

  it('writes the schema to --out FILE and says so', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'animgraph-cli-')), 'schema.json');
    const { code, out } = await cli('schema', '--out', file);
    expect(code).toBe(0);
    expect(out).toBe(`wrote ${file}\n`);
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(`${root}animgraph.schema.json`, 'utf8'));
    expect((await cli('schema', 'extra')).code).toBe(2);
  });
});
