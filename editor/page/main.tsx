/**
 * The `animgraph edit` page: reads the graph from the server (cli/edit-server.ts), and with it the
 * custom node types of `--nodes` (imported through the page's import map), then hands them to the
 * editor (app.tsx). The graph runs here, in the browser.
 */
import { createRoot } from 'react-dom/client';
import { NodeRegistry } from '../../graphs/loader.ts';
import { editorMeta as builtInMetas, type NodeEditorMeta } from '../../editor-meta/index.ts';
import type { NodeType } from '../../runtime/node/node.ts';
import type { JsonObject } from '../model/index.ts';
import { App } from './app.tsx';
import { Checker } from './checker.ts';
import { editorState, type EditorProblem } from './state.ts';

interface GraphInfo { source: string; text?: string; asset?: unknown; problems: EditorProblem[]; nodes: boolean }

function fail(source: string, problems: readonly EditorProblem[]): void {
  editorState.status = 'error';
  editorState.problems = [...problems];
  document.body.dataset.status = 'error';
  const box = document.getElementById('errors')!;
  const title = document.createElement('h2');
  title.textContent = `${source} cannot be edited: ${problems.length} problem${problems.length === 1 ? '' : 's'} (fix the file; the page reloads it when it changes)`;
  const list = document.createElement('ul');
  for (const p of problems) {
    const item = document.createElement('li');
    item.textContent = `${p.path}: ${p.message} [${p.code}]`;
    list.append(item);
  }
  box.replaceChildren(title, list);
  box.hidden = false;
  const events = new EventSource('api/events');
  events.addEventListener('change', () => location.reload());
}

async function start(): Promise<void> {
  editorState.timings.script = performance.now();
  let info: GraphInfo;
  try {
    info = await (await fetch('api/graph')).json() as GraphInfo;
  } catch (e) {
    return fail('the graph', [{ path: '$', code: 'file', message: `the server did not answer: ${(e as Error).message}` }]);
  }
  editorState.timings.graph = performance.now();
  editorState.source = info.source;
  document.title = `${info.source} · animgraph edit`;
  const asset = info.asset;
  if (info.text === undefined || asset === null || typeof asset !== 'object' || Array.isArray(asset)) {
    return fail(info.source, info.problems.length > 0 ? info.problems : [{ path: '$', code: 'schema', message: 'the graph is not a JSON object' }]);
  }
  let registry: NodeRegistry | undefined;
  let metas: NodeEditorMeta[] = [...builtInMetas];
  if (info.nodes) {
    // A variable specifier: the bundler leaves the import to the browser, which resolves the
    // module's own imports of animgraph and animgraph/nodes through the page's import map.
    const url = './nodes-config.mjs';
    try {
      const module = await import(/* @vite-ignore */ url) as Record<string, unknown>;
      const fields = (module.default ?? {}) as Record<string, unknown>;
      const types = (module.nodeTypes ?? fields.nodeTypes ?? []) as NodeType[];
      registry = new NodeRegistry();
      for (const t of types) registry.register(t);
      metas = [...metas, ...((module.editorMeta ?? fields.editorMeta ?? []) as NodeEditorMeta[])];
    } catch (e) {
      return fail(info.source, [{ path: '$', code: 'node-type', message: `the --nodes module did not load in the page: ${(e as Error).message}` }]);
    }
  }
  const checker = new Checker(info.source, registry);
  createRoot(document.getElementById('root')!).render(
    <App opened={{ source: info.source, text: info.text, asset: asset as JsonObject, textProblems: info.problems, types: { registry, metas }, registry, checker }} />,
  );
}

void start();
