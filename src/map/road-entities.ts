/**
 * Road entities exactly as GPUDrive creates them (spec §5.1): one per reduced polyline segment for
 * edges/lines/lanes (centre = midpoint, heading = start→end, scale = (len/2, 0.1, 0.1)), one box per
 * crosswalk/speed bump from its first 4 points, one per stop sign; driveways and unknown types dropped.
 * Stored as a struct of arrays in creation order, coordinates relative to the world mean (float32).
 */
import { reducePolyline } from './polyline.js';
import { EntityType, roadEntityType, type EntityTypeId, type RoadJson } from './types.js';

/** GPUDrive's caps (src/consts.hpp, init.hpp). */
export const MAX_ROADS = 956;
export const MAX_GEOMETRY = 1746;
export const MAX_ROAD_ENTITIES = 10000;

export interface RoadEntities {
  readonly count: number;
  readonly x: Float32Array;
  readonly y: Float32Array;
  /** scale.d0: half length (segment/2, box longest/2, 0.2 for stop signs) */
  readonly halfLength: Float32Array;
  /** scale.d1: half width (0.1 for segments) */
  readonly halfWidth: Float32Array;
  /** scale.d2: half height (0.1; 1.0 for stop signs) */
  readonly halfHeight: Float32Array;
  readonly heading: Float32Array;
  readonly type: Uint8Array;
  /** index of the JSON road the entity came from */
  readonly road: Int32Array;
  /** reduced polylines (world-mean relative, float32) per JSON road, for drawing and route-finding */
  readonly polylines: ReadonlyArray<{ readonly type: EntityTypeId; readonly xs: Float32Array; readonly ys: Float32Array } | null>;
}

export interface RoadEntityOptions {
  /** Apply GPUDrive's caps on roads, points and entities (scenes: yes; VILS maps: no, they may be larger). */
  readonly gpudriveCaps?: boolean;
  readonly polylineThreshold?: number;
}

const f = Math.fround;

export function buildRoadEntities(roads: readonly RoadJson[], mean: { x: number; y: number }, opts: RoadEntityOptions = {}): RoadEntities {
  const caps = opts.gpudriveCaps ?? true;
  const roadCount = caps ? Math.min(roads.length, MAX_ROADS) : roads.length;
  const maxEntities = caps ? MAX_ROAD_ENTITIES : Infinity;
  const xs: number[] = [], ys: number[] = [], d0: number[] = [], d1: number[] = [], d2: number[] = [], hd: number[] = [], ty: number[] = [], rd: number[] = [];
  const polylines: Array<RoadEntities['polylines'][number]> = [];
  const mx = f(mean.x);
  const my = f(mean.y);
  const push = (x: number, y: number, a: number, b: number, c: number, h: number, t: number, r: number) => {
    if (xs.length >= maxEntities) return;
    xs.push(x); ys.push(y); d0.push(a); d1.push(b); d2.push(c); hd.push(h); ty.push(t); rd.push(r);
  };

  for (let r = 0; r < roadCount; r++) {
    const road = roads[r];
    const type = roadEntityType(road.type);
    if (type === EntityType.None || road.geometry.length === 0) {
      polylines.push(null);
      continue;
    }
    const rawX = Float32Array.from(road.geometry, (p) => p.x);
    const rawY = Float32Array.from(road.geometry, (p) => p.y);
    let kept: number[];
    if (type === EntityType.RoadEdge || type === EntityType.RoadLine || type === EntityType.RoadLane) {
      kept = reducePolyline(rawX, rawY, opts.polylineThreshold);
    } else {
      kept = Array.from({ length: rawX.length }, (_, i) => i);
    }
    if (caps && kept.length > MAX_GEOMETRY) kept = kept.slice(0, MAX_GEOMETRY);
    const px = Float32Array.from(kept, (i) => f(rawX[i] - mx));
    const py = Float32Array.from(kept, (i) => f(rawY[i] - my));
    polylines.push({ type, xs: px, ys: py });

    if (type === EntityType.RoadEdge || type === EntityType.RoadLine || type === EntityType.RoadLane) {
      for (let i = 0; i + 1 < px.length; i++) {
        const dx = f(px[i + 1] - px[i]);
        const dy = f(py[i + 1] - py[i]);
        const len = f(Math.sqrt(dx * dx + dy * dy));
        push(f((px[i] + px[i + 1]) / 2), f((py[i] + py[i + 1]) / 2), f(len / 2), f(0.1), f(0.1), f(Math.atan2(dy, dx)), type, r);
      }
    } else if (type === EntityType.CrossWalk || type === EntityType.SpeedBump) {
      if (px.length < 4) continue; // GPUDrive reads 4 points; a shorter polygon has no box
      let cx = 0, cy = 0;
      for (let i = 0; i < 4; i++) { cx += px[i]; cy += py[i]; }
      let longest = -1, shortest = Infinity, heading = 0;
      for (let i = 0; i < 4; i++) {
        const j = (i + 1) % 4;
        const dx = px[j] - px[i];
        const dy = py[j] - py[i];
        const len = Math.sqrt(dx * dx + dy * dy);
        if (len > longest) { longest = len; heading = Math.atan2(dy, dx); }
        if (len < shortest) shortest = len;
      }
      push(f(cx / 4), f(cy / 4), f(longest / 2), f(shortest / 2), f(0.1), f(heading), type, r);
    } else if (type === EntityType.StopSign) {
      push(px[0], py[0], f(0.2), f(0.2), f(1.0), 0, type, r);
    }
  }
  return {
    count: xs.length,
    x: Float32Array.from(xs), y: Float32Array.from(ys),
    halfLength: Float32Array.from(d0), halfWidth: Float32Array.from(d1), halfHeight: Float32Array.from(d2),
    heading: Float32Array.from(hd), type: Uint8Array.from(ty), road: Int32Array.from(rd),
    polylines,
  };
}
