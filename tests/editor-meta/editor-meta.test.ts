import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, relative } from 'node:path';
import { createScanner, SyntaxKind } from 'typescript/unstable/ast';
import { describe, expect, it } from 'vitest';
import { describeNodeType, editorMeta, editorMetaFor, editorMetaProblems, type NodeEditorMeta } from '../../editor-meta/index.ts';
import { builtInNodeTypes, OutputType } from '../../nodes/index.ts';
import { BlendTwoType } from '../../nodes/BlendTwo.ts';
import type { NodeType } from '../../runtime/node/node.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const documentedTypes: readonly NodeType[] = [...builtInNodeTypes, OutputType];

function difference(a: Iterable<string>, b: Iterable<string>): string[] {
  const other = new Set(b);
  return [...a].filter((x) => !other.has(x)).sort();
}

describe('editor meta covers the runtime specs', () => {
  it('has exactly one meta per built-in node type (and the output), and none for unknown types', () => {
    const counts = new Map<string, number>();
    for (const m of editorMeta) counts.set(m.type, (counts.get(m.type) ?? 0) + 1);
    const runtimeTypes = documentedTypes.map((t) => t.type);
    expect(difference(runtimeTypes, counts.keys()), 'node types without a meta').toEqual([]);
    expect(difference(counts.keys(), runtimeTypes), 'metas for node types the runtime does not have').toEqual([]);
    expect([...counts].filter(([, n]) => n !== 1), 'node types with more than one meta').toEqual([]);
  });

  for (const type of documentedTypes) {
    describe(type.type, () => {
      const meta = editorMetaFor(type.type)!;

      it('documents every property and input of the runtime spec, and nothing else', () => {
        expect(meta).toBeDefined();
        const runtimeProps = Object.keys(type.properties), docProps = Object.keys(meta.properties);
        const runtimeInputs = type.inputs.map((i) => i.name), docInputs = Object.keys(meta.pins);
        expect(difference(runtimeProps, docProps), 'undocumented properties').toEqual([]);
        expect(difference(docProps, runtimeProps), 'documented properties the runtime lacks').toEqual([]);
        expect(difference(runtimeInputs, docInputs), 'undocumented inputs').toEqual([]);
        expect(difference(docInputs, runtimeInputs), 'documented inputs the runtime lacks').toEqual([]);
      });

      it('has non-empty titles and descriptions', () => {
        const entries = [meta, ...Object.values(meta.properties), ...Object.values(meta.pins)];
        for (const e of entries) {
          expect(e.title.trim()).not.toBe('');
          expect(e.description.trim().length).toBeGreaterThan(10);
        }
      });
    });
  }

  it('editorMetaProblems reports a renamed property on either side', () => {
    const stale: NodeEditorMeta = {
      ...editorMetaFor('BlendTwo')!,
      properties: { weight: { title: 'Weight', description: 'renamed in the docs only' } },
    };
    expect(editorMetaProblems(BlendTwoType, stale)).toEqual([
      "BlendTwo: property 'alpha' has no docs",
      "BlendTwo: docs for property 'weight', which the runtime does not have",
    ]);
    expect(editorMetaProblems(BlendTwoType, editorMetaFor('BlendTwo')!)).toEqual([]);
  });
});

