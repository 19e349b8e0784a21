import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { editorMeta, editorMetaFor } from '../../editor-meta/index.ts';
import { GRAPH_SCHEMA_ID, graphJsonSchema, graphZodSchema } from '../../editor-meta/schema.ts';
import { checkGraphAsset } from '../../host/files.ts';
import { builtInNodeTypes, OutputType } from '../../nodes/index.ts';
import { BlendTwoType } from '../../nodes/BlendTwo.ts';
import { validate, type Schema } from './json-schema-subset.ts';
import { hasSharedData } from '../support/shared-data.ts';
import type { NodeEditorMeta } from '../../editor-meta/types.ts';

// ajv is not installed and no dependency may be added, so validation uses json-schema-subset.ts:
// a small 2020-12 validator that throws on any keyword it does not implement. Structural checks
// below walk the schema object directly; verdicts are also cross-checked against zod and the loader.

type Json = Record<string, any>;
const examplesDir = fileURLToPath(new URL('../../graphs/examples/', import.meta.url));
const schema = graphJsonSchema() as Json;
const variants = schema.properties.nodes.additionalProperties.oneOf as Json[];
const variantOf = (type: string) => variants.find((v) => v.properties.type.const === type)!;
const literalBranch = (prop: Json) => (prop.anyOf as Json[] | undefined)?.find((b) => b.type !== 'object') ?? prop;

const base = {
  format: 'animgraph/1',
  skeleton: 'builtin:biped',
  clips: { walk: { source: 'builtin:walk' }, run: { source: 'builtin:run' } },
  parameters: { blend: { type: 'float', default: 0.25 } },
  nodes: {
    walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
    run: { type: 'SequencePlayer', properties: { clip: 'run', playRate: 1.2 } },
    mix: { type: 'BlendTwo', inputs: { A: 'walk', B: 'run' }, properties: { alpha: { param: 'blend' } } },
  },
  output: 'mix',
};
function withNode(id: string, node: unknown): Json {
  return { ...base, nodes: { ...base.nodes, [id]: node } };
}

