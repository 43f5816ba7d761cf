import { describe, expect, it } from 'vitest';
import { AIR_DENSITY, GRAVITY, tireParams, vehicleParams, solverParams, type Level } from '../../src/plant/index.js';
import { Drivetrain } from '../../src/plant/models/drivetrain.js';
import { ackermannAngles } from '../../src/plant/models/steering.js';
import { drive, model } from './helpers.js';

const LEVELS: Level[] = ['L1', 'L2', 'L3'];

describe('L1 dynamic bicycle: VDSim analytic checks (spec §8.5)', () => {
  // default car, no drag, vx 10 m/s, δ = 0.05 rad, dt 5 ms, 5 s; the defaults are neutral (a·Cf = b·Cr)
  const rKin = (10 * 0.05) / 2.7;
  it(`steady yaw rate within 10 % of vx·δ/L = ${rKin.toFixed(4)} rad/s, both directions`, () => {
    const left = drive(model({ level: 'L1', vehicle: vehicleParams({ aeroDragCoeff: 0 }), vx: 10 }), { steer: 0.05 }, 1000);
    expect(left.state.yawRate).toBeGreaterThan(0);
    expect(Math.abs(left.state.yawRate - rKin) / rKin).toBeLessThan(0.1);
    expect(left.state.yawRate).toBeCloseTo(0.1849, 3);
    const right = drive(model({ level: 'L1', vehicle: vehicleParams({ aeroDragCoeff: 0 }), vx: 10 }), { steer: -0.05 }, 1000);
    expect(right.state.yawRate).toBeCloseTo(-left.state.yawRate, 12);
  });
  it('zero steer keeps a straight line: |r| < 1e-6, |vy| < 1e-4, |y| < 1e-3 m', () => {
    const m = drive(model({ level: 'L1', vehicle: vehicleParams({ aeroDragCoeff: 0 }), vx: 10 }), {}, 600);
    expect(Math.abs(m.state.yawRate)).toBeLessThan(1e-6);
    expect(Math.abs(m.state.vy)).toBeLessThan(1e-4);
    expect(Math.abs(m.state.y)).toBeLessThan(1e-3);
    expect(m.state.x).toBeCloseTo(30, 6);
  });
  it('low friction cannot exceed the high-friction yaw rate', () => {
    const hi = drive(model({ level: 'L1', vx: 10 }), { steer: 0.05 }, 1000, 0.005, 1.0).state.yawRate;
    const lo = drive(model({ level: 'L1', vx: 10 }), { steer: 0.05 }, 1000, 0.005, 0.3).state.yawRate;
    expect(lo).toBeGreaterThan(0);
    expect(lo).toBeLessThanOrEqual(hi);
  });
});

