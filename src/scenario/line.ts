/**
 * Driving lines (seed 001 §3, spec §6.6): the reference path of a map, for the CTE, heading-error and lap-time
 * metrics and for the autopilot. A polyline with a target speed per point (NaN: none), open or closed, and
 * the queries the metrics and the controller need: the nearest point (signed cross-track error, left of the
 * line positive; the line's heading there), searched near a previous answer so a figure of eight's crossing
 * never makes the projection jump to the other lobe.
 */

export interface DrivingLine {
  readonly xs: Float64Array;
  readonly ys: Float64Array;
  /** target speed at each point [m/s]; NaN = none */
  readonly vs: Float64Array;
  /** arc length at each point (for a closed line the closing segment ends at `length`) */
  readonly cum: Float64Array;
  readonly closed: boolean;
  readonly length: number;
}

export interface LineProjection {
  /** segment index (from point i to i+1, wrapping on a closed line) */
  seg: number;
  /** arc length of the projection [m] */
  s: number;
  /** signed cross-track error, left of the line positive [m] */
  cte: number;
  /** the segment's heading [rad] */
  heading: number;
  x: number;
  y: number;
}

export function makeLine(points: ReadonlyArray<readonly number[]>, closed: boolean): DrivingLine {
  const pts = points.filter((p, i) => i === 0 || Math.hypot(p[0] - points[i - 1][0], p[1] - points[i - 1][1]) > 1e-9);
  if (closed && pts.length > 2 && Math.hypot(pts[0][0] - pts[pts.length - 1][0], pts[0][1] - pts[pts.length - 1][1]) < 1e-6) pts.pop();
  const n = pts.length;
  const xs = new Float64Array(n), ys = new Float64Array(n), vs = new Float64Array(n), cum = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    xs[i] = pts[i][0];
    ys[i] = pts[i][1];
    vs[i] = pts[i].length > 2 && pts[i][2] > 0 ? pts[i][2] : NaN;
    if (i > 0) cum[i] = cum[i - 1] + Math.hypot(xs[i] - xs[i - 1], ys[i] - ys[i - 1]);
  }
  const length = n === 0 ? 0 : cum[n - 1] + (closed && n > 1 ? Math.hypot(xs[0] - xs[n - 1], ys[0] - ys[n - 1]) : 0);
  return { xs, ys, vs, cum, closed, length };
}

export function segmentCount(line: DrivingLine): number {
  const n = line.xs.length;
  return line.closed ? n : Math.max(0, n - 1);
}

/** Projection on segment k. */
function onSegment(line: DrivingLine, k: number, x: number, y: number, out: LineProjection): number {
  const n = line.xs.length;
  const j = k + 1 < n ? k + 1 : 0;
  const ax = line.xs[k], ay = line.ys[k];
  const dx = line.xs[j] - ax, dy = line.ys[j] - ay;
  const len2 = dx * dx + dy * dy || 1e-12;
  const len = Math.sqrt(len2);
  const t = Math.min(1, Math.max(0, ((x - ax) * dx + (y - ay) * dy) / len2));
  const px = ax + t * dx, py = ay + t * dy;
  const d = Math.hypot(x - px, y - py);
  out.seg = k;
  out.s = line.cum[k] + t * len;
  out.cte = (dx * (y - ay) - dy * (x - ax)) >= 0 ? d : -d;
  out.heading = Math.atan2(dy, dx);
  out.x = px;
  out.y = py;
  return d;
}

/**
 * The nearest point of the line to (x, y). With `hint` (a previous segment), only the segments from `back`
 * metres behind it to `ahead` metres beyond it are searched (wrapping on a closed line); without, all of them.
 */
