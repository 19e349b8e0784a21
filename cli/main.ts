/**
 * The `animgraph` command: its usage, each command's file by name, and the exit code of each error.
 * Each command's file is imported when that command runs, so a command loads only what it uses.
 */
import { GraphLoadError } from '../graphs/loader.ts';
import { loadProblems, NonFiniteError, OutputError, UsageError } from './common.ts';
import { OutputClosed, stdoutIo, type Io } from './io.ts';
import { commandHelp } from './help.ts';

// Exported from here before the commands had files of their own; kept for callers of main.ts.
export { parseSet } from './common.ts';
export { OutputClosed, stdoutIo, type Io } from './io.ts';

const USAGE = `animgraph: evaluate animation graph assets headlessly

Usage:
  animgraph run GRAPH [--frames N | --seconds S] [--fps F] [--set NAME=VALUE[@SECONDS]]... [--montage NAME[:SECTION][@SECONDS]]...
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
  animgraph examples [DIR] [--force]
  animgraph retarget GRAPH CLIP --out FILE.gltf
  animgraph edit GRAPH [--port N] [--nodes MODULE]
  animgraph help [COMMAND]        (or COMMAND --help)

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
examples  copies the example graphs the package ships (sample-*.json, on the built-in
          sample biped) into DIR (default: examples), for the commands above; a file there
          with other contents is kept unless --force.

retarget  writes clip CLIP of GRAPH, retargeted and mirrored as the asset says, as a .gltf
          file of GRAPH's skeleton (its bones as nodes, the clip as an animation), and lists
          the bone map and the hip-height scale.

edit      serves the graph editor on http://127.0.0.1:N/ (default port 7861): GRAPH drawn as
          nodes and wires, edited (checked by the loader as you edit), played with blend
          weights on the wires, and saved back to GRAPH (to no other file). --nodes MODULE
          adds the custom node types MODULE exports (nodeTypes, and editorMeta). Runs until
          Ctrl-C; a port in use or a MODULE that cannot be used exits 2.

--frames is a whole number from 1 to 10,000,000 (--seconds likewise in frames), --fps a
number from 0.001 to 10,000.
Exit codes: 0 success; 1 the graph did not load; 2 bad usage; 3 an output file could not be
written; 4 the graph produced a non-finite number (nothing non-finite is ever written).
`;

/** Runs the CLI with the given arguments; resolves to the process exit code. */
export async function main(argv: readonly string[], io: Io = stdoutIo()): Promise<number> {
  const [command, ...rest] = argv;
  // `COMMAND --help` (or -h) anywhere among its arguments, and `help COMMAND`: that command's part of the usage.
  const helpFor = command === 'help' ? rest[0] : rest.includes('--help') || rest.includes('-h') ? command : undefined;
  if (helpFor !== undefined) {
    const help = commandHelp(USAGE, helpFor);
    if (help !== undefined) {
      io.out(help);
      return 0;
    }
  }
  try {
    switch (command) {
      case 'run': return await (await import('./run.ts')).runCommand(rest, io);
      case 'validate': return (await import('./validate.ts')).validateCommand(rest, io);
      case 'schema': return await (await import('./schema-docs.ts')).schemaCommand(rest, io);
      case 'docs': return await (await import('./schema-docs.ts')).docsCommand(rest, io);
      case 'index': return await (await import('./index-cmd.ts')).indexCommand(rest, io);
      case 'plot': return await (await import('./plot.ts')).plotCommand(rest, io);
      case 'view': return await (await import('./view.ts')).viewCommand(rest, io);
      case 'examples': return (await import('./examples.ts')).examplesCommand(rest, io);
      case 'retarget': return await (await import('./retarget.ts')).retargetCommand(rest, io);
      case 'edit': return await (await import('./edit.ts')).editCommand(rest, io);
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
