import { builtInNodeTypes, OutputType } from '../nodes/index.ts';
import type { NodeType, PropertySpec } from '../runtime/node/node.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import { describeNodeType, editorMeta, isBindable, type PinDescription, type PropertyDescription } from './index.ts';
import type { NodeCategory, NodeEditorMeta } from './types.ts';

/** Category order on the page: sources first, as a graph is read from its leaves up. */
const CATEGORIES: readonly NodeCategory[] = ['Pose sources', 'Blends', 'Cached poses', 'Skeletal controls', 'Output'];

const HEADER = `# Nodes

<!-- Generated from editor-meta/ and the runtime node types by \`npm run docs\` (\`animgraph docs\`):
edit those, not this file (tests/editor-meta/docs.test.ts keeps it current). -->

Every node's behaviour is in one file under \`nodes/\`, its editor description under
\`editor-meta/\`, its tests under \`tests/nodes/\`.

Weights multiply down the graph (a node under a 50% blend under a 50% blend has weight 25%); a
branch at or below 0.00001 is irrelevant: not updated, not evaluated, and its nodes emit
\`nodeBecameRelevant\` when it becomes relevant again.

Each node below gives its editor title and description, its behaviour, then its pins and
properties as the loader checks them: defaults and ranges come from the runtime spec, so they
cannot drift from what a graph gets. A property marked bindable may be written as
\`{ "param": "name" }\`, naming a parameter of a type listed, and a bindable float or bool property
as \`{ "curve": "name" }\`, naming a curve of the graph's clips, read as the previous update left it
(see [the asset format](asset-format.md)); a set-up property is read
once when the node is built.`;

/**
 * The node reference (docs/nodes.md) as markdown: per category, per node, its title, description
 * and `reference` text, then tables of its pins and properties merged from the runtime spec.
 * `types` and `metas` default to the built-in node types (and the output) and their docs.
 */
export function nodeReferenceMarkdown(
  types: readonly NodeType[] = [...builtInNodeTypes, OutputType],
  metas: readonly NodeEditorMeta[] = editorMeta,
): string {
  const documented = metas.filter((m) => types.some((t) => t.type === m.type));
  const sections: string[] = [HEADER, contents(documented)];
  for (const category of CATEGORIES) {
    const inCategory = documented.filter((m) => m.category === category);
    if (inCategory.length === 0) continue;
    sections.push(`## ${category}`);
    for (const meta of inCategory) sections.push(nodeSection(types.find((t) => t.type === meta.type)!, meta));
  }
  return `${sections.join('\n\n')}\n`;
}

/** Where the README's node list starts and ends (README.md holds the list between them). */
export const README_NODES_START = '<!-- The node list: generated from nodes/index.ts and editor-meta/ by `npm run docs`. -->';
export const README_NODES_END = '<!-- End of the node list. -->';

/**
 * `readme` with its node list (between README_NODES_START and README_NODES_END) made anew: per
 * category, each built-in node type (and the output) in palette order, linked to its section of
 * docs/nodes.md, with its summary. Throws an AnimGraphError (`invalid-argument`) if the markers are
 * missing.
 */
export function readmeWithNodeList(readme: string, metas: readonly NodeEditorMeta[] = editorMeta): string {
  const start = readme.indexOf(README_NODES_START), end = readme.indexOf(README_NODES_END);
  if (start < 0 || end < start) throw new AnimGraphError('invalid-argument', 'the README has no node list markers (README_NODES_START, README_NODES_END)');
  const list = CATEGORIES
    .map((category) => [category, metas.filter((m) => m.category === category)] as const)
    .filter(([, inCategory]) => inCategory.length > 0)
    .map(([category, inCategory]) => [
      `- ${category}`,
      ...inCategory.map((m) => `  - [${m.type}](docs/nodes.md#${m.type.toLowerCase()})${m.summary !== undefined ? `: ${m.summary}` : ''}`),
    ].join('\n'))
    .join('\n');
  return `${readme.slice(0, start)}${README_NODES_START}\n${list}\n${readme.slice(end)}`;
}