export function project(line: DrivingLine, x: number, y: number, out: LineProjection = { seg: 0, s: 0, cte: 0, heading: 0, x: 0, y: 0 }, hint = -1, ahead = 30, back = 10): LineProjection {
  const m = segmentCount(line);
  const tmp: LineProjection = { seg: 0, s: 0, cte: 0, heading: 0, x: 0, y: 0 };
  let best = Infinity;
  if (m === 0) {
    out.seg = 0; out.s = 0; out.heading = 0; out.x = line.xs[0] ?? x; out.y = line.ys[0] ?? y;
    out.cte = Math.hypot(x - out.x, y - out.y);
    return out;
  }
  const consider = (k: number) => {
    const d = onSegment(line, k, x, y, tmp);
    if (d < best) {
      best = d;
      Object.assign(out, tmp);
    }
  };
  if (hint < 0 || hint >= m) {
    for (let k = 0; k < m; k++) consider(k);
    return out;
  }
  consider(hint);
  const segLen = (k: number) => (k + 1 < line.xs.length ? line.cum[k + 1] : line.length) - line.cum[k];
  for (let k = hint, d = 0, c = 0; c < m && d < ahead; c++) {
    d += segLen(k);
    k = k + 1 < m ? k + 1 : line.closed ? 0 : -1;
    if (k < 0) break;
    consider(k);
  }
  for (let k = hint, d = 0, c = 0; c < m && d < back; c++) {
    k = k > 0 ? k - 1 : line.closed ? m - 1 : -1;
    if (k < 0) break;
    d += segLen(k);
    consider(k);
  }
  return out;
}

/** The point `distance` metres along the line from arc length s (wrapping on a closed line, clamped on an open one). */
export function pointAt(line: DrivingLine, s: number): { x: number; y: number; heading: number; seg: number } {
  const n = line.xs.length;
  if (line.closed) s = ((s % line.length) + line.length) % line.length;
  else s = Math.min(Math.max(s, 0), line.cum[n - 1]);
  let lo = 0, hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (line.cum[mid] <= s) lo = mid;
    else hi = mid - 1;
  }
  const k = line.closed || lo < n - 1 ? lo : n - 2;
  const j = k + 1 < n ? k + 1 : 0;
  const segEnd = k + 1 < n ? line.cum[k + 1] : line.length;
  const t = Math.min(1, Math.max(0, (s - line.cum[k]) / (segEnd - line.cum[k] || 1)));
  const dx = line.xs[j] - line.xs[k], dy = line.ys[j] - line.ys[k];
  return { x: line.xs[k] + t * dx, y: line.ys[k] + t * dy, heading: Math.atan2(dy, dx), seg: k };
}

/** Forward distance along the line from s0 to s1 (modulo the length on a closed line). */
export function alongDistance(line: DrivingLine, s0: number, s1: number): number {
  const d = s1 - s0;
  return line.closed ? ((d % line.length) + line.length) % line.length : d;
}

/** VDSim's shapes (vdsim_lab.resolve_line): oval (R, L), circle (R), figure8 (R); n points. */
export function shapeLine(shape: string, R = 50, L = 150, n = 160): number[][] {
  const pts: number[][] = [];
  if (shape === 'circle') {
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n - Math.PI / 2;
      pts.push([R * Math.cos(a), R * Math.sin(a)]);
    }
    return pts;
  }
  if (shape === 'figure8') {
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n;
      pts.push([R * Math.sin(a), R * Math.sin(a) * Math.cos(a)]);
    }
    return pts;
  }
  // oval: 4 segments of n/4 points — straight at y = −R from −L/2 to L/2, half circle, straight back, half circle
  const q = Math.max(2, Math.floor(n / 4));
  for (let i = 0; i < q; i++) pts.push([-L / 2 + (L * i) / q, -R]);
  for (let i = 0; i < q; i++) {
    const a = -Math.PI / 2 + (Math.PI * i) / q;
    pts.push([L / 2 + R * Math.cos(a), R * Math.sin(a)]);
  }
  for (let i = 0; i < q; i++) pts.push([L / 2 - (L * i) / q, R]);
  for (let i = 0; i < q; i++) {
    const a = Math.PI / 2 + (Math.PI * i) / q;
    pts.push([-L / 2 + R * Math.cos(a), R * Math.sin(a)]);
  }
  return pts;
}