describe('longitudinal (spec §8.5 and VDSim test_accel_brake)', () => {
  const k = (0.5 * AIR_DENSITY * 0.3 * 2.2) / 1500;
  it('drag constant k = ½ρCdA/m = 2.695e-4 1/m', () => {
    expect(k).toBeCloseTo(2.695e-4, 7);
  });
  for (const level of LEVELS) {
    it(`${level}: drag-only coast from 20 m/s stays within 5 % of v0/(1 + v0·k·t) over 10 s`, () => {
      const samples: [number, number][] = [];
      let t = 0;
      drive(model({ level, vx: 20 }), {}, 2000, 0.005, 1, (m) => {
        t += 0.005;
        if (Math.round(t * 200) % 400 === 0) samples.push([t, m.state.vx]);
      });
      expect(samples.length).toBe(5);
      for (const [ts, v] of samples) {
        const va = 20 / (1 + 20 * k * ts);
        expect(Math.abs(v - va) / va).toBeLessThan(0.05);
        expect(v).toBeGreaterThanOrEqual(va); // wheel and engine inertia only slow the decay
      }
    });
  }
  it('L1: brake 0.8 decelerates monotonically at ≥ 2 m/s² (no drag)', () => {
    let prev = 20;
    let rises = 0;
    const m = drive(model({ level: 'L1', vehicle: vehicleParams({ aeroDragCoeff: 0 }), vx: 20 }), { brake: 0.8 }, 400, 0.005, 1, (mm) => {
      if (mm.state.vx > prev + 1e-4) rises++;
      prev = mm.state.vx;
    });
    expect(rises).toBe(0);
    expect((20 - m.state.vx) / 2).toBeGreaterThanOrEqual(2);
  });
  for (const level of ['L1', 'L2'] as Level[]) {
    it(`${level}: throttle 0.5 from 5 m/s accelerates monotonically, > 1 m/s in 4 s`, () => {
      let prev = 5;
      let drops = 0;
      const m = drive(model({ level, vehicle: vehicleParams({ aeroDragCoeff: 0 }), vx: 5 }), { throttle: 0.5 }, 800, 0.005, 1, (mm) => {
        if (mm.state.vx + 1e-4 < prev) drops++;
        prev = mm.state.vx;
      });
      expect(drops).toBe(0);
      expect(m.state.vx).toBeGreaterThan(6);
    });
  }
  it('reverse gear drives backwards, neutral transmits no torque', () => {
    expect(drive(model({ level: 'L2' }), { throttle: 0.5, gear: -1 }, 400).state.vx).toBeLessThan(-2);
    expect(drive(model({ level: 'L2' }), { throttle: 0.5, gear: 0 }, 400).state.vx).toBe(0);
  });
});

