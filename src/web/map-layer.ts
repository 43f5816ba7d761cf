/**
 * The road layers (GET /api/map), drawn with the canvas 2D API. The roads are turned once into Path2D
 * objects in map metres, grouped by style and by 150 m tile, so a view draws only the tiles it sees;
 * the drawing is cached in an off-screen canvas with a margin, so the 50 Hz scene drawn over it costs one
 * image copy per frame. Panning within the margin moves the cached image; a zoom shows it scaled until
 * the view has been still for a moment, then redraws it sharp.
 *
 * The static part of the traffic control goes into the same tiles: junction outlines (a faint tint and a thin
 * dashed line, by control), the painted stop lines, stop and yield signs. What changes — each signal group's
 * state on its stop line, the heads' lamps — is drawn per frame over it (signals.ts). A map without traffic
 * control draws exactly as before.
 */
import type { Bounds, View } from './view.js';
import type { JunctionControl, MapReply, MapRoad } from './types.js';

const TILE_M = 150;
/** lanes are drawn this wide as asphalt under everything else [m] */
export const LANE_WIDTH_M = 3.5;
const ARROW_EVERY_M = 25;

export const COLOURS = {
  ground: '#1c2226',
  asphalt: '#394047',
  driveway: '#30363c',
  laneCentre: 'rgba(150, 170, 190, 0.45)',
  arrow: 'rgba(170, 190, 210, 0.55)',
  white: '#eef1f3',
  yellow: '#f2c200',
  kerb: '#aab2ba',
  median: '#e38a3f',
  crosswalk: 'rgba(235, 240, 245, 0.55)',
  speedBump: '#f5a623',
  speedBumpBand: '#eef1f3',
  stopSign: '#d32f2f',
  stopLine: 'rgba(238, 241, 243, 0.8)',
} as const;

/** Junction outlines by control: [fill, outline]. */
export const JUNCTION_COLOURS: Record<JunctionControl, readonly [string, string]> = {
  signal: ['rgba(80, 160, 255, 0.07)', 'rgba(110, 180, 255, 0.55)'],
  all_way_stop: ['rgba(235, 70, 70, 0.08)', 'rgba(240, 100, 100, 0.6)'],
  stop: ['rgba(240, 120, 60, 0.07)', 'rgba(245, 140, 80, 0.55)'],
  yield: ['rgba(240, 190, 50, 0.07)', 'rgba(245, 200, 80, 0.55)'],
  priority: ['rgba(170, 180, 190, 0.05)', 'rgba(170, 180, 190, 0.4)'],
};
const JUNCTION_CONTROLS = Object.keys(JUNCTION_COLOURS) as JunctionControl[];

/** Whether a map reply has any traffic control to show (junctions of priority alone are not). */
export function hasTrafficControl(map: MapReply): boolean {
  const tc = map.traffic_control;
  if (!tc) return false;
  return tc.groups.length > 0 || tc.heads.length > 0 || tc.stop_lines.length > 0 || tc.signs.some((s) => s.kind === 'stop' || s.kind === 'yield') || tc.junctions.some((j) => j.control !== 'priority');
}

type StyleKey =
  | 'driveway' | 'asphalt' | 'crosswalk' | 'bump' | 'lane' | 'arrow' | 'edge' | 'median'
  | 'white:solid' | 'white:broken' | 'white:double' | 'yellow:solid' | 'yellow:broken' | 'yellow:double'
  | 'stopline' | `junction:${JunctionControl}`;

interface Tile {
  bounds: Bounds;
  paths: Partial<Record<StyleKey, Path2D>>;
  stops: Array<[number, number]>;
  yields: Array<[number, number]>;
}

function lineKey(r: MapRoad): StyleKey {
  const colour = r.colour === 'yellow' ? 'yellow' : 'white';
  switch (r.pattern) {
    case 'broken': return `${colour}:broken`;
    case 'double': case 'double_broken': case 'passing': return `${colour}:double`;
    default: return `${colour}:solid`;
  }
}

export class MapLayer {
  readonly bounds: Bounds;
  readonly name: string;
  private readonly tiles: Tile[] = [];
  private cache: HTMLCanvasElement | null = null;
  private cached: { cx: number; cy: number; scale: number; w: number; h: number; margin: number; dpr: number } | null = null;
  /** the latest full redraw [ms] */
  lastRenderMs = 0;
  renders = 0;
  /** does the map draw any speed bump (the legend names them then) */
  readonly hasBumps: boolean;
  private bumpPattern: CanvasPattern | null = null;

