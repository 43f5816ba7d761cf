import { describe, expect, it } from 'vitest';
import { ActuatorModel, VehicleState, actuatorParams, neutralCommand } from '../../src/plant/index.js';
import type { DriverCommand } from '../../src/plant/index.js';

const still = new VehicleState();
function run(model: ActuatorModel, inputs: Partial<DriverCommand>[], dt: number, vehicle = still): DriverCommand[] {
  return inputs.map((u) => ({ ...model.apply({ ...neutralCommand(), ...u }, vehicle, dt, neutralCommand()) }));
}

describe('actuator layer (spec §7.7)', () => {
  it('default parameters are the identity (gear and handbrake pass through)', () => {
    const out = run(new ActuatorModel(actuatorParams()), [{ steer: 0.3, throttle: 0.4, brake: 0.1, gear: -1, handbrake: true }], 0.005)[0];
    expect(out).toEqual({ steer: 0.3, throttle: 0.4, brake: 0.1, gear: -1, handbrake: true });
  });
  it('dead time of a whole number of ticks: exact delay, 0 before the buffer fills', () => {
    const m = new ActuatorModel(actuatorParams({ steer: { deadTimeS: 0.02 } }), 0.005);
    const steer = run(m, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7].map((s) => ({ steer: s })), 0.005).map((c) => c.steer);
    expect(steer).toEqual([0, 0, 0, 0, 0.1, 0.2, 0.3]);
  });
  it('fractional dead time interpolates linearly between samples', () => {
    const m = new ActuatorModel(actuatorParams({ throttle: { deadTimeS: 0.0125 } }), 0.005);
    const thr = run(m, [0.1, 0.2, 0.3, 0.4, 0.5].map((t) => ({ throttle: t })), 0.005).map((c) => c.throttle);
    // 2.5 samples: ½·x[k−2] + ½·x[k−3]
    expect(thr[3]).toBeCloseTo(0.5 * 0.2 + 0.5 * 0.1, 12);
    expect(thr[4]).toBeCloseTo(0.5 * 0.3 + 0.5 * 0.2, 12);
  });
  it('first-order lag is exact: y_k = 1 − e^(−k·dt/τ) for a unit step', () => {
    const m = new ActuatorModel(actuatorParams({ brake: { tauS: 0.1 } }), 0.01);
    const b = run(m, Array.from({ length: 5 }, () => ({ brake: 1 })), 0.01).map((c) => c.brake);
    b.forEach((v, k) => expect(v).toBeCloseTo(1 - Math.exp(-(k + 1) * 0.1), 12));
  });
  it('slew limit moves at most rate·dt per tick; saturation clips', () => {
    const m = new ActuatorModel(actuatorParams({ steer: { rateLimit: 0.5, outMin: -0.2, outMax: 0.2 } }), 0.01);
    const s = run(m, Array.from({ length: 50 }, () => ({ steer: 0.4 })), 0.01).map((c) => c.steer);
    expect(s[0]).toBeCloseTo(0.005, 12);
    expect(s[9]).toBeCloseTo(0.05, 12);
    expect(Math.max(...s)).toBe(0.2);
  });
  it('pedals are clamped to [0, 1] whatever out_max says; a dead zone rescales (u − d)/(1 − d)', () => {
    const m = new ActuatorModel(actuatorParams({ throttle: { deadZone: 0.1, outMax: 5 } }), 0.005);
    const t = run(m, [{ throttle: 0.05 }, { throttle: 0.55 }, { throttle: 1 }], 0.005).map((c) => c.throttle);
    expect(t[0]).toBe(0);
    expect(t[1]).toBeCloseTo(0.5, 12);
    expect(t[2]).toBe(1);
  });
  it('brake fade: temperature rises with brake·speed and scales the realised brake by the μ(T) table', () => {
    const m = new ActuatorModel(actuatorParams({ brake: { thermalEnabled: true, heatCoeff: 10, coolCoeff: 0, ambientTempC: 40, muTempC: [40, 440], muScale: [1, 0.5] } }), 0.01);
    const moving = new VehicleState();
    moving.vx = 20;
    const out = run(m, Array.from({ length: 100 }, () => ({ brake: 1 })), 0.01, moving);
    // T after n ticks = 40 + 10·1·20·0.01·n → 240 °C after 100 ticks → scale 0.75
    expect(m.brakeTempC).toBeCloseTo(240, 9);
    expect(out[99].brake).toBeCloseTo(0.75, 9);
  });
  it('torque-servo steering with LuGre friction settles within the stiction dead band Ts/kp of the command', () => {
    const m = new ActuatorModel(actuatorParams({ steer: { friction: { enabled: true, sigma0: 1e4, sigma1: 100, sigma2: 0.4, Tc: 1, Ts: 1.6, ws: 0.05 } } }), 0.005);
    const s = run(m, Array.from({ length: 400 }, () => ({ steer: 0.2 })), 0.005).map((c) => c.steer);
    expect(s[0]).toBeLessThan(0.05); // it takes time to move the inertia
    expect(Math.abs(s[399] - 0.2)).toBeLessThan(1.6 / 60 + 1e-3); // stiction Ts / kp
    expect(Math.abs(s[399] - 0.2)).toBeGreaterThan(0); // and friction leaves a steady error
    expect(m.steerAngle).toBe(s[399]);
  });
  it('reset clears the delay lines and the lag states', () => {
    const m = new ActuatorModel(actuatorParams({ steer: { deadTimeS: 0.01, tauS: 0.05 } }), 0.005);
    run(m, Array.from({ length: 20 }, () => ({ steer: 0.3 })), 0.005);
    m.reset();
    expect(run(m, [{ steer: 0.3 }], 0.005)[0].steer).toBe(0);
  });
});
