/**
 * The node contract, by responsibility: how a node runs each frame (anim-node.ts: the node base
 * classes and the contexts they are called with), how it reads its inputs (link.ts), and how a node
 * type declares its properties and pins and is built (node-type.ts). Import from here or from the
 * file itself; each file depends only on the ones before it.
 */
export * from './anim-node.ts';
export * from './link.ts';
export * from './node-type.ts';
