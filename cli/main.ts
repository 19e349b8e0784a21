import { closeSync, openSync, realpathSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GraphLoadError, type GraphProblem } from '../graphs/loader.ts';
import { checkGraphFile, loadGraphFile } from '../host/files.ts';
import { parseParameterValue } from '../runtime/node/parameters.ts';
import { formatDebugTree, GraphRunner, TimelineError, type ParameterChange } from '../host/runner.ts';
import type { AnimGraph } from '../runtime/graph/graph.ts';
import { checkUpdateRate } from '../runtime/graph/update-rate.ts';

const USAGE = `animgraph: evaluate animation graph assets headlessly

Usage:
  animgraph run GRAPH [--frames N | --seconds S] [--fps F] [--set NAME=VALUE[@SECONDS]]...
                      [--update-rate N [--hold]] [--debug text|jsonl] [--debug-out FILE]
                      [--poses FILE] [--quiet]
  animgraph validate GRAPH
  animgraph schema [--out FILE]
  animgraph docs [--out FILE]
  animgraph index GRAPH --out FILE [--node ID]
  animgraph plot GRAPH --out FILE.svg [--bone B] [--space component|local]
                       [--frames N | --seconds S] [--fps F] [--set NAME=VALUE[@SECONDS]]...
                       [--update-rate N [--hold]]
  animgraph view GRAPH [--port N]
  animgraph help

run       evaluates GRAPH at a fixed step (default 30 frames at 30 fps). --set changes a
          parameter at a time in seconds (default 0; repeatable). --debug text prints a
          ShowDebug-style tree per frame, --debug jsonl one JSON debug tree per frame, to
          stdout or to --debug-out FILE. --poses FILE writes JSON lines: a header with bone
          names and parents, then each frame's local and component-space pose.
          --update-rate N updates the graph on one frame in N (a level of detail: skipped
          frames interpolate, or hold the last pose with --hold).
validate  checks GRAPH and its skeleton and clip files; prints every problem with its JSON
          path and exits 1, or a one-line summary and exits 0.
schema    prints the JSON Schema of the graph asset format (or writes it to --out FILE).
docs      prints the node reference (docs/nodes.md) as markdown, from the node types and
          their editor descriptions (or writes it to --out FILE).
index     builds the pose-search database of GRAPH's PoseSearchBlend node (--node ID when
          there are several) from its clips and writes it to FILE, for the node's
          \`database\` property; an index file the graph already names is ignored and rebuilt.
plot      runs GRAPH as run does and writes an SVG of the run: bone B's position and rotation
          (default: the pelvis), node weights, inertialization, stride scale and pose-search
          costs over time, with each --set change marked.
view      serves a page on http://127.0.0.1:N/ (default port 7860; --port 0 picks a free one)
          that plays GRAPH in the browser with three.js: parameter controls, the debug tree,
          a frame scrubber; it reloads the graph when the file changes. Runs until Ctrl-C;
          a port in use exits 2.

--frames is a whole number from 1 to 10,000,000 (--seconds likewise in frames), --fps a
number from 0.001 to 10,000.
Exit codes: 0 success; 1 the graph did not load; 2 bad usage; 3 an output file could not be
written; 4 the graph produced a non-finite number (nothing non-finite is ever written).
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
      case 'docs': return await docsCommand(rest, io);
      case 'index': return await indexCommand(rest, io);
      case 'plot': return await (await import('./plot.ts')).plotCommand(rest, io);
      case 'view': return await (await import('./view.ts')).viewCommand(rest, io);
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
      io.err(loadProblems(e.source, e.problems));
      return 1;
    }
    if (e instanceof UsageError) {
      io.err(`animgraph ${command}: ${e.message}\n`);
      return 2;
    }
    if (e instanceof OutputError) {
      io.err(`animgraph: cannot write ${e.file}: ${e.reason}\n`);
      return 3;
    }
    if (e instanceof NonFiniteError) {
      io.err(`animgraph ${command}: ${e.message}\n`);
      return 4;
    }
    throw e;
  }
}

class UsageError extends Error {}

/** An output file (--poses, --debug-out, --out) could not be opened or written: exit 3. */
class OutputError extends Error {
  constructor(readonly file: string, readonly reason: string) {
    super(`cannot write ${file}: ${reason}`);
  }
}

/**
 * The graph produced NaN or Infinity (a bug in a node: the frame loop must not): exit 4, before the
 * number is written, since JSON would silently turn it into null.
 */
class NonFiniteError extends Error {}

/** The most frames one run evaluates (a day at 115 fps); --fps lies within [MIN_FPS, MAX_FPS]. */
const MAX_FRAMES = 10_000_000;
const MIN_FPS = 0.001;
const MAX_FPS = 10_000;

/** Runs a file operation, turning its failure into an OutputError naming the file. */
function writing<T>(file: string, operation: () => T): T {
  try {
    return operation();
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    // "EACCES: permission denied, open '/x/y'" -> "EACCES: permission denied": the file is named once.
    throw new OutputError(file, error.code ? error.message.replace(/, \w+( '.*')?$/, '') : error.message);
  }
}

/**
 * An output file written synchronously through a buffer: opened before the run starts, so an
 * unwritable path fails at once; every failure is an OutputError (exit 3), never an unhandled
 * stream error or a success message for a file that was not written.
 */
class FileOutput {
  private readonly fd: number;
  private chunks: string[] = [];
  private size = 0;
  private closed = false;

  constructor(readonly path: string) {
    this.fd = writing(path, () => openSync(path, 'w'));
  }

  write(text: string): void {
    this.chunks.push(text);
    this.size += text.length;
    if (this.size >= 1 << 16) this.flush();
  }

  private flush(): void {
    if (this.chunks.length === 0) return;
    const data = this.chunks.join('');
    this.chunks = [];
    this.size = 0;
    writing(this.path, () => writeFileSync(this.fd, data));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.flush();
    } finally {
      writing(this.path, () => closeSync(this.fd));
    }
  }

  /** Closes after a failure elsewhere, keeping that failure the one reported. */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch {
      // The first failure is the one reported.
    }
  }
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

function parse(args: readonly string[], options: OptionSpec): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true }) as never;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  // No option means anything when empty: `--poses ''` wrote nothing and said nothing, `--debug-out ''` wrote to stdout.
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === '' || (Array.isArray(value) && value.includes(''))) throw new UsageError(`--${name} needs a value, got an empty string`);
  }
  return parsed;
}

/**
 * Refuses output files that would destroy what the command reads or writes: an output that is one
 * of the inputs (`index g.json --out g.json` overwrote the graph), or two outputs that are one file
 * (`--poses f --debug-out f` interleaved both through two handles, keeping neither whole).
 */
function checkOutputFiles(outputs: Readonly<Record<string, string | undefined>>, inputs: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const input of inputs) seen.set(sameFileKey(input), 'input');
  for (const [option, file] of Object.entries(outputs)) {
    if (file === undefined) continue;
    const key = sameFileKey(file), earlier = seen.get(key);
    if (earlier === 'input') throw new UsageError(`${option} ${file} is the graph file it reads; writing it would overwrite the graph`);
    if (earlier !== undefined) throw new UsageError(`${option} ${file} is the same file as ${earlier}; give each output its own file`);
    seen.set(key, option);
  }
}

/** A path's file, for comparing two paths: through symbolic links when the file exists. */
function sameFileKey(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function frameCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 1 || n > MAX_FRAMES) {
    throw new UsageError(`--frames needs a whole number from 1 to ${MAX_FRAMES.toLocaleString('en-US')}, got '${text}'`);
  }
  return n;
}

function frameRate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !(n >= MIN_FPS && n <= MAX_FPS)) {
    throw new UsageError(`--fps needs a number from ${MIN_FPS} to ${MAX_FPS.toLocaleString('en-US')}, got '${text}'`);
  }
  return n;
}

/** Parses `NAME=VALUE[@SECONDS]` against the graph's parameter types. */
export function parseSet(text: string, graph: AnimGraph): ParameterChange {
  const m = /^([^=]+)=(.*?)(?:@([^@]*))?$/.exec(text);
  if (!m) throw new UsageError(`--set '${text}': expected NAME=VALUE or NAME=VALUE@SECONDS`);
  const [, name, valueText, timeText] = m;
  const def = Object.hasOwn(graph.parameterDefinitions, name) ? graph.parameterDefinitions[name] : undefined;
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

/**
 * Runs `start` (which makes a GraphRunner from the --set options' timeline, in their order), turning
 * the runner's TimelineError into a usage error naming the --set option (a time after the run's
 * last frame, where the change would never apply).
 */
function withSetTexts<T>(sets: readonly string[], start: () => T): T {
  try {
    return start();
  } catch (e) {
    if (e instanceof TimelineError) throw new UsageError(`--set '${sets[e.index]}': ${e.reason}`);
    throw e;
  }
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
    'update-rate': { type: 'string' },
    hold: { type: 'boolean' },
  });
  if (positionals.length !== 1) throw new UsageError('needs exactly one GRAPH file');
  const debug = values.debug as string | undefined;
  if (debug !== undefined && debug !== 'text' && debug !== 'jsonl') throw new UsageError(`--debug takes 'text' or 'jsonl', got '${debug}'`);
  if (values['debug-out'] !== undefined && debug === undefined) throw new UsageError('--debug-out needs --debug text or --debug jsonl');
  const { frames, fps, seconds } = runLength(values);
  const graph = loadGraphFile(positionals[0]);
  const sets = (values.set as string[] | undefined) ?? [];
  const timeline = sets.map((s) => parseSet(s, graph));
  const runner = withSetTexts(sets, () => new GraphRunner(graph, { frames, seconds, fps, timeline, ...updateRateOptions(values) }));

  const debugOut = values['debug-out'] as string | undefined;
  const posesPath = values.poses as string | undefined;
  checkOutputFiles({ '--debug-out': debug ? debugOut : undefined, '--poses': posesPath }, [positionals[0]]);
  const files: FileOutput[] = [];
  try {
    const debugFile = debug && debugOut ? new FileOutput(debugOut) : undefined;
    if (debugFile) files.push(debugFile);
    const posesFile = posesPath ? new FileOutput(posesPath) : undefined;
    if (posesFile) files.push(posesFile);
    const writeDebug = (text: string) => (debugFile ? debugFile.write(text) : io.out(text));
    const skeleton = graph.skeleton;
    posesFile?.write(`${JSON.stringify({ bones: skeleton.boneNames, parents: Array.from(skeleton.parents), fps: runner.fps })}\n`);
    const progress = io.errIsTty && !values.quiet && runner.frameCount >= 300;

    for (let f = 0; f < runner.frameCount; f++) {
      const time = runner.step(f);
      if (debug === 'text') {
        writeDebug(`frame ${f} time ${time.toFixed(3)}\n${formatDebugTree(runner.instance.gatherDebug()).join('\n')}\n\n`);
      } else if (debug === 'jsonl') {
        writeDebug(`${JSON.stringify({ frame: f, time, tree: runner.instance.gatherDebug() })}\n`);
      }
      if (debug && !debugFile && io.drained) await io.drained();
      if (posesFile) {
        const root = Array.from(runner.world), local = runner.localRows(), component = runner.componentRows();
        requireFinite(f, skeleton.boneNames, root, local, component);
        posesFile.write(`${JSON.stringify({ frame: f, time, root, local, component })}\n`);
      }
      if (progress && (f % 50 === 0 || f === runner.frameCount - 1)) {
        const done = (f + 1) / runner.frameCount;
        const width = 30;
        io.err(`\r[${'#'.repeat(Math.round(done * width)).padEnd(width, '.')}] ${(done * 100).toFixed(0).padStart(3)}% frame ${f + 1}/${runner.frameCount}`);
      }
    }
    if (progress) io.err('\n');
    for (const file of files) file.close();
  } catch (e) {
    // The frames before a failure stay readable; a file that failed itself is only released.
    for (const file of files) {
      if (e instanceof OutputError) file.abandon();
      else {
        try {
          file.close();
        } catch {
          file.abandon();
        }
      }
    }
    throw e;
  }
  const skeleton = graph.skeleton;
  if (!values.quiet && !(debug && !debugOut)) {
    const seconds = (runner.frameCount - 1) / runner.fps;
    io.out(`${positionals[0]}: evaluated ${runner.frameCount} ${runner.frameCount === 1 ? 'frame' : 'frames'} (${seconds.toFixed(3)} s at ${runner.fps} fps), ${skeleton.boneCount} bones` +
      `${posesPath ? `; poses in ${posesPath}` : ''}${debugOut ? `; debug in ${debugOut}` : ''}\n`);
  }
  return 0;
}

/** --update-rate N and --hold of a command that runs a graph (run, plot). */
function updateRateOptions(values: Record<string, unknown>): { updateRate?: number; holdSkippedFrames?: boolean } {
  const text = values['update-rate'] as string | undefined;
  if (text === undefined) {
    if (values.hold) throw new UsageError('--hold needs --update-rate N');
    return {};
  }
  const rate = text.trim() === '' ? Number.NaN : Number(text);
  try {
    checkUpdateRate(rate, 0); // the instance's own rule
  } catch (e) {
    throw new UsageError(`--update-rate: ${(e as Error).message} ('${text}')`);
  }
  return { updateRate: rate, holdSkippedFrames: values.hold === true };
}

/** --frames, --seconds and --fps of a command that runs a graph (run, plot), checked against their ranges. */
function runLength(values: Record<string, unknown>): { frames?: number; fps?: number; seconds?: number } {
  if (values.frames !== undefined && values.seconds !== undefined) throw new UsageError('give --frames or --seconds, not both');
  const frames = frameCount(values.frames as string | undefined);
  const fps = frameRate(values.fps as string | undefined);
  const seconds = values.seconds !== undefined ? nonNegative(values.seconds as string, '--seconds') : undefined;
  if (seconds !== undefined && Math.floor(seconds * (fps ?? 30) + 1e-9) + 1 > MAX_FRAMES) {
    throw new UsageError(`--seconds ${values.seconds as string} at ${fps ?? 30} fps is more than ${MAX_FRAMES.toLocaleString('en-US')} frames`);
  }
  return { frames, fps, seconds };
}

function nonNegative(text: string, flag: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`${flag} needs a number >= 0, got '${text}'`);
  return n;
}

/** Throws NonFiniteError naming the first bone of frame `frame` with a non-finite number. */
function requireFinite(frame: number, bones: readonly string[], root: readonly number[], local: readonly number[][], component: readonly number[][]): void {
  if (!root.every(Number.isFinite)) throw new NonFiniteError(`frame ${frame}: the root transform is not finite (${root.join(', ')}); nothing more was written`);
  for (const [space, rows] of [['local', local], ['component', component]] as const) {
    const bone = rows.findIndex((row) => !row.every(Number.isFinite));
    if (bone >= 0) throw new NonFiniteError(`frame ${frame}: bone '${bones[bone]}' has a non-finite ${space} transform (${rows[bone].join(', ')}); nothing more was written`);
  }
}

/** Why a graph did not load, as every command prints it (exit 1): a count, then each problem with its JSON path and code. */
function loadProblems(source: string, problems: readonly GraphProblem[]): string {
  return `${source}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n${problems.map((p) => `  ${p.path}: ${p.message} [${p.code}]\n`).join('')}`;
}

function validateCommand(args: readonly string[], io: Io): number {
  const { positionals } = parse(args, {});
  if (positionals.length !== 1) throw new UsageError('needs exactly one GRAPH file');
  const path = positionals[0];
  const result = checkGraphFile(path);
  if (!result.ok) {
    io.err(loadProblems(path, result.problems));
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
    const out = values.out as string;
    writing(out, () => writeFileSync(out, text));
    io.out(`wrote ${values.out}\n`);
  } else io.out(text);
  return 0;
}

async function docsCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { out: { type: 'string' } });
  if (positionals.length > 0) throw new UsageError('takes no positional arguments');
  const { nodeReferenceMarkdown } = await import('../editor-meta/docs.ts');
  const text = nodeReferenceMarkdown();
  if (values.out) {
    const out = values.out as string;
    writing(out, () => writeFileSync(out, text));
    io.out(`wrote ${values.out}\n`);
  } else io.out(text);
  return 0;
}

async function indexCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { out: { type: 'string' }, node: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('needs exactly one GRAPH file');
  const out = values.out as string | undefined;
  if (out === undefined) throw new UsageError('needs --out FILE');
  checkOutputFiles({ '--out': out }, [positionals[0]]);
  const { PoseSearchDatabase, serializePoseSearchDatabase } = await import('../runtime/jobs/pose-search/index.ts');
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
  const bytes = serializePoseSearchDatabase(db);
  writing(out, () => writeFileSync(out, bytes));
  io.out(`wrote ${out}: node '${chosen[0]}', ${db.frameCount} frames of ${db.dims} features from ${db.clipCount} clip${db.clipCount === 1 ? '' : 's'} `
    + `at ${db.schema.sampleRate} Hz, ${db.tree.nodeStart.length} tree nodes (hash ${db.hash.hash.slice(0, 12)})\n`);
  return 0;
}

// For the commands that live in their own files (plot.ts).
export { checkOutputFiles, UsageError, parse as parseOptions, runLength, updateRateOptions, withSetTexts, writing };
