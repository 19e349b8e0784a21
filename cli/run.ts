/** `animgraph run`: evaluates a graph at a fixed step, writing debug trees and poses. */
import { formatDebugTree, GraphRunner, type MontageStart } from '../host/runner.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import {
  checkOutputFiles, loadGraphForOutputs, NonFiniteError, parseOptions, parseSet, runLength, updateRateOptions, UsageError, withSetTexts,
} from './common.ts';
import { commitAll, OutputFile } from './output-file.ts';
import type { Io } from './io.ts';

export async function runCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    frames: { type: 'string' },
    seconds: { type: 'string' },
    fps: { type: 'string' },
    set: { type: 'string', multiple: true },
    montage: { type: 'string', multiple: true },
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
  const debugOut = values['debug-out'] as string | undefined;
  const posesPath = values.poses as string | undefined;
  const outputs = { '--debug-out': debug ? debugOut : undefined, '--poses': posesPath };
  checkOutputFiles(outputs, positionals[0]);
  const graph = loadGraphForOutputs(positionals[0], outputs);
  const sets = (values.set as string[] | undefined) ?? [];
  const timeline = sets.map((s) => parseSet(s, graph));
  const montageTexts = (values.montage as string[] | undefined) ?? [];
  const montages = montageTexts.map((text) => parseMontage(text));
  const runner = withSetTexts(sets, () => withMontageTexts(montageTexts, () => new GraphRunner(graph, { frames, seconds, fps, timeline, montages, ...updateRateOptions(values) })));

  const files: OutputFile[] = [];
  try {
    const debugFile = debug && debugOut ? new OutputFile(debugOut) : undefined;
    if (debugFile) files.push(debugFile);
    const posesFile = posesPath ? new OutputFile(posesPath) : undefined;
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
      // A turn of the event loop now and then, so that Ctrl-C removes the temporary outputs.
      else if (files.length > 0 && f % 1024 === 1023) await new Promise((resolveTurn) => setImmediate(resolveTurn));
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
    commitAll(files);
  } catch (e) {
    // A run that fails writes no file: each output stays as it was.
    for (const file of files) file.abandon();
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

/** `--montage NAME[:SECTION][@SECONDS]`: a montage to play, checked against the graph by GraphRunner. */
function parseMontage(text: string): MontageStart {
  const m = /^([^:@]+)(?::([^@]+))?(?:@(.*))?$/.exec(text);
  if (!m) throw new UsageError(`--montage '${text}': expected NAME, NAME:SECTION, NAME@SECONDS or NAME:SECTION@SECONDS`);
  const time = m[3] === undefined ? 0 : Number(m[3]);
  if (m[3] !== undefined && (m[3].trim() === '' || !(time >= 0 && time < Infinity))) throw new UsageError(`--montage '${text}': time '${m[3]}' must be seconds >= 0`);
  return { montage: m[1], section: m[2], time };
}

/** Runs `start`, turning GraphRunner's error for its montages[i] into a usage error naming the --montage option. */
function withMontageTexts<T>(texts: readonly string[], start: () => T): T {
  try {
    return start();
  } catch (e) {
    const m = e instanceof AnimGraphError ? /^montages\[(\d+)\]: (.*)$/s.exec(e.message) : null;
    if (m) throw new UsageError(`--montage '${texts[Number(m[1])]}': ${m[2]}`, { cause: e });
    throw e;
  }
}

/** Throws NonFiniteError naming the first bone of frame `frame` with a non-finite number. */
function requireFinite(frame: number, bones: readonly string[], root: readonly number[], local: readonly number[][], component: readonly number[][]): void {
  if (!root.every(Number.isFinite)) throw new NonFiniteError(`frame ${frame}: the root transform is not finite (${root.join(', ')}); the run stops before writing it`);
  for (const [space, rows] of [['local', local], ['component', component]] as const) {
    const bone = rows.findIndex((row) => !row.every(Number.isFinite));
    if (bone >= 0) throw new NonFiniteError(`frame ${frame}: bone '${bones[bone]}' has a non-finite ${space} transform (${rows[bone].join(', ')}); the run stops before writing it`);
  }
}
