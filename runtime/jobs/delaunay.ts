/*
 * Delaunay triangulation of a blend space's samples, built once at load (Bowyer–Watson: points
 * inserted in the order written, each removing the triangles whose circumcircle holds it and
 * fanning the hole's rim to it). Deterministic: the same points in the same order give the same
 * triangles, including for co-circular points (a square), whose tie the strict in-circle test breaks
 * by insertion order.
 */

/** Why a set of points cannot be triangulated: two points coincide, or all lie on one line. */
export type TriangulationProblem =
  | { kind: 'duplicate'; index: number; duplicateOf: number }
  | { kind: 'collinear' };

/** Points closer than this (in the unit square the points are scaled to) are one point. */
const SAME_POINT = 1e-9;

/**
 * Problems with points [x0, y0, x1, y1, ...] as given to triangulate(): every duplicate (each
 * reported once, at the later point), then whether all points are collinear.
 */
export function triangulationProblems(points: readonly number[]): TriangulationProblem[] {
  const n = points.length / 2;
  const problems: TriangulationProblem[] = [];
  const unit = toUnitSquare(points);
  const distinct: number[] = [];
  for (let i = 0; i < n; i++) {
    let duplicateOf = -1;
    for (let j = 0; j < i && duplicateOf < 0; j++) {
      if (Math.abs(unit[2 * i] - unit[2 * j]) <= SAME_POINT && Math.abs(unit[2 * i + 1] - unit[2 * j + 1]) <= SAME_POINT) duplicateOf = j;
    }
    if (duplicateOf >= 0) problems.push({ kind: 'duplicate', index: i, duplicateOf });
    else distinct.push(i);
  }
  if (!hasArea(unit, distinct)) problems.push({ kind: 'collinear' });
  return problems;
}

/** Whether some three of the points span a triangle (in unit-square coordinates). */
function hasArea(unit: Float64Array, indices: readonly number[]): boolean {
  if (indices.length < 3) return false;
  const a = indices[0];
  // The point farthest from the first fixes the line; any point off it gives area.
  let b = indices[1], far = 0;
  for (const i of indices) {
    const d = (unit[2 * i] - unit[2 * a]) ** 2 + (unit[2 * i + 1] - unit[2 * a + 1]) ** 2;
    if (d > far) { far = d; b = i; }
  }
  const lx = unit[2 * b] - unit[2 * a], ly = unit[2 * b + 1] - unit[2 * a + 1], length = Math.sqrt(lx * lx + ly * ly);
  if (!(length > SAME_POINT)) return false;
  for (const i of indices) {
    const cross = (lx * (unit[2 * i + 1] - unit[2 * a + 1]) - ly * (unit[2 * i] - unit[2 * a])) / length;
    if (Math.abs(cross) > 1e-7) return true;
  }
  return false;
}

/**
 * The points scaled per axis to the unit square their bounds span (an axis of no extent to 0), so
 * that axes in different units (speed in cm/s, direction in degrees) weigh alike in the triangulation.
 */
export function toUnitSquare(points: readonly number[]): Float64Array {
  const n = points.length / 2, out = new Float64Array(points.length);
  for (let axis = 0; axis < 2; axis++) {
    let min = Infinity, max = -Infinity;
    for (let i = 0; i < n; i++) {
      min = Math.min(min, points[2 * i + axis]);
      max = Math.max(max, points[2 * i + axis]);
    }
    const scale = max > min ? 1 / (max - min) : 0;
    for (let i = 0; i < n; i++) out[2 * i + axis] = (points[2 * i + axis] - min) * scale;
  }
  return out;
}

/**
 * Triangles of points [x0, y0, ...] within the unit square (toUnitSquare's; already checked by
 * triangulationProblems), as point indices [a0, b0, c0, a1, ...], each counter-clockwise.
 */
export function triangulate(points: readonly number[]): Int32Array {
  const n = points.length / 2;
  // The unit square's points, then a super-triangle around it.
  const px = new Float64Array(n + 3), py = new Float64Array(n + 3);
  for (let i = 0; i < n; i++) {
    px[i] = points[2 * i];
    py[i] = points[2 * i + 1];
  }
  px[n] = -100; py[n] = -100;
  px[n + 1] = 200; py[n + 1] = -100;
  px[n + 2] = 0.5; py[n + 2] = 200;
  type Triangle = { a: number; b: number; c: number; cx: number; cy: number; r2: number };
  const make = (a: number, b: number, c: number): Triangle => {
    // Counter-clockwise, so every triangle has the same orientation for the barycentric test.
    if ((px[b] - px[a]) * (py[c] - py[a]) - (py[b] - py[a]) * (px[c] - px[a]) < 0) [b, c] = [c, b];
    const ax = px[a], ay = py[a], bx = px[b], by = py[b], cx = px[c], cy = py[c];
    const d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by));
    const a2 = ax * ax + ay * ay, b2 = bx * bx + by * by, c2 = cx * cx + cy * cy;
    const ux = (a2 * (by - cy) + b2 * (cy - ay) + c2 * (ay - by)) / d;
    const uy = (a2 * (cx - bx) + b2 * (ax - cx) + c2 * (bx - ax)) / d;
    return { a, b, c, cx: ux, cy: uy, r2: (ax - ux) ** 2 + (ay - uy) ** 2 };
  };
  let triangles: Triangle[] = [make(n, n + 1, n + 2)];
  for (let p = 0; p < n; p++) {
    const x = px[p], y = py[p];
    const bad: Triangle[] = [], kept: Triangle[] = [];
    for (const t of triangles) ((x - t.cx) ** 2 + (y - t.cy) ** 2 < t.r2 * (1 - 1e-12) ? bad : kept).push(t);
    // The rim of the hole: edges of exactly one bad triangle, in the order met.
    const edges: [number, number][] = [];
    for (const t of bad) edges.push([t.a, t.b], [t.b, t.c], [t.c, t.a]);
    const rim = edges.filter(([u, v]) => edges.filter(([s, w]) => (s === u && w === v) || (s === v && w === u)).length === 1);
    for (const [u, v] of rim) kept.push(make(u, v, p));
    triangles = kept;
  }
  const out: number[] = [];
  for (const t of triangles) {
    if (t.a >= n || t.b >= n || t.c >= n) continue;
    const area = (px[t.b] - px[t.a]) * (py[t.c] - py[t.a]) - (py[t.b] - py[t.a]) * (px[t.c] - px[t.a]);
    if (area > 1e-12) out.push(t.a, t.b, t.c);
  }
  return Int32Array.from(out);
}
