/**
 * What React Flow draws: a node box (title in its category's colour, a pin per input, the debug
 * line while playing), a state, the entry and any-state markers, and a wire whose thickness and
 * opacity are the weight of the pose flowing through it.
 */
import { createContext, memo, useContext } from 'react';
import { BaseEdge, EdgeLabelRenderer, getBezierPath, Handle, Position, useInternalNode, type Edge, type EdgeProps, type Node, type NodeProps } from '@xyflow/react';
import type { EditorEdge, EditorNode } from '../model/index.ts';
import type { EditorProblem } from './state.ts';

export interface NodeData extends Record<string, unknown> {
  node: EditorNode;
  /** Problems whose JSON path lands on this node (or inside what it opens). */
  problems: EditorProblem[];
  /** Problems on a pin, by handle. */
  pinProblems: Record<string, EditorProblem[]>;
  /** Problems inside the canvas this node opens. */
  inside: number;
  onOpen?: (node: EditorNode) => void;
}
export type FlowNode = Node<NodeData>;

export interface EdgeData extends Record<string, unknown> {
  edge: EditorEdge;
}
export type FlowEdge = Edge<EdgeData>;

/** What playing shows, by the canvas's own node ids: weight (0..1) and debug text. */
export interface Live {
  playing: boolean;
  weight: (nodeId: string) => number | undefined;
  description: (nodeId: string) => string | undefined;
}
export const LiveContext = createContext<Live>({ playing: false, weight: () => undefined, description: () => undefined });

function problemTitle(problems: readonly EditorProblem[]): string {
  return problems.map((p) => `${p.message} [${p.code}]`).join('\n');
}

function LiveLine({ id }: { id: string }) {
  const live = useContext(LiveContext);
  const weight = live.weight(id);
  if (weight === undefined) return null;
  const description = live.description(id);
  return (
    <div className="live" data-weight={weight.toFixed(3)}>
      <span className="bar"><span className="fill" style={{ width: `${(weight * 100).toFixed(1)}%` }} /></span>
      <span className="w">{(weight * 100).toFixed(1)}%</span>
      {description ? <span className="desc" title={description}>{description}</span> : null}
    </div>
  );
}

export const AnimNode = memo(function AnimNode({ data, selected }: NodeProps<FlowNode>) {
  const { node, problems, pinProblems, inside } = data;
  const bad = problems.length > 0;
  return (
    <div className={`anim-node kind-${node.kind}${bad ? ' has-problem' : ''}${selected ? ' selected' : ''}`}
      data-node-id={node.id} data-problems={bad ? problems.length : undefined} title={bad ? problemTitle(problems) : node.summary}
      onDoubleClick={node.opens ? () => data.onOpen?.(node) : undefined}>
      <div className="head" style={{ background: node.color }}>
        <span className="title">{node.title}</span>
        {node.kind === 'node' ? <span className="id" title={node.type}>{node.id}</span> : null}
        {node.cachedPose ? <span className="cache" title={`cached pose '${node.cachedPose.name}'`}>{node.cachedPose.role === 'save' ? '⇥' : '↦'} {node.cachedPose.name}</span> : null}
      </div>
      <div className="pins">
        {node.inputs.map((pin) => {
          const pinBad = pinProblems[pin.handle];
          return (
            <div key={pin.handle} className={`pin${pin.listAdd ? ' list-add' : ''}${pinBad ? ' pin-problem' : ''}`} data-handle={pin.handle}
              title={pinBad ? problemTitle(pinBad) : pin.description}>
              <Handle type="target" position={Position.Left} id={pin.handle} />
              <span>{pin.title}</span>
            </div>
          );
        })}
      </div>
      {node.opens ? <button type="button" className="open" onClick={() => data.onOpen?.(node)} title="open">{inside > 0 ? `open (${inside} problem${inside === 1 ? '' : 's'})` : 'open ›'}</button> : null}
      {bad ? <div className="problem-text">{problems[0].message}</div> : null}
      <LiveLine id={node.id} />
      {node.kind !== 'output' ? <Handle type="source" position={Position.Right} id="pose" /> : null}
    </div>
  );
});

