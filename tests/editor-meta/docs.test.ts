import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main, type Io } from '../../cli/main.ts';
import { nodeReferenceMarkdown, README_NODES_END, README_NODES_START, readmeWithNodeList } from '../../editor-meta/docs.ts';
import { editorMeta, editorMetaFor } from '../../editor-meta/index.ts';
import { BlendTwoType } from '../../nodes/BlendTwo.ts';
import { builtInNodeTypes, OutputType } from '../../nodes/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const page = nodeReferenceMarkdown();

/** The lines of `type`'s section of the page, up to the next node or category heading. */
function section(type: string): string {
  const start = page.indexOf(`\n### ${type}\n`);
  expect(start, `no section for ${type}`).toBeGreaterThan(0);
  const rest = page.slice(start + 1);
  const end = rest.slice(1).search(/\n##/);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

describe('the node reference (docs/nodes.md)', () => {
  it('is what `animgraph docs` prints, and the committed docs/nodes.md is current (npm run docs)', async () => {
    let out = '';
    const io: Io = { out: (t) => { out += t; }, err: () => {}, errIsTty: false };
    expect(await main(['docs'], io)).toBe(0);
    expect(out).toBe(page);
    expect(readFileSync(`${root}docs/nodes.md`, 'utf8')).toBe(page);
  });

  it('has a section per node type, with its title, description and reference text', () => {
    for (const type of [...builtInNodeTypes, OutputType]) {
      const meta = editorMetaFor(type.type)!;
      expect(meta.reference?.trim().length, `${type.type} has no reference text`).toBeGreaterThan(30);
      const text = section(type.type);
      expect(text).toContain(`**${meta.title}** · outputs a ${type.space}-space pose`);
      expect(text).toContain(meta.description);
      expect(text).toContain(meta.reference!.trim());
      expect(page).toContain(`[${type.type}](#${type.type.toLowerCase()})`);
    }
    // Categories in reading order, each node once.
    const nodes = [...page.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(nodes.sort()).toEqual([...builtInNodeTypes, OutputType].map((t) => t.type).sort());
    const headings = [...page.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(['Pose sources', 'Blends', 'Cached poses', 'Skeletal controls', 'Output']);
  });

  it('tables pins and properties from the runtime spec: default, range, unit, bindability', () => {
    expect(section('BlendTwo')).toContain('| `alpha` | Alpha | float | `0.5` | 0 to 1 |  | yes (float, int) |');
    expect(section('BlendTwo')).toContain('| `A` | A | pose | local | The pose at Alpha 0. |');
    expect(section('BlendList')).toMatch(/\| `blendTimes` \| Blend Times \| float list \(one per `poses` link, or one for all\) \| `0\.2` \| 0 to 1e6 \| s \| no \|/);
    expect(section('BlendList')).toContain('| `poses` | Blend Poses | pose list (at least 1) | local |');
    expect(section('CopyBone')).toMatch(/\| `sourceBone` \| Source Bone \| bone \| required \|  \|  \| no \|/);
    expect(section('CopyBone')).toContain('| `pose` | Component Pose | pose | component |');
    // `bindable: false` in the spec: the node's set-up, read once.
    expect(section('StrideWarping')).toContain('| `pelvisIterations` | Pelvis Iterations | int | `3` | 1 to 10 |  | no: set-up |');
    expect(section('StrideWarping')).toContain('| `pelvisAlpha` | Pelvis Alpha | float | `1` | 0 to 1 |  | yes (float, int) |');
    expect(section('TwoBoneIK')).toContain('| `hintMode` | Hint Mode | enum | `none` | `none`, `position`, `direction` |  | no |');
    // List items get a row per field.
    expect(section('BendRollHelper')).toContain('| `helpers[].axis` | Joint Axis | direction | `[1, 0, 0]` |');
    expect(section('BendRollHelper')).toContain('| `helpers[].rollWeight` | Roll Weight | float | `0` | -1 to 1 |  | yes (float, int) |');
    // Every property of every node has its row.
    for (const type of builtInNodeTypes) {
      for (const name of Object.keys(type.properties)) expect(section(type.type)).toContain(`| \`${name}\` | ${editorMetaFor(type.type)!.properties[name].title} |`);
    }
  });

  it('takes its node types from the caller', () => {
    const only = nodeReferenceMarkdown([BlendTwoType], editorMeta);
    expect(only).toContain('### BlendTwo');
    expect(only).not.toContain('### BlendList');
    expect(only).not.toContain('## Pose sources');
    // A table cell cannot hold a newline or an unescaped pipe.
    const custom = nodeReferenceMarkdown([BlendTwoType], [{
      ...editorMetaFor('BlendTwo')!, reference: undefined,
      properties: { alpha: { title: 'Alpha', description: 'a | b\nc' } },
    }]);
    expect(custom).toContain('| a \\| b c |');
  });
});

describe('README.md and docs/ link to each other', () => {
  const files = ['README.md', ...readdirSync(`${root}docs`).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  /** GitHub's heading anchors: lower case, punctuation dropped, spaces as dashes. */
  const anchors = (markdown: string) => new Set([...markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#+ (.+)$/gm)]
    .map((m) => m[1].toLowerCase().replace(/[^a-z0-9 _-]/g, '').replaceAll(' ', '-')));

  it('the README lists every node with a link to its section of docs/nodes.md, and every document', () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    for (const type of [...builtInNodeTypes, OutputType]) expect(readme).toContain(`[${type.type}](docs/nodes.md#${type.type.toLowerCase()})`);
    for (const file of files.slice(1)) expect(readme, `README does not link ${file}`).toContain(`](${file})`);
  });

  it('the README\'s node list is generated from the node types and their meta, and current (npm run docs)', () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    expect(readmeWithNodeList(readme)).toBe(readme);
    const list = readme.slice(readme.indexOf(README_NODES_START), readme.indexOf(README_NODES_END));
    expect([...list.matchAll(/^ {2}- \[(\w+)\]/gm)].map((m) => m[1])).toEqual(editorMeta.map((m) => m.type).sort((a, b) =>
      ['Pose sources', 'Blends', 'Cached poses', 'Skeletal controls', 'Output'].indexOf(editorMetaFor(a)!.category)
      - ['Pose sources', 'Blends', 'Cached poses', 'Skeletal controls', 'Output'].indexOf(editorMetaFor(b)!.category)));
    expect(() => readmeWithNodeList('# no list')).toThrow(/no node list markers/);
  });

  it('every relative link points at a file that exists, and at a heading it has', () => {
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(`${root}${file}`, 'utf8');
      for (const [, target] of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split('#');
        const resolved = path === '' ? `${root}${file}` : join(dirname(`${root}${file}`), path);
        if (!existsSync(resolved)) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor !== undefined && !anchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});