function contents(metas: readonly NodeEditorMeta[]): string {
  return CATEGORIES
    .map((category) => [category, metas.filter((m) => m.category === category)] as const)
    .filter(([, inCategory]) => inCategory.length > 0)
    .map(([category, inCategory]) => `- ${category}: ${inCategory.map((m) => `[${m.type}](#${m.type.toLowerCase()})`).join(', ')}`)
    .join('\n');
}

function nodeSection(type: NodeType, meta: NodeEditorMeta): string {
  const node = describeNodeType(type, meta);
  const builtIn = type === OutputType || builtInNodeTypes.includes(type);
  const parts = [
    `### ${type.type}`,
    `**${node.title}** · outputs a ${node.space}-space pose${builtIn ? ` · \`nodes/${type.type}.ts\`` : ''}`,
    node.description,
  ];
  if (meta.reference !== undefined) parts.push(meta.reference.trim());
  if (node.pins.length > 0) parts.push(pinTable(node.pins));
  if (node.properties.length > 0) parts.push(propertyTable(node.properties, type.properties));
  return parts.join('\n\n');
}

function pinTable(pins: readonly PinDescription[]): string {
  const rows = pins.map((pin) => row([
    code(pin.name),
    pin.title,
    pin.kind === 'poseList' ? `pose list (at least ${pin.minCount})` : 'pose',
    pin.accepts.length === 1 ? `${pin.space} only` : pin.space,
    pin.description,
  ]));
  return ['| pin | title | kind | space | description |', '|---|---|---|---|---|', ...rows].join('\n');
}

function propertyTable(properties: readonly PropertyDescription[], specs: Readonly<Record<string, PropertySpec>>): string {
  const rows: string[] = [];
  const add = (prefix: string, list: readonly PropertyDescription[], specsOf: Readonly<Record<string, PropertySpec>>) => {
    for (const p of list) {
      const spec = specsOf[p.name];
      rows.push(row([code(prefix + p.name), p.title, kind(p), defaultOf(p), range(p), p.unit ?? '', bindability(p, spec), p.description]));
      if (spec.kind === 'list') add(`${prefix}${p.name}[].`, p.item!, spec.item);
    }
  };
  add('', properties, specs);
  return ['| property | title | kind | default | range | unit | bindable | description |', '|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}

function kind(p: PropertyDescription): string {
  if (p.kind === 'floatList') return `float list (one per \`${p.perInput}\` link, or one for all)`;
  if (p.kind === 'list') return `list (at least ${p.minCount})`;
  if (p.kind === 'clipList') return `clip list (at least ${p.minCount})`;
  if (p.kind === 'node') return `id of a ${p.nodeType} node`;
  if (p.kind === 'blendProfile') return `blend profile name (${(p.modes ?? []).join(' or ')})`;
  return p.kind;
}

function defaultOf(p: PropertyDescription): string {
  if (p.default !== undefined) return code(value(p.default));
  // Without a default, what the node does when it is left out is in its description.
  return p.required ? 'required' : 'optional';
}

function range(p: PropertyDescription): string {
  if (p.options) return p.options.map(code).join(', ');
  if (p.min !== undefined && p.max !== undefined) return `${number(p.min)} to ${number(p.max)}`;
  if (p.min !== undefined) return `≥ ${number(p.min)}`;
  if (p.max !== undefined) return `≤ ${number(p.max)}`;
  return '';
}

function bindability(p: PropertyDescription, spec: PropertySpec): string {
  if (p.bindable) return `yes (${p.bindableFrom.join(', ')})`;
  // `bindable: false` on a kind that parameters could feed: the node's set-up, read once.
  return isBindable(spec) ? 'no: set-up' : 'no';
}

function value(v: NonNullable<PropertyDescription['default']>): string {
  if (typeof v === 'number') return number(v);
  if (typeof v === 'string' || typeof v === 'boolean') return String(v);
  return `[${v.map(number).join(', ')}]`;
}

/** Large bounds as the prose writes them (1e6, not 1000000). */
function number(n: number): string {
  return Math.abs(n) >= 1e5 ? n.toExponential().replace('e+', 'e') : String(n);
}

function code(text: string): string {
  return `\`${text}\``;
}

function row(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replaceAll('|', '\\|').replaceAll('\n', ' ')).join(' | ')} |`;
}