/** A state, a conduit, the entry and the any-state source of a machine canvas. */
export const StateNode = memo(function StateNode({ data, selected }: NodeProps<FlowNode>) {
  const { node, problems, inside } = data;
  const bad = problems.length > 0;
  const marker = node.kind === 'entry' || node.kind === 'any-state';
  return (
    <div className={`state-node kind-${node.kind}${bad ? ' has-problem' : ''}${selected ? ' selected' : ''}`}
      data-node-id={node.id} data-problems={bad ? problems.length : undefined} title={bad ? problemTitle(problems) : node.summary}
      onDoubleClick={node.opens ? () => data.onOpen?.(node) : undefined} style={{ borderColor: node.color }}>
      {!marker ? <Handle type="target" position={Position.Left} id="in" /> : null}
      <div className="title">{node.title}</div>
      {node.opens ? <button type="button" className="open" onClick={() => data.onOpen?.(node)}>{inside > 0 ? `open (${inside} problem${inside === 1 ? '' : 's'})` : 'open ›'}</button> : null}
      {bad ? <div className="problem-text">{problems[0].message}</div> : null}
      {!marker ? <LiveLine id={node.id} /> : null}
      <Handle type="source" position={Position.Right} id="out" />
    </div>
  );
});

export const WeightedEdge = memo(function WeightedEdge(props: EdgeProps<FlowEdge>) {
  const { id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data, selected, markerEnd } = props;
  const live = useContext(LiveContext);
  const edge = data!.edge;
  const from = useInternalNode(edge.source), to = useInternalNode(edge.target);
  const [path, labelX, labelY] = edge.kind === 'transition' || edge.kind === 'entry'
    ? arc(from, to) ?? getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition })
    : getBezierPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition });
  // A wire carries its source's pose, at the source's weight; a transition is live while both its
  // states have weight (the crossfade).
  let weight: number | undefined;
  if (edge.kind === 'transition') {
    const a = live.weight(edge.source), b = live.weight(edge.target);
    weight = a === undefined || b === undefined ? undefined : Math.min(a, b);
  } else weight = live.weight(edge.source);
  const style = weight === undefined
    ? { strokeWidth: 2, opacity: 0.8 }
    : { strokeWidth: 1 + 5 * weight, opacity: 0.2 + 0.8 * weight };
  return (
    <>
      <BaseEdge id={id} path={path} markerEnd={markerEnd} className={`wire kind-${edge.kind}${selected ? ' selected' : ''}`}
        style={{ ...style, stroke: selected ? '#f0c674' : edge.kind === 'cached-pose' ? '#8fbf7f' : edge.kind === 'transition' ? '#c4a7e7' : '#9fb4cc', strokeDasharray: edge.kind === 'cached-pose' ? '6 4' : undefined }} />
      <g className="wire-weight" data-edge-id={edge.id} data-weight={weight === undefined ? '' : weight.toFixed(3)} />
      {edge.label ? (
        <EdgeLabelRenderer>
          <div className="edge-label nodrag nopan" style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }} data-edge-id={edge.id}>{edge.label}</div>
        </EdgeLabelRenderer>
      ) : null}
    </>
  );
});

type Placed = ReturnType<typeof useInternalNode>;

/**
 * A transition as a state machine draws one: from box to box, centre to centre, bent to the left of
 * its direction, so that the two transitions between a pair of states (there and back) are two arcs
 * rather than one line, and each ends at its box's border. Undefined until both boxes are measured.
 */
function arc(from: Placed, to: Placed): [string, number, number] | undefined {
  const a = from?.measured, b = to?.measured;
  if (!from || !to || !a?.width || !a.height || !b?.width || !b.height) return undefined;
  const ax = from.internals.positionAbsolute.x + a.width / 2, ay = from.internals.positionAbsolute.y + a.height / 2;
  const bx = to.internals.positionAbsolute.x + b.width / 2, by = to.internals.positionAbsolute.y + b.height / 2;
  const dx = bx - ax, dy = by - ay, length = Math.hypot(dx, dy) || 1;
  const nx = dy / length, ny = -dx / length; // the left of the direction
  const bend = Math.min(60, 18 + length * 0.12);
  const cx = (ax + bx) / 2 + nx * bend, cy = (ay + by) / 2 + ny * bend;
  // Where the curve leaves a box: along the line to the control point, at the box's border.
  const border = (x: number, y: number, w: number, h: number, tx: number, ty: number): [number, number] => {
    const ux = tx - x, uy = ty - y;
    const t = Math.min(Math.abs(ux) > 1e-9 ? (w / 2) / Math.abs(ux) : Infinity, Math.abs(uy) > 1e-9 ? (h / 2) / Math.abs(uy) : Infinity, 1);
    return [x + ux * t, y + uy * t];
  };
  const [sx, sy] = border(ax, ay, a.width, a.height, cx, cy);
  const [tx, ty] = border(bx, by, b.width, b.height, cx, cy);
  return [`M ${sx} ${sy} Q ${cx} ${cy} ${tx} ${ty}`, 0.25 * sx + 0.5 * cx + 0.25 * tx, 0.25 * sy + 0.5 * cy + 0.25 * ty];
}

export const nodeTypes = { anim: AnimNode, state: StateNode };
export const edgeTypes = { weighted: WeightedEdge };
