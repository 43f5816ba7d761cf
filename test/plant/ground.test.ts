import { describe, expect, it } from 'vitest';
import { ContactSet, FlatGround, GRAVITY, InclinedGround, SimSession, SplitMuGround, VehicleState, tireParams, vehicleParams } from '../../src/plant/index.js';

const vp = vehicleParams();
function at(x: number, y: number, yaw: number): VehicleState {
  const s = new VehicleState();
  s.x = x;
  s.y = y;
  s.yaw = yaw;
  return s;
}

describe('ground providers (spec §7.9)', () => {
  it('flat: four valid contacts, normal +Z, μ on both axes, contact under each wheel centre', () => {
    const c = new ContactSet();
    new FlatGround(0.8).query(at(10, 5, Math.PI / 2), vp, c);
    expect([...c.valid]).toEqual([1, 1, 1, 1]);
    expect([...c.normal.subarray(0, 3)]).toEqual([0, 0, 1]);
    expect([...c.muLong, ...c.muLat]).toEqual(Array(8).fill(0.8));
    // heading north: FL is 1.2 m ahead (+y) and 0.775 m to the left (−x)
    expect(c.position[0]).toBeCloseTo(10 - 0.775, 12);
    expect(c.position[1]).toBeCloseTo(5 + 1.2, 12);
    expect(c.position[9]).toBeCloseTo(10 + 0.775, 12); // RR
    expect(c.position[10]).toBeCloseTo(5 - 1.5, 12);
  });
  it('split μ: contacts at y ≥ boundary get μ_left (surface 0), the others μ_right (surface 1)', () => {
    const c = new ContactSet();
    new SplitMuGround(1.0, 0.2, 0).query(at(0, 0, 0), vp, c);
    expect([...c.muLong]).toEqual([1, 0.2, 1, 0.2]);
    expect([...c.surfaceId]).toEqual([0, 1, 0, 1]);
    new SplitMuGround(1.0, 0.2, 2).query(at(0, 0, 0), vp, c);
    expect([...c.muLat]).toEqual([0.2, 0.2, 0.2, 0.2]);
  });
  it('inclined: normal (−tan grade, −tan bank, 1)/‖·‖ and road height of each contact relative to the CG', () => {
    const c = new ContactSet();
    const g = new InclinedGround(0.1, 0.05, 0.9, 1);
    g.query(at(3, 2, 0), vp, c);
    const n = Math.hypot(Math.tan(0.1), Math.tan(0.05), 1);
    expect(c.normal[0]).toBeCloseTo(-Math.tan(0.1) / n, 12);
    expect(c.normal[1]).toBeCloseTo(-Math.tan(0.05) / n, 12);
    expect(c.normal[2]).toBeCloseTo(1 / n, 12);
    expect(c.roadDz[0]).toBeCloseTo(Math.tan(0.1) * 1.2 + Math.tan(0.05) * 0.775, 12); // FL
    expect(c.roadDz[3]).toBeCloseTo(-Math.tan(0.1) * 1.5 - Math.tan(0.05) * 0.775, 12); // RR
    expect(c.position[2]).toBeCloseTo(g.heightAt(c.position[0], c.position[1]), 12);
    expect(c.isLevel()).toBe(false);
  });
});

describe('driving on the ground providers', () => {
  it('coasting up a 5 % grade adds g·sinθ of deceleration, shared with the spinning wheels (m_eff = m + ΣI/R²)', () => {
    const run = (grade: number) => {
      const s = SimSession.create({ vehicle: vehicleParams({ aeroDragCoeff: 0 }), tires: tireParams(), ground: new InclinedGround(Math.atan(grade), 0), initial: { vx: 20 } });
      for (let i = 0; i < 400; i++) s.tick(0.005);
      return (20 - s.truth.vx) / 2;
    };
    const mEff = 1500 + (4 * 2.048 + 6.25) / 0.32 ** 2;
    expect(run(0)).toBeLessThan(1e-6);
    expect(run(0.05)).toBeCloseTo((GRAVITY * Math.sin(Math.atan(0.05)) * 1500) / mEff, 2);
  });
  it('L3 on a 6° bank rolls with the road (VDSim: 6° bank → 5.98° roll)', () => {
    const bank = (6 * Math.PI) / 180;
    const s = SimSession.create({ level: 'L3', vehicle: vehicleParams(), tires: tireParams(), ground: new InclinedGround(0, bank), initial: { vx: 10 } });
    s.setInput({ throttle: 0.05 });
    for (let i = 0; i < 600; i++) s.tick(0.005);
    expect((s.truth.roll * 180) / Math.PI).toBeCloseTo(5.98, 1);
    expect(Math.abs(s.truth.y)).toBeLessThan(0.05); // the tires hold the car on the bank
  });
  it('full braking on split μ yaws the car toward the high-friction side', () => {
    const s = SimSession.create({ vehicle: vehicleParams(), tires: tireParams(), ground: new SplitMuGround(1.0, 0.2, 0), initial: { vx: 20 } });
    s.setInput({ brake: 1 });
    for (let i = 0; i < 200; i++) s.tick(0.005);
    expect(s.truth.yaw).toBeGreaterThan(0.002);
    expect(s.diagnostics.slipRatio[1]).toBeLessThan(-0.5); // the right wheels lock on the ice
    expect(s.diagnostics.slipRatio[0]).toBeGreaterThan(-0.1);
  });
});
