// What the page shows around the canvas: problem locations, the details panel, the palette, pickers.
import { editorMetaFor, isBindable } from '../../editor-meta/index.ts';
import { propertyRequired } from '../../graphs/schema.ts';
import { PARAMETER_WIDTH, parameterFits, type ParameterType } from '../../runtime/node/parameters.ts';
import type { PropertySpec } from '../../runtime/node/node.ts';
import { jsonPath as pathText } from '../../runtime/core/names.ts';
import { nodesOfType } from './edits.ts';
import { getIn, isObject, parseJsonPath, type Key } from './json.ts';
import { cacheRole, graphCanvas, knownTypes, STATE_MACHINE, type GraphScope } from './scope.ts';
import {
  ASSET_SECTIONS, ASSET_VALUE_KEYS, ENTRY_ID, OUTPUT_ID,
  type AssetChoices, type AssetRow, type AssetSection, type AssetValueKey, type CanvasPath, type Json, type JsonObject, type PaletteGroup, type ProblemTarget, type PropertyField, type Types,
} from './types.ts';

/**
 * Where a problem's JSON path (GraphProblem.path, as the loader writes it) lands: the canvas, and
 * on it the node or state, the pin (EditorPin.handle) or property, or the transition. An unknown
 * clip on a player inside state walk of machine sm ('$.nodes.sm.properties.states.walk.nodes.clip
 * .properties.clip') lands on canvas ['sm', 'walk'], node 'clip', property 'clip'. A path outside
 * the nodes (clips, parameters, the skeleton) lands on the top canvas with no node. The page may
 * mark the node that opens a canvas (a prefix of `canvas`) too.
 */
export function locateProblem(asset: JsonObject, jsonPath: string): ProblemTarget {
  const keys = parseJsonPath(jsonPath) ?? [];
  let canvas: string[] = [];
  let holder: Key[] = [];
  let i = 0;
  for (;;) {
    if (keys[i] === 'output') return { canvas, nodeId: OUTPUT_ID, handle: 'pose' };
    if (keys[i] !== 'nodes' || typeof keys[i + 1] !== 'string') return { canvas };
    const id = keys[i + 1] as string;
    const node = getIn(asset, [...holder, 'nodes', id]);
    const rest = keys.slice(i + 2);
    if (rest[0] === 'inputs' && typeof rest[1] === 'string') {
      return { canvas, nodeId: id, handle: typeof rest[2] === 'number' ? `${rest[1]}:${rest[2]}` : rest[1] };
    }
    if (rest[0] !== 'properties' || typeof rest[1] !== 'string') return { canvas, nodeId: id };
    if (!(isObject(node) && node.type === STATE_MACHINE && ['states', 'transitions', 'entry'].includes(rest[1]))) return { canvas, nodeId: id, property: rest[1] };
    const machine = [...canvas, id];
    if (rest[1] === 'entry') return { canvas: machine, nodeId: ENTRY_ID };
    if (rest[1] === 'transitions') return typeof rest[2] === 'number' ? { canvas: machine, transition: rest[2] } : { canvas: machine };
    if (typeof rest[2] !== 'string') return { canvas: machine };
    const state = rest[2];
    const stateHolder = [...holder, 'nodes', id, 'properties', 'states', state];
    const stateValue = getIn(asset, stateHolder);
    if (!(isObject(stateValue) && stateValue.conduit !== true) || (rest[3] !== 'nodes' && rest[3] !== 'output')) return { canvas: machine, nodeId: state };
    canvas = [...machine, state];
    holder = stateHolder;
    i += 5; // past 'nodes', id, 'properties', 'states', state
  }
}

/**
 * Which row of the asset panel a problem's JSON path lands on: an entry of a named section
 * ('$.montages.combo.sections[1].start' is montage combo) or one of the asset's single values
 * ('$.mirror.pairs[0]' is the mirror table); undefined for a path elsewhere (the nodes).
 */
export function assetRowOf(jsonPath: string): AssetRow | undefined {
  const keys = parseJsonPath(jsonPath) ?? [];
  const [key, name] = keys;
  if ((ASSET_SECTIONS as readonly Key[]).includes(key)) return typeof name === 'string' ? { section: key as AssetSection, name } : { section: key as AssetSection };
  if ((ASSET_VALUE_KEYS as readonly Key[]).includes(key)) return { key: key as AssetValueKey };
  return undefined;
}

/** The control a property kind gets in the details panel. */
const FIELD_KINDS: Readonly<Record<PropertySpec['kind'], PropertyField['kind']>> = {
  float: 'number', int: 'int', bool: 'bool', vec3: 'vec3', direction: 'vec3', enum: 'enum', clip: 'clip', bone: 'bone',
  blendProfile: 'blend-profile', file: 'string', node: 'enum', list: 'list', floatList: 'json', clipList: 'json', object: 'json',
};
const PARAMETER_TYPES = Object.keys(PARAMETER_WIDTH) as ParameterType[];

/**
 * The details panel of a node of a graph canvas: one field per property of its type in the spec's
 * order, titled and described by its editor-meta (by name where a custom type has none). A `node`
 * property is an enum of the nodes of its type in reach; a StateMachine's entry an enum of its
 * states. A node of an unknown type has no fields (its properties are problems to the loader).
 */
