import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { commandHelp } from '../../cli/help.ts';
import { shippedExamples } from '../../cli/examples.ts';

const root = new URL('../../', import.meta.url).pathname;

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const io: Io = { out: (t) => { out += t; }, err: (t) => { err += t; }, errIsTty: false };
  const code = await main(args, io);
  return { code, out, err };
}

describe('animgraph COMMAND --help', () => {
  it('every command in the usage takes --help, -h and `help COMMAND`: its usage lines and paragraph, exit 0', async () => {
    const usage = (await cli('help')).out;
    const commands = [...new Set([...usage.matchAll(/^ {2}animgraph ([a-z-]+)/gm)].map((m) => m[1]!))];
    expect(commands).toEqual(expect.arrayContaining(['run', 'validate', 'schema', 'docs', 'index', 'plot', 'view', 'examples', 'help']));
    for (const command of commands.filter((c) => c !== 'help')) {
      const help = await cli(command, '--help');
      expect(help.err, command).toBe('');
      expect(help.code, command).toBe(0);
      expect(help.out, command).toMatch(new RegExp(`^Usage:\\n {2}animgraph ${command}\\b`));
      expect(help.out, command).toMatch(new RegExp(`\\n${command} +\\S`)); // its paragraph
      expect(help.out, command).toContain('Exit codes: 0 success');
      // Only this command's usage lines.
      expect(new Set([...help.out.matchAll(/^ {2}animgraph ([a-z-]+)/gm)].map((m) => m[1])), command).toEqual(new Set([command]));
      expect((await cli(command, '-h')).out).toBe(help.out);
      expect((await cli('help', command)).out).toBe(help.out);
    }
  });

  it('`view --help` prints help (it was a parse error), and after other arguments too', async () => {
    const help = await cli('view', 'graphs/examples/sample-locomotion.json', '--port', '0', '--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('  animgraph view GRAPH [--port N]');
    expect(help.out).toContain('--port 0 picks a free one');
    // The ranges of --frames and --fps come with the commands that take them only.
    expect((await cli('run', '--help')).out).toContain('--frames is a whole number from 1 to 10,000,000');
    expect(help.out).not.toContain('--frames is');
  });

  it('reads one command\'s part out of a usage text', () => {
    const usage = 'x\n\nUsage:\n  animgraph a FILE\n                [--long]\n  animgraph ab\n\na   does a,\n    over two lines.\nab  does ab.\n\nExit codes: 0 ok.\n';
    expect(commandHelp(usage, 'a')).toBe('Usage:\n  animgraph a FILE\n                [--long]\n\na   does a,\n    over two lines.\n\nExit codes: 0 ok.\n');
    expect(commandHelp(usage, 'ab')).toBe('Usage:\n  animgraph ab\n\nab  does ab.\n\nExit codes: 0 ok.\n');
    expect(commandHelp(usage, 'b')).toBeUndefined();
    expect(commandHelp(usage, '.*')).toBeUndefined();
  });
});

describe('animgraph examples [DIR]', () => {
  const shipped = readdirSync(join(root, 'graphs/examples')).filter((f) => /^sample-.*\.json$/.test(f)).sort();

  it('copies the example graphs the package ships into DIR, each of which then validates there alone', async () => {
    // The package's `files` ships graphs/examples/sample-*.json: the command copies exactly those.
    const files = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).files as string[];
    expect(files).toContain('graphs/examples/sample-*.json');
    expect(shippedExamples()).toEqual(shipped);
    expect(shipped.length).toBeGreaterThanOrEqual(5);
    const dir = join(mkdtempSync(join(tmpdir(), 'animgraph-examples-')), 'mine');
    const r = await cli('examples', dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`wrote ${shipped.length} example graphs to ${dir}/`);
    expect(readdirSync(dir).sort()).toEqual(shipped);
    for (const name of shipped) {
      expect(readFileSync(join(dir, name), 'utf8')).toBe(readFileSync(join(root, 'graphs/examples', name), 'utf8'));
      const valid = await cli('validate', join(dir, name));
      expect(valid.code, `${name}: ${valid.err}`).toBe(0);
    }
    // Again into the same folder: the same files, nothing to refuse.
    expect((await cli('examples', dir)).code).toBe(0);
  });

  it('writes ./examples by default, keeps a file with other contents unless --force (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'animgraph-examples-'));
    const cwd = process.cwd();
    try {
      process.chdir(dir);
      expect((await cli('examples')).code).toBe(0);
      expect(readdirSync(join(dir, 'examples')).sort()).toEqual(shipped);
      writeFileSync(join(dir, 'examples', 'sample-locomotion.json'), '{"mine": true}');
      const refused = await cli('examples');
      expect(refused.code).toBe(2);
      expect(refused.err).toBe('animgraph examples: examples/sample-locomotion.json exists with other contents; give another DIR, or --force to overwrite\n');
      expect(readFileSync(join(dir, 'examples', 'sample-locomotion.json'), 'utf8')).toBe('{"mine": true}');
      expect((await cli('examples', '--force')).code).toBe(0);
      expect(readFileSync(join(dir, 'examples', 'sample-locomotion.json'), 'utf8')).toBe(readFileSync(join(root, 'graphs/examples/sample-locomotion.json'), 'utf8'));
      expect((await cli('examples', 'a', 'b')).code).toBe(2);
    } finally {
      process.chdir(cwd);
    }
  });
});
