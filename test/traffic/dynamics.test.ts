import { describe, expect, it } from 'vitest';
import { stepBicycle, wrapAngle } from '../../src/traffic/bicycle.js';
import { obbOverlap } from '../../src/traffic/obb.js';
import { checkGoals, goalReached } from '../../src/traffic/goals.js';
import { makeWorld } from '../helpers/world-builder.js';

const f = Math.fround;
const car = (v: number, yaw = 0) => ({ x: 0, y: 0, yaw, vx: v * Math.cos(yaw), vy: v * Math.sin(yaw) });

describe('classic bicycle step (spec §6.2, dt 0.1)', () => {
  it('drives straight: x += (v + a·dt/2)·dt, speed += a·dt', () => {
    const s = car(10);
    stepBicycle(s, 0, 0, 4);
    expect([s.x, s.y, s.yaw]).toEqual([1, 0, 0]);
    const t = car(10);
    stepBicycle(t, f(2.667), 0, 4);
    expect(t.x).toBeCloseTo(1.013335, 6);
    expect(Math.hypot(t.vx, t.vy)).toBeCloseTo(10.2667, 4);
  });
  it('turns left with steer 0.524: β = atan(tan δ / 2), ω = v cos β tan δ / L', () => {
    const s = car(10);
    stepBicycle(s, 0, f(0.524), 4);
    expect(s.x).toBeCloseTo(0.9607004, 6);
    expect(s.y).toBeCloseTo(0.2775873, 6);
    expect(s.yaw).toBeCloseTo(0.1387937, 6);
    expect(Math.hypot(s.vx, s.vy)).toBeCloseTo(10, 5);
  });
  it('moves almost sideways at steer ±1.571 (tan ≈ ∓4910): right for +1.571, left for −1.571, yaw rate ≈ ∓2v/L', () => {
    const r = car(10);
    stepBicycle(r, 0, f(1.571), 4);
    expect(r.x).toBeCloseTo(0.000407, 5);
    expect(r.y).toBeCloseTo(-1.0, 5);
    expect(r.yaw).toBeCloseTo(-0.5, 3);
    const l = car(10);
    stepBicycle(l, 0, f(-1.571), 4);
    expect(l.y).toBeCloseTo(1.0, 5);
    expect(l.yaw).toBeCloseTo(0.5, 3);
  });
  it('barely turns at steer ±3.142 (tan ≈ ±0.0004) and steers the "wrong" way at ±2.094', () => {
    const s = car(10);
    stepBicycle(s, 0, f(3.142), 4);
    expect(Math.abs(s.yaw)).toBeLessThan(1e-3);
    const w = car(10);
    stepBicycle(w, 0, f(-2.094), 4); // tan(−2.094) = +1.734: turns left
    expect(w.yaw).toBeGreaterThan(0.3);
  });
  it('has no speed clamp: speed can go negative, the velocity then points backwards and is read back as a magnitude', () => {
    const s = car(0.2);
    stepBicycle(s, -4, 0, 4);
    expect(s.x).toBeCloseTo(0, 9);
    expect(s.vx).toBeCloseTo(-0.2, 6);
    stepBicycle(s, 0, 0, 4);
    expect(s.x).toBeCloseTo(0.02, 6); // speed re-read as +0.2 along the yaw
  });
  it('wraps yaw to [−π, π]', () => {
    expect(wrapAngle(3 * Math.PI / 2)).toBeCloseTo(-Math.PI / 2, 12);
    expect(wrapAngle(-3 * Math.PI / 2)).toBeCloseTo(Math.PI / 2, 12);
    expect(wrapAngle(90)).toBeCloseTo(90 - 14 * 2 * Math.PI, 10);
  });
});

describe('oriented-box overlap (spec §7.9)', () => {
  it('counts exact touching as overlap', () => {
    expect(obbOverlap(0, 0, 0, 1, 0.5, 2, 0, 0, 1, 0.5)).toBe(true);
    expect(obbOverlap(0, 0, 0, 1, 0.5, 2.0001, 0, 0, 1, 0.5)).toBe(false);
    expect(obbOverlap(0, 0, 0, 1, 0.5, 0, 1, 0, 1, 0.5)).toBe(true);
    expect(obbOverlap(0, 0, 0, 1, 0.5, 0, 1.0001, 0, 1, 0.5)).toBe(false);
  });
  it('handles rotation: a diamond reaches √2 along x', () => {
    const edge = 1 + Math.SQRT2;
    expect(obbOverlap(0, 0, 0, 1, 1, edge - 1e-6, 0, Math.PI / 4, 1, 1)).toBe(true);
    expect(obbOverlap(0, 0, 0, 1, 1, edge + 1e-6, 0, Math.PI / 4, 1, 1)).toBe(false);
    // separated only along a rotated axis (corner-to-corner gap)
    expect(obbOverlap(0, 0, Math.PI / 4, 1, 1, 2.9, 2.9, Math.PI / 4, 1, 1)).toBe(false);
    expect(obbOverlap(0, 0, 0, 2, 0.1, 0, 0, Math.PI / 2, 2, 0.1)).toBe(true);
  });
});

describe('goal (spec §7.8)', () => {
  it('is reached strictly within 2.0 m', () => {
    expect(goalReached(2, 0)).toBe(false);
    expect(goalReached(1.9999, 0)).toBe(true);
    expect(goalReached(1.2, 1.6)).toBe(false); // exactly 2
  });
  it('marks done and reachedGoal', () => {
    const w = makeWorld([{ x: 0, y: 0, goal: [1.5, 0] }, { x: 0, y: 0, goal: [2, 0] }]);
    checkGoals(w);
    expect([w.done[0], w.reachedGoal[0], w.done[1], w.reachedGoal[1]]).toEqual([1, 1, 0, 0]);
  });
});