describe('describeNodeType', () => {
  const describeBuiltIn = (name: string) => describeNodeType(documentedTypes.find((t) => t.type === name)!, editorMetaFor(name)!);

  it('merges range, default, bindability and docs', () => {
    const blend = describeBuiltIn('BlendTwo');
    expect(blend).toMatchObject({ type: 'BlendTwo', title: 'Blend', category: 'Blends', space: 'local' });
    expect(blend.properties).toEqual([expect.objectContaining({
      name: 'alpha', kind: 'float', default: 0.5, min: 0, max: 1, required: false,
      bindable: true, bindableFrom: ['float', 'int'], title: 'Alpha',
    })]);
    expect(blend.pins.map((p) => [p.name, p.kind, p.space])).toEqual([['A', 'pose', 'local'], ['B', 'pose', 'local']]);
  });

  it('describes references, lists and component-space pins', () => {
    const copy = describeBuiltIn('CopyBone');
    expect(copy.category).toBe('Skeletal controls');
    expect(copy.space).toBe('component');
    const source = copy.properties.find((p) => p.name === 'sourceBone')!;
    expect(source).toMatchObject({ kind: 'bone', required: true, bindable: false, bindableFrom: [] });
    expect(source).not.toHaveProperty('default');
    expect(copy.properties.find((p) => p.name === 'copyRotation')).toMatchObject({ default: true, bindableFrom: ['bool'] });
    expect(copy.pins[0]).toMatchObject({ name: 'pose', space: 'component', accepts: ['local', 'component'] });

    const list = describeBuiltIn('BlendList');
    expect(list.properties.find((p) => p.name === 'blendTimes')).toMatchObject({ kind: 'floatList', perInput: 'poses', unit: 's', bindable: false });
    expect(list.properties.find((p) => p.name === 'activeIndex')).toMatchObject({ kind: 'int', min: 0, bindableFrom: ['int'] });
    expect(list.pins[0]).toMatchObject({ kind: 'poseList', minCount: 1 });
  });

  it('covers kinds no built-in uses yet (enum options, vec3 defaults)', () => {
    const type: NodeType = {
      type: 'Custom', space: 'local', inputs: [],
      properties: { mode: { kind: 'enum', options: ['add', 'replace'], default: 'add' }, offset: { kind: 'vec3', default: [0, 1, 0] } },
      create: () => { throw new Error('not built in this test'); },
    };
    const meta: NodeEditorMeta = {
      type: 'Custom', title: 'Custom', category: 'Blends', description: 'A node type made up for this test.', pins: {},
      properties: { mode: { title: 'Mode', description: 'How it applies.' }, offset: { title: 'Offset', description: 'Where.', unit: 'cm' } },
    };
    const [mode, offset] = describeNodeType(type, meta).properties;
    expect(mode).toMatchObject({ kind: 'enum', options: ['add', 'replace'], default: 'add', bindable: false });
    expect(offset).toMatchObject({ kind: 'vec3', default: [0, 1, 0], bindable: true, bindableFrom: ['vec3'], unit: 'cm' });
  });

  it('refuses a meta that does not match the runtime spec', () => {
    expect(() => describeNodeType(BlendTwoType, editorMetaFor('BlendList')!)).toThrow(/does not match the runtime/);
  });
});

// ---------------------------------------------------------------------------------------------
// The editor/runtime split: runtime code must load without editor-meta, as in Unreal, where
// runtime modules never depend on editor modules.

/** Tokens after which a `/` ends an expression (division), so it cannot open a regular expression. */
const EXPRESSION_ENDS = new Set([
  SyntaxKind.Identifier, SyntaxKind.CloseParenToken, SyntaxKind.CloseBracketToken, SyntaxKind.CloseBraceToken,
  SyntaxKind.NumericLiteral, SyntaxKind.BigIntLiteral, SyntaxKind.StringLiteral, SyntaxKind.NoSubstitutionTemplateLiteral,
  SyntaxKind.TemplateTail, SyntaxKind.ThisKeyword, SyntaxKind.SuperKeyword, SyntaxKind.TrueKeyword, SyntaxKind.FalseKeyword,
  SyntaxKind.NullKeyword, SyntaxKind.PlusPlusToken, SyntaxKind.MinusMinusToken,
]);

/**
 * Module specifiers imported, re-exported, required or dynamically imported by `source` that name
 * editor-meta. The compiler's scanner (TypeScript 7 has no `preProcessFile`: the pre-processor
 * that did this was a scan like this one) skips comments and reads strings, templates and regular
 * expressions whole, so only a string at an import site counts: after `from`, after `import`, or
 * as the argument of `import(` or `require(`.
 */
