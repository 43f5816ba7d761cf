/**
 * Auto NPCs are not started in front of a vehicle that could not slow down for them (FMTC: one started 9 m
 * ahead of a car doing 14 m/s, another across the lane of one doing 11 m/s; both were hit within a second).
 */
import { describe, expect, it } from 'vitest';
import { clearance } from '../../src/scene/population.js';

/** a spot at the origin heading +x; a car at (x, y) heading `yaw` at `speed` */
const car = (x: number, y: number, yaw: number, speed: number) => [{ x, y, yaw, speed, length: 4.5, width: 2 }];

describe('spawn clearance', () => {
  it('refuses a spot a vehicle behind, or crossing towards it, could not slow down for', () => {
    expect(clearance(0, 0, 0, car(-12, 0, 0, 14))).toBe(0); // 12 m behind at 14 m/s (needs 33 + 8 m)
    expect(clearance(0, 0, 0, car(-6, -10, Math.PI / 3, 11))).toBe(0); // crossing towards it at 11 m/s
  });

  it('keeps a spot behind a slow or stopped vehicle, beside a fast one, or across from oncoming traffic', () => {
    expect(clearance(0, 0, 0, car(-12, 0, 0, 0))).toBe(Infinity);
    expect(clearance(0, 0, 0, car(-40, 0, 0, 8))).toBe(Infinity); // needs 10.7 + 8 m
    expect(clearance(0, 0, 0, car(-12, 7, 0, 14))).toBe(Infinity); // a lane further over, out of its ±25°
    expect(clearance(0, 0, 0, car(30, 3.5, Math.PI, 14))).toBeCloseTo(30.2, 1); // oncoming: only the usual gap ahead
  });
});
