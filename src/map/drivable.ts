/**
 * The drivable area of a map where its data leaves gaps:
 * - a map with no road edges (FMTC's release lacks C3) gets a boundary derived from the lanes: each lane
 *   centre line widened to a ribbon reaching the painted lines beside it (or half the lane width where there
 *   are none) plus a shoulder, the ribbons united and smoothed (raster-outline.ts: notches and slits narrower
 *   than 2 m fill in), and the outline written as `road_edge` polylines, so off-road is defined there too;
 * - road edges that lanes drive straight across (a grade-separated crossing drawn flat, or a data error)
 *   are cut open where the lanes cross them, so a car on such a lane is not blocked by a wall it passes
 *   over or under.
 * Both mark their edges, and the map metadata says what was done.
 */
import { outlineOfPolygons } from './raster-outline.js';
import type { Point2, RoadJson } from './types.js';

export interface DerivedEdgesOptions {
  /** lane width where no painted line is found beside a lane [m] (default 3.5) */
  readonly laneWidth?: number;
  /** extra width beyond the outer lanes' edges (a shoulder) [m] (default 0.5) */
  readonly shoulder?: number;
}

export interface DerivedEdges {
  edges: RoadJson[];
  /** lane width where no painted line was found */
  laneWidth: number;
  shoulder: number;
}

/** lanes are lengthened by this at both ends before they are united [m] */
const END_EXTENSION = 3;

/** Offsets a polyline sideways by d (positive: left), with mitred corners capped at 2·|d|. */
function offsetPolyline(pts: readonly Point2[], d: number): Point2[] {
  const n = pts.length;
  const out: Point2[] = [];
  for (let i = 0; i < n; i++) {
    const a = pts[Math.max(0, i - 1)], b = pts[i], c = pts[Math.min(n - 1, i + 1)];
    let n1x = -(b.y - a.y), n1y = b.x - a.x;
    let n2x = -(c.y - b.y), n2y = c.x - b.x;
    const l1 = Math.hypot(n1x, n1y), l2 = Math.hypot(n2x, n2y);
    if (l1 > 0) { n1x /= l1; n1y /= l1; }
    if (l2 > 0) { n2x /= l2; n2y /= l2; }
    if (l1 === 0) { n1x = n2x; n1y = n2y; }
    if (l2 === 0) { n2x = n1x; n2y = n1y; }
    let mx = n1x + n2x, my = n1y + n2y;
    const ml = Math.hypot(mx, my);
    if (ml < 1e-9) { mx = n1x; my = n1y; } else { mx /= ml; my /= ml; }
    const cos = mx * n1x + my * n1y;
    const scale = Math.min(2, 1 / Math.max(cos, 0.5));
    out.push({ x: b.x + mx * d * scale, y: b.y + my * d * scale });
  }
  return out;
}

/** Moves the first and last points of a polyline `d` m further out along its end directions (in place). */
function extendEnds(pts: Point2[], d: number): void {
  const n = pts.length;
  const a = pts[0], b = pts[1];
  const la = Math.hypot(a.x - b.x, a.y - b.y) || 1;
  pts[0] = { x: a.x + ((a.x - b.x) / la) * d, y: a.y + ((a.y - b.y) / la) * d };
  const y = pts[n - 1], z = pts[n - 2];
  const lz = Math.hypot(y.x - z.x, y.y - z.y) || 1;
  pts[n - 1] = { x: y.x + ((y.x - z.x) / lz) * d, y: y.y + ((y.y - z.y) / lz) * d };
}

/** Drops points closer than `minStep` to the previous kept one (keeps the ends). */
function thin(pts: readonly Point2[], minStep: number): Point2[] {
  const out: Point2[] = [];
  for (const p of pts) {
    const q = out[out.length - 1];
    if (!q || Math.hypot(p.x - q.x, p.y - q.y) >= minStep) out.push(p);
  }
  const last = pts[pts.length - 1];
  if (out[out.length - 1] !== last && pts.length > 1) out.push(last);
  return out;
}

/**
 * How far the painted lines lie to the left and right of a lane (medians over its points, each looked for
 * within 4 m), or NaN where there are none.
 */
