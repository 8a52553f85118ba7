import type { ProcessState, ProcessTransition } from '../api';

// Lays a process out for its state diagram: states in columns by their
// distance from the initial state (breadth first along the transitions),
// in the author's order within a column; states no transition reaches go
// in a last column. Each transition is one edge; edges between the same
// two states are numbered so their labels do not sit on each other.

export const NODE_W = 150;
export const NODE_H = 44;
const COL_GAP = 90;
const ROW_GAP = 46;
const PAD = 24;

export interface NodeBox {
  name: string;
  x: number;
  y: number;
  initial: boolean;
  final: boolean;
}

export interface Edge {
  from: string;
  to: string;
  event: string;
  guard?: string;
  /** Index among the edges joining the same two states (either way). */
  lane: number;
}

export interface Layout {
  nodes: NodeBox[];
  edges: Edge[];
  width: number;
  height: number;
}

export function layoutDiagram(states: ProcessState[], transitions: ProcessTransition[]): Layout {
  const initial = states.find((s) => s.initial)?.name ?? states[0]?.name;
  const depth = new Map<string, number>();
  if (initial) {
    depth.set(initial, 0);
    const queue = [initial];
    while (queue.length > 0) {
      const from = queue.shift()!;
      for (const t of transitions) {
        if (!t.from.includes(from) || depth.has(t.to)) continue;
        depth.set(t.to, depth.get(from)! + 1);
        queue.push(t.to);
      }
    }
  }
  const last = Math.max(-1, ...depth.values()) + 1;
  const columns: string[][] = [];
  for (const s of states) {
    const col = depth.get(s.name) ?? last;
    (columns[col] ??= []).push(s.name);
  }
  const byName = new Map(states.map((s) => [s.name, s]));
  const nodes: NodeBox[] = [];
  columns.forEach((names, col) => {
    names.forEach((name, row) => {
      const s = byName.get(name)!;
      nodes.push({
        name,
        x: PAD + col * (NODE_W + COL_GAP),
        y: PAD + row * (NODE_H + ROW_GAP),
        initial: s.initial,
        final: s.final,
      });
    });
  });
  const lanes = new Map<string, number>();
  const edges: Edge[] = [];
  for (const t of transitions) {
    for (const from of t.from) {
      const key = [from, t.to].sort().join('\u0000');
      const lane = lanes.get(key) ?? 0;
      lanes.set(key, lane + 1);
      edges.push({ from, to: t.to, event: t.event, guard: t.guard, lane });
    }
  }
  const width = nodes.reduce((w, n) => Math.max(w, n.x + NODE_W), 0) + PAD;
  const height = nodes.reduce((h, n) => Math.max(h, n.y + NODE_H), 0) + PAD + 30;
  return { nodes, edges, width, height };
}

export interface EdgePath {
  d: string;
  labelX: number;
  labelY: number;
}

/** The SVG path of an edge and where its label goes. */
export function edgePath(e: Edge, nodes: Map<string, NodeBox>): EdgePath {
  const a = nodes.get(e.from)!;
  const b = nodes.get(e.to)!;
  if (e.from === e.to) {
    // A loop above the box, one size larger per lane.
    const r = 18 + e.lane * 10;
    const x = a.x + NODE_W / 2;
    const y = a.y;
    return {
      d: `M ${x - 12} ${y} C ${x - 12 - r} ${y - 2 * r}, ${x + 12 + r} ${y - 2 * r}, ${x + 12} ${y}`,
      labelX: x,
      labelY: y - 1.5 * r - 4,
    };
  }
  const ax = a.x + NODE_W / 2;
  const ay = a.y + NODE_H / 2;
  const bx = b.x + NODE_W / 2;
  const by = b.y + NODE_H / 2;
  // Leave and enter at the box edges facing each other.
  const [sx, sy] = boxEdge(a, bx, by);
  const [tx, ty] = boxEdge(b, ax, ay);
  // Bend alternate lanes to either side of the straight line.
  const bend = e.lane === 0 ? 0 : (e.lane % 2 === 1 ? 1 : -1) * Math.ceil(e.lane / 2) * 28;
  const mx = (sx + tx) / 2;
  const my = (sy + ty) / 2;
  const len = Math.hypot(tx - sx, ty - sy) || 1;
  const nx = -(ty - sy) / len;
  const ny = (tx - sx) / len;
  const cx = mx + nx * bend;
  const cy = my + ny * bend;
  return { d: `M ${sx} ${sy} Q ${cx} ${cy} ${tx} ${ty}`, labelX: (sx + 2 * cx + tx) / 4, labelY: (sy + 2 * cy + ty) / 4 - 6 };
}

function boxEdge(n: NodeBox, towardX: number, towardY: number): [number, number] {
  const cx = n.x + NODE_W / 2;
  const cy = n.y + NODE_H / 2;
  const dx = towardX - cx;
  const dy = towardY - cy;
  if (dx === 0 && dy === 0) return [cx, cy];
  const sx = dx === 0 ? Infinity : NODE_W / 2 / Math.abs(dx);
  const sy = dy === 0 ? Infinity : NODE_H / 2 / Math.abs(dy);
  const s = Math.min(sx, sy);
  return [cx + dx * s, cy + dy * s];
}
