/**
 * The outline of a union of polygons, smoothed: the polygons are filled into a grid, the grid is closed
 * (dilated, then eroded, by a radius: notches and slits narrower than twice the radius fill in) and opened
 * (eroded, then dilated, by half of it: teeth sticking out go), and the outline is traced by marching
 * squares and simplified (Douglas–Peucker). Used for the drivable boundary
 * of maps without road edges, where lane ribbons of slightly different widths and ends would otherwise
 * leave a jagged outline that reaches into the lanes.
 */
import type { Point2 } from './types.js';

export interface OutlineOptions {
  /** grid cell [m] (default 0.25) */
  readonly cell?: number;
  /** closing radius [m] (default 1) */
  readonly closeRadius?: number;
  /** simplification tolerance [m] (default 0.3: smooths the grid's steps) */
  readonly tolerance?: number;
}

export function outlineOfPolygons(polygons: ReadonlyArray<ReadonlyArray<Point2>>, opts: OutlineOptions = {}): Point2[][] {
  const cell = opts.cell ?? 0.25;
  const radius = opts.closeRadius ?? 1;
  const tol = opts.tolerance ?? 0.3;
  if (polygons.length === 0) return [];
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const poly of polygons) for (const p of poly) {
    if (p.x < minX) minX = p.x; if (p.x > maxX) maxX = p.x; if (p.y < minY) minY = p.y; if (p.y > maxY) maxY = p.y;
  }
  const pad = radius + 4 * cell;
  const x0 = minX - pad, y0 = minY - pad;
  const W = Math.ceil((maxX + pad - x0) / cell), H = Math.ceil((maxY + pad - y0) / cell);
  const mask = new Uint8Array(W * H);
  for (const poly of polygons) fill(poly, mask, W, H, x0, y0, cell);
  close(mask, W, H, Math.round(radius / cell));
  open(mask, W, H, Math.round(radius / 2 / cell));
  return trace(mask, W, H, x0, y0, cell).map((ring) => simplifyRing(ring, tol));
}

/** Fills a polygon (even-odd, sampled at cell centres) into the mask. */
function fill(poly: ReadonlyArray<Point2>, mask: Uint8Array, W: number, H: number, x0: number, y0: number, cell: number): void {
  let lo = Infinity, hi = -Infinity;
  for (const p of poly) { if (p.y < lo) lo = p.y; if (p.y > hi) hi = p.y; }
  const r0 = Math.max(0, Math.floor((lo - y0) / cell)), r1 = Math.min(H - 1, Math.ceil((hi - y0) / cell));
  const xs: number[] = [];
  for (let r = r0; r <= r1; r++) {
    const y = y0 + (r + 0.5) * cell;
    xs.length = 0;
    for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
      const a = poly[j], b = poly[i];
      if ((a.y <= y) !== (b.y <= y)) xs.push(a.x + ((y - a.y) / (b.y - a.y)) * (b.x - a.x));
    }
    xs.sort((p, q) => p - q);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const c0 = Math.max(0, Math.ceil((xs[k] - x0) / cell - 0.5)), c1 = Math.min(W - 1, Math.floor((xs[k + 1] - x0) / cell - 0.5));
      for (let c = c0; c <= c1; c++) mask[r * W + c] = 1;
    }
  }
}

/** Morphological closing with a disc of `r` cells (3-4 chamfer distances). */
function close(mask: Uint8Array, W: number, H: number, r: number): void {
  if (r <= 0) return;
  const limit = 3 * r;
  const d = new Uint16Array(W * H);
  // dilate: distance to the nearest filled cell
  chamfer(d, W, H, (i) => mask[i] === 1);
  for (let i = 0; i < mask.length; i++) mask[i] = d[i] <= limit ? 1 : 0;
  // erode: distance to the nearest empty cell
  chamfer(d, W, H, (i) => mask[i] === 0);
  for (let i = 0; i < mask.length; i++) if (d[i] <= limit) mask[i] = 0;
}

/** Morphological opening with a disc of `r` cells. */
function open(mask: Uint8Array, W: number, H: number, r: number): void {
  if (r <= 0) return;
  const limit = 3 * r;
  const d = new Uint16Array(W * H);
  chamfer(d, W, H, (i) => mask[i] === 0);
  for (let i = 0; i < mask.length; i++) if (d[i] <= limit) mask[i] = 0;
  chamfer(d, W, H, (i) => mask[i] === 1);
  for (let i = 0; i < mask.length; i++) mask[i] = d[i] <= limit ? 1 : 0;
}