function paintedHalfWidths(centre: readonly Point2[], lines: SegmentGrid): { left: number; right: number } {
  const left: number[] = [], right: number[] = [];
  for (let i = 0; i < centre.length; i++) {
    const p = centre[i];
    const q = centre[Math.min(centre.length - 1, i + 1)], o = centre[Math.max(0, i - 1)];
    const hx = q.x - o.x, hy = q.y - o.y;
    const hl = Math.hypot(hx, hy) || 1;
    let bestL = Infinity, bestR = Infinity;
    lines.near(p.x, p.y, 4, (a, b) => {
      const dx = b.x - a.x, dy = b.y - a.y;
      const t = Math.min(1, Math.max(0, ((p.x - a.x) * dx + (p.y - a.y) * dy) / (dx * dx + dy * dy || 1)));
      const cx = a.x + t * dx - p.x, cy = a.y + t * dy - p.y;
      const d = Math.hypot(cx, cy);
      // only lines running alongside (not across) the lane
      if (Math.abs(dx * hx + dy * hy) / ((Math.hypot(dx, dy) || 1) * hl) < 0.8) return;
      if (hx * cy - hy * cx > 0) bestL = Math.min(bestL, d);
      else bestR = Math.min(bestR, d);
    });
    if (bestL < 4) left.push(bestL);
    if (bestR < 4) right.push(bestR);
  }
  const median = (v: number[]) => (v.length === 0 ? NaN : v.sort((a, b) => a - b)[v.length >> 1]);
  return { left: median(left), right: median(right) };
}

/** Segments in a uniform grid, for "which segments are near this point". */
class SegmentGrid {
  private readonly cells = new Map<string, Array<[Point2, Point2]>>();

  constructor(private readonly cell: number) {}

  add(a: Point2, b: Point2): void {
    const c = this.cell;
    const seg: [Point2, Point2] = [a, b];
    for (let gx = Math.floor(Math.min(a.x, b.x) / c); gx <= Math.floor(Math.max(a.x, b.x) / c); gx++) {
      for (let gy = Math.floor(Math.min(a.y, b.y) / c); gy <= Math.floor(Math.max(a.y, b.y) / c); gy++) {
        const k = `${gx},${gy}`;
        let list = this.cells.get(k);
        if (!list) this.cells.set(k, (list = []));
        list.push(seg);
      }
    }
  }

  near(x: number, y: number, r: number, visit: (a: Point2, b: Point2) => void): void {
    const c = this.cell;
    const seen = new Set<[Point2, Point2]>();
    for (let gx = Math.floor((x - r) / c); gx <= Math.floor((x + r) / c); gx++) {
      for (let gy = Math.floor((y - r) / c); gy <= Math.floor((y + r) / c); gy++) {
        for (const seg of this.cells.get(`${gx},${gy}`) ?? []) {
          if (seen.has(seg)) continue;
          seen.add(seg);
          visit(seg[0], seg[1]);
        }
      }
    }
  }
}

/** Road-edge polylines around the union of the lanes widened to the painted lines beside them (+ a shoulder). */
export function deriveRoadEdges(roads: readonly RoadJson[], opts: DerivedEdgesOptions = {}): DerivedEdges {
  const laneWidth = opts.laneWidth ?? 3.5;
  const shoulder = opts.shoulder ?? 0.5;
  const lines = new SegmentGrid(10);
  for (const r of roads) if (r.type === 'road_line') for (let i = 1; i < r.geometry.length; i++) lines.add(r.geometry[i - 1], r.geometry[i]);
  const ribbons: Point2[][] = [];
  for (const r of roads) {
    if (r.type !== 'lane' || r.geometry.length < 2) continue;
    const centre = thin(r.geometry, 0.5);
    if (centre.length < 2) continue;
    const painted = paintedHalfWidths(centre, lines);
    const side = (d: number) => (Number.isFinite(d) ? Math.min(3.5, Math.max(1.5, d)) : laneWidth / 2) + shoulder;
    // lengthen both ends, so that lanes meeting end to end (never exactly, in real data) overlap
    extendEnds(centre, END_EXTENSION);
    ribbons.push([...offsetPolyline(centre, side(painted.left)), ...offsetPolyline(centre, -side(painted.right)).reverse()]);
  }
  const edges: RoadJson[] = outlineOfPolygons(ribbons).map((ring) => ({
    type: 'road_edge',
    geometry: ring.map((p) => ({ x: Math.round(p.x * 1000) / 1000, y: Math.round(p.y * 1000) / 1000 })),
    derived: true,
  }) as RoadJson);
  return { edges, laneWidth, shoulder };
}

