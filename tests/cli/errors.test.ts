import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { NonFiniteError, OutputError, parseOptions, parseSet, runLength, UsageError, withSetTexts, writing } from '../../cli/common.ts';
import { OutputClosed } from '../../cli/io.ts';
import { PortInUseError } from '../../cli/view-server.ts';
import { loadGraphFile } from '../../host/files.ts';
import { runGraph, TimelineError } from '../../host/runner.ts';
import { expectAnimGraphError } from '../support/errors.ts';

const LOCOMOTION = fileURLToPath(new URL('../../graphs/examples/sample-locomotion.json', import.meta.url));
const CURVE_DRIVEN = fileURLToPath(new URL('../../graphs/examples/sample-curve-driven.json', import.meta.url));

/** The command's errors are AnimGraphErrors too; main turns them into exit codes (its output is tested in cli.test.ts). */
describe('the command throws AnimGraphErrors with a code', () => {
  it('a bad argument: usage errors, code invalid-argument', () => {
    const unknown = expectAnimGraphError(() => parseOptions(['--nope'], {}), 'invalid-argument', /^Unknown option '--nope'/);
    expect(unknown).toBeInstanceOf(UsageError);
    expect(unknown.name).toBe('UsageError');
    expect(unknown.cause).toBeInstanceOf(Error);
    expectAnimGraphError(() => runLength({ frames: '0' }), 'invalid-argument', "--frames needs a whole number from 1 to 10,000,000, got '0'");
  });

  it('an unknown name or a late change on the command line: a usage error too, the runner\'s error its cause', () => {
    const graph = loadGraphFile(LOCOMOTION);
    expectAnimGraphError(() => parseSet('nope=1', graph), 'invalid-argument', /^--set 'nope=1': unknown parameter 'nope' \(parameters: /);
    const late = expectAnimGraphError(() => withSetTexts(['gait=2@9'], () => runGraph(graph, { frames: 2, timeline: [parseSet('gait=2@9', graph)] })), 'invalid-argument', /^--set 'gait=2@9': 'gait' at 9 s is after the run's last frame/);
    expect(late.cause).toBeInstanceOf(TimelineError);
  });

  it('a change to a parameter a curve sets: refused before the run, with the instance\'s error as cause', () => {
    const graph = loadGraphFile(CURVE_DRIVEN);
    const refused = expectAnimGraphError(() => withSetTexts(['lean=0.3@0.05'], () => runGraph(graph, { frames: 4, timeline: [parseSet('lean=0.3@0.05', graph)] })),
      'invalid-argument', `--set 'lean=0.3@0.05': parameter 'lean' follows curve 'lean' (its declaration's "curve"): each update sets it from the curve, so it cannot be set`);
    expect(refused.cause).toBeInstanceOf(TimelineError);
  });

  it('a file that cannot be written, a closed output, a port in use: code io, with the system error as cause', () => {
    const denied = Object.assign(new Error("EACCES: permission denied, open '/x/y'"), { code: 'EACCES' });
    const error = expectAnimGraphError(() => writing('/x/y', () => { throw denied; }), 'io', 'cannot write /x/y: EACCES: permission denied');
    expect(error).toBeInstanceOf(OutputError);
    expect(error).toMatchObject({ name: 'OutputError', file: '/x/y', reason: 'EACCES: permission denied', cause: denied });
    expect(new OutputClosed()).toMatchObject({ code: 'io', name: 'OutputClosed' });
    expect(new PortInUseError(7860)).toMatchObject({ code: 'io', name: 'PortInUseError', port: 7860 });
  });

  it('a graph producing a non-finite number: code internal', () => {
    expect(new NonFiniteError('frame 3: …')).toMatchObject({ code: 'internal', name: 'NonFiniteError', message: 'frame 3: …' });
  });
});
