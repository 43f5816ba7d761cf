/**
 * The autopilot and people: a pedestrian (0.5 m × 0.5 m) or a bicyclist (1.9 m × 0.6 m) crossing into its lane,
 * timed as Euro NCAP times them (without braking it would meet the front), is an obstacle it stops for; one
 * standing on the kerb beside its lane is not; a person walking along its lane ahead is followed, not hit. The
 * same autopilot without following (follow: false) hits each crossing person: what it sees decides.
 */
import { describe, expect, it } from 'vitest';
import { Autopilot, type TrafficObject } from '../../src/scenario/drivers.js';
import type { AutopilotSpec } from '../../src/scenario/config.js';
import { makeLine } from '../../src/scenario/line.js';
import { DEFAULT_VEHICLE_PARAMS } from '../../src/plant/params/vehicle.js';
import { initialState } from '../../src/plant/state.js';
import { neutralCommand } from '../../src/plant/types.js';

const SPEC: AutopilotSpec = { speed: 40 / 3.6, speedFactor: 1, lookaheadM: 6, lookaheadGainS: 0.5, follow: true, timeGapS: 1.5, minGapM: 5, decel: 2.5 };
const line = makeLine([[0, 0], [400, 0]], false);
/** the sedan's full brake [m/s²] (2000 N m on 0.32 m wheels, 1500 kg: about 4 m/s²) */
const SEDAN_BRAKE = DEFAULT_VEHICLE_PARAMS.maxBrakeTorque / (DEFAULT_VEHICLE_PARAMS.wheelRadiusNominal * DEFAULT_VEHICLE_PARAMS.mass);
const LENGTH = 4.5, WIDTH = 1.8;

interface Person {
  x0: number;
  y0: number;
  /** heading [rad] and speed [m/s] once it moves, from `go` [s] */
  yaw: number;
  v: number;
  go: number;
  length: number;
  width: number;
}

/**
 * A point-mass car (throttle → 4 m/s², brake → the sedan's) on the line from x = 0 at 40 km/h, the person moving
 * as given; returns whether their boxes ever overlapped and where the car ended.
 */
function drive(p: Person, follow = true, seconds = 20): { hit: boolean; x: number; v: number } {
  const ap = new Autopilot({ ...SPEC, follow }, line, DEFAULT_VEHICLE_PARAMS, LENGTH);
  const s = initialState({ x: 0, vx: SPEC.speed! });
  const cmd = neutralCommand();
  const dt = 0.01;
  let hit = false;
  const o: TrafficObject = { x: p.x0, y: p.y0, vx: 0, vy: 0, length: p.length, width: p.width, yaw: p.yaw };
  for (let t = 0; t < seconds; t += dt) {
    const moving = t >= p.go;
    const d = moving ? (t - p.go) * p.v : 0;
    o.x = p.x0 + d * Math.cos(p.yaw);
    o.y = p.y0 + d * Math.sin(p.yaw);
    o.vx = moving ? p.v * Math.cos(p.yaw) : 0;
    o.vy = moving ? p.v * Math.sin(p.yaw) : 0;
    ap.observe({ t, objects: [o] });
    ap.update(s, t, cmd);
    s.vx = Math.max(0, s.vx + (4 * cmd.throttle - SEDAN_BRAKE * cmd.brake) * dt);
    s.x += s.vx * dt;
    // the person's box in the car's frame (the car runs along +x at y = 0)
    const along = Math.abs(Math.cos(p.yaw)) > 0.7;
    const halfX = along ? p.length / 2 : p.width / 2, halfY = along ? p.width / 2 : p.length / 2;
    if (Math.abs(o.x - s.x) < LENGTH / 2 + halfX && Math.abs(o.y) < WIDTH / 2 + halfY) hit = true;
  }
  return { hit, x: s.x, v: s.vx };
}

/** a person crossing at x = 60 from the right (y < 0, walking +y) or the left, timed to meet the front at `at` (left-positive) */
function crossing(v: number, from: 'right' | 'left', startM: number, at: number, length: number, width: number): Person {
  const dir = from === 'right' ? 1 : -1;
  const walk = startM / v;
  // the car's front reaches x = 60 at (60 − 2.25) / (40 km/h)
  const go = (60 - LENGTH / 2) / SPEC.speed! - walk;
  return { x0: 60, y0: at - dir * startM, yaw: dir * Math.PI / 2, v, go, length, width };
}

describe('the autopilot and people', () => {
  it('stops for a pedestrian crossing into its lane from the right (CPNA-25) or the left (CPFA-50); without following it hits them', () => {
    const cpna = crossing(5 / 3.6, 'right', 4, -0.45, 0.5, 0.5);
    const braking = drive(cpna);
    expect(braking.hit).toBe(false);
    expect(drive(cpna, false).hit).toBe(true);
    const cpfa = crossing(6.5 / 3.6, 'left', 6, 0, 0.5, 0.5);
    expect(drive(cpfa).hit).toBe(false);
    expect(drive(cpfa, false).hit).toBe(true);
  });

  it('stops for a bicyclist crossing at 15 km/h from 8 m out; 5 m out (1.2 s) is more than the sedan\'s brakes can take from 40 km/h', () => {
    expect(drive(crossing(15 / 3.6, 'right', 8, 0, 1.9, 0.6)).hit).toBe(false);
    expect(drive(crossing(15 / 3.6, 'right', 8, 0, 1.9, 0.6), false).hit).toBe(true);
    expect(drive(crossing(15 / 3.6, 'right', 5, 0, 1.9, 0.6)).hit).toBe(true);
  });

  it('a pedestrian standing on the kerb 3 m right of its line does not stop it', () => {
    const kerb: Person = { x0: 60, y0: -3, yaw: Math.PI / 2, v: 0, go: 0, length: 0.5, width: 0.5 };
    const r = drive(kerb, true, 10);
    expect(r.x).toBeGreaterThan(100);
    expect(r.hit).toBe(false);
  });

  it('follows a pedestrian walking along its lane ahead (CPLA) at walking pace without touching; blind, it hits', () => {
    const cpla: Person = { x0: 60, y0: -0.45, yaw: 0, v: 5 / 3.6, go: 0, length: 0.5, width: 0.5 };
    const r = drive(cpla, true, 30);
    expect(r.hit).toBe(false);
    expect(r.v).toBeLessThan(5 / 3.6 + 0.5);
    expect(drive(cpla, false, 30).hit).toBe(true);
  });
});
