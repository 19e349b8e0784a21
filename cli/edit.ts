/**
 * `animgraph edit GRAPH [--port N] [--nodes MODULE]`: serves the graph editor for GRAPH on
 * 127.0.0.1 until stopped; the page saves back to GRAPH, and to no other file.
 */
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NodeRegistry } from '../graphs/loader.ts';
import { editorMetaProblems, type NodeEditorMeta } from '../editor-meta/index.ts';
import type { NodeType } from '../runtime/node/node.ts';
import type { Io } from './io.ts';
import { pageCommandArgs, PortInUseError, untilStopped } from './local-server.ts';
import { startEditServer } from './edit-server.ts';

export const DEFAULT_EDIT_PORT = 7861;

/** The only modules a --nodes module may import: the page's import map has these two, and nothing else. */
const PAGE_IMPORTS = new Set(['animgraph', 'animgraph/nodes']);

/** The module specifiers a JavaScript text imports (static, side-effect and literal dynamic imports; comments are not skipped). */
export function moduleImports(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|[^\w$.])(?:import|export)\s*(?:\(\s*|[\w$*{}\s,]*?\bfrom\s*)?(['"])([^'"\n]+)\1/g)) found.push(m[2]);
  return found;
}

let hooked = false;

/**
 * Makes `animgraph` and `animgraph/nodes`, imported by a --nodes module, this command's own
 * modules, as the page's import map does: the module's node classes then extend the classes the
 * loader checks against, wherever the module lives and whichever animgraph it would otherwise find.
 */
function hookAnimgraphImports(): void {
  if (hooked) return;
  hooked = true;
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const urls = {
    animgraph: new URL(`../index${ext}`, import.meta.url).href,
    'animgraph/nodes': new URL(`../custom-nodes${ext}`, import.meta.url).href,
  };
  const hooks = `const urls = ${JSON.stringify(urls)};
export async function resolve(specifier, context, next) {
  return next(Object.hasOwn(urls, specifier) ? urls[specifier] : specifier, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

/** A --nodes module that cannot be used: exit 2 with its message. */
export class NodesModuleError extends Error {}

/**
 * Imports a --nodes module: `nodeTypes` (a list of node types, required) and `editorMeta` (their
 * editor descriptions, optional), as named exports or as fields of the default export. Returns the
 * registry of the built-in types and these, each checked as NodeRegistry.register checks it.
 */
export async function loadNodesModule(file: string): Promise<{ registry: NodeRegistry; types: NodeType[]; metas: NodeEditorMeta[] }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new NodesModuleError(`cannot read --nodes ${file}: ${(e as Error).message}`);
  }
  const foreign = moduleImports(text).filter((s) => !PAGE_IMPORTS.has(s));
  if (foreign.length > 0) {
    throw new NodesModuleError(`--nodes ${file} imports ${foreign.map((s) => `'${s}'`).join(', ')}: the page loads the module by itself, `
      + `with only 'animgraph' and 'animgraph/nodes' beside it; bundle the module and what it imports into one file`);
  }
  hookAnimgraphImports();
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(resolve(file)).href) as Record<string, unknown>;
  } catch (e) {
    throw new NodesModuleError(`cannot import --nodes ${file}: ${(e as Error).message}`);
  }
  const fields = (module.default ?? {}) as Record<string, unknown>;
  const types = module.nodeTypes ?? fields.nodeTypes;
  const metas = module.editorMeta ?? fields.editorMeta ?? [];
  if (!Array.isArray(types)) throw new NodesModuleError(`--nodes ${file} exports no 'nodeTypes' list`);
  if (!Array.isArray(metas)) throw new NodesModuleError(`--nodes ${file}: 'editorMeta' is not a list`);
  const registry = new NodeRegistry();
  for (const type of types as NodeType[]) {
    try {
      registry.register(type);
    } catch (e) {
      throw new NodesModuleError(`--nodes ${file}: ${(e as Error).message}`);
    }
  }
  for (const meta of metas as NodeEditorMeta[]) {
    const type = (types as NodeType[]).find((t) => t.type === meta?.type);
    if (type === undefined) throw new NodesModuleError(`--nodes ${file}: editorMeta describes '${String(meta?.type)}', which is not in nodeTypes`);
    const problems = editorMetaProblems(type, meta);
    if (problems.length > 0) throw new NodesModuleError(`--nodes ${file}: the editorMeta of '${type.type}' does not match it: ${problems.join('; ')}`);
  }
  return { registry, types: types as NodeType[], metas: metas as NodeEditorMeta[] };
}

/**
 * Runs until `stop` is aborted (default: SIGINT or SIGTERM); resolves to the exit code: 2 for bad
 * usage, a --nodes module that cannot be used or a port in use, 1 when GRAPH is not a file. A
 * graph with problems opens too: the page marks them, and edits and saves it.
 */
export async function editCommand(args: readonly string[], io: Io, stop?: AbortSignal): Promise<number> {
  const parsed = pageCommandArgs('edit', args, io, DEFAULT_EDIT_PORT, ['nodes']);
  if (typeof parsed === 'number') return parsed;
  const { graph, port, values } = parsed;
  let nodes;
  if (values.nodes !== undefined) {
    try {
      const loaded = await loadNodesModule(values.nodes);
      nodes = { registry: loaded.registry, moduleFile: resolve(values.nodes) };
    } catch (e) {
      if (!(e instanceof NodesModuleError)) throw e;
      io.err(`animgraph edit: ${e.message}\n`);
      return 2;
    }
  }
  let server;
  try {
    server = await startEditServer(graph, { port, nodes });
  } catch (e) {
    if (e instanceof PortInUseError) {
      io.err(`animgraph edit: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  io.out(`animgraph edit: ${graph} at ${server.url} (Ctrl-C to stop)\n`);
  await untilStopped(stop);
  await server.close();
  return 0;
}