  constructor(readonly map: MapReply) {
    this.name = map.name;
    const b = map.bounds;
    this.bounds = { minX: b.min_x, minY: b.min_y, maxX: b.max_x, maxY: b.max_y };
    const grid = new Map<string, Tile>();
    const tileAt = (x: number, y: number): Tile => {
      const key = `${Math.floor(x / TILE_M)},${Math.floor(y / TILE_M)}`;
      let t = grid.get(key);
      if (!t) {
        t = { bounds: { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity }, paths: {}, stops: [], yields: [] };
        grid.set(key, t);
      }
      return t;
    };
    /** Adds a polyline (flat x, y list; a NaN pair starts a new subpath) to the tile of its first point. */
    const add = (key: StyleKey, pts: readonly number[], closed: boolean, pad: number) => {
      let start = 0;
      while (start < pts.length && Number.isNaN(pts[start])) start += 2;
      if (pts.length - start < 2) return;
      const t = tileAt(pts[start], pts[start + 1]);
      const p = (t.paths[key] ??= new Path2D());
      const tb = t.bounds;
      let move = true;
      for (let i = start; i < pts.length; i += 2) {
        const x = pts[i], y = pts[i + 1];
        if (Number.isNaN(x)) {
          move = true;
          continue;
        }
        if (move) p.moveTo(x, y);
        else p.lineTo(x, y);
        move = false;
        if (x - pad < tb.minX) tb.minX = x - pad;
        if (x + pad > tb.maxX) tb.maxX = x + pad;
        if (y - pad < tb.minY) tb.minY = y - pad;
        if (y + pad > tb.maxY) tb.maxY = y + pad;
      }
      if (closed) p.closePath();
    };
    const roads = map.roads;
    for (const r of roads.driveway ?? []) add('driveway', r.points, true, 0);
    for (const r of roads.lane ?? []) {
      add('asphalt', r.points, false, LANE_WIDTH_M);
      add('lane', r.points, false, 0);
      add('arrow', arrows(r.points), false, 1);
    }
    for (const r of roads.crosswalk ?? []) add('crosswalk', r.points, true, 0);
    for (const r of roads.speed_bump ?? []) add('bump', r.points, true, 0);
    this.hasBumps = (roads.speed_bump ?? []).length > 0;
    for (const r of roads.road_edge ?? []) add(r.median ? 'median' : 'edge', r.points, false, 0.5);
    for (const r of roads.road_line ?? []) add(lineKey(r), r.points, false, 0.5);
    const sign = (list: 'stops' | 'yields', x: number, y: number) => {
      const t = tileAt(x, y);
      t[list].push([x, y]);
      const tb = t.bounds;
      tb.minX = Math.min(tb.minX, x - 2); tb.maxX = Math.max(tb.maxX, x + 2);
      tb.minY = Math.min(tb.minY, y - 2); tb.maxY = Math.max(tb.maxY, y + 2);
    };
    for (const r of roads.stop_sign ?? []) {
      if (r.points.length < 2) continue;
      sign('stops', r.points[0], r.points[1]);
    }
    const tc = map.traffic_control;
    if (tc && hasTrafficControl(map)) {
      for (const j of tc.junctions) if (j.polygon.length >= 6) add(`junction:${j.control}`, j.polygon, true, 0.5);
      for (const l of tc.stop_lines) add('stopline', l.points, false, 0.5);
      for (const s of tc.signs) {
        if (s.kind === 'stop') sign('stops', s.x, s.y);
        else if (s.kind === 'yield') sign('yields', s.x, s.y);
      }
    }
    this.tiles = [...grid.values()];
  }

  /** Whether the cached drawing shows `view` as a fresh drawing would (same scale, covering the screen). */
  isSharp(view: View, dpr: number): boolean {
    const c = this.cached;
    if (!c || c.dpr !== dpr || c.scale !== view.scale || c.w !== view.width || c.h !== view.height) return false;
    const ox = -c.margin + (c.cx - view.cx) * view.scale;
    const oy = -c.margin + (view.cy - c.cy) * view.scale;
    return ox <= 0.5 && oy <= 0.5 && ox + c.w + 2 * c.margin >= view.width - 0.5 && oy + c.h + 2 * c.margin >= view.height - 0.5;
  }