export function propertyFields(asset: JsonObject, path: CanvasPath, nodeId: string, types?: Types): PropertyField[] {
  const scope = graphCanvas(asset, path);
  const node = Object.hasOwn(scope.nodes, nodeId) ? scope.nodes[nodeId] : undefined;
  if (!isObject(node) || typeof node.type !== 'string') return [];
  const known = knownTypes(types);
  const spec = known.registry.get(node.type);
  if (!spec) return [];
  const meta = editorMetaFor(node.type, known.metas);
  const values = isObject(node.properties) ? node.properties : {};
  return Object.entries(spec.properties).map(([name, p]) => {
    const doc = meta?.properties[name];
    const bindable = isBindable(p) && p.bindable !== false;
    const field: PropertyField = {
      name, title: doc?.title ?? name, description: doc?.description ?? '', kind: FIELD_KINDS[p.kind], bindable, required: propertyRequired(p),
      value: Object.hasOwn(values, name) ? values[name] : undefined, jsonPath: pathText([...scope.keys, 'nodes', nodeId, 'properties', name]),
    };
    if (bindable) field.bindableFrom = PARAMETER_TYPES.filter((t) => parameterFits(p.kind as ParameterType, t));
    if (doc?.unit !== undefined) field.unit = doc.unit;
    if ('default' in p && p.default !== undefined) field.default = (Array.isArray(p.default) ? [...p.default] : p.default) as Json;
    if ('min' in p && p.min !== undefined) field.min = p.min;
    if ('max' in p && p.max !== undefined) field.max = p.max;
    if (p.kind === 'enum') field.options = [...p.options];
    if (p.kind === 'node') field.options = nodesOfType(scope, p.nodeType);
    if (node.type === STATE_MACHINE && name === 'entry') {
      field.kind = 'enum';
      field.options = isObject(values.states) ? Object.keys(values.states) : [];
    }
    return field;
  });
}

/** The palette: every type of the registry (built-ins, then custom ones), grouped by category in the node list's order. */
export function palette(types?: Types): PaletteGroup[] {
  const known = knownTypes(types);
  const groups: PaletteGroup[] = [];
  for (const type of known.registry.list()) {
    const meta = editorMetaFor(type.type, known.metas);
    const category = meta?.category ?? 'Custom';
    let group = groups.find((g) => g.category === category);
    if (!group) groups.push(group = { category, types: [] });
    group.types.push({ type: type.type, title: meta?.title ?? type.type, summary: meta?.summary ?? '' });
  }
  return groups;
}

/** The names the asset declares, for the panel's pickers (bones come from the loaded skeleton, in the page). */
export function assetChoices(asset: JsonObject, types?: Types): AssetChoices {
  const known = knownTypes(types);
  const parameters = isObject(asset.parameters) ? asset.parameters : {};
  const cachedPoses: string[] = [], slots: string[] = [];
  const visit = (scope: GraphScope) => {
    for (const [id, node] of Object.entries(scope.nodes)) {
      if (!isObject(node)) continue;
      if (cacheRole(known, node.type)?.role === 'save' && !cachedPoses.includes(id)) cachedPoses.push(id);
      if (node.type === 'Slot') {
        // A Slot's slot is its `name` property, its id by default.
        const name = isObject(node.properties) && typeof node.properties.name === 'string' ? node.properties.name : id;
        if (!slots.includes(name)) slots.push(name);
      }
      if (node.type === STATE_MACHINE && isObject(node.properties) && isObject(node.properties.states)) {
        for (const [name, state] of Object.entries(node.properties.states)) {
          if (isObject(state) && state.conduit !== true) visit(graphCanvas(asset, [...scope.path, id, name]));
        }
      }
    }
  };
  visit(graphCanvas(asset, []));
  return {
    clips: isObject(asset.clips) ? Object.keys(asset.clips) : [],
    parameters: Object.entries(parameters).map(([name, p]) => ({ name, type: isObject(p) && typeof p.type === 'string' ? p.type : '' })),
    blendProfiles: isObject(asset.blendProfiles) ? Object.keys(asset.blendProfiles) : [],
    cachedPoses,
    slots,
  };
}

/** The keys of a clip spec that say where and how its keys are read, which a clip from the same source repeats. */
const CLIP_SOURCE_KEYS = ['source', 'animation', 'sampleRate', 'frames', 'interpolation', 'rootMotion', 'retarget'];

/**
 * The spec the asset panel's add row for a clip starts from: the asset's first clip in the same
 * form (its source, a glTF's animation, a capture's frames, its retargeting: what another clip of
 * that file shares, so the user edits the file or animation name), without what belongs to that
 * clip alone (curves, notifies, sync markers, its additive reference); the built-in walk for an
 * asset without clips.
 */
export function clipExample(asset: JsonObject): JsonObject {
  const clips = isObject(asset.clips) ? asset.clips : {};
  const first = Object.values(clips)[0];
  if (!isObject(first) || typeof first.source !== 'string') return { source: 'builtin:walk' };
  const example: JsonObject = {};
  for (const key of CLIP_SOURCE_KEYS) if (Object.hasOwn(first, key)) example[key] = first[key];
  return example;
}

/**
 * The spec the add row for a blend profile starts from: a timeFactor profile of one branch, at the
 * skeleton's second bone (parents come before children, so it is the root's first child unless the
 * skeleton has two roots: the pelvis or hips of a character), its only bone for a skeleton of one; `spine_01` of the built-in biped while no
 * skeleton has loaded.
 */
export function blendProfileExample(bones: readonly string[]): JsonObject {
  const bone = bones.length > 1 ? bones[1] : bones.length === 1 ? bones[0] : 'spine_01';
  return { mode: 'timeFactor', branches: [{ bone, scale: 0.5 }] };
}

/** The spec the add row for a montage starts from: the asset's first clip in its first Slot's slot; `walk` in `DefaultSlot` where it has none. */
export function montageExample(choices: Pick<AssetChoices, 'clips' | 'slots'>): JsonObject {
  if (choices.clips.length === 0 || choices.slots.length === 0) return { clip: 'walk', slot: 'DefaultSlot' };
  return { clip: choices.clips[0], slot: choices.slots[0] };
}
