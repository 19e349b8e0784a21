import { array, discriminatedUnion, literal, never, object, record, toJSONSchema, type ZodObject, type ZodType } from 'zod';
import { graphEnvelopeSchema, listSchema, nodeEnvelopeSchema, nodeIdSchema, nodePropertiesSchema, propertiesObjectSchema, propertyRequired } from '../graphs/schema.ts';
import { builtInNodeTypes, OutputType } from '../nodes/index.ts';
import { AnimGraphError } from '../runtime/core/errors.ts';
import type { InputSpec, NodeType, PropertySpec } from '../runtime/node/node.ts';
import { editorMeta, editorMetaFor } from './index.ts';
import type { DocEntry, NodeEditorMeta, PropertyDoc } from './types.ts';

// zod's functions by name, not `import * as z`: the package bundle imports them from its core file,
// where a namespace import would keep all of zod (scripts/bundle-package.mjs).
const z = { array, discriminatedUnion, literal, never, object, record, toJSONSchema };

export const GRAPH_SCHEMA_ID = 'https://animgraph.dev/schema/animgraph-1.json';

// The loader's own node-id rule; reused rather than restated so the two cannot diverge.
const nodeId = nodeIdSchema;

/**
 * The zod schema of one node of `type` as written in an asset: the loader's node envelope with
 * `type` pinned, `properties` checked by the same nodePropertiesSchema the loader uses, and
 * `inputs` narrowed to the declared pins. Docs from `meta` become JSON Schema title/description.
 */
export function nodeZodSchema(type: NodeType, meta?: NodeEditorMeta) {
  const properties = nodePropertiesSchema(type);
  const documentedProperties = documentedObject(properties, type.properties, meta?.properties);
  const pins: Record<string, ZodType> = {};
  for (const input of type.inputs) pins[input.name] = pinSchema(input).meta(docMeta(meta?.pins[input.name]));
  const inputs = z.object(pins).strict();
  return nodeEnvelopeSchema.extend({
    type: z.literal(type.type),
    // The loader reads a missing block as {}, so the block may be omitted exactly when {} is valid.
    properties: properties.safeParse({}).success ? documentedProperties.optional() : documentedProperties,
    // The loader reports every declared input that is not linked (missing-link) and every undeclared one.
    inputs: type.inputs.length === 0 ? inputs.optional() : inputs,
  }).meta({
    title: meta?.title ?? type.type,
    ...(meta ? { description: meta.description } : {}),
  });
}

function pinSchema(input: InputSpec): ZodType {
  return input.kind === 'pose' ? nodeId : z.array(nodeId).min(input.minCount ?? 1);
}

function docMeta(doc: DocEntry | undefined): { title?: string; description?: string } {
  return doc ? { title: doc.title, description: doc.description } : {};
}

/**
 * `object` (the loader's schema for properties described by `specs`) with docs on each member, and on
 * the fields of list items. extend() keeps the strictness and only adds metadata to each member.
 */
function documentedObject(object: ZodObject, specs: Readonly<Record<string, PropertySpec>>, docs: Readonly<Record<string, PropertyDoc>> | undefined): ZodObject {
  const documented: Record<string, ZodType> = {};
  for (const [name, member] of Object.entries(object.shape)) {
    const spec = specs[name], doc = docs?.[name];
    let schema = member as ZodType;
    if (spec.kind === 'list') {
      schema = listSchema(spec, documentedObject(propertiesObjectSchema(spec.item), spec.item, doc?.item));
      if (!propertyRequired(spec)) schema = schema.optional();
    }
    documented[name] = schema.meta(propertyMeta(spec, doc));
  }
  return object.extend(documented);
}

function propertyMeta(spec: PropertySpec, doc: PropertyDoc | undefined): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (doc) {
    meta.title = doc.title;
    meta.description = doc.unit !== undefined ? `${doc.description} Unit: ${doc.unit}.` : doc.description;
  }
  if ('default' in spec) meta.default = spec.default;
  return meta;
}

/**
 * The zod schema of a whole graph asset with nodes typed per node type. Everything a JSON Schema
 * can say is here; what it cannot (links resolve and form no cycle, clip/bone/parameter names
 * exist, floatList lengths match their poseList) stays with the loader. Throws an AnimGraphError
 * (`node-type`, as NodeRegistry.register would) for a type named as the output or listed twice.
 */
export function graphZodSchema(nodeTypes: readonly NodeType[] = builtInNodeTypes, metas: readonly NodeEditorMeta[] = editorMeta) {
  const seen = new Set<string>();
  for (const t of nodeTypes) {
    if (t.type === OutputType.type) throw new AnimGraphError('node-type', `'${t.type}' is reserved for the graph output`);
    if (seen.has(t.type)) throw new AnimGraphError('node-type', `node type '${t.type}' is listed twice`);
    seen.add(t.type);
  }
  const variants = nodeTypes.map((t) => nodeZodSchema(t, editorMetaFor(t.type, metas)));
  const node = variants.length === 0
    ? z.never()
    : z.discriminatedUnion('type', variants as [(typeof variants)[number], ...(typeof variants)[number][]]);
  const shape = graphEnvelopeSchema.shape;
  return graphEnvelopeSchema.extend({
    $schema: shape.$schema.describe('The JSON Schema this file follows, for editors.'),
    format: shape.format.describe('Asset format tag.'),
    name: shape.name.describe('Display name of the graph.'),
    description: shape.description.describe('What the graph is for.'),
    skeleton: shape.skeleton.describe('The skeleton the graph animates.'),
    helperBones: shape.helperBones.describe(
      'Bones added to the skeleton after its own (helper or virtual bones: armour, correctives), each with a parent and an offset. '
      + 'They are posed like any bone; clips have no tracks for them, so they keep their offset unless a node drives them.',
    ),
    clips: shape.clips.describe('Animation clips by name; nodes refer to them by that name.'),
    parameters: shape.parameters.describe(
      'Typed inputs set by gameplay code each frame; a float, int, bool or vec3 property binds to one with { "param": "name" }.',
    ),
    nodes: z.record(nodeId, node).describe('The nodes by id; `inputs` link a node to the ids of the nodes that feed it.'),
    output: shape.output.describe('Id of the node whose pose the graph outputs.'),
  }).meta({
    title: 'animgraph graph asset',
    description:
      `An animation node graph (format ${shape.format.value}): clips, parameters and nodes linked into a tree whose root is `
      + '`output`. Links must resolve, form no cycle and feed one input each; clip, bone and parameter names must exist; '
      + 'those checks are made by the loader (`animgraph validate`), not by this schema.',
  });
}

/**
 * The JSON Schema (draft 2020-12) of a graph asset, generated from the loader's zod schemas so an
 * editor validates exactly what the loader accepts, with docs and defaults for completion.
 */
export function graphJsonSchema(nodeTypes: readonly NodeType[] = builtInNodeTypes, metas: readonly NodeEditorMeta[] = editorMeta): Record<string, unknown> {
  // 'input' describes the file as written: fields with defaults (clips, parameters) are optional.
  const { $schema, ...rest } = z.toJSONSchema(graphZodSchema(nodeTypes, metas), { target: 'draft-2020-12', io: 'input' });
  return { $schema, $id: GRAPH_SCHEMA_ID, ...rest };
}
