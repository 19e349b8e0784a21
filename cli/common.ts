/*
 * What the commands share: the errors main turns into exit codes (usage 2, output 3, non-finite 4),
 * option parsing and the checks of --frames, --seconds, --fps, --set and --update-rate, and the
 * checks of output files. Below main.ts and every command's file, so that none imports main.ts.
 */
import { statSync } from 'node:fs';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GraphLoadError, shortJsonPath, type GraphProblem } from '../graphs/loader.ts';
import { checkGraphFile, type FileRead, type GraphFileOptions } from '../host/files.ts';
import { parseDecimal, parseParameterValue } from '../runtime/node/parameters.ts';
import { TimelineError, type ParameterChange } from '../host/runner.ts';
import type { AnimGraph } from '../runtime/graph/graph.ts';
import { checkUpdateRate } from '../runtime/graph/update-rate.ts';

/** A bad command line (code `invalid-argument`): exit 2. */
export class UsageError extends AnimGraphError {
  constructor(message: string, options?: ErrorOptions) {
    super('invalid-argument', message, options);
    this.name = 'UsageError';
  }
}

/** An output file (--poses, --debug-out, --out) could not be opened or written (code `io`): exit 3. */
export class OutputError extends AnimGraphError {
  constructor(readonly file: string, readonly reason: string, options?: ErrorOptions) {
    super('io', `cannot write ${file}: ${reason}`, options);
    this.name = 'OutputError';
  }
}

/**
 * The graph produced NaN or Infinity (a bug in a node: the frame loop must not; code `internal`):
 * exit 4, before the number is written, since JSON would silently turn it into null.
 */
export class NonFiniteError extends AnimGraphError {
  constructor(message: string) {
    super('internal', message);
    this.name = 'NonFiniteError';
  }
}

/** The most frames one run evaluates (a day at 115 fps); --fps lies within [MIN_FPS, MAX_FPS]. */
const MAX_FRAMES = 10_000_000;
const MIN_FPS = 0.001;
const MAX_FPS = 10_000;

/** Runs a file operation, turning its failure into an OutputError naming the file. */
export function writing<T>(file: string, operation: () => T): T {
  try {
    return operation();
  } catch (e) {
    const error = e as NodeJS.ErrnoException;
    // "EACCES: permission denied, open '/x/y'" -> "EACCES: permission denied": the file is named once.
    throw new OutputError(file, error.code ? error.message.replace(/, \w+( '.*')?$/, '') : error.message, { cause: e });
  }
}

type OptionSpec = Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;

export function parseOptions(args: readonly string[], options: OptionSpec): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true }) as never;
  } catch (e) {
    throw new UsageError((e as Error).message, { cause: e });
  }
  const repeated = repeatedOption(args, options);
  if (repeated !== undefined) throw new UsageError(repeated);
  // No option means anything when empty: `--poses ''` wrote nothing and said nothing, `--debug-out ''` wrote to stdout.
  for (const [name, value] of Object.entries(parsed.values)) {
    if (value === '' || (Array.isArray(value) && value.includes(''))) throw new UsageError(`--${name} needs a value, got an empty string`);
  }
  return parsed;
}

/**
 * Why an option not documented as repeatable (`multiple`) is given more than once, or undefined.
 * parseArgs keeps the last silently, so `--frames 3 --frames 5` ran 5 frames without a word.
 */
export function repeatedOption(args: readonly string[], options: OptionSpec): string | undefined {
  const { tokens } = parseArgs({ args: [...args], options, allowPositionals: true, strict: false, tokens: true });
  const counts = new Map<string, number>();
  for (const token of tokens) {
    if (token.kind !== 'option' || options[token.name]?.multiple === true) continue;
    counts.set(token.name, (counts.get(token.name) ?? 0) + 1);
  }
  for (const [name, count] of counts) {
    if (count > 1) return `--${name} is given ${count} times; give it once (only --set may be given more than once)`;
  }
  return undefined;
}

/**
 * Refuses output files that would destroy what the command reads or writes: an output that is the
 * graph file (`index g.json --out g.json` overwrote the graph), or two outputs that are one file
 * (`--poses f --debug-out f` interleaved both through two handles, keeping neither whole). Files
 * are compared by device and inode, through symbolic links, so a hard link is caught too; see
 * loadGraphForOutputs for the other files a graph reads.
 */