describe('L2 loads, drivetrain and steering (spec §7.2)', () => {
  it('static loads m·g·b/(2L) = 4086.1 N front and m·g·a/(2L) = 3268.9 N rear per wheel', () => {
    const m = drive(model({ level: 'L2' }), {}, 1);
    expect(m.diagnostics.Fz[0]).toBeCloseTo((1500 * GRAVITY * 1.5) / 5.4, 6);
    expect(m.diagnostics.Fz[3]).toBeCloseTo((1500 * GRAVITY * 1.2) / 5.4, 6);
  });
  it('a left turn (a_y > 0) loads the right (outer) wheels; braking loads the front', () => {
    const turn = drive(model({ level: 'L2', vx: 15 }), { steer: 0.04, throttle: 0.1 }, 1200);
    const fz = turn.diagnostics.Fz;
    expect(turn.diagnostics.ay).toBeGreaterThan(3);
    expect(fz[1]).toBeGreaterThan(fz[0] + 1000);
    expect(fz[3]).toBeGreaterThan(fz[2] + 1000);
    expect(turn.diagnostics.roll).toBeGreaterThan(0.02);
    const brake = drive(model({ level: 'L2', vx: 20 }), { brake: 1 }, 100);
    expect(brake.diagnostics.ax).toBeLessThan(-3.5);
    expect(brake.diagnostics.Fz[0]).toBeGreaterThan(4086.1 + 500);
    expect(brake.diagnostics.Fz[2]).toBeLessThan(3268.9 - 500);
    expect(brake.diagnostics.pitch).toBeGreaterThan(0); // nose down
  });
  it('coasting, drag ½ρCdA·v² decelerates the car and the spinning wheels + engine: m_eff = m + ΣI/R² (141 kg)', () => {
    const m = drive(model({ level: 'L2', vx: 30 }), {}, 400);
    const v = m.state.vx;
    const mEff = 1500 + (4 * 2.048 + 6.25) / 0.32 ** 2;
    expect(m.diagnostics.ax).toBeCloseTo((-0.5 * AIR_DENSITY * 0.3 * 2.2 * v * v) / mEff, 3);
  });
  it('open differential: symmetric torque sees I_w + I_e/2, opposite torques only I_w', () => {
    const d = new Drivetrain(vehicleParams());
    const out = new Float64Array(10);
    d.spinAccel(Float64Array.of(0, 0, 100, 100), out, 6);
    expect(out[8]).toBeCloseTo(100 / (2.048 + 3.125), 9);
    d.spinAccel(Float64Array.of(0, 0, 100, -100), out, 6);
    expect(out[8]).toBeCloseTo(100 / 2.048, 9);
    expect(out[6]).toBe(0);
  });
  it('drive torque throttle·T_max·final drive to the rear; LSD bias clamp(preload + ramp·|Δω|, 0, 0.45)·tanh(2Δω)', () => {
    const cmd = { steer: 0, throttle: 0.5, brake: 0, gear: 1, handbrake: false };
    const spin = Float64Array.of(0, 0, 0, 0, 0, 0, 50, 50, 51, 50);
    const out = new Float64Array(4);
    new Drivetrain(vehicleParams()).driveTorques(cmd, spin, 6, out);
    expect([...out]).toEqual([0, 0, 375, 375]);
    new Drivetrain(vehicleParams({ differential: 'LSD' })).driveTorques(cmd, spin, 6, out);
    const bias = (0.1 + 0.2 * 1) * Math.tanh(2);
    expect(out[2]).toBeCloseTo((0.5 - bias) * 750, 9);
    expect(out[3]).toBeCloseTo((0.5 + bias) * 750, 9);
    new Drivetrain(vehicleParams({ driveType: 'AWD', differential: 'Locked' })).driveTorques(cmd, spin, 6, out);
    expect(out[0] + out[1]).toBeCloseTo(375, 9);
    expect(out[2]).toBeCloseTo((0.5 - 0.45 * Math.tanh(2)) * 375, 9);
  });
  it('proportional brake: −tanh(ω)·½·bias·brake·T_max per wheel', () => {
    const cmd = { steer: 0, throttle: 0, brake: 1, gear: 1, handbrake: false };
    const out = new Float64Array(4);
    new Drivetrain(vehicleParams({ brakeBiasFront: 0.6 })).brakeTorques(cmd, new Float64Array(4), Float64Array.of(50, 0.5, 50, -50), 0, out);
    expect(out[0]).toBeCloseTo(-Math.tanh(50) * 0.5 * 0.6 * 2000, 9);
    expect(out[1]).toBeCloseTo(-Math.tanh(0.5) * 600, 9);
    expect(out[3]).toBeCloseTo(Math.tanh(50) * 400, 9);
  });
  it('Ackermann: 0 % parallel; 100 % inner = atan(tanδ/(1 − tanδ·t/2L)), outer with +', () => {
    const out = new Float64Array(2);
    const cmd = { steer: 0.1, throttle: 0, brake: 0, gear: 1, handbrake: false };
    ackermannAngles(vehicleParams(), cmd, out);
    expect([...out]).toEqual([0.1, 0.1]);
    ackermannAngles(vehicleParams({ ackermanPercent: 100 }), cmd, out);
    const t = Math.tan(0.1);
    expect(out[0]).toBeCloseTo(Math.atan(t / (1 - (t * 0.775) / 2.7)), 12);
    expect(out[1]).toBeCloseTo(Math.atan(t / (1 + (t * 0.775) / 2.7)), 12);
    ackermannAngles(vehicleParams({ ackermanPercent: 50 }), { ...cmd, steer: -0.1 }, out);
    expect(out[1]).toBeCloseTo(-0.1 + 0.5 * (-Math.atan(t / (1 - (t * 0.775) / 2.7)) + 0.1), 12);
  });
  it('rolling resistance c·ΣFz·tanh(vx/0.5) slows the coast', () => {
    const noRr = drive(model({ level: 'L2', vehicle: vehicleParams({ aeroDragCoeff: 0 }), vx: 20 }), {}, 1000).state.vx;
    const rr = drive(model({ level: 'L2', vehicle: vehicleParams({ aeroDragCoeff: 0 }), tire: tireParams({ rollingResistance: 0.015 }), vx: 20 }), {}, 1000).state.vx;
    expect(noRr - rr).toBeGreaterThan(0.6);
  });
  it('Euler and RK4 agree at small steps', () => {
    const a = drive(model({ level: 'L2', vx: 15 }), { steer: 0.03 }, 400, 0.002);
    const b = drive(model({ level: 'L2', vx: 15, solver: solverParams({ integrator: 'Euler', maxSubstepDt: 2.5e-4 }) }), { steer: 0.03 }, 400, 0.002);
    expect(b.state.yawRate).toBeCloseTo(a.state.yawRate, 2);
    expect(b.state.vx).toBeCloseTo(a.state.vx, 2);
  });
});