/** Where segment p1–p2 crosses q1–q2 (strictly inside both), as the parameter along p; NaN when not. */
function crossingAt(p1: Point2, p2: Point2, q1: Point2, q2: Point2): number {
  const d = (p2.x - p1.x) * (q2.y - q1.y) - (p2.y - p1.y) * (q2.x - q1.x);
  if (Math.abs(d) < 1e-12) return NaN;
  const t = ((q1.x - p1.x) * (q2.y - q1.y) - (q1.y - p1.y) * (q2.x - q1.x)) / d;
  const u = ((q1.x - p1.x) * (p2.y - p1.y) - (q1.y - p1.y) * (p2.x - p1.x)) / d;
  return t > 0 && t < 1 && u > 0 && u < 1 ? t : NaN;
}

export interface CutEdges {
  roads: RoadJson[];
  /** lane–edge crossings cut open */
  cuts: number;
}

/**
 * Cuts road edges open where a lane centre line crosses them: `gap` m on each side of every crossing is
 * removed (default: half a lane plus a car's half length, 4 m). Returns the new road list (other roads as
 * they were, edges possibly split into several) and how many crossings were cut.
 */
export function cutEdgesAtLaneCrossings(roads: readonly RoadJson[], gap = 4): CutEdges {
  const lanes = new SegmentGrid(20);
  for (const r of roads) if (r.type === 'lane') for (let i = 1; i < r.geometry.length; i++) lanes.add(r.geometry[i - 1], r.geometry[i]);
  let cuts = 0;
  const out: RoadJson[] = [];
  for (const r of roads) {
    if (r.type !== 'road_edge' || r.geometry.length < 2) {
      out.push(r);
      continue;
    }
    // arc-length positions of the crossings along this edge
    const g = r.geometry;
    const cum = [0];
    for (let i = 1; i < g.length; i++) cum.push(cum[i - 1] + Math.hypot(g[i].x - g[i - 1].x, g[i].y - g[i - 1].y));
    const at: number[] = [];
    for (let i = 1; i < g.length; i++) {
      const a = g[i - 1], b = g[i];
      const mx = (a.x + b.x) / 2, my = (a.y + b.y) / 2;
      lanes.near(mx, my, Math.hypot(b.x - a.x, b.y - a.y) / 2, (p, q) => {
        const t = crossingAt(a, b, p, q);
        if (!Number.isNaN(t)) at.push(cum[i - 1] + t * (cum[i] - cum[i - 1]));
      });
    }
    if (at.length === 0) {
      out.push(r);
      continue;
    }
    cuts += at.length;
    // keep the stretches of the edge outside every [crossing − gap, crossing + gap]
    at.sort((p, q) => p - q);
    const keep: Array<[number, number]> = [];
    let from = 0;
    for (const c of at) {
      if (c - gap > from) keep.push([from, c - gap]);
      from = Math.max(from, c + gap);
    }
    if (cum[cum.length - 1] > from) keep.push([from, cum[cum.length - 1]]);
    for (const [s0, s1] of keep) {
      const piece = slice(g, cum, s0, s1);
      if (piece.length >= 2) out.push({ ...r, geometry: piece });
    }
  }
  return { roads: out, cuts };
}

/** The part of a polyline between arc lengths s0 and s1. */
function slice(g: readonly Point2[], cum: readonly number[], s0: number, s1: number): Point2[] {
  const at = (s: number): Point2 => {
    let i = 1;
    while (i < cum.length - 1 && cum[i] < s) i++;
    const t = (s - cum[i - 1]) / ((cum[i] - cum[i - 1]) || 1);
    return { x: g[i - 1].x + t * (g[i].x - g[i - 1].x), y: g[i - 1].y + t * (g[i].y - g[i - 1].y) };
  };
  const out: Point2[] = [at(s0)];
  for (let i = 0; i < g.length; i++) if (cum[i] > s0 && cum[i] < s1) out.push(g[i]);
  out.push(at(s1));
  return out;
}
