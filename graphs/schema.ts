import * as z from 'zod';
import type { NodeType, PropertySpec } from '../runtime/node/node.ts';
import { additiveReferenceSchema } from '../runtime/core/additive.ts';
import { blendProfilesSchema } from '../runtime/core/blend-profile.ts';
import { montageSchema } from '../runtime/core/montage.ts';
import { named } from './schema-text.ts';
import { quoted } from '../runtime/core/names.ts';
import { lazy } from '../runtime/core/lazy.ts';

/** The format tag every graph asset carries; bumped when the format changes incompatibly. */
export const GRAPH_FORMAT = 'animgraph/1';

const vec3 = lazy(() => z.tuple([z.number(), z.number(), z.number()]));
const length = (v: readonly number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));
/** A joint axis or other direction: any length but (nearly) zero, since it is normalised. */
const directionSchema = lazy(() => vec3.refine((v) => length(v) >= 1e-6, 'a direction must not be zero'));
/** A rotation written as a quaternion [x, y, z, w] of length 1 (within 0.001; normalised when loaded). */
export const unitQuaternionSchema = lazy(() => z.tuple([z.number(), z.number(), z.number(), z.number()]).superRefine((q, ctx) => {
  const len = length(q);
  if (!(Math.abs(len - 1) <= 1e-3)) ctx.addIssue({ code: 'custom', message: `a rotation is a unit quaternion [x, y, z, w]; this one has length ${len.toPrecision(4)}` });
}));
/** Node ids: usable as link targets and in JSON paths without quoting. */
export const nodeIdSchema = lazy(() => named(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, {
  // Names the id, so that a bad id where one is named ($.output, an input) says which.
  error: (issue) => `${quoted(String(issue.input))} is not a node id: ids start with an ASCII letter or _ and contain only ASCII letters, digits, _ . -`,
}), 'node id'));

/** A float or bool parameter's `curve`: what sets it at every update (docs/asset-format.md, "Curves that drive the graph"). */
// A function, called inside parameterSchema's build: a lazy stand-in for an optional schema as an
// object's field breaks zod's JSON Schema export, which finds the optional by identity.
const parameterCurveSchema = () => named(z.string().min(1), 'name').optional()
  .describe("A curve of the graph's clips that sets the parameter at the start of every update, to its value as the previous update left it (bool: curve not 0); such a parameter cannot be set from code.");

export const parameterSchema = lazy(() => z.discriminatedUnion('type', [
  z.object({ type: z.literal('float'), default: z.number().optional(), description: z.string().optional(), curve: parameterCurveSchema() }).strict(),
  z.object({ type: z.literal('int'), default: z.int32({ error: 'an int parameter is a whole number from -2147483648 to 2147483647' }).optional(), description: z.string().optional() }).strict(),
  z.object({ type: z.literal('bool'), default: z.boolean().optional(), description: z.string().optional(), curve: parameterCurveSchema() }).strict(),
  z.object({ type: z.literal('vec3'), default: vec3.optional(), description: z.string().optional() }).strict(),
]));

/** A glTF skin or animation: its index or its name. */
const indexOrName = () => z.union([named(z.number().int().min(0), 'index'), named(z.string().min(1), 'name')]);

export const skeletonSourceSchema = lazy(() => z.union([
  z.literal('builtin:biped').describe('The built-in 22-bone sample biped.'),
  z.object({ bvh: named(z.string().describe('BVH file whose hierarchy is the skeleton, relative to the graph file.'), 'path') }).strict(),
  z.object({ file: named(z.string().describe('JSON skeleton asset, relative to the graph file.'), 'path') }).strict(),
  z.object({
    gltf: named(z.string().describe('glTF file (.glb, or .gltf with embedded or external buffers) whose skin is the skeleton, relative to the graph file.'), 'path'),
    skin: indexOrName().optional().describe('The skin: its index or name (default 0).'),
  }).strict(),
]));

