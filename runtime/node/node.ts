/**
 * The node contract, by responsibility: how a node runs each frame (anim-node.ts: the node base
 * classes and the contexts they are called with), how it reads its inputs (link.ts), how a node
 * type declares its properties and pins and is built (node-type.ts), how its code reads its
 * resolved properties (properties.ts), and what can be wrong with a type (node-type-check.ts).
 * Import from here or from the file itself (node-type.ts re-exports the last two); anim-node.ts,
 * link.ts and node-type.ts each depend only on the ones before it.
 */
export * from './anim-node.ts';
export * from './link.ts';
export * from './node-type.ts';
