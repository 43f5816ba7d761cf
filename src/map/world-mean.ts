/**
 * The world origin GPUDrive subtracts from every coordinate (spec §7.15, `calc_mean`): an incremental
 * mean kept in float32, over every valid logged object position (all timesteps) and every road point
 * (driveways included, before polyline reduction). Observations are relative, so it only sets rounding.
 */
import type { SceneJson } from './types.js';

export function worldMean(scene: SceneJson): { x: number; y: number } {
  let mx = 0;
  let my = 0;
  let n = 0;
  for (const o of scene.objects) {
    for (let i = 0; i < o.position.length; i++) {
      if (!o.valid[i]) continue;
      n++;
      mx = Math.fround(mx + (o.position[i].x - mx) / n);
      my = Math.fround(my + (o.position[i].y - my) / n);
    }
  }
  for (const r of scene.roads) {
    for (const p of r.geometry) {
      n++;
      mx = Math.fround(mx + (p.x - mx) / n);
      my = Math.fround(my + (p.y - my) / n);
    }
  }
  return { x: mx, y: my };
}