/** A clip's `retarget` block: where its bones come from and how they match the graph's skeleton's. */
export const retargetSchema = lazy(() => z.object({
  skeleton: skeletonSourceSchema.optional()
    .describe("The skeleton the clip is authored on (default: the clip's own file: a BVH's hierarchy, a glTF's first skin; the built-in biped for 'builtin:' clips)."),
  reference: z.union([
    z.literal('skeleton').describe("The source skeleton's reference pose."),
    z.object({ frame: z.number().int().describe("A frame of the clip's source file, counted before `frames` (negative counts from the end).") }).strict(),
  ]).optional().describe("The source pose that rotations are changes from (default 'skeleton'); a capture's T-pose frame, such as CMU's frame 0."),
  boneMap: z.record(z.string().min(1), z.string().min(1).nullable()).optional()
    .describe('Target bone → source bone (null: not mapped), over the bones matched by name.'),
  autoMap: z.boolean().optional().describe('Match bones by their names across naming conventions first (default true); false: only `boneMap`.'),
  feet: z.boolean().optional().describe("Reach each foot, by two-bone IK on its thigh and calf, to where the scaled source puts the source's foot (default false)."),
  hands: z.boolean().optional().describe("Reach each hand, by two-bone IK on its upper arm and forearm, to where the scaled source puts the source's hand (default false)."),
}).strict());

/** The asset's `mirror` block: how clips marked `mirror` and Mirror nodes swap left and right. */
export const mirrorSettingsSchema = lazy(() => z.object({
  plane: z.enum(['x', 'y', 'z']).optional()
    .describe("The mirror plane's normal axis in component space (default: the axis along which paired bones lie furthest apart in the reference pose)."),
  pairs: z.array(z.tuple([z.string().min(1), z.string().min(1)])).optional()
    .describe('Bones that swap, by name, over the pairs found from the names (Foot.L/Foot.R, LeftArm/RightArm, thigh_l/thigh_r).'),
}).strict());

export const clipSchema = lazy(() => z.object({
  source: z.string().describe("A BVH or glTF (.glb, .gltf) file relative to the graph file, or 'builtin:idle', 'builtin:walk', 'builtin:run'."),
  animation: indexOrName().optional()
    .describe('glTF sources: the animation, by name or index (default 0).'),
  sampleRate: z.number().positive().max(1000).optional()
    .describe("glTF sources: frames per second the animation is resampled to (default: the keys' own rate when they lie on a uniform grid, else 30)."),
  frames: z.tuple([z.number().int(), z.number().int()]).optional()
    .describe('First and last frame to keep (inclusive); a negative last counts from the end (-1 = last frame).'),
  interpolation: z.enum(['slerp', 'nlerp']).optional().describe('Rotation interpolation between keys (default slerp).'),
  rootMotion: z.union([
    z.boolean(),
    z.object({
      bone: z.string().min(1).optional().describe('The bone whose motion is extracted; a load error if the clip does not move it (default: the first bone of the skeleton, in hierarchy order, that the clip moves: the root, or the hips below a static root).'),
      up: z.enum(['y', 'z']).optional().describe('The up axis: motion along it stays in the pose (default y).'),
    }).strict(),
  ]).optional().describe("Extract root motion: the root bone's horizontal translation and heading become a per-frame delta and the clip plays in place."),
  additive: z.object({
    reference: additiveReferenceSchema.optional().describe("What the keys are made relative to (default 'skeleton')."),
    space: z.enum(['local', 'mesh']).optional().describe('local (default): rotations relative to the parent; mesh: rotations in component space, as Unreal\'s mesh-space additives.'),
  }).strict().optional().describe('An additive clip: its keys become deltas from the reference once, at load (translation minus, rotation times the inverse, scale divided), for ApplyAdditive. Cannot be combined with rootMotion.'),
  syncMarkers: z.array(z.object({
    name: z.string().min(1).describe('The marker\'s name (footL, footR): players in a sync group line up by markers of the same names.'),
    time: z.number().min(0).describe('Seconds from the first kept frame, within the clip.'),
  }).strict()).optional().describe('Named points of the cycle that sync groups and blend spaces align players by (Unreal\'s sync markers).'),
  notifies: z.array(z.union([
    z.object({
      name: z.string().min(1).describe('The name the `notify` event passes.'),
      time: z.number().describe('Clip time in seconds, within [0, duration] of the clip (after `frames`).'),
    }).strict(),
    z.object({
      name: z.string().min(1).describe('The name `notifyBegin` and `notifyEnd` pass.'),
      start: z.number().describe('Clip time in seconds the range begins at, within [0, duration].'),
      end: z.number().describe('Clip time in seconds the range ends at, within [start, duration].'),
    }).strict(),
  ])).optional().describe('Named events at clip times (`time`) or over ranges (`start`, `end`), fired through the instance\'s events when a relevant player crosses them.'),
  curves: z.record(z.string().min(1), z.array(z.tuple([z.number(), z.number()])).min(1)).optional()
    .describe('Float curves by name: keys [time, value] with increasing times, linear between keys and held outside them; blended by weight through the graph and read with instance.curve(name).'),
  retarget: retargetSchema.optional()
    .describe("The clip is authored on another skeleton: retargeted onto the graph's skeleton once, at load (docs/retargeting.md)."),
  mirror: z.boolean().optional()
    .describe("Mirror the clip once, at load, by the asset's mirror table (`mirror`), root motion included."),
}).strict());

