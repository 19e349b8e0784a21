/**
 * Editor-side documentation of a node type (the counterpart of Unreal's UAnimGraphNode_*): what
 * the editor shows in the palette, on pins and in the details panel. It carries no behaviour and
 * repeats nothing the runtime spec already says (kinds, defaults, ranges come from NodeType), so
 * the two cannot drift apart except in the names, which the tests check.
 */
export type NodeCategory = 'Pose sources' | 'Blends' | 'Cached poses' | 'Skeletal controls' | 'Output';

export interface DocEntry {
  /** Short label for a pin or a details-panel row. */
  title: string;
  /** Tooltip text: what the value does to the pose, in animation terms. */
  description: string;
}

export interface PropertyDoc extends DocEntry {
  /** Unit of a numeric value as shown next to the field ('s', 'x', ...). */
  unit?: string;
  /** For a list property: one entry per field of its items, by field name. */
  item?: Readonly<Record<string, PropertyDoc>>;
}

export interface NodeEditorMeta {
  /** The runtime NodeType.type this documents. */
  type: string;
  /** Node title in the graph and the palette. */
  title: string;
  category: NodeCategory;
  /** One line for lists of nodes (the README's, the reference's contents). */
  summary?: string;
  description: string;
  /** One entry per declared input of the runtime spec, by input name. */
  pins: Readonly<Record<string, DocEntry>>;
  /** One entry per property of the runtime spec, by property name. */
  properties: Readonly<Record<string, PropertyDoc>>;
  /**
   * The node's section of the reference (docs/nodes.md, rendered by docs.ts): its behaviour in
   * full, degenerate cases, debug output and examples, as markdown. The page adds tables of the
   * pins and properties from the runtime spec and the docs above.
   */
  reference?: string;
}

/**
 * A built-in node type's editor description, keyed by its type name in editor-meta/index.ts
 * (`builtInEditorMeta`) rather than naming it, and with its one-line summary, which the README's
 * node list shows.
 */
export type BuiltInNodeMeta = Omit<NodeEditorMeta, 'type' | 'summary'> & { summary: string };