function editorMetaImports(source: string): string[] {
  const scanner = createScanner(true, undefined, source);
  const found: string[] = [];
  const templates: number[] = []; // brace depth at each open `${`
  let depth = 0;
  let previous = SyntaxKind.Unknown, before = SyntaxKind.Unknown; // the two tokens before this one
  for (let token = scanner.scan(); token !== SyntaxKind.EndOfFile; token = scanner.scan()) {
    if ((token === SyntaxKind.SlashToken || token === SyntaxKind.SlashEqualsToken) && !EXPRESSION_ENDS.has(previous)) token = scanner.reScanSlashToken();
    if (token === SyntaxKind.OpenBraceToken) depth++;
    else if (token === SyntaxKind.CloseBraceToken) {
      if (templates.length > 0 && templates[templates.length - 1] === depth) {
        token = scanner.reScanTemplateToken(false);
        if (token === SyntaxKind.TemplateTail) templates.pop();
      } else depth--;
    } else if (token === SyntaxKind.TemplateHead) templates.push(depth);
    if (token === SyntaxKind.StringLiteral && (previous === SyntaxKind.FromKeyword || previous === SyntaxKind.ImportKeyword
      || (previous === SyntaxKind.OpenParenToken && (before === SyntaxKind.ImportKeyword || before === SyntaxKind.RequireKeyword)))) {
      found.push(scanner.getTokenValue());
    }
    before = previous;
    previous = token;
  }
  return found.filter((s) => s.includes('editor-meta'));
}

function tsFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('runtime code does not depend on editor-meta', () => {
  it('the detector flags real imports and ignores mentions', () => {
    expect(editorMetaImports("import { x } from '../editor-meta/index.ts';")).toEqual(['../editor-meta/index.ts']);
    expect(editorMetaImports("import type { NodeEditorMeta } from '../editor-meta/types.ts';")).toHaveLength(1);
    expect(editorMetaImports("export { editorMeta } from '../editor-meta/index.ts';")).toHaveLength(1);
    expect(editorMetaImports("const m = await import('../editor-meta/schema.ts');")).toHaveLength(1);
    expect(editorMetaImports("const m = require('../../editor-meta/index.ts');")).toHaveLength(1);
    expect(editorMetaImports("import '../editor-meta/side-effect.ts';")).toHaveLength(1);
    expect(editorMetaImports('// Docs for these nodes live in editor-meta/, which imports this file.')).toEqual([]);
    expect(editorMetaImports("/* import { x } from '../editor-meta/index.ts' */\nconst folder = 'editor-meta';")).toEqual([]);
    expect(editorMetaImports("import { NodeType } from '../runtime/node.ts';")).toEqual([]);
    // Templates and regular expressions are read whole, so what they hold is no import site, and
    // what follows them still is.
    expect(editorMetaImports("const t = `${a}import x from '../editor-meta/a.ts' ${`${b}`}`;\nimport '../editor-meta/b.ts';")).toEqual(['../editor-meta/b.ts']);
    expect(editorMetaImports("const r = /from '|'editor-meta'/g, q = x / 2 / 'editor-meta'.length;\nexport * from '../editor-meta/c.ts';")).toEqual(['../editor-meta/c.ts']);
  });

  it('no file under runtime/, nodes/ or graphs/ imports editor-meta', () => {
    const files = ['runtime', 'nodes', 'graphs'].flatMap((d) => tsFilesUnder(join(root, d)));
    // Guards against a wrong root making the scan vacuous.
    expect(files.map((f) => relative(root, f))).toEqual(expect.arrayContaining([join('runtime', 'node', 'node.ts'), join('nodes', 'BlendTwo.ts'), join('graphs', 'loader.ts')]));
    const offenders = files.flatMap((f) => editorMetaImports(readFileSync(f, 'utf8')).map((s) => `${relative(root, f)} imports ${s}`));
    expect(offenders).toEqual([]);
  });
});
