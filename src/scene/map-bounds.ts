/**
 * The map's extent and the check that keeps what clients send (egos, spawns) near it: a request far outside the
 * map is a mistake in its frame or its origin, refused with the distance, before it reaches the engine.
 */
import type { LoadedMap } from '../map/scene-json.js';
import { InputError } from './errors.js';

export interface MapBounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export function mapBounds(map: LoadedMap): MapBounds {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const r of map.scene.roads) {
    for (const p of r.geometry) {
      if (p.x < minX) minX = p.x;
      if (p.y < minY) minY = p.y;
      if (p.x > maxX) maxX = p.x;
      if (p.y > maxY) maxY = p.y;
    }
  }
  return Number.isFinite(minX) ? { minX, minY, maxX, maxY } : { minX: 0, minY: 0, maxX: 0, maxY: 0 };
}

/** Throws InputError when a map point lies further than `margin` [m] outside the bounds. */
export function checkInBounds(b: MapBounds, margin: number, x: number, y: number, what: string): void {
  const outside = Math.max(b.minX - x, x - b.maxX, b.minY - y, y - b.maxY);
  if (!(outside <= margin)) throw new InputError(`${what} is ${Number.isFinite(outside) ? Math.round(outside) : outside} m outside the map area (allowed margin ${margin} m)`);
}
