/**
 * The view: map frame (x east, y north, metres) ⇄ screen (CSS pixels, y down). A centre and a scale; pan,
 * zoom about a point, fit to bounds. Changes are counted (`version`) so cached drawings know when to redraw.
 */

export interface Bounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export const MIN_SCALE = 0.02;
export const MAX_SCALE = 200;

export class View {
  /** map point at the centre of the canvas */
  cx = 0;
  cy = 0;
  /** CSS pixels per metre */
  scale = 1;
  /** canvas size, CSS pixels */
  width = 1;
  height = 1;
  /** bumped on every change */
  version = 0;
  /** performance.now() of the latest change */
  changedAt = 0;

  toScreen(x: number, y: number): { x: number; y: number } {
    return { x: (x - this.cx) * this.scale + this.width / 2, y: (this.cy - y) * this.scale + this.height / 2 };
  }

  toMap(sx: number, sy: number): { x: number; y: number } {
    return { x: (sx - this.width / 2) / this.scale + this.cx, y: this.cy - (sy - this.height / 2) / this.scale };
  }

  resize(width: number, height: number): void {
    if (width === this.width && height === this.height) return;
    this.width = Math.max(1, width);
    this.height = Math.max(1, height);
    this.touch();
  }

  /** Moves the view by a screen displacement (the map follows the pointer). */
  panBy(dxPx: number, dyPx: number): void {
    if (dxPx === 0 && dyPx === 0) return;
    this.cx -= dxPx / this.scale;
    this.cy += dyPx / this.scale;
    this.touch();
  }

  centreOn(x: number, y: number): void {
    if (x === this.cx && y === this.cy) return;
    this.cx = x;
    this.cy = y;
    this.touch();
  }

  set(cx: number, cy: number, scale: number): void {
    this.cx = cx;
    this.cy = cy;
    this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
    this.touch();
  }

  /** Zooms by `factor` keeping the map point under screen point (sx, sy) where it is. */
  zoomAt(factor: number, sx: number, sy: number): void {
    const before = this.toMap(sx, sy);
    const s = Math.min(MAX_SCALE, Math.max(MIN_SCALE, this.scale * factor));
    if (s === this.scale) return;
    this.scale = s;
    const after = this.toMap(sx, sy);
    this.cx += before.x - after.x;
    this.cy += before.y - after.y;
    this.touch();
  }

  fit(b: Bounds, paddingPx = 24): void {
    const w = Math.max(b.maxX - b.minX, 1);
    const h = Math.max(b.maxY - b.minY, 1);
    const sx = (this.width - 2 * paddingPx) / w;
    const sy = (this.height - 2 * paddingPx) / h;
    this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, Math.min(sx, sy)));
    this.cx = (b.minX + b.maxX) / 2;
    this.cy = (b.minY + b.maxY) / 2;
    this.touch();
  }

  /** The map area on screen, with a margin in pixels. */
  visible(marginPx = 0): Bounds {
    const a = this.toMap(-marginPx, this.height + marginPx);
    const b = this.toMap(this.width + marginPx, -marginPx);
    return { minX: a.x, minY: a.y, maxX: b.x, maxY: b.y };
  }

  private touch(): void {
    this.version++;
    this.changedAt = performance.now();
  }
}
