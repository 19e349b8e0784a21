/** `animgraph view GRAPH [--port N]`: serves the viewer page for GRAPH on 127.0.0.1 until stopped. */
import type { Io } from './io.ts';
import { pageCommandArgs, untilStopped } from './local-server.ts';
import { PortInUseError, startViewServer } from './view-server.ts';

export const DEFAULT_VIEW_PORT = 7860;

/**
 * Runs until `stop` is aborted (default: SIGINT or SIGTERM); resolves to the exit code: 2 for bad
 * usage or a port in use, 1 when GRAPH is not a file. A graph that does not load still starts the
 * server: the page lists its problems, and shows the graph once the file is fixed.
 */
export async function viewCommand(args: readonly string[], io: Io, stop?: AbortSignal): Promise<number> {
  const parsed = pageCommandArgs('view', args, io, DEFAULT_VIEW_PORT);
  if (typeof parsed === 'number') return parsed;
  const { graph, port } = parsed;
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
