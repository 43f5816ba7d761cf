/**
 * A painted crossing's walking axis and the lanes it crosses, from its outline and the lane centre lines (any map
 * source; the NGII converter calls it for B3 Kind 5321). Pure geometry, no I/O.
 *
 * The walking axis is one of the two axes of the outline's minimum-area rectangle: the one ACROSS the lanes that pass
 * through the outline, chosen by the lanes' vote (each lane votes once, for the axis its direction inside the outline
 * is more nearly perpendicular to). A crossing painted wide on a narrow road is longer along the road than across it,
 * so the long side alone would be wrong there. Only when no lane passes through is the long side taken (and the
 * caller is told so). A lane crosses the crossing when its centre line passes through the outline at more than
 * CROSSING_MIN_ANGLE_DEG to the walking axis (a path running along the stripes does not cross it).
 */
import { minAreaRectangle, type Pt } from './ngii/geometry.js';

/** A lane's centre line meets the walking axis at more than this [deg] to count as crossing it. */
export const CROSSING_MIN_ANGLE_DEG = 30;

export interface CrosswalkLane {
  readonly id: string;
  readonly pts: ReadonlyArray<Pt>;
}

export interface CrosswalkGeometry {
  a: Pt;
  b: Pt;
  length: number;
  width: number;
  /** lanes crossing it, in the order given */
  lanes: string[];
  /** how the axis was chosen: across the lanes that pass through, or the rectangle's long side (no lane passes) */
  axisFrom: 'lanes' | 'long_side';
}

/** Even–odd point-in-polygon. */
export function insideRing(p: Pt, ring: ReadonlyArray<Pt>): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i], [xj, yj] = ring[j];
    if ((yi > p[1]) !== (yj > p[1]) && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Parameters t in (0, 1) where segment p→q crosses the ring's edges. */
function ringCrossings(p: Pt, q: Pt, ring: ReadonlyArray<Pt>, out: number[]): void {
  const dx = q[0] - p[0], dy = q[1] - p[1];
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[j], b = ring[i];
    const ex = b[0] - a[0], ey = b[1] - a[1];
    const den = dx * ey - dy * ex;
    if (Math.abs(den) < 1e-12) continue;
    const t = ((a[0] - p[0]) * ey - (a[1] - p[1]) * ex) / den;
    const u = ((a[0] - p[0]) * dy - (a[1] - p[1]) * dx) / den;
    if (t > 0 && t < 1 && u >= 0 && u <= 1) out.push(t);
  }
}

/** The summed direction of a polyline's pieces inside the ring (its length is the length inside), or null if none. */
export function directionInside(pts: ReadonlyArray<Pt>, ring: ReadonlyArray<Pt>): Pt | null {
  let sx = 0, sy = 0, any = false;
  const ts: number[] = [];
  for (let i = 1; i < pts.length; i++) {
    const p = pts[i - 1], q = pts[i];
    ts.length = 0;
    ts.push(0, 1);
    ringCrossings(p, q, ring, ts);
    ts.sort((x, y) => x - y);
    for (let k = 1; k < ts.length; k++) {
      const t0 = ts[k - 1], t1 = ts[k];
      if (t1 - t0 < 1e-9) continue;
      const tm = (t0 + t1) / 2;
      if (!insideRing([p[0] + (q[0] - p[0]) * tm, p[1] + (q[1] - p[1]) * tm], ring)) continue;
      sx += (q[0] - p[0]) * (t1 - t0);
      sy += (q[1] - p[1]) * (t1 - t0);
      any = true;
    }
  }
  return any && Math.hypot(sx, sy) > 1e-6 ? [sx, sy] : null;
}

/** |sin| of the angle between two directions. */
const absSin = (u: Pt, v: Pt) => Math.abs(u[0] * v[1] - u[1] * v[0]) / (Math.hypot(u[0], u[1]) * Math.hypot(v[0], v[1]));

/**
 * The walking axis (kerb `a` to kerb `b`, through the rectangle's centre), its length and the crossing's width along
 * the road, and the lanes that cross it. `ring`: the outline without its closing repeat (at least 3 points).
 */
