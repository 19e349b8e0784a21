import type { BlendProfileMode } from '../core/blend-profile.ts';
import type { ZodType } from 'zod';

/** What a node type declares of each property: its kind, default and range (read by the schema, the loader, the editor and the checks). */

/**
 * A property that can be a literal or bound to a parameter of a compatible type. `bindable: false`
 * makes it a literal only (a node that reads it once, when built, says so): the loader refuses a
 * binding on it (`not-bindable`) and the JSON Schema offers none. Every other property of these
 * kinds must honour its binding, reading the parameter every frame.
 */
export type BindableSpec =
  | { kind: 'float'; default: number; min?: number; max?: number; bindable?: false }
  | { kind: 'int'; default: number; min?: number; max?: number; bindable?: false }
  | { kind: 'bool'; default: boolean; bindable?: false }
  | { kind: 'vec3'; default: [number, number, number]; bindable?: false };

export type PropertySpec =
  | BindableSpec
  | { kind: 'enum'; options: readonly string[]; default: string }
  /** The name of a clip declared in the asset's `clips`. Required. */
  | { kind: 'clip' }
  /**
   * The name of a skeleton bone. Required, unless `optional`: then it may be left out, and the node
   * reads '' (no bone) from ResolvedProperties.bone.
   */
  | { kind: 'bone'; optional?: boolean }
  /** A list of numbers, one per entry of a pose-list input (for example blend times). */
  | { kind: 'floatList'; default: number; min?: number; max?: number; perInput: string }
  /** A list of clip names declared in the asset's `clips` (each checked by the loader). Required. */
  | { kind: 'clipList'; minCount?: number }
  /** A file path, relative to the graph file. Optional. */
  | { kind: 'file' }
  /**
   * A node-specific structured value (an object) validated by `schema`, which also becomes its
   * JSON Schema; references inside it (bones, clips) are checked by the node type's `check`.
   * Optional: the node decides what its absence means.
   */
  | { kind: 'object'; schema: ZodType }
  /**
   * A direction: a literal, non-zero vec3 that the node normalises (a joint axis). Not bindable, so
   * the loader can reject a zero direction. Read it with ResolvedProperties.vec3.
   */
  | { kind: 'direction'; default: [number, number, number] }
  /**
   * A list of items, each an object with the fields `item` describes, as properties of their own:
   * a field may be bound to a parameter where its kind allows, and the loader checks the names
   * in it (bones, clips, parameters) with paths such as `helpers[0].source`. Required when
   * `minCount` is above 0; otherwise optional, default []. Read with ResolvedProperties.list.
   */
  | { kind: 'list'; item: Readonly<Record<string, PropertySpec>>; minCount?: number }
  /**
   * The id of another node of the graph, of type `nodeType` (a UseCachedPose naming its
   * SaveCachedPose). Required. Not a link: no pose flows through it and the named node may be named
   * by several nodes, but the loader orders the named node first and counts the reference in cycles
   * and in the graph's depth. Read with ResolvedProperties.node.
   */
  | { kind: 'node'; nodeType: string }
  /**
   * The name of a blend profile declared in the asset's `blendProfiles`, of one of `modes`
   * (runtime/core/blend-profile.ts). Optional: absent, the node blends every bone alike. The loader
   * reports an undeclared name (`unknown-blend-profile`) and a profile of another mode
   * (`blend-profile-mode`). Read with ResolvedProperties.blendProfile (bound to the skeleton).
   */
  | { kind: 'blendProfile'; modes: readonly BlendProfileMode[] };