  /** Draws the road layers for `view` on `ctx` (CSS-pixel coordinates, y down), from the cache when it can. */
  draw(ctx: CanvasRenderingContext2D, view: View, dpr: number, now: number): void {
    const margin = 256;
    const c = this.cached;
    const idle = now - view.changedAt > 150;
    if (c && this.cache && c.dpr === dpr) {
      const k = view.scale / c.scale;
      const ox = (-c.margin - c.w / 2) * k + (c.cx - view.cx) * view.scale + view.width / 2;
      const oy = (-c.margin - c.h / 2) * k + (view.cy - c.cy) * view.scale + view.height / 2;
      const cw = (c.w + 2 * c.margin) * k;
      const ch = (c.h + 2 * c.margin) * k;
      const covers = ox <= 0.5 && oy <= 0.5 && ox + cw >= view.width - 0.5 && oy + ch >= view.height - 0.5;
      const sameScale = Math.abs(k - 1) < 1e-9;
      const sizeOk = c.w === view.width && c.h === view.height;
      if ((sameScale && covers && sizeOk) || (!idle && covers)) {
        ctx.fillStyle = COLOURS.ground;
        ctx.fillRect(0, 0, view.width, view.height);
        ctx.imageSmoothingEnabled = !sameScale;
        ctx.drawImage(this.cache, Math.round(ox * dpr) / dpr, Math.round(oy * dpr) / dpr, cw, ch);
        return;
      }
    }
    this.render(view, dpr, margin);
    const cache = this.cache as HTMLCanvasElement;
    ctx.drawImage(cache, -margin, -margin, view.width + 2 * margin, view.height + 2 * margin);
  }

  /** Diagonal amber and white bands 0.25 m wide, in map metres (the pattern is scaled with the map). */
  private bumpFill(ctx: CanvasRenderingContext2D): CanvasPattern | string {
    if (this.bumpPattern) return this.bumpPattern;
    const px = 32; // pattern pixels per metre
    const tile = document.createElement('canvas');
    tile.width = tile.height = px;
    const t = tile.getContext('2d');
    if (!t) return COLOURS.speedBump;
    t.fillStyle = COLOURS.speedBump;
    t.fillRect(0, 0, px, px);
    t.fillStyle = COLOURS.speedBumpBand;
    // bands a quarter of the tile wide at 45°, every half tile; each drawn twice, a tile apart, to wrap seamlessly
    for (const o of [0, px / 2, px, 1.5 * px]) {
      t.beginPath();
      t.moveTo(o, 0);
      t.lineTo(o + px / 4, 0);
      t.lineTo(o + px / 4 - px, px);
      t.lineTo(o - px, px);
      t.closePath();
      t.fill();
    }
    const pattern = ctx.createPattern(tile, 'repeat');
    if (!pattern) return COLOURS.speedBump;
    pattern.setTransform(new DOMMatrix().scale(1 / px));
    this.bumpPattern = pattern;
    return pattern;
  }