export function crosswalkGeometry(ring: ReadonlyArray<Pt>, lanes: readonly CrosswalkLane[]): CrosswalkGeometry {
  if (ring.length < 3) throw new Error(`a crosswalk outline needs at least 3 points, got ${ring.length}`);
  const rect = minAreaRectangle(ring as Pt[]);
  const c: Pt = [(rect[0][0] + rect[2][0]) / 2, (rect[0][1] + rect[2][1]) / 2];
  const side1: Pt = [rect[1][0] - rect[0][0], rect[1][1] - rect[0][1]];
  const side2: Pt = [rect[3][0] - rect[0][0], rect[3][1] - rect[0][1]];
  const len1 = Math.hypot(side1[0], side1[1]), len2 = Math.hypot(side2[0], side2[1]);
  // box prefilter
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of ring) { minX = Math.min(minX, x); minY = Math.min(minY, y); maxX = Math.max(maxX, x); maxY = Math.max(maxY, y); }
  const through: Array<{ id: string; dir: Pt }> = [];
  for (const lane of lanes) {
    let hit = false;
    for (const [x, y] of lane.pts) if (x >= minX - 50 && x <= maxX + 50 && y >= minY - 50 && y <= maxY + 50) { hit = true; break; }
    if (!hit) continue;
    const dir = directionInside(lane.pts, ring);
    if (dir) through.push({ id: lane.id, dir });
  }
  // each lane votes for the side its direction is more nearly perpendicular to
  let votes1 = 0, votes2 = 0;
  for (const t of through) {
    if (absSin(t.dir, side1) > absSin(t.dir, side2)) votes1++;
    else votes2++;
  }
  let axis: Pt, along: number, across: number, axisFrom: CrosswalkGeometry['axisFrom'];
  if (through.length > 0 && votes1 !== votes2) {
    axisFrom = 'lanes';
    [axis, along, across] = votes1 > votes2 ? [side1, len1, len2] : [side2, len2, len1];
  } else {
    axisFrom = through.length > 0 ? 'lanes' : 'long_side';
    [axis, along, across] = len1 >= len2 ? [side1, len1, len2] : [side2, len2, len1];
  }
  const ux = axis[0] / (along || 1), uy = axis[1] / (along || 1);
  const a: Pt = [c[0] - (ux * along) / 2, c[1] - (uy * along) / 2];
  const b: Pt = [c[0] + (ux * along) / 2, c[1] + (uy * along) / 2];
  const minSin = Math.sin((CROSSING_MIN_ANGLE_DEG * Math.PI) / 180);
  const crossing = through.filter((t) => absSin(t.dir, [ux, uy]) > minSin).map((t) => t.id);
  return { a, b, length: along, width: across, lanes: crossing, axisFrom };
}

/**
 * A pedestrian head governs the crosswalk whose walking axis, extended past its kerbs, passes closest to it: Korean
 * pedestrian heads stand at the kerb at either end, in line with the crossing (a head at a junction corner is in line
 * with its own crossing, across the other one's axis). Measured as hypot(offset from the axis line, distance beyond
 * the nearer end); a head further than PEDESTRIAN_HEAD_MAX_M from every crosswalk governs none.
 * K-City: 38 pedestrian heads, each 0.1–2.7 m from its crosswalk by this measure; FMTC: 8, 0.6–1.9 m.
 */
export const PEDESTRIAN_HEAD_MAX_M = 6;

export interface AxisEnds {
  readonly id: string;
  readonly a: { x: number; y: number };
  readonly b: { x: number; y: number };
}

/** How far a point is from a crossing in the sense above [m]. */
export function distanceToCrossingAxis(p: { x: number; y: number }, c: AxisEnds): number {
  const dx = c.b.x - c.a.x, dy = c.b.y - c.a.y;
  const len = Math.hypot(dx, dy) || 1;
  const ux = dx / len, uy = dy / len;
  const along = (p.x - c.a.x) * ux + (p.y - c.a.y) * uy;
  const offset = Math.abs(-(p.x - c.a.x) * uy + (p.y - c.a.y) * ux);
  const beyond = along < 0 ? -along : along > len ? along - len : 0;
  return Math.hypot(offset, beyond);
}

/** The crosswalk (index) each head governs, or −1: the nearest by distanceToCrossingAxis within PEDESTRIAN_HEAD_MAX_M. */
export function crosswalkOfHead(p: { x: number; y: number }, crosswalks: readonly AxisEnds[]): number {
  let best = -1, bestD = PEDESTRIAN_HEAD_MAX_M;
  for (let i = 0; i < crosswalks.length; i++) {
    const d = distanceToCrossingAxis(p, crosswalks[i]);
    if (d <= bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}
