import { describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { parseDecimal, parseParameterValue } from '../../runtime/node/parameters.ts';

/**
 * Numbers on the command line are decimal only (`0x10`, `0b11`, ` 5` and `1_0` are not numbers a
 * person means: JavaScript's Number read them as 16, 3 and 5), and an option given twice is a usage
 * error rather than the last one silently winning, but for --set, which is documented as repeatable.
 */
const sample = new URL('../../graphs/examples/sample-locomotion.json', import.meta.url).pathname;

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const io: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false };
  const code = await main(args, io);
  return { code, out, err };
}

describe('decimal numbers', () => {
  it('parseDecimal reads decimal notation only', () => {
    for (const [text, value] of [['5', 5], ['-2.5', -2.5], ['+3', 3], ['1e3', 1000], ['1E-3', 0.001], ['.5', 0.5], ['2.', 2], ['0', 0], ['1e400', Infinity]] as const) {
      expect(parseDecimal(text)).toBe(value);
    }
    for (const text of ['0x10', '0b11', '0o7', ' 5', '5 ', '\t5', '', ' ', '1_000', 'Infinity', '-Infinity', 'NaN', '1e', '.', '--1', '1,5', '５']) {
      expect(parseDecimal(text)).toBeNaN();
    }
  });

  it('parameter values given on the command line are decimal', () => {
    expect(parseParameterValue('int', '0x10')).toBeUndefined();
    expect(parseParameterValue('int', ' 2')).toBeUndefined();
    expect(parseParameterValue('float', '0b11')).toBeUndefined();
    expect(parseParameterValue('vec3', '1, 2,3')).toBeUndefined();
    expect(parseParameterValue('vec3', '1,0x2,3')).toBeUndefined();
    expect(parseParameterValue('vec3', '1,-2.5,3e1')).toEqual([1, -2.5, 30]);
    // An int is a whole number from -2^31 to 2^31 - 1, as instance.setParameter takes it.
    expect(parseParameterValue('int', '2147483647')).toBe(2147483647);
    expect(parseParameterValue('int', '2147483648')).toBeUndefined();
    expect(parseParameterValue('int', '1e308')).toBeUndefined();
  });

  it.each([
    [['--frames', '0x10'], "--frames needs a whole number from 1 to 10,000,000, got '0x10'"],
    [['--frames', ' 5'], "--frames needs a whole number from 1 to 10,000,000, got ' 5'"],
    [['--fps', '0b11'], "--fps needs a number from 0.001 to 10,000, got '0b11'"],
    [['--fps', '30 '], "--fps needs a number from 0.001 to 10,000, got '30 '"],
    [['--seconds', '0x1'], "--seconds needs a number >= 0, got '0x1'"],
    [['--update-rate', '0x2'], "--update-rate: an update rate is a whole number of frames from 1 (every frame) to 255"],
    [['--set', 'gait=0x2'], "--set 'gait=0x2': '0x2' is not a valid int"],
    [['--set', 'gait=2@0x1'], "--set 'gait=2@0x1': time '0x1' must be seconds >= 0"],
    [['--set', 'gait=2@ 1'], "--set 'gait=2@ 1': time ' 1' must be seconds >= 0"],
  ])('run %j is a usage error (exit 2)', async (args, message) => {
    const { code, err, out } = await cli('run', sample, ...args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(message);
  });

  it('view --port takes decimal only', async () => {
    for (const port of ['0x1F90', ' 8080']) {
      const { code, err } = await cli('view', sample, '--port', port);
      expect(code).toBe(2);
      expect(err).toContain(`--port needs a whole number from 0 to 65535 (0: any free port), got '${port}'`);
    }
  });
});

describe('repeated options', () => {
  it.each([
    [['run', sample, '--frames', '3', '--frames', '5'], '--frames is given 2 times'],
    [['run', sample, '--fps', '30', '--fps=60', '--frames', '2'], '--fps is given 2 times'],
    [['run', sample, '--quiet', '--quiet'], '--quiet is given 2 times'],
    [['plot', sample, '--out', 'a.svg', '--out', 'b.svg'], '--out is given 2 times'],
    [['index', sample, '--out', 'a.idx', '--out', 'b.idx'], '--out is given 2 times'],
    [['schema', '--out', 'a.json', '--out', 'b.json'], '--out is given 2 times'],
    [['view', sample, '--port', '0', '--port', '1'], '--port is given 2 times'],
  ])('%j is a usage error naming the option', async (args, message) => {
    const { code, err, out } = await cli(...args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(`${message}; give it once (only --set may be given more than once)`);
  });

  it('--set may repeat, as documented', async () => {
    const { code, out } = await cli('run', sample, '--frames', '3', '--set', 'gait=2', '--set', 'gait=0@0.05');
    expect(code).toBe(0);
    expect(out).toContain('evaluated 3 frames');
  });
});
