import { checkNodeType, NodeTypeError, type NodeType } from '../../runtime/node/node.ts';
import { builtInNodeTypes, OutputType } from '../../nodes/index.ts';

/** How NodeRegistry.register treats a type of a name already registered. */
export interface RegisterOptions {
  /** True to replace the type registered under the same name (a built-in one included); default false, which throws. */
  replace?: boolean;
}

/** The node types a loader knows, by asset `type`. Register custom node types here. */
export class NodeRegistry {
  private readonly types = new Map<string, NodeType>();

  /** A registry of `types` (default the built-in ones), each registered in turn: a name given twice throws. */
  constructor(types: readonly NodeType[] = builtInNodeTypes) {
    for (const t of types) this.register(t);
  }

  /**
   * Adds `type`, checked first (checkNodeType): a NodeTypeError lists every problem of its spec.
   * A name already registered throws a NodeTypeError too, unless `{ replace: true }`: registering a
   * type named as a built-in one replaced it silently, and the assets using the built-in broke.
   */
  register(type: NodeType, options: RegisterOptions = {}): this {
    // The built-in types are checked by a test, not at every import (defineBuiltInNodeType).
    if (!builtInNodeTypes.includes(type)) checkNodeType(type);
    const name = type.type;
    if (name === OutputType.type) throw new NodeTypeError(name, [{ path: 'type', message: `'${name}' is reserved for the graph output` }]);
    const known = this.types.get(name);
    if (known !== undefined && options.replace !== true) {
      const what = builtInNodeTypes.includes(known) ? 'the built-in type' : 'a type';
      throw new NodeTypeError(name, [{ path: 'type', message: `'${name}' names ${what} registered already; register(type, { replace: true }) replaces it` }]);
    }
    this.types.set(name, type);
    return this;
  }

  get(type: string): NodeType | undefined {
    return this.types.get(type);
  }

  list(): NodeType[] {
    return [...this.types.values()];
  }
}

export const DEFAULT_REGISTRY = new NodeRegistry();
