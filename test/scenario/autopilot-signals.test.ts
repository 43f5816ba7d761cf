/**
 * The autopilot at signals: it stops its front before a red stop line on its line, stops at a yellow only when
 * that takes no more than 3 m/s², goes once the line opens, and ignores closed movements that are not its own
 * (the left turn beside its straight on, a line across its way for crossing traffic).
 */
import { describe, expect, it } from 'vitest';
import { type StopPoint, Autopilot } from '../../src/scenario/drivers.js';
import type { AutopilotSpec } from '../../src/scenario/config.js';
import { makeLine } from '../../src/scenario/line.js';
import { DEFAULT_VEHICLE_PARAMS } from '../../src/plant/params/vehicle.js';
import { initialState } from '../../src/plant/state.js';
import { neutralCommand } from '../../src/plant/types.js';

const SPEC: AutopilotSpec = { speed: 15, speedFactor: 1, lookaheadM: 6, lookaheadGainS: 0.5, follow: true, timeGapS: 1.5, minGapM: 5, decel: 2.5 };
// a straight line east, 400 m; the stop line at x = 200, the movement on to x = 230
const line = makeLine([[0, 0], [400, 0]], false);
const straight = (yellow = false): StopPoint => ({ x: 200, y: 0, yaw: 0, exitX: 230, exitY: 0, length: 30, yellow });
const leftTurn: StopPoint = { x: 200, y: 0, yaw: 0, exitX: 215, exitY: 15, length: 24, yellow: false };
const crossing: StopPoint = { x: 215, y: -15, yaw: Math.PI / 2, exitX: 215, exitY: 15, length: 30, yellow: false };

/** Drives the autopilot's command through a point mass (pedal → ±4 m/s²) from x0 at v0; returns where it stands. */
function drive(stops: StopPoint[], x0: number, v0: number, seconds = 60): { x: number; v: number } {
  const ap = new Autopilot(SPEC, line, DEFAULT_VEHICLE_PARAMS, 4.5);
  const s = initialState({ x: x0, vx: v0 });
  const cmd = neutralCommand();
  const dt = 0.01;
  for (let t = 0; t < seconds; t += dt) {
    ap.observe({ t, objects: [], stops });
    ap.update(s, t, cmd);
    s.vx = Math.max(0, s.vx + (4 * cmd.throttle - 8 * cmd.brake) * dt);
    s.x += s.vx * dt;
  }
  return { x: s.x, v: s.vx };
}

describe('the autopilot at signals', () => {
  it('stops its front before a red line on its way and stays there', () => {
    const end = drive([straight()], 50, 15);
    expect(end.v).toBeLessThan(0.1);
    expect(end.x + 2.25).toBeLessThan(200);
    expect(end.x + 2.25).toBeGreaterThan(195);
  });
  it('on yellow it stops when it can at 3 m/s², and goes on when it cannot', () => {
    expect(drive([straight(true)], 100, 15).x + 2.25).toBeLessThan(200); // 97.75 m to the line: 1.2 m/s²
    expect(drive([straight(true)], 170, 15).x).toBeGreaterThan(230); // 27.75 m: 4.1 m/s² — it goes through
  });
  it('a closed left turn beside its straight on and a closed crossing movement do not stop it', () => {
    expect(drive([leftTurn, crossing], 50, 15, 30).x).toBeGreaterThan(300);
  });
  it('without stop lines it drives on', () => {
    expect(drive([], 50, 15, 30).x).toBeGreaterThan(300);
  });
});
