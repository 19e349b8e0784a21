import type { NodeType } from '../../runtime/node.ts';
import { builtInNodeTypes, OutputType } from '../../nodes/index.ts';

/** The node types a loader knows, by asset `type`. Register custom node types here. */
export class NodeRegistry {
  private readonly types = new Map<string, NodeType>();

  constructor(types: readonly NodeType[] = builtInNodeTypes) {
    for (const t of types) this.register(t);
  }

  register(type: NodeType): this {
    if (type.type === OutputType.type) throw new RangeError(`'${type.type}' is reserved for the graph output`);
    this.types.set(type.type, type);
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