describe('low-speed blend and brake hold (non-LuGre tires, spec §7.2)', () => {
  const fallback = tireParams({ lugre: { enabled: false }, relaxationLengthLat: 0.6, loadSensitivity: 0.15, rollingResistance: 0.015 });
  it('braking from 3 m/s stops without reversing or yawing', () => {
    let minVx = Infinity;
    const m = drive(model({ level: 'L2', tire: fallback, vx: 3 }), { brake: 0.5 }, 600, 0.005, 1, (mm) => (minVx = Math.min(minVx, mm.state.vx)));
    expect(m.state.vx).toBeLessThan(0.01);
    expect(minVx).toBeGreaterThan(-1e-3);
    expect(Math.abs(m.state.yawRate)).toBeLessThan(1e-6);
  });
  it('at walking pace the yaw rate follows the kinematic bicycle vx·tanδ/L', () => {
    const m = drive(model({ level: 'L2', tire: fallback, vx: 0.5 }), { steer: 0.3, throttle: 0.02 }, 600);
    expect(m.state.yawRate).toBeCloseTo((m.state.vx * Math.tan(0.3)) / 2.7, 2);
  });
});

describe('L3 ride (spec §7.5)', () => {
  it('springs start at the static compression m_s·g·b/(2L·k)', () => {
    const m = model({ level: 'L3' });
    expect(m.state.suspCompression[0]).toBeCloseTo((1350 * GRAVITY * 1.5) / 5.4 / 30000, 12);
    expect(m.state.suspCompression[2]).toBeCloseTo((1350 * GRAVITY * 1.2) / 5.4 / 30000, 12);
  });
  it('in a steady left turn the body rolls to the right side (+φ), close to m_s·a_y·h/K_φ, and loads the outer wheels', () => {
    const m = drive(model({ level: 'L3', vx: 15 }), { steer: 0.04, throttle: 0.1 }, 1600);
    const ay = m.diagnostics.ay;
    const qs = (1350 * ay * 0.55) / (4 * 30000 * 0.775 ** 2);
    expect(m.state.roll).toBeGreaterThan(0);
    expect(Math.abs(m.state.roll - qs) / qs).toBeLessThan(0.2);
    expect(m.diagnostics.roll).toBe(m.state.roll);
    expect(m.diagnostics.Fz[1]).toBeGreaterThan(m.diagnostics.Fz[0] + 1000);
    expect(m.state.suspCompression[1]).toBeGreaterThan(m.state.suspCompression[0]);
  });
  it('a planar manoeuvre stays close to L2 (yaw rate within 2 %)', () => {
    const l2 = drive(model({ level: 'L2', vx: 15 }), { steer: 0.04, throttle: 0.1 }, 1600).state.yawRate;
    const l3 = drive(model({ level: 'L3', vx: 15 }), { steer: 0.04, throttle: 0.1 }, 1600).state.yawRate;
    expect(Math.abs(l3 - l2) / l2).toBeLessThan(0.02);
  });
  it('braking pitches the nose down and compresses the front', () => {
    const m = drive(model({ level: 'L3', vx: 20 }), { brake: 0.5 }, 200);
    expect(m.state.pitch).toBeGreaterThan(0.005);
    expect(m.state.suspCompression[0]).toBeGreaterThan(m.state.suspCompression[2] + 0.02);
  });
});