export const parameterBindingSchema = lazy(() => z.object({ param: named(z.string().describe('Name of the parameter that drives this property.'), 'name') }).strict());
/** A property bound to a curve: read as the previous update left the curve (docs/asset-format.md, "Curves that drive the graph"). */
export const curveBindingSchema = lazy(() => z.object({
  curve: named(z.string().describe("Name of the curve (of the graph's clips) that drives this float or bool property, as the previous update left it."), 'name'),
}).strict());
/** What a bindable property may be instead of a literal: `{ "param": name }` or `{ "curve": name }`. */
export const bindingSchema = lazy(() => z.union([parameterBindingSchema, curveBindingSchema]));

export const editorBlockSchema = lazy(() => z.object({
  position: z.tuple([z.number(), z.number()]).optional(),
  comment: z.string().optional(),
}).passthrough().describe('Editor-only data (position, comment); ignored by the runtime.'));

/** A node as written in an asset, before its type-specific properties are checked. */
export const nodeEnvelopeSchema = lazy(() => z.object({
  type: z.string(),
  properties: z.record(z.string(), z.unknown()).optional(),
  inputs: z.record(z.string(), z.union([nodeIdSchema, z.array(nodeIdSchema)])).optional(),
  editor: editorBlockSchema.optional(),
}).strict());

/**
 * A helper bone's offset: within ±1e9 in each axis (a thousand kilometres in centimetres), so that
 * summing offsets down a chain of bones cannot overflow to Infinity as offsets near 1e308 do.
 */
const offsetSchema = lazy(() => z.tuple([z.number().min(-1e9).max(1e9), z.number().min(-1e9).max(1e9), z.number().min(-1e9).max(1e9)]));

/** A bone a graph asset adds to its skeleton (Unreal's virtual bones): armour, corrective bones. */
export const helperBoneSchema = lazy(() => z.object({
  name: z.string().min(1).describe('The new bone\'s name: unique in the skeleton.'),
  parent: z.string().min(1).describe('A bone of the skeleton, or a helper bone listed before this one.'),
  translation: offsetSchema.optional().describe('Offset from the parent, in the parent\'s space and the skeleton\'s units (default [0, 0, 0]; each within ±1e9).'),
  rotation: unitQuaternionSchema.optional().describe('Rotation relative to the parent, a unit quaternion [x, y, z, w] (default [0, 0, 0, 1]).'),
}).strict());

