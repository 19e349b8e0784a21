/** `animgraph index`: builds a PoseSearchBlend node's database from the graph's clips into a file. */
import { checkOutputFiles, loadGraphForOutputs, parseOptions, UsageError } from './common.ts';
import { writeOutputFile } from './output-file.ts';
import type { Io } from './io.ts';

export async function indexCommand(args: readonly string[], io: Io): Promise<number> {
  const { values, positionals } = parseOptions(args, { out: { type: 'string' }, node: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('needs exactly one GRAPH file');
  const out = values.out as string | undefined;
  if (out === undefined) throw new UsageError('needs --out FILE');
  checkOutputFiles({ '--out': out }, positionals[0]);
  const { PoseSearchDatabase, serializePoseSearchDatabase } = await import('../runtime/jobs/pose-search/index.ts');
  // Rebuild from the clips even where the asset names an index file (it may be the stale one).
  const graph = loadGraphForOutputs(positionals[0], { '--out': out }, { useIndexFiles: false });
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
  writeOutputFile(out, bytes);
  io.out(`wrote ${out}: node '${chosen[0]}', ${db.frameCount} frames of ${db.dims} features from ${db.clipCount} clip${db.clipCount === 1 ? '' : 's'} `
    + `at ${db.schema.sampleRate} Hz, ${db.tree.nodeStart.length} tree nodes (hash ${db.hash.hash.slice(0, 12)})\n`);
  return 0;
}