  /** Redraws the cache for `view` (the view plus `margin` CSS pixels on every side). */
  private render(view: View, dpr: number, margin: number): void {
    const t0 = performance.now();
    const w = view.width + 2 * margin;
    const h = view.height + 2 * margin;
    if (!this.cache) this.cache = document.createElement('canvas');
    const cv = this.cache;
    const pw = Math.ceil(w * dpr);
    const ph = Math.ceil(h * dpr);
    if (cv.width !== pw || cv.height !== ph) {
      cv.width = pw;
      cv.height = ph;
    }
    const ctx = cv.getContext('2d') as CanvasRenderingContext2D;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = COLOURS.ground;
    ctx.fillRect(0, 0, pw, ph);
    const s = view.scale;
    // map metres → cache pixels: x right, y up
    ctx.setTransform(dpr * s, 0, 0, -dpr * s, dpr * (w / 2 - view.cx * s), dpr * (h / 2 + view.cy * s));
    const vis = view.visible(margin);
    const tiles = this.tiles.filter((t) => t.bounds.maxX >= vis.minX && t.bounds.minX <= vis.maxX && t.bounds.maxY >= vis.minY && t.bounds.minY <= vis.maxY);
    const px = 1 / s; // one CSS pixel in metres
    ctx.lineJoin = 'round';
    ctx.lineCap = 'round';
    const fill = (key: StyleKey, colour: string | CanvasPattern) => {
      ctx.fillStyle = colour;
      for (const t of tiles) { const p = t.paths[key]; if (p) ctx.fill(p); }
    };
    const stroke = (key: StyleKey, colour: string, width: number, dash: number[] = []) => {
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      ctx.setLineDash(dash);
      for (const t of tiles) { const p = t.paths[key]; if (p) ctx.stroke(p); }
    };
    fill('driveway', COLOURS.driveway);
    stroke('asphalt', COLOURS.asphalt, Math.max(LANE_WIDTH_M, 3 * px));
    for (const c of JUNCTION_CONTROLS) fill(`junction:${c}`, JUNCTION_COLOURS[c][0]);
    fill('crosswalk', COLOURS.crosswalk);
    // striped as they are painted: a plain amber band read as a stop line showing yellow
    fill('bump', this.bumpFill(ctx));
    stroke('lane', COLOURS.laneCentre, px);
    if (s >= 1.5) stroke('arrow', COLOURS.arrow, 1.5 * px);
    const lineW = Math.max(0.15, 1.2 * px);
    // dashes of 3 m with 5 m gaps, as painted; too fine to see when zoomed out, so drawn fainter and solid
    const dashed = 8 * s >= 6;
    for (const colour of ['white', 'yellow'] as const) {
      const col = COLOURS[colour];
      stroke(`${colour}:solid`, col, lineW);
      if (dashed) stroke(`${colour}:broken`, col, lineW, [3, 5]);
      else stroke(`${colour}:broken`, colour === 'white' ? 'rgba(238, 241, 243, 0.45)' : 'rgba(242, 194, 0, 0.5)', lineW);
      const dw = Math.max(0.45, 3.2 * px);
      stroke(`${colour}:double`, col, dw);
      if (0.45 * s >= 3) stroke(`${colour}:double`, COLOURS.asphalt, dw / 3);
    }
    stroke('edge', COLOURS.kerb, Math.max(0.25, 1.4 * px));
    stroke('median', COLOURS.median, Math.max(0.3, 1.6 * px));
    ctx.lineCap = 'butt';
    stroke('stopline', COLOURS.stopLine, Math.max(0.4, 2 * px));
    ctx.lineCap = 'round';
    for (const c of JUNCTION_CONTROLS) stroke(`junction:${c}`, JUNCTION_COLOURS[c][1], Math.max(0.1, px), [4 * px, 3 * px]);
    ctx.setLineDash([]);
    const r = Math.max(0.9, 4.5 * px);
    for (const t of tiles) {
      // yield: a white triangle with a red border, point down
      for (const [x, y] of t.yields) {
        ctx.beginPath();
        ctx.moveTo(x, y - r);
        ctx.lineTo(x + r * 1.1, y + r * 0.75);
        ctx.lineTo(x - r * 1.1, y + r * 0.75);
        ctx.closePath();
        ctx.fillStyle = '#fff';
        ctx.fill();
        ctx.strokeStyle = COLOURS.stopSign;
        ctx.lineWidth = Math.max(0.2, 1.8 * px);
        ctx.stroke();
      }
      for (const [x, y] of t.stops) {
        ctx.beginPath();
        for (let i = 0; i < 8; i++) {
          const a = Math.PI / 8 + (i * Math.PI) / 4;
          ctx.lineTo(x + r * Math.cos(a), y + r * Math.sin(a));
        }
        ctx.closePath();
        ctx.fillStyle = COLOURS.stopSign;
        ctx.fill();
        ctx.strokeStyle = '#fff';
        ctx.lineWidth = Math.max(0.12, 1 * px);
        ctx.stroke();
      }
    }
    this.cached = { cx: view.cx, cy: view.cy, scale: s, w: view.width, h: view.height, margin, dpr };
    this.renders++;
    this.lastRenderMs = performance.now() - t0;
  }
}

/** Chevrons along a lane, pointing in its driving direction, every ARROW_EVERY_M: three points each, NaN pairs between. */
function arrows(pts: readonly number[]): number[] {
  const out: number[] = [];
  let acc = ARROW_EVERY_M / 2;
  for (let i = 2; i < pts.length; i += 2) {
    const x0 = pts[i - 2], y0 = pts[i - 1], x1 = pts[i], y1 = pts[i + 1];
    const seg = Math.hypot(x1 - x0, y1 - y0);
    if (seg === 0) continue;
    const ux = (x1 - x0) / seg, uy = (y1 - y0) / seg;
    let d = acc;
    while (d <= seg) {
      const x = x0 + ux * d, y = y0 + uy * d;
      const l = 0.9, wdt = 0.6;
      out.push(NaN, NaN, x - ux * l + uy * wdt, y - uy * l - ux * wdt, x, y, x - ux * l - uy * wdt, y - uy * l + ux * wdt);
      d += ARROW_EVERY_M;
    }
    acc = d - seg;
  }
  return out;
}
