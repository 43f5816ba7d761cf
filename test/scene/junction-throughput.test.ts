/**
 * Junction throughput (src/scene/rules/metrics.ts) through a merge: a car is counted through the movement it
 * drove, once, and not through the other lane's movement whose path ends where it drives on. The junction's
 * outline places a car leaving a merging movement in the other one for a step or two (vehicle-places.ts); counted,
 * that made FMTC's J3 look as if its A approach turned left five times as often as it does (C's right turn and
 * A's left turn both run into lane 119).
 */
import { describe, expect, it } from 'vitest';
import { TrafficControl } from '../../src/scene/traffic-control.js';
import { TrafficEngine } from '../../src/traffic/engine.js';
import { mergeMap } from '../helpers/junction-maps.js';

describe('junction throughput through a merge', () => {
  it('a car driving IN2 → OUT is counted through IN2’s movement once and never through IN1’s', () => {
    const map = mergeMap();
    const engine = new TrafficEngine(map.scene, { laneGraph: map.mapMetadata?.lane_graph });
    const control = new TrafficControl(map, engine, { rules: true });
    const { layout, rules } = control;
    expect(layout.junctions).toHaveLength(1);
    const cj = layout.junctions[0];
    const mgOf = (laneId: string) => rules.index.base[0] + cj.movements.findIndex((m) => engine.lanes.lanes[m.entry.lane].id === laneId);
    const mine = mgOf('IN2'), other = mgOf('IN1');
    expect(mine).toBeGreaterThanOrEqual(rules.index.base[0]);
    expect(other).toBeGreaterThanOrEqual(rules.index.base[0]);
    const c = Math.cos(Math.PI / 6), s = Math.sin(Math.PI / 6);
    let wasIn = false;
    // 0.5 m a step from 30 m before the merge point to 20 m past it
    for (let k = 0, d = -30; d <= 20; k++, d += 0.5) {
      const p = d < 0 ? { x: d * c, y: d * s, yaw: Math.PI / 6 } : { x: d, y: 0, yaw: 0 };
      engine.setExternal('car', { ...p, speed: 5, length: 4.5, width: 1.9 });
      control.beforeStep(k * 0.1);
      for (let q = 0; q < engine.world.count; q++) if (engine.world.present[q] === 1 && rules.places.inMg[q] === mine) wasIn = true;
    }
    expect(wasIn).toBe(true);
    const j = control.metrics.summary();
    expect(j.movements_completed).toBe(1);
    const done = (control.metrics as unknown as { done: Int32Array }).done;
    expect(done[mine]).toBe(1);
    expect(done[other]).toBe(0);
  });
});
