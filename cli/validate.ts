/** `animgraph validate`: checks a graph and its files without running it. */
import { checkGraphFile } from '../host/files.ts';
import { loadProblems, parseOptions, UsageError } from './common.ts';
import type { Io } from './io.ts';

export function validateCommand(args: readonly string[], io: Io): number {
  const { positionals } = parseOptions(args, {});
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