describe('graph JSON Schema', () => {
  it('is plain JSON and identifies itself', () => {
    expect(JSON.parse(JSON.stringify(schema))).toStrictEqual(schema);
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(GRAPH_SCHEMA_ID);
    expect(schema.title).toEqual(expect.any(String));
    expect(schema.description).toEqual(expect.any(String));
  });

  it('has one variant per node type, titled and described from editor meta', () => {
    expect(variants.map((v) => v.properties.type.const).sort()).toEqual(builtInNodeTypes.map((t) => t.type).sort());
    for (const type of builtInNodeTypes) {
      const meta = editorMetaFor(type.type)!;
      const v = variantOf(type.type);
      expect(v.title).toBe(meta.title);
      expect(v.description).toBe(meta.description);
      expect(v.additionalProperties).toBe(false);
      expect(Object.keys(v.properties).sort()).toEqual(['editor', 'inputs', 'properties', 'type']);
    }
    expect(variants.some((v) => v.properties.type.const === OutputType.type)).toBe(false);
  });

  it('documents every property with its runtime default and range', () => {
    for (const type of builtInNodeTypes) {
      const meta = editorMetaFor(type.type)!;
      const props = variantOf(type.type).properties.properties;
      expect(props.additionalProperties).toBe(false);
      expect(Object.keys(props.properties).sort()).toEqual(Object.keys(type.properties).sort());
      for (const [name, spec] of Object.entries(type.properties)) {
        const p = props.properties[name];
        expect(p.title).toBe(meta.properties[name].title);
        expect(p.description).toContain(meta.properties[name].description);
        if ('default' in spec) expect(p.default).toEqual(spec.default);
        else expect(p).not.toHaveProperty('default');
        if ('min' in spec && spec.min !== undefined) expect(literalBranch(p).minimum).toBe(spec.min);
        if ('max' in spec && spec.max !== undefined) expect(literalBranch(p).maximum).toBe(spec.max);
      }
    }
    const alpha = variantOf('BlendTwo').properties.properties.properties.alpha;
    expect(alpha).toMatchObject({ title: 'Alpha', default: 0.5 });
    expect(literalBranch(alpha)).toEqual({ type: 'number', minimum: 0, maximum: 1 });
    expect(alpha.anyOf).toContainEqual(expect.objectContaining({ required: ['param'] }));
    expect(variantOf('BlendList').properties.properties.properties.blendTimes.description).toMatch(/Unit: s\.$/);
    // A node whose properties have required members (clip, bone) cannot omit the block.
    expect(variantOf('SequencePlayer').required).toEqual(['type', 'properties']);
    expect(variantOf('BlendTwo').required).toEqual(['type', 'inputs']);
  });

  it('types inputs by pin kind and documents them', () => {
    const blend = variantOf('BlendTwo').properties.inputs;
    expect(blend).toMatchObject({ required: ['A', 'B'], additionalProperties: false });
    expect(blend.properties.A).toMatchObject({ type: 'string', title: 'A', description: editorMeta.find((m) => m.type === 'BlendTwo')!.pins.A.description });
    const list = variantOf('BlendList').properties.inputs.properties.poses;
    expect(list).toMatchObject({ type: 'array', minItems: 1, items: { type: 'string' }, title: 'Blend Poses' });
    expect(variantOf('SequencePlayer').properties.inputs).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('takes its node types from the caller', () => {
    const only = graphJsonSchema([BlendTwoType], []) as Json;
    const [v] = only.properties.nodes.additionalProperties.oneOf as Json[];
    expect(only.properties.nodes.additionalProperties.oneOf).toHaveLength(1);
    expect(v.title).toBe('BlendTwo'); // no meta given: the type name stands in
    expect(v).not.toHaveProperty('description');
    expect(() => graphJsonSchema([OutputType])).toThrow(/reserved/);
    expect(() => graphJsonSchema([BlendTwoType, BlendTwoType])).toThrow(/twice/);
  });
});

describe('validating graphs against the schema', () => {
  const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.json'));

  it('finds the examples', () => {
    expect(examples).toContain('sample-locomotion.json');
  });

  for (const file of examples) {
    it(`accepts graphs/examples/${file}, as the loader does`, () => {
      const json = JSON.parse(readFileSync(join(examplesDir, file), 'utf8'));
      expect(validate(schema as Schema, json)).toEqual([]);
      // Examples on ../shared/data load only where it exists (always in CI: see shared-data.ts).
      if (hasSharedData || !JSON.stringify(json).includes('shared/data')) {
        expect(checkGraphAsset(json, { baseDir: examplesDir, source: file })).toMatchObject({ ok: true });
      }
    });
  }

  it('accepts a minimal hand-written graph', () => {
    expect(validate(schema as Schema, base)).toEqual([]);
    expect(checkGraphAsset(base).ok).toBe(true);
  });

  // Each case changes one thing in a valid graph; the schema and the loader must both point at it.
  const broken: [string, Json, RegExp, RegExp][] = [
    ['an unknown node type', withNode('extra', { type: 'BlendThree', inputs: {} }),
      /\$\.nodes\.extra\.type: expected "BlendTwo"/, /unknown node type 'BlendThree'/],
    ['BlendTwo alpha out of range', withNode('mix', { ...base.nodes.mix, properties: { alpha: 2 } }),
      /\.alpha: above maximum 1/, /\$\.nodes\.mix\.properties\.alpha/],
    ['a property the node type lacks', withNode('walk', { type: 'SequencePlayer', properties: { clip: 'walk', speed: 2 } }),
      /properties\.speed: not allowed/, /speed/],
    ['a SequencePlayer without a clip', withNode('walk', { type: 'SequencePlayer' }),
      /\$\.nodes\.walk: missing required 'properties'/, /\$\.nodes\.walk\.properties\.clip/],
    ['an unlinked input', withNode('mix', { type: 'BlendTwo', inputs: { A: 'walk' } }),
      /inputs: missing required 'B'/, /input 'B' of BlendTwo 'mix' is not linked/],
    ['a list where one pose is expected', withNode('mix', { type: 'BlendTwo', inputs: { A: ['walk'], B: 'run' } }),
      /inputs\.A: expected string/, /takes one node id/],
    ['an empty pose list', { ...withNode('list', { type: 'BlendList', inputs: { poses: [] } }), output: 'list' },
      /inputs\.poses: fewer than 1 items/, /at least 1 pose/],
    ['a binding with a typo', withNode('mix', { ...base.nodes.mix, properties: { alpha: { parm: 'blend' } } }),
      /alpha: missing required 'param'/, /\$\.nodes\.mix\.properties\.alpha/],
  ];
  for (const [what, graph, schemaMessage, loaderMessage] of broken) {
    it(`rejects ${what}, as zod and the loader do`, () => {
      expect(validate(schema as Schema, graph).join('\n')).toMatch(schemaMessage);
      expect(graphZodSchema().safeParse(graph).success).toBe(false);
      const loaded = checkGraphAsset(graph);
      expect(loaded.ok).toBe(false);
      if (!loaded.ok) expect(loaded.problems.map((p) => `${p.path}: ${p.message}`).join('\n')).toMatch(loaderMessage);
    });
  }

  it('the test validator refuses keywords it does not implement', () => {
    expect(() => validate({ type: 'string', format: 'uri' }, 'x')).toThrow(/unsupported keyword 'format'/);
  });
});

describe('a schema for custom node types (graphJsonSchema from animgraph)', () => {
  it('is exported from the main entry, and describes a custom type as the loader checks it', async () => {
    const main = await import('../../index.ts');
    const nodes = await import('../../custom-nodes.ts');
    expect(main.graphJsonSchema).toBe(graphJsonSchema);
    expect(main.editorMeta).toBe(editorMeta);
    class Still extends nodes.LocalPoseNode {
      protected get links() { return nodes.NO_LINKS; }
      protected onUpdate() {}
      protected onEvaluate() {}
    }
    const Raise = nodes.defineNodeType({
      type: 'Raise', space: 'local', properties: { height: { kind: 'float', default: 1, min: 0, max: 5 } },
      inputs: [{ name: 'pose', kind: 'pose', space: 'local' }], create: ({ id }) => new Still(id, 'Raise'),
    });
    const meta: NodeEditorMeta = {
      type: 'Raise', title: 'Raise', category: 'Skeletal controls', description: 'Lifts the pose.',
      pins: { pose: { title: 'Pose', description: 'The pose to lift.' } }, properties: { height: { title: 'Height', description: 'How far.', unit: 'm' } },
    };
    const custom = main.graphJsonSchema([...builtInNodeTypes, Raise], [...editorMeta, meta]) as Json;
    const raise = (custom.properties.nodes.additionalProperties.oneOf as Json[]).find((v) => v.properties.type.const === 'Raise')!;
    expect([raise.title, raise.description]).toEqual(['Raise', 'Lifts the pose.']);
    const graph = (height: number) => withNode('up', { type: 'Raise', inputs: { pose: 'mix' }, properties: { height } });
    const registry = new main.NodeRegistry([...builtInNodeTypes, Raise]);
    expect(validate(custom as Schema, { ...graph(2), output: 'up' })).toEqual([]);
    expect(checkGraphAsset({ ...graph(2), output: 'up' }, { nodeTypes: registry }).ok).toBe(true);
    expect(validate(custom as Schema, { ...graph(7), output: 'up' }).join('\n')).toMatch(/\$\.nodes\.up\.properties\.height: above maximum 5/);
    // The built-in schema knows no Raise: the CLI's and animgraph.schema.json refuse the graph.
    expect(validate(schema as Schema, { ...graph(2), output: 'up' }).join('\n')).toMatch(/\$\.nodes\.up\.type: expected "BlendTwo"/);
  });
});
