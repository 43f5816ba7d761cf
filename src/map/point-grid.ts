/**
 * Radius queries over a fixed set of points (road entity centres) through a uniform grid: the points sorted
 * by cell (ascending ids within a cell), their coordinates alongside in that order, and a query that tests
 * every point of the cells the circle's square touches. It answers with exactly kdbush's test, (px − x)² +
 * (py − y)² ≤ r² in doubles, so the same points as kdbush's `withinInto` (in another order); at the radii the
 * scene asks for (the observation's 55 m, an NPC's reach) it tests a fraction of the points kdbush's leaves of
 * 64 do, with monomorphic code. Nothing is allocated per query.
 */
export class PointGrid {
  private readonly x0: number;
  private readonly y0: number;
  private readonly cols: number;
  private readonly rows: number;
  /** per cell c: its points are ids[start[c] .. start[c + 1]) */
  private readonly start: Int32Array;
  private readonly ids: Int32Array;
  private readonly px: Float64Array;
  private readonly py: Float64Array;

  /**
   * Points k = 0 .. count − 1 at (xs[k], ys[k]), answered as `ids[k]` (default k). `cell` is the grid's spacing
   * [m]; a grid is never made of more than about 4 cells a point.
   */
  constructor(xs: ArrayLike<number>, ys: ArrayLike<number>, count: number, ids?: ArrayLike<number>, readonly cell = 16) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let k = 0; k < count; k++) {
      if (!(Number.isFinite(xs[k]) && Number.isFinite(ys[k]))) continue;
      if (xs[k] < x0) x0 = xs[k];
      if (xs[k] > x1) x1 = xs[k];
      if (ys[k] < y0) y0 = ys[k];
      if (ys[k] > y1) y1 = ys[k];
    }
    if (!(x1 >= x0 && y1 >= y0)) x0 = x1 = y0 = y1 = 0; // no finite point
    let size = cell;
    while (((x1 - x0) / size + 1) * ((y1 - y0) / size + 1) > 4 * count + 16) size *= 2;
    this.cell = size;
    this.x0 = x0;
    this.y0 = y0;
    this.cols = Math.floor((x1 - x0) / size) + 1;
    this.rows = Math.floor((y1 - y0) / size) + 1;
    const cellOf = new Int32Array(count);
    this.start = new Int32Array(this.cols * this.rows + 1);
    for (let k = 0; k < count; k++) {
      const c = this.cellAt(xs[k], ys[k]);
      cellOf[k] = c;
      this.start[c + 1]++;
    }
    for (let c = 0; c < this.cols * this.rows; c++) this.start[c + 1] += this.start[c];
    const fill = this.start.slice(0, this.cols * this.rows);
    this.ids = new Int32Array(count);
    this.px = new Float64Array(count);
    this.py = new Float64Array(count);
    for (let k = 0; k < count; k++) {
      const at = fill[cellOf[k]]++;
      this.ids[at] = ids ? ids[k] : k;
      this.px[at] = xs[k];
      this.py[at] = ys[k];
    }
  }

  /** The cell of a point (one not finite goes to cell 0; it is then never within a radius of anything). */
  private cellAt(x: number, y: number): number {
    const cx = Math.min(this.cols - 1, Math.max(0, Math.floor((x - this.x0) / this.cell)));
    const cy = Math.min(this.rows - 1, Math.max(0, Math.floor((y - this.y0) / this.cell)));
    return Number.isFinite(cx) && Number.isFinite(cy) ? cy * this.cols + cx : 0;
  }

  /** Writes the ids of the points within `r` of (x, y) into `out`, cell by cell; returns how many. */
  withinInto(x: number, y: number, r: number, out: Int32Array): number {
    const r2 = r * r;
    // the cells of the square around the circle, a metre wider (a point the distance test takes lies within
    // r of (x, y) to the last bits, so well inside)
    const size = this.cell;
    const cx0 = Math.max(0, Math.floor((x - r - 1 - this.x0) / size)), cx1 = Math.min(this.cols - 1, Math.floor((x + r + 1 - this.x0) / size));
    const cy0 = Math.max(0, Math.floor((y - r - 1 - this.y0) / size)), cy1 = Math.min(this.rows - 1, Math.floor((y + r + 1 - this.y0) / size));
    const px = this.px, py = this.py, ids = this.ids, start = this.start;
    let n = 0;
    for (let cy = cy0; cy <= cy1; cy++) {
      const from = start[cy * this.cols + cx0], to = start[cy * this.cols + cx1 + 1];
      for (let k = from; k < to; k++) {
        const dx = px[k] - x, dy = py[k] - y;
        if (dx * dx + dy * dy <= r2) out[n++] = ids[k];
      }
    }
    return n;
  }
}
