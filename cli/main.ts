import { createWriteStream, writeFileSync, type WriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkGraphAsset, GraphLoadError, loadGraphFile } from '../graphs/loader.ts';
import { parseParameterValue } from '../runtime/parameters.ts';
import { formatDebugTree, GraphRunner, type ParameterChange } from '../runtime/runner.ts';
import type { AnimGraph } from '../runtime/graph.ts';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const USAGE = `animgraph: evaluate animation graph assets headlessly

Usage:
  animgraph run GRAPH [--frames N | --seconds S] [--fps F] [--set NAME=VALUE[@SECONDS]]...
                      [--debug text|jsonl] [--debug-out FILE] [--poses FILE] [--quiet]
  animgraph validate GRAPH
  animgraph schema [--out FILE]
  animgraph index GRAPH --out FILE [--node ID]
  animgraph help

run       evaluates GRAPH at a fixed step (default 30 frames at 30 fps). --set changes a
          parameter at a time in seconds (default 0; repeatable). --debug text prints a
          ShowDebug-style tree per frame, --debug jsonl one JSON debug tree per frame, to
          stdout or to --debug-out FILE. --poses FILE writes JSON lines: a header with bone
          names and parents, then each frame's local and component-space pose.
validate  checks GRAPH and its skeleton and clip files; prints every problem with its JSON
          path and exits 1, or a one-line summary and exits 0.
schema    prints the JSON Schema of the graph asset format (or writes it to --out FILE).
index     builds the pose-search database of GRAPH's PoseSearchBlend node (--node ID when
          there are several) from its clips and writes it to FILE, for the node's
          \`database\` property; an index file the graph already names is ignored and rebuilt.
`;

export interface Io {
  /** Writes to standard output; throws OutputClosed once its reader has gone (see stdoutIo). */
  out: (text: string) => void;
  err: (text: string) => void;
  /** Whether stderr is a terminal (progress bar). */
  errIsTty: boolean;
  /**
   * Resolves once standard output has taken what was written (absent: nothing to wait for). Long
   * runs wait on it between frames, so a slow reader holds the run back instead of the output
   * piling up in memory, and a reader that has gone is noticed at the next frame.
   */
  drained?: () => Promise<void>;
}

/**
 * Standard output's reader went away (`animgraph run … | head`): the command stops where it is and
 * exits 0, as Unix tools do on a closed pipe, instead of dying on an unhandled EPIPE.
 */
export class OutputClosed extends Error {}

const isEpipe = (e: unknown) => (e as NodeJS.ErrnoException | null | undefined)?.code === 'EPIPE';
let stdoutClosed = false;
let stdoutWatched = false;

/** The Io of the process: stdout and stderr. */
export function stdoutIo(): Io {
  const stdout = process.stdout;
  if (!stdoutWatched) {
    stdoutWatched = true;
    // The failed write's error is emitted on a later tick; without a listener it kills the process.
    stdout.on('error', (e) => {
      if (!isEpipe(e)) throw e;
      stdoutClosed = true;
    });
  }
  // A write into a closed pipe fails at once (errored is set before the error event is emitted).
  const closed = () => stdoutClosed || isEpipe(stdout.errored);
  return {
    out: (t) => {
      if (closed()) throw new OutputClosed();
      stdout.write(t);
    },
    err: (t) => process.stderr.write(t),
    errIsTty: process.stderr.isTTY === true,
    drained: () => new Promise((resolveDrained) => {
      if (closed() || !stdout.writableNeedDrain) return resolveDrained();
      const done = () => {
        stdout.off('drain', done);
        stdout.off('error', done);
        resolveDrained();
      };
      stdout.on('drain', done);
      stdout.on('error', done);
    }),
  };
}

/** Runs the CLI with the given arguments; resolves to the process exit code. */
export async function main(argv: readonly string[], io: Io = stdoutIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run': return await runCommand(rest, io);
      case 'validate': return validateCommand(rest, io);
      case 'schema': return await schemaCommand(rest, io);
      case 'index': return await indexCommand(rest, io);
      case undefined: case 'help': case '--help': case '-h':
        io.out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        io.err(`animgraph: unknown command '${command}'\n\n${USAGE}`);
        return 2;
    }
  } catch (e) {
    if (e instanceof OutputClosed) return 0;
    if (e instanceof GraphLoadError) {
      io.err(`${e.message}\n`);
      return 1;
    }
    if (e instanceof UsageError) {
      io.err(`animgraph ${command}: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

class UsageError extends Error {}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

function parse(args: readonly string[], options: OptionSpec): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true }) as never;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function positiveNumber(text: string | undefined, flag: string, integer = false): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} needs a positive ${integer ? 'whole ' : ''}number, got '${text}'`);
  }
  return n;
}

