import type { AdditiveSpace } from '../../runtime/core/additive.ts';
import type { z } from 'zod';
import type { Clip } from '../../runtime/core/clip.ts';
import { checkProblemCode, thrownText, type NodeType, type PropertySpec } from '../../runtime/node/node.ts';
import { parameterFits, type ParameterDefinition, type ParameterType } from '../../runtime/node/parameters.ts';
import type { Skeleton } from '../../runtime/core/skeleton.ts';
import type { BlendProfileMode } from '../../runtime/core/blend-profile.ts';
import { nodeEnvelopeSchema, nodeIdSchema, nodePropertiesSchema, propertySchema, type NodeEnvelope } from '../schema.ts';
import type { Problems } from './problems.ts';
import { parseOptions } from '../schema-text.ts';
import type { NodeRegistry } from './registry.ts';
import { nameList, quoted } from '../../runtime/core/names.ts';

/** A node whose envelope and type are known: its properties checked (the well-formed ones, if some are not). */
export interface CheckedNode {
  envelope: NodeEnvelope;
  type: NodeType;
  properties: Record<string, unknown>;
}

/** What node properties may name: parameters, clips and bones (declared: named in the asset, well formed or not). */
export interface NodeReferences {
  parameters: ReadonlyMap<string, ParameterDefinition>;
  declaredParameters: ReadonlySet<string>;
  clips: ReadonlyMap<string, Clip>;
  declaredClips: ReadonlySet<string>;
  skeleton: Skeleton | undefined;
  /** The well-formed blend profiles' modes by name, and every profile name written. */
  blendProfiles: ReadonlyMap<string, BlendProfileMode>;
  declaredBlendProfiles: ReadonlySet<string>;
  /** The clips marked additive, with their space: what an additive input may be linked to, at every level of states. */
  additiveClips: ReadonlyMap<string, AdditiveSpace>;
  /** Every curve name the asset's clips write (well formed or not): what `{ "curve": name }` may name. */
  curveNames: ReadonlySet<string>;
}

// Building a zod schema costs far more than using it: one per node type (and property spec), not
// one per node, keeps a 10,000-node asset's check in well under a second.
const propertiesSchemas = new WeakMap<object, z.ZodObject>();
const propertySchemas = new WeakMap<PropertySpec, z.ZodType>();
function cachedPropertiesSchema(type: NodeType): z.ZodObject {
  let schema = propertiesSchemas.get(type.properties);
  if (!schema) propertiesSchemas.set(type.properties, schema = nodePropertiesSchema(type));
  return schema;
}
function cachedPropertySchema(spec: PropertySpec): z.ZodType {
  let schema = propertySchemas.get(spec);
  if (!schema) propertySchemas.set(spec, schema = propertySchema(spec));
  return schema;
}

/** Checks every node's envelope, type and properties; the nodes that could be read, by id. */
export function checkNodes(rawNodes: Record<string, unknown>, registry: NodeRegistry, refs: NodeReferences, problems: Problems): Map<string, CheckedNode> {
  const nodes = new Map<string, CheckedNode>();
  const { parameters, declaredParameters, clips, declaredClips, skeleton } = refs;
  for (const [id, rawNode] of Object.entries(rawNodes)) {
    const validId = nodeIdSchema.safeParse(id);
    if (!validId.success) problems.add(['nodes', id], 'schema', validId.error.issues[0].message);
    const parsed = nodeEnvelopeSchema.safeParse(rawNode, parseOptions(nodeEnvelopeSchema));
    if (!parsed.success) {
      problems.addZod(['nodes', id], parsed.error, rawNode);
      continue;
    }
    const node = parsed.data;
    const type = registry.get(node.type);
    if (!type) {
      problems.add(['nodes', id, 'type'], 'unknown-node-type', `unknown node type ${quoted(node.type)} (known: ${registry.list().map((t) => t.type).join(', ')})`);
      continue;
    }
    const schema = cachedPropertiesSchema(type);
    const props = schema.safeParse(node.properties ?? {}, parseOptions(schema));
    if (!props.success) problems.addZod(['nodes', id, 'properties'], props.error, node.properties ?? {});
    // When some properties are malformed, the well-formed ones are still checked, so one run
    // reports an unknown bone next to a missing one.
    const properties = props.success ? props.data : wellFormedProperties(type.properties, node.properties ?? {});
    checkPropertyReferences(id, type, properties, node, refs, problems);
    nodes.set(id, { envelope: node, type, properties });
  }
  return nodes;
}

function wellFormedProperties(specs: Readonly<Record<string, PropertySpec>>, raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (!Object.hasOwn(raw, name)) continue;
    const value = raw[name];
    if (cachedPropertySchema(spec).safeParse(value).success) out[name] = value;
    else if (spec.kind === 'list' && Array.isArray(value)) {
      // The well-formed fields of every item are still checked; indices (and so paths) stay.
      out[name] = value.map((item) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? wellFormedProperties(spec.item, item) : null));
    }
  }
  return out;
}

