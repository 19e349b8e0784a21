/** `animgraph view GRAPH [--port N]`: serves the viewer page for GRAPH on 127.0.0.1 until stopped. */
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { repeatedOption } from './common.ts';
import type { Io } from './io.ts';
import { parseDecimal } from '../runtime/node/parameters.ts';
import { untilStopped } from './local-server.ts';
import { PortInUseError, startViewServer } from './view-server.ts';

export const DEFAULT_VIEW_PORT = 7860;

/**
 * Runs until `stop` is aborted (default: SIGINT or SIGTERM); resolves to the exit code: 2 for bad
 * usage or a port in use, 1 when GRAPH is not a file. A graph that does not load still starts the
 * server: the page lists its problems, and shows the graph once the file is fixed.
 */
export async function viewCommand(args: readonly string[], io: Io, stop?: AbortSignal): Promise<number> {
  let values: { port?: string };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...args], options: { port: { type: 'string' } }, allowPositionals: true, strict: true }));
  } catch (e) {
    io.err(`animgraph view: ${(e as Error).message}\n`);
    return 2;
  }
  const repeated = repeatedOption(args, { port: { type: 'string' } });
  if (repeated !== undefined) {
    io.err(`animgraph view: ${repeated}\n`);
    return 2;
  }
  if (positionals.length !== 1) {
    io.err('animgraph view: needs exactly one GRAPH file\n');
    return 2;
  }
  const port = values.port === undefined ? DEFAULT_VIEW_PORT : parseDecimal(values.port);
  if (values.port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    io.err(`animgraph view: --port needs a whole number from 0 to 65535 (0: any free port), got '${values.port}'\n`);
    return 2;
  }
  const graph = positionals[0];
  let kind = 'no such file';
  try {
    const stat = statSync(graph);
    kind = stat.isFile() ? '' : stat.isDirectory() ? 'it is a directory' : 'not a regular file';
  } catch { /* no such file */ }
  if (kind !== '') {
    io.err(`animgraph view: cannot read graph file ${graph}: ${kind}\n`);
    return 1;
  }
  let server;
  try {
    server = await startViewServer(graph, { port });
  } catch (e) {
    if (e instanceof PortInUseError) {
      io.err(`animgraph view: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  io.out(`animgraph view: ${graph} at ${server.url} (Ctrl-C to stop)\n`);
  await untilStopped(stop);
  await server.close();
  return 0;
}
