/** Small planar geometry helpers for the converter. Points are [x, y] in metres. */
export type Pt = [number, number];

/** Drops consecutive duplicate vertices (closer than `eps`); returns the kept points and how many were dropped. */
export function dedupe(points: Pt[], eps = 1e-3): { points: Pt[]; dropped: number } {
  const out: Pt[] = [];
  for (const p of points) {
    const q = out[out.length - 1];
    if (q && Math.abs(q[0] - p[0]) < eps && Math.abs(q[1] - p[1]) < eps) continue;
    out.push(p);
  }
  return { points: out, dropped: points.length - out.length };
}

export function polylineLength(points: Pt[]): number {
  let s = 0;
  for (let i = 1; i < points.length; i++) s += Math.hypot(points[i][0] - points[i - 1][0], points[i][1] - points[i - 1][1]);
  return s;
}

function convexHull(points: Pt[]): Pt[] {
  const p = [...points].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o: Pt, a: Pt, b: Pt) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: Pt[] = [];
  for (const q of p) {
    while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], q) <= 0) lower.pop();
    lower.push(q);
  }
  const upper: Pt[] = [];
  for (let i = p.length - 1; i >= 0; i--) {
    const q = p[i];
    while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], q) <= 0) upper.pop();
    upper.push(q);
  }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

/**
 * The minimum-area rectangle around a polygon, as its 4 corners in order. GPUDrive builds a speed bump's
 * box from the first 4 points of its polygon, and NGII rings have 7–17 vertices, so the converter writes
 * this rectangle instead of the raw ring.
 */
export function minAreaRectangle(points: Pt[]): Pt[] {
  const hull = convexHull(points);
  if (hull.length < 3) return hull;
  let best: { area: number; corners: Pt[] } | null = null;
  for (let i = 0; i < hull.length; i++) {
    const a = hull[i], b = hull[(i + 1) % hull.length];
    const len = Math.hypot(b[0] - a[0], b[1] - a[1]);
    if (len === 0) continue;
    const ux = (b[0] - a[0]) / len, uy = (b[1] - a[1]) / len;
    let minU = Infinity, maxU = -Infinity, minV = Infinity, maxV = -Infinity;
    for (const q of hull) {
      const u = q[0] * ux + q[1] * uy;
      const v = -q[0] * uy + q[1] * ux;
      minU = Math.min(minU, u); maxU = Math.max(maxU, u); minV = Math.min(minV, v); maxV = Math.max(maxV, v);
    }
    const area = (maxU - minU) * (maxV - minV);
    if (!best || area < best.area) {
      const at = (u: number, v: number): Pt => [u * ux - v * uy, u * uy + v * ux];
      best = { area, corners: [at(minU, minV), at(maxU, minV), at(maxU, maxV), at(minU, maxV)] };
    }
  }
  return best ? best.corners : hull;
}