/** Parses `NAME=VALUE[@SECONDS]` against the graph's parameter types. */
export function parseSet(text: string, graph: AnimGraph): ParameterChange {
  const m = /^([^=]+)=(.*?)(?:@([^@]*))?$/.exec(text);
  if (!m) throw new UsageError(`--set '${text}': expected NAME=VALUE or NAME=VALUE@SECONDS`);
  const [, name, valueText, timeText] = m;
  const def = graph.parameterDefinitions[name];
  if (!def) {
    throw new UsageError(`--set '${text}': unknown parameter '${name}' (parameters: ${Object.keys(graph.parameterDefinitions).join(', ') || 'none'})`);
  }
  const value = parseParameterValue(def.type, valueText);
  if (value === undefined) throw new UsageError(`--set '${text}': '${valueText}' is not a valid ${def.type}${def.type === 'vec3' ? ' (x,y,z)' : ''}`);
  let time = 0;
  if (timeText !== undefined) {
    time = Number(timeText);
    if (timeText.trim() === '' || !Number.isFinite(time) || time < 0) throw new UsageError(`--set '${text}': time '${timeText}' must be seconds >= 0`);
  }
  return { name, value, time };
}

async function runCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    frames: { type: 'string' },
    seconds: { type: 'string' },
    fps: { type: 'string' },
    set: { type: 'string', multiple: true },
    debug: { type: 'string' },
    'debug-out': { type: 'string' },
    poses: { type: 'string' },
    quiet: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('needs exactly one GRAPH file');
  if (values.frames !== undefined && values.seconds !== undefined) throw new UsageError('give --frames or --seconds, not both');
  const debug = values.debug as string | undefined;
  if (debug !== undefined && debug !== 'text' && debug !== 'jsonl') throw new UsageError(`--debug takes 'text' or 'jsonl', got '${debug}'`);
  if (values['debug-out'] !== undefined && debug === undefined) throw new UsageError('--debug-out needs --debug text or --debug jsonl');
  const graph = loadGraphFile(positionals[0]);
  const timeline = ((values.set as string[] | undefined) ?? []).map((s) => parseSet(s, graph));
  const runner = new GraphRunner(graph, {
    frames: positiveNumber(values.frames as string | undefined, '--frames', true),
    seconds: values.seconds !== undefined ? nonNegative(values.seconds as string, '--seconds') : undefined,
    fps: positiveNumber(values.fps as string | undefined, '--fps'),
    timeline,
  });

  const debugOut = values['debug-out'] as string | undefined;
  const debugStream = debug && debugOut ? createWriteStream(debugOut) : undefined;
  const writeDebug = (text: string) => (debugStream ? debugStream.write(text) : io.out(text));
  const posesPath = values.poses as string | undefined;
  const posesStream = posesPath ? createWriteStream(posesPath) : undefined;
  const skeleton = graph.skeleton;
  posesStream?.write(`${JSON.stringify({ bones: skeleton.boneNames, parents: Array.from(skeleton.parents), fps: runner.fps })}\n`);
  const progress = io.errIsTty && !values.quiet && runner.frameCount >= 300;

  for (let f = 0; f < runner.frameCount; f++) {
    const time = runner.step(f);
    if (debug === 'text') {
      writeDebug(`frame ${f} time ${time.toFixed(3)}\n${formatDebugTree(runner.instance.gatherDebug()).join('\n')}\n\n`);
    } else if (debug === 'jsonl') {
      writeDebug(`${JSON.stringify({ frame: f, time, tree: runner.instance.gatherDebug() })}\n`);
    }
    if (debug && !debugStream && io.drained) await io.drained();
    if (posesStream) {
      await writeLine(posesStream, JSON.stringify({ frame: f, time, root: Array.from(runner.world), local: runner.localRows(), component: runner.componentRows() }));
    }
    if (progress && (f % 50 === 0 || f === runner.frameCount - 1)) {
      const done = (f + 1) / runner.frameCount;
      const width = 30;
      io.err(`\r[${'#'.repeat(Math.round(done * width)).padEnd(width, '.')}] ${(done * 100).toFixed(0).padStart(3)}% frame ${f + 1}/${runner.frameCount}`);
    }
  }
  if (progress) io.err('\n');
  await Promise.all([debugStream, posesStream].filter((s): s is WriteStream => s !== undefined).map(closeStream));
  if (!values.quiet && !(debug && !debugOut)) {
    const seconds = (runner.frameCount - 1) / runner.fps;
    io.out(`${positionals[0]}: evaluated ${runner.frameCount} frames (${seconds.toFixed(3)} s at ${runner.fps} fps), ${skeleton.boneCount} bones` +
      `${posesPath ? `; poses in ${posesPath}` : ''}${debugOut ? `; debug in ${debugOut}` : ''}\n`);
  }
  return 0;
}

