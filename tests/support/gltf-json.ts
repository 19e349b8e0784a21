/**
 * glTF files written as JSON text in a test, with the one animation they carry embedded as a
 * data: URI: shapes of node hierarchy that stress the skin import (a chain of joints, joints
 * hanging off a long chain of other nodes), without a library to build them.
 */

/** A hierarchy of nodes and the skin's joints among them. */
export interface GltfShape {
  /** Each node's children (node indices). */
  children: number[][];
  joints: number[];
  /** Each node's name; default b<index>. */
  names?: string[];
}

/** A chain of `count` nodes, each the child of the one before; every node a joint, or only the last. */
export function chainShape(count: number, joints: 'all' | 'last' = 'all'): GltfShape {
  const children = Array.from({ length: count }, (_, i) => (i + 1 < count ? [i + 1] : []));
  return { children, joints: joints === 'all' ? children.map((_, i) => i) : [count - 1] };
}

/**
 * A chain of `depth` nodes that are not joints, and `leaves` joints under its last node: with
 * `rootJoint`, the chain's first node is a joint too (so every leaf walks the chain up to it);
 * without, the leaves are top joints whose common ancestor is the chain's last node.
 */
export function fanShape(depth: number, leaves: number, rootJoint: boolean): GltfShape {
  const children: number[][] = Array.from({ length: depth }, (_, i) => (i + 1 < depth ? [i + 1] : []));
  const joints: number[] = rootJoint ? [0] : [];
  for (let i = 0; i < leaves; i++) {
    children[depth - 1].push(depth + i);
    children.push([]);
    joints.push(depth + i);
  }
  return { children, joints };
}

/**
 * The .gltf text of `shape`: nodes translated 1 up from their parent, one skin, and an animation
 * turning the first joint's node (two keys, 1 s), so that a graph can play it as a clip.
 */
export function gltfText(shape: GltfShape): string {
  const nodes = shape.children.map((children, i) => ({
    name: shape.names?.[i] ?? `b${i}`, translation: [0, 1, 0], ...(children.length > 0 ? { children } : {}),
  }));
  const times = new Float32Array([0, 1]);
  const rotations = new Float32Array([0, 0, 0, 1, 0, Math.SQRT1_2, 0, Math.SQRT1_2]);
  const bin = new Uint8Array(40);
  bin.set(new Uint8Array(times.buffer), 0);
  bin.set(new Uint8Array(rotations.buffer), 8);
  const uri = `data:application/octet-stream;base64,${Buffer.from(bin).toString('base64')}`;
  const isChild = new Set(shape.children.flat());
  return JSON.stringify({
    asset: { version: '2.0' },
    scenes: [{ nodes: nodes.map((_, i) => i).filter((i) => !isChild.has(i)) }],
    nodes,
    skins: [{ joints: shape.joints }],
    buffers: [{ uri, byteLength: 40 }],
    bufferViews: [{ buffer: 0, byteLength: 8 }, { buffer: 0, byteOffset: 8, byteLength: 32 }],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] },
      { bufferView: 1, componentType: 5126, count: 2, type: 'VEC4' },
    ],
    animations: [{ name: 'turn', channels: [{ sampler: 0, target: { node: shape.joints[0], path: 'rotation' } }], samplers: [{ input: 0, output: 1 }] }],
  });
}

/** A graph asset playing `file`'s animation on its skin. */
export function gltfGraph(file = 'rig.gltf'): Record<string, unknown> {
  return {
    format: 'animgraph/1', skeleton: { gltf: file }, clips: { turn: { source: file } },
    nodes: { play: { type: 'SequencePlayer', properties: { clip: 'turn' } } }, output: 'play',
  };
}