export const graphEnvelopeSchema = lazy(() => z.object({
  $schema: z.string().optional(),
  format: z.literal(GRAPH_FORMAT),
  name: z.string().optional(),
  description: z.string().optional(),
  skeleton: skeletonSourceSchema,
  units: z.enum(['cm', 'm']).optional()
    .describe("The length unit of the skeleton and clips (numbers are not converted): what lets nodes set thresholds in metres or relative to the character's size. Default: the skeleton source's, centimetres for a BVH, a JSON skeleton and the built-in biped."),
  helperBones: z.array(helperBoneSchema).optional(),
  blendProfiles: blendProfilesSchema.optional(),
  montages: z.record(z.string(), montageSchema).optional()
    .describe('Montages by name (Unreal\'s anim montages): a clip cut into named, linked sections with notifies, played in a slot by AnimGraphInstance.playMontage.'),
  mirror: mirrorSettingsSchema.optional(),
  clips: z.record(z.string(), clipSchema).default({}),
  parameters: z.record(z.string(), parameterSchema).default({}),
  // Ids are checked by the loader, which names the offending id better than a record-key issue.
  nodes: z.record(z.string(), z.unknown()),
  output: nodeIdSchema,
  editor: z.record(z.string(), z.unknown()).optional()
    .describe('Editor-only data, such as the node positions `animgraph edit` saves: any object, ignored by the loader and the runtime.'),
}).strict());

export type GraphEnvelope = z.infer<typeof graphEnvelopeSchema>;
export type NodeEnvelope = z.infer<typeof nodeEnvelopeSchema>;

/** A literal, or a binding unless the spec says the property is not bindable. */
function orBinding(literal: z.ZodType, spec: { bindable?: false }): z.ZodType {
  // One flat union (not a union inside one): the JSON Schema lists the three shapes side by side.
  return spec.bindable === false ? literal : z.union([literal, parameterBindingSchema, curveBindingSchema]);
}

/** The zod schema of one property, literal or (for numbers, bools and vec3s, unless `bindable: false`) bound to a parameter or curve. */
export function propertySchema(spec: PropertySpec): z.ZodType {
  switch (spec.kind) {
    case 'float': {
      let n = z.number();
      if (spec.min !== undefined) n = n.min(spec.min);
      if (spec.max !== undefined) n = n.max(spec.max);
      return orBinding(n, spec);
    }
    case 'int': {
      let n = z.number().int();
      if (spec.min !== undefined) n = n.min(spec.min);
      if (spec.max !== undefined) n = n.max(spec.max);
      return orBinding(n, spec);
    }
    case 'bool':
      return orBinding(z.boolean(), spec);
    case 'vec3':
      return orBinding(vec3, spec);
    case 'enum':
      return z.enum(spec.options as [string, ...string[]]);
    case 'clip':
      return z.string().min(1);
    case 'bone':
      return z.string().min(1);
    case 'floatList': {
      let n = z.number();
      if (spec.min !== undefined) n = n.min(spec.min);
      if (spec.max !== undefined) n = n.max(spec.max);
      return z.union([n, z.array(n)]);
    }
    case 'clipList':
      return z.array(z.string().min(1)).min(spec.minCount ?? 1);
    case 'file':
      return z.string().min(1);
    case 'object':
      return spec.schema;
    case 'direction':
      return directionSchema;
    case 'list':
      return listSchema(spec);
    case 'node':
      return nodeIdSchema;
    case 'blendProfile':
      return z.string().min(1);
  }
}

/** The schema of a list property; `items` may replace the item schema (the JSON Schema export adds docs to it). */
export function listSchema(spec: Extract<PropertySpec, { kind: 'list' }>, items: z.ZodObject = propertiesObjectSchema(spec.item)): z.ZodType {
  return z.array(items).min(spec.minCount ?? 0);
}

/**
 * Whether a property must be given (clips, clip lists, node references and bones have no default; a bone may be
 * marked optional; a list is required when it needs at least one item).
 */
export function propertyRequired(spec: PropertySpec): boolean {
  return spec.kind === 'clip' || spec.kind === 'node' || (spec.kind === 'bone' && spec.optional !== true) || spec.kind === 'clipList'
    || (spec.kind === 'list' && (spec.minCount ?? 0) > 0);
}

/** The strict zod object for a node type's `properties` block. */
export function nodePropertiesSchema(type: NodeType): z.ZodObject {
  return propertiesObjectSchema(type.properties);
}

/** The strict zod object for properties described by `specs`: a node's block, or one item of a list property. */
export function propertiesObjectSchema(specs: Readonly<Record<string, PropertySpec>>): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(specs)) {
    shape[name] = propertyRequired(spec) ? propertySchema(spec) : propertySchema(spec).optional();
  }
  return z.object(shape).strict();
}