function chamfer(d: Uint16Array, W: number, H: number, source: (i: number) => boolean): void {
  const INF = 65535;
  for (let i = 0; i < d.length; i++) d[i] = source(i) ? 0 : INF;
  const min = (a: number, b: number) => (b < a ? b : a);
  for (let r = 0; r < H; r++) {
    for (let c = 0; c < W; c++) {
      const i = r * W + c;
      let v = d[i];
      if (v === 0) continue;
      if (c > 0) v = min(v, d[i - 1] + 3);
      if (r > 0) {
        v = min(v, d[i - W] + 3);
        if (c > 0) v = min(v, d[i - W - 1] + 4);
        if (c < W - 1) v = min(v, d[i - W + 1] + 4);
      }
      d[i] = min(v, INF);
    }
  }
  for (let r = H - 1; r >= 0; r--) {
    for (let c = W - 1; c >= 0; c--) {
      const i = r * W + c;
      let v = d[i];
      if (v === 0) continue;
      if (c < W - 1) v = min(v, d[i + 1] + 3);
      if (r < H - 1) {
        v = min(v, d[i + W] + 3);
        if (c < W - 1) v = min(v, d[i + W + 1] + 4);
        if (c > 0) v = min(v, d[i + W - 1] + 4);
      }
      d[i] = min(v, INF);
    }
  }
}

/**
 * Marching squares over the cell centres: each 2×2 block contributes the segments between the midpoints of
 * its edges that separate filled from empty samples (saddles kept apart); every midpoint then has exactly
 * two segments, so they chain into closed rings.
 */
function trace(mask: Uint8Array, W: number, H: number, x0: number, y0: number, cell: number): Point2[][] {
  // edge ids: horizontal edge right of sample (r, c) = 2·(r·W + c); vertical edge above it = 2·(r·W + c) + 1
  const hEdge = (r: number, c: number) => 2 * (r * W + c);
  const vEdge = (r: number, c: number) => 2 * (r * W + c) + 1;
  const links = new Map<number, number[]>();
  const link = (a: number, b: number) => {
    let la = links.get(a);
    if (!la) links.set(a, (la = []));
    la.push(b);
    let lb = links.get(b);
    if (!lb) links.set(b, (lb = []));
    lb.push(a);
  };
  for (let r = 0; r + 1 < H; r++) {
    for (let c = 0; c + 1 < W; c++) {
      const bl = mask[r * W + c], br = mask[r * W + c + 1], tr = mask[(r + 1) * W + c + 1], tl = mask[(r + 1) * W + c];
      const code = bl | (br << 1) | (tr << 2) | (tl << 3);
      if (code === 0 || code === 15) continue;
      const B = hEdge(r, c), T = hEdge(r + 1, c), L = vEdge(r, c), R = vEdge(r, c + 1);
      switch (code) {
        case 1: case 14: link(L, B); break;
        case 2: case 13: link(B, R); break;
        case 3: case 12: link(L, R); break;
        case 4: case 11: link(R, T); break;
        case 6: case 9: link(B, T); break;
        case 7: case 8: link(L, T); break;
        case 5: link(L, B); link(R, T); break;
        case 10: link(B, R); link(T, L); break;
      }
    }
  }
  const point = (id: number): Point2 => {
    const k = id >> 1, r = Math.floor(k / W), c = k % W;
    return (id & 1) === 0 ? { x: x0 + (c + 1) * cell, y: y0 + (r + 0.5) * cell } : { x: x0 + (c + 0.5) * cell, y: y0 + (r + 1) * cell };
  };
  const rings: Point2[][] = [];
  const done = new Set<number>();
  for (const start of links.keys()) {
    if (done.has(start)) continue;
    const ring: Point2[] = [];
    let prev = -1, cur = start;
    for (;;) {
      done.add(cur);
      ring.push(point(cur));
      const next = links.get(cur)!.find((n) => n !== prev && !done.has(n));
      if (next === undefined) break;
      prev = cur;
      cur = next;
    }
    if (ring.length >= 3) {
      ring.push(ring[0]);
      rings.push(ring);
    }
  }
  return rings;
}

/** Douglas–Peucker on a closed ring (split at its first point and the point furthest from it). */
function simplifyRing(ring: Point2[], tol: number): Point2[] {
  if (ring.length < 5) return ring;
  let far = 0, farD = -1;
  for (let i = 1; i < ring.length - 1; i++) {
    const d = Math.hypot(ring[i].x - ring[0].x, ring[i].y - ring[0].y);
    if (d > farD) { farD = d; far = i; }
  }
  const a = simplify(ring.slice(0, far + 1), tol), b = simplify(ring.slice(far), tol);
  return [...a, ...b.slice(1)];
}

function simplify(pts: Point2[], tol: number): Point2[] {
  if (pts.length < 3) return pts;
  const keep = new Uint8Array(pts.length);
  keep[0] = keep[pts.length - 1] = 1;
  const stack: Array<[number, number]> = [[0, pts.length - 1]];
  while (stack.length > 0) {
    const [i, j] = stack.pop()!;
    const a = pts[i], b = pts[j];
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
    let worst = -1, worstD = tol;
    for (let k = i + 1; k < j; k++) {
      const d = Math.abs((pts[k].x - a.x) * dy - (pts[k].y - a.y) * dx) / len;
      if (d > worstD) { worstD = d; worst = k; }
    }
    if (worst >= 0) {
      keep[worst] = 1;
      stack.push([i, worst], [worst, j]);
    }
  }
  return pts.filter((_, k) => keep[k] === 1);
}