export function checkOutputFiles(outputs: Readonly<Record<string, string | undefined>>, graph?: string): void {
  const seen: { key: string; option: string }[] = [];
  if (graph !== undefined) checkNotInput(outputs, [{ path: graph, file: graph }], graph);
  for (const [option, file] of Object.entries(outputs)) {
    if (file === undefined) continue;
    const key = sameFileKey(file), earlier = seen.find((s) => s.key === key);
    if (earlier !== undefined) throw new UsageError(`${option} ${file} is the same file as ${earlier.option}; give each output its own file`);
    seen.push({ key, option });
  }
}

/**
 * Loads the graph as loadGraphFile does (throwing its GraphLoadError), then refuses an output that
 * is any file the load read: the graph, its skeleton, clips, glTF files and their buffers, index
 * files (a usage error naming both). `index` loads without index files, so the index a graph
 * names may be rebuilt in place.
 */
export function loadGraphForOutputs(graph: string, outputs: Readonly<Record<string, string | undefined>>, options: GraphFileOptions = {}): AnimGraph {
  const result = checkGraphFile(graph, options);
  if (!result.ok) throw new GraphLoadError(graph, result.problems);
  checkNotInput(outputs, result.files, graph);
  return result.graph;
}

function checkNotInput(outputs: Readonly<Record<string, string | undefined>>, inputs: readonly FileRead[], graph: string): void {
  const identities = new Map<string, FileRead>();
  for (const input of inputs) {
    const id = fileIdentity(input.file);
    if (id !== undefined && !identities.has(id)) identities.set(id, input);
  }
  for (const [option, file] of Object.entries(outputs)) {
    if (file === undefined) continue;
    const id = fileIdentity(file);
    const input = id === undefined ? undefined : identities.get(id);
    if (input === undefined) continue;
    if (input.path === graph) throw new UsageError(`${option} ${file} is the graph file ${graph}; writing it would overwrite the graph`);
    throw new UsageError(`${option} ${file} is ${input.file}, which the graph reads as '${input.path}'; writing it would overwrite it`);
  }
}

/** A file's device and inode (through symbolic links), or undefined when there is no such file. */
function fileIdentity(path: string): string | undefined {
  try {
    const stats = statSync(path, { bigint: true });
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

/** A path's file, for comparing two outputs: its device and inode when it exists, else its absolute path. */
function sameFileKey(path: string): string {
  return fileIdentity(path) ?? resolve(path);
}

function frameCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = parseDecimal(text);
  if (!Number.isInteger(n) || n < 1 || n > MAX_FRAMES) {
    throw new UsageError(`--frames needs a whole number from 1 to ${MAX_FRAMES.toLocaleString('en-US')}, got '${text}'`);
  }
  return n;
}

function frameRate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = parseDecimal(text);
  if (!(n >= MIN_FPS && n <= MAX_FPS)) {
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
    time = parseDecimal(timeText);
    if (!Number.isFinite(time) || time < 0) throw new UsageError(`--set '${text}': time '${timeText}' must be seconds >= 0`);
  }
  return { name, value, time };
}

/**
 * Runs `start` (which makes a GraphRunner from the --set options' timeline, in their order), turning
 * the runner's TimelineError into a usage error naming the --set option (a time after the run's
 * last frame, where the change would never apply).
 */
export function withSetTexts<T>(sets: readonly string[], start: () => T): T {
  try {
    return start();
  } catch (e) {
    if (e instanceof TimelineError) throw new UsageError(`--set '${sets[e.index]}': ${e.reason}`, { cause: e });
    throw e;
  }
}

/** --update-rate N and --hold of a command that runs a graph (run, plot). */
export function updateRateOptions(values: Record<string, unknown>): { updateRate?: number; holdSkippedFrames?: boolean } {
  const text = values['update-rate'] as string | undefined;
  if (text === undefined) {
    if (values.hold) throw new UsageError('--hold needs --update-rate N');
    return {};
  }
  const rate = parseDecimal(text);
  try {
    checkUpdateRate(rate, 0); // the instance's own rule
  } catch (e) {
    throw new UsageError(`--update-rate: ${(e as Error).message} ('${text}')`, { cause: e });
  }
  return { updateRate: rate, holdSkippedFrames: values.hold === true };
}

/** --frames, --seconds and --fps of a command that runs a graph (run, plot), checked against their ranges. */
export function runLength(values: Record<string, unknown>): { frames?: number; fps?: number; seconds?: number } {
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
  const n = parseDecimal(text);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${flag} needs a number >= 0, got '${text}'`);
  return n;
}

/** Why a graph did not load, as every command prints it (exit 1): a count, then each problem with its JSON path and code. */
export function loadProblems(source: string, problems: readonly GraphProblem[]): string {
  return `${source}: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n${problems.map((p) => `  ${shortJsonPath(p.path)}: ${p.message} [${p.code}]\n`).join('')}`;
}