function checkPropertyReferences(
  id: string, type: NodeType, properties: Record<string, unknown>, node: NodeEnvelope, refs: NodeReferences, problems: Problems,
): void {
  const { parameters, declaredParameters, clips, declaredClips, skeleton, curveNames } = refs;
  const unknownClip = (clip: unknown): clip is string => typeof clip === 'string' && !clips.has(clip) && !declaredClips.has(clip);
  const declared = () => nameList(declaredClips);
  // Runs over the node's properties, and again over each item of a list property.
  const checkValues = (specs: Readonly<Record<string, PropertySpec>>, values: Readonly<Record<string, unknown>>, at: readonly PropertyKey[]): void => {
    for (const [name, spec] of Object.entries(specs)) {
      const value = values[name];
      const where = [...at, name];
      if (value === undefined) continue;
      if (spec.kind !== 'object' && spec.kind !== 'list' && typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'curve')) {
        const curve = (value as { curve: string }).curve;
        if (!curveNames.has(curve)) {
          problems.add([...where, 'curve'], 'unknown-curve', `no clip of the graph has a curve ${quoted(curve)} (curves: ${nameList(curveNames)})`);
        }
        if (spec.kind !== 'float' && spec.kind !== 'bool') {
          problems.add([...where, 'curve'], 'curve-type', `property ${quoted(name)} is ${spec.kind}; a curve drives float and bool properties only`);
        }
        continue;
      }
      if (spec.kind !== 'object' && typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'param')) {
        const param = (value as { param: string }).param;
        const def = parameters.get(param);
        if (!def) {
          if (!declaredParameters.has(param)) {
            problems.add([...where, 'param'], 'unknown-parameter', `unknown parameter ${quoted(param)} (declared: ${nameList(declaredParameters)})`);
          }
        } else if (!parameterFits(spec.kind as ParameterType, def.type)) {
          problems.add([...where, 'param'], 'parameter-type', `property ${quoted(name)} is ${spec.kind} but parameter ${quoted(param)} is ${def.type}`);
        }
        continue;
      }
      if (spec.kind === 'clip' && unknownClip(value)) {
        problems.add(where, 'unknown-clip', `unknown clip ${quoted(value)} (declared: ${declared()})`);
      }
      if (spec.kind === 'bone' && typeof value === 'string' && skeleton && skeleton.indexOf(value) < 0) {
        problems.add(where, 'unknown-bone', `the skeleton has no bone ${quoted(value)}`);
      }
      if (spec.kind === 'blendProfile' && typeof value === 'string') checkBlendProfileName(value, spec.modes, where, refs, problems);
      if (spec.kind === 'floatList' && Array.isArray(value)) {
        const linked = node.inputs?.[spec.perInput];
        const count = Array.isArray(linked) ? linked.length : 0;
        if (value.length !== count) {
          problems.add(where, 'schema', `has ${value.length} entries but input ${quoted(spec.perInput)} has ${count} poses`);
        }
      }
      if (spec.kind === 'clipList' && Array.isArray(value)) {
        value.forEach((clip, i) => {
          if (unknownClip(clip)) {
            problems.add([...where, i], 'unknown-clip', `unknown clip ${quoted(clip)} (declared: ${declared()})`);
          }
        });
      }
      if (spec.kind === 'list' && Array.isArray(value)) {
        value.forEach((item, i) => {
          if (typeof item === 'object' && item !== null && !Array.isArray(item)) checkValues(spec.item, item as Record<string, unknown>, [...where, i]);
        });
      }
    }
  };
  checkValues(type.properties, properties, ['nodes', id, 'properties']);
  if (!type.check) return;
  try {
    type.check({
      id,
      properties,
      rawProperties: node.properties ?? {},
      inputs: node.inputs ?? {},
      skeleton,
      clipNames: new Set(clips.keys()),
      additiveClips: refs.additiveClips,
      parameterType: (name) => parameters.get(name)?.type,
      parameterNames: declaredParameters,
      checkBlendProfile: (path, name, modes) => checkBlendProfileName(name, modes, ['nodes', id, 'properties', ...path], refs, problems),
      report: (path, code, message) => {
        checkProblemCode(code, path);
        problems.add(['nodes', id, 'properties', ...path], code, message);
      },
    });
  } catch (e) {
    // The type's bug, reported at the node with the asset's other problems: it escaped checkGraphAsset, which returns them.
    problems.add(['nodes', id], 'node-type-failed', `${type.type} '${id}': check threw ${thrownText(e)}`);
  }
}

/**
 * Reports a blend profile name the asset does not declare (`unknown-blend-profile`), or one of a
 * mode the user cannot blend by (`blend-profile-mode`: a blendMask where a transition's time is
 * shaped, or a time profile where a layer's mask is wanted).
 */
export function checkBlendProfileName(
  name: string, modes: readonly BlendProfileMode[], at: readonly PropertyKey[], refs: NodeReferences, problems: Problems,
): void {
  const mode = refs.blendProfiles.get(name);
  if (mode === undefined) {
    if (!refs.declaredBlendProfiles.has(name)) {
      problems.add(at, 'unknown-blend-profile', `unknown blend profile ${quoted(name)} (declared: ${nameList(refs.declaredBlendProfiles)})`);
    }
    return;
  }
  if (!modes.includes(mode)) {
    problems.add(at, 'blend-profile-mode', `blend profile ${quoted(name)} is ${mode}; this takes a ${modes.join(' or ')} profile`);
  }
}