function nonNegative(text: string, flag: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`${flag} needs a number >= 0, got '${text}'`);
  return n;
}

function writeLine(stream: WriteStream, line: string): Promise<void> | void {
  if (!stream.write(`${line}\n`)) return new Promise((resolveDrain) => stream.once('drain', () => resolveDrain()));
}

function closeStream(stream: WriteStream): Promise<void> {
  return new Promise((resolveClose, reject) => {
    stream.once('error', reject);
    stream.end(() => resolveClose());
  });
}

function validateCommand(args: readonly string[], io: Io): number {
  const { positionals } = parse(args, {});
  if (positionals.length !== 1) throw new UsageError('needs exactly one GRAPH file');
  const path = positionals[0];
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    io.err(`${path}: ${(e as Error).message}\n`);
    return 1;
  }
  const result = checkGraphAsset(json, { baseDir: dirname(resolve(path)), source: path });
  if (!result.ok) {
    io.err(`${path}: ${result.problems.length} problem${result.problems.length === 1 ? '' : 's'}\n`);
    for (const p of result.problems) io.err(`  ${p.path}: ${p.message} [${p.code}]\n`);
    return 1;
  }
  const g = result.graph;
  io.out(`${path}: valid (${g.skeleton.boneCount} bones, ${g.clipBindings.size} clips, ${g.nodes.length - 1} nodes, ${Object.keys(g.parameterDefinitions).length} parameters)\n`);
  return 0;
}

async function schemaCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { out: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError('takes no positional arguments');
  const { graphJsonSchema } = await import('../editor-meta/schema.ts');
  const text = `${JSON.stringify(graphJsonSchema(), null, 2)}\n`;
  if (values.out) {
    writeFileSync(values.out as string, text);
    io.out(`wrote ${values.out}\n`);
  } else io.out(text);
  return 0;
}

async function indexCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { out: { type: 'string' }, node: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('needs exactly one GRAPH file');
  const out = values.out as string | undefined;
  if (out === undefined) throw new UsageError('needs --out FILE');
  const { PoseSearchDatabase, serializePoseSearchDatabase } = await import('../runtime/pose-search/index.ts');
  // Rebuild from the clips even where the asset names an index file (it may be the stale one).
  const graph = loadGraphFile(positionals[0], { useIndexFiles: false });
  const indexed = [...graph.shared].filter((entry): entry is [string, { database: InstanceType<typeof PoseSearchDatabase> }] =>
    typeof entry[1] === 'object' && entry[1] !== null && (entry[1] as { database?: unknown }).database instanceof PoseSearchDatabase);
  const ids = indexed.map(([id]) => id);
  const nodeId = values.node as string | undefined;
  if (indexed.length === 0) throw new UsageError(`${positionals[0]} has no PoseSearchBlend node to index`);
  if (nodeId === undefined && indexed.length > 1) throw new UsageError(`${positionals[0]} has several pose-search nodes (${ids.join(', ')}): choose one with --node ID`);
  const chosen = nodeId === undefined ? indexed[0] : indexed.find(([id]) => id === nodeId);
  if (!chosen) throw new UsageError(`--node '${nodeId}': no pose-search node of that id (nodes: ${ids.join(', ')})`);
  const db = chosen[1].database;
  writeFileSync(out, serializePoseSearchDatabase(db));
  io.out(`wrote ${out}: node '${chosen[0]}', ${db.frameCount} frames of ${db.dims} features from ${db.clipCount} clip${db.clipCount === 1 ? '' : 's'} `
    + `at ${db.schema.sampleRate} Hz, ${db.tree.nodeStart.length} tree nodes (hash ${db.hash.hash.slice(0, 12)})\n`);
  return 0;
}
