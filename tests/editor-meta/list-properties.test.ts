import { describe, expect, it } from 'vitest';
import { describeNodeType, editorMetaFor, editorMetaProblems } from '../../editor-meta/index.ts';
import { graphJsonSchema } from '../../editor-meta/schema.ts';
import { BendRollHelperType } from '../../nodes/BendRollHelper.ts';
import { validate, type Schema } from './json-schema-subset.ts';

type Json = Record<string, any>;
const BendRollHelperMeta = editorMetaFor('BendRollHelper')!;

describe('list properties (BendRollHelper helpers) in the editor metadata', () => {
  it('describes each item field like a property: kind, default, range, bindability, docs', () => {
    const helpers = describeNodeType(BendRollHelperType, BendRollHelperMeta).properties.find((p) => p.name === 'helpers')!;
    expect(helpers).toMatchObject({ kind: 'list', required: true, minCount: 1, bindable: false, title: 'Helpers' });
    expect(helpers).not.toHaveProperty('default');
    const fields = Object.fromEntries(helpers.item!.map((f) => [f.name, f]));
    expect(Object.keys(fields)).toEqual(['source', 'target', 'axis', 'bendWeight', 'rollWeight', 'order']);
    expect(fields.source).toMatchObject({ kind: 'bone', required: true, bindable: false, title: 'Source Bone' });
    expect(fields.axis).toMatchObject({ kind: 'direction', default: [1, 0, 0], required: false, bindable: false, bindableFrom: [] });
    expect(fields.bendWeight).toMatchObject({ kind: 'float', default: 1, min: -1, max: 1, bindable: true, bindableFrom: ['float', 'int'] });
    expect(fields.rollWeight).toMatchObject({ kind: 'float', default: 0, min: -1, max: 1, bindable: true });
    expect(fields.order).toMatchObject({ kind: 'enum', options: ['bendRoll', 'rollBend'], default: 'rollBend' });
  });

  it('reports item fields without docs, and docs for fields the runtime lacks', () => {
    const { axis: _axis, ...item } = BendRollHelperMeta.properties.helpers.item!;
    const stale = {
      ...BendRollHelperMeta,
      properties: { ...BendRollHelperMeta.properties, helpers: { ...BendRollHelperMeta.properties.helpers, item: { ...item, twist: { title: 'Twist', description: 'renamed in the docs only' } } } },
    };
    expect(editorMetaProblems(BendRollHelperType, stale)).toEqual([
      "BendRollHelper: property 'helpers.axis' has no docs",
      "BendRollHelper: docs for property 'helpers.twist', which the runtime does not have",
    ]);
    expect(() => describeNodeType(BendRollHelperType, stale)).toThrow(/does not match the runtime/);
  });

  it('puts item docs and defaults into the JSON Schema, which checks ranges inside items', () => {
    const schema = graphJsonSchema() as Json;
    const variant = (schema.properties.nodes.additionalProperties.oneOf as Json[]).find((v) => v.properties.type.const === 'BendRollHelper')!;
    const helpers = variant.properties.properties.properties.helpers;
    expect(helpers).toMatchObject({ type: 'array', minItems: 1, title: 'Helpers' });
    expect(helpers.items).toMatchObject({ type: 'object', additionalProperties: false, required: ['source', 'target'] });
    expect(helpers.items.properties.rollWeight).toMatchObject({ title: 'Roll Weight', default: 0 });
    expect(helpers.items.properties.axis).toMatchObject({ title: 'Joint Axis', default: [1, 0, 0] });
    const graph = (helper: Json) => ({
      format: 'animgraph/1', skeleton: 'builtin:biped', clips: { walk: { source: 'builtin:walk' } },
      nodes: {
        walk: { type: 'SequencePlayer', properties: { clip: 'walk' } },
        h: { type: 'BendRollHelper', inputs: { pose: 'walk' }, properties: { helpers: [helper] } },
      },
      output: 'h',
    });
    expect(validate(schema as Schema, graph({ source: 'upperarm_l', target: 'head', rollWeight: { param: 'r' } }))).toEqual([]);
    expect(validate(schema as Schema, graph({ source: 'upperarm_l', target: 'head', rollWeight: 2 })).join('\n')).toMatch(/helpers\[0\]\.rollWeight/);
    expect(validate(schema as Schema, graph({ source: 'upperarm_l' })).join('\n')).toMatch(/missing required 'target'/);
  });
});
