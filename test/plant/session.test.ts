import { describe, expect, it } from 'vitest';
import { SimSession, actuatorParams, effectiveRollingRadius, freeRollWheelSpin, initialState, sensorNoise, sensorParams, tireParams, vehicleParams } from '../../src/plant/index.js';

const base = () => ({ vehicle: vehicleParams(), tires: tireParams() });

describe('SimSession kernel (spec §3)', () => {
  it('create(): L2 on flat ground at rest, wheels spinning at vx/R when moving', () => {
    const s = SimSession.create({ ...base(), initial: { vx: 16 } });
    expect(s.model.level).toBe('L2');
    expect(s.ground.name).toBe('flat');
    expect([...s.truth.wheelSpin]).toEqual([50, 50, 50, 50]);
    expect(s.simTime).toBe(0);
  });
  it('create() spawns free-rolling wheels: vx / Re(Fz_static) per wheel when the tire has Re coefficients', () => {
    const tires = tireParams({ reffBreff: 8, reffDreff: 0.25, reffFreff: 0.07 });
    const s = SimSession.create({ vehicle: vehicleParams(), tires, initial: { vx: 20 } });
    const reFront = effectiveRollingRadius(tires, 0.32, (1500 * 9.80665 * 1.5) / 5.4);
    expect(s.truth.wheelSpin[0]).toBeCloseTo(20 / reFront, 12);
    expect(s.truth.wheelSpin[0]).not.toBeCloseTo(s.truth.wheelSpin[2], 6);
    expect(freeRollWheelSpin(vehicleParams(), tireParams(), 16)).toEqual([50, 50, 50, 50]);
  });
  it('setInput latches a command (zero-order hold) that every tick reuses; bad values are sanitised', () => {
    const s = SimSession.create({ ...base(), initial: { vx: 10 } });
    s.setInput({ steer: 0.05, throttle: 7, brake: Number.NaN });
    expect(s.latchedCommand).toEqual({ steer: 0.05, throttle: 1, brake: 0, gear: 1, handbrake: false });
    for (let i = 0; i < 10; i++) s.tick(0.005);
    expect(s.applied.steer).toBe(0.05);
    expect(s.truth.yawRate).toBeGreaterThan(0);
    expect(s.inputCount).toBe(1);
    s.setInput({});
    expect(s.latchedCommand).toEqual({ steer: 0, throttle: 0, brake: 0, gear: 1, handbrake: false });
  });
  it('tick order: the actuator shapes the command before the dynamics see it', () => {
    const s = SimSession.create({ ...base(), actuator: actuatorParams({ steer: { deadTimeS: 0.01 } }), initial: { vx: 10 } });
    s.setInput({ steer: 0.1 });
    s.tick(0.005);
    s.tick(0.005);
    expect(s.applied.steer).toBe(0);
    expect(s.truth.yawRate).toBe(0);
    s.tick(0.005);
    expect(s.applied.steer).toBe(0.1);
    expect(s.output().steerApplied).toBe(0.1);
  });
  it('measuredState() is the truth sensor_delay ago; state() is the truth now', () => {
    const s = SimSession.create({ ...base(), sensorDelayS: 0.02, initial: { vx: 10 } });
    const xs: number[] = [];
    for (let i = 0; i < 10; i++) {
      s.tick(0.005);
      xs.push(s.state().x);
    }
    expect(s.measuredState().x).toBe(xs[5]);
    expect(s.state().x).toBe(xs[9]);
  });
  it('output() carries the diagnostics of §3.5; disabled sensors report the truth', () => {
    const s = SimSession.create({ ...base(), initial: { vx: 15 } });
    s.setInput({ steer: 0.03, throttle: 0.2 });
    for (let i = 0; i < 200; i++) s.tick(0.005);
    const o = s.output();
    expect(o.simTime).toBeCloseTo(1, 12);
    expect(Object.keys(o).sort()).toEqual(['Fz', 'ax', 'ay', 'brakeApplied', 'measured', 'pitch', 'rackTorque', 'roll', 'sensors', 'simTime', 'slipAngle', 'slipRatio', 'state', 'steerApplied', 'throttleApplied', 'tireForces', 'wheelMu'].sort());
    expect(o.ay).toBeGreaterThan(1);
    expect(o.sensors.ay).toBe(o.ay);
    expect(o.sensors.wz).toBe(o.state.yawRate);
    expect(o.sensors.gnssX).toBe(o.state.x);
    expect(o.sensors.steer).toBe(0.03);
    expect(o.throttleApplied).toBe(0.2);
    expect(o.Fz.reduce((a, b) => a + b, 0)).toBeCloseTo(1500 * 9.80665, -2);
    expect(o.tireForces[0].y).toBeGreaterThan(0);
    expect(Math.abs(o.slipAngle[0])).toBeLessThan(0.02); // LuGre: the cornering force builds in presliding
    expect(o.rackTorque).toBeLessThan(0); // the aligning moment pulls the wheels back to centre
    expect(o.wheelMu).toEqual([1, 1, 1, 1]);
    expect(o.state).not.toBe(s.state()); // snapshots
  });
  it('with sensors enabled the measurements are noisy around the truth', () => {
    const s = SimSession.create({ ...base(), sensors: sensorParams({ enabled: true, seed: 3, gnssPos: sensorNoise({ noiseStd: 0.3 }) }), initial: { vx: 10 } });
    s.tick(0.005);
    const o = s.output();
    expect(o.sensors.gnssX).not.toBe(o.state.x);
    expect(Math.abs(o.sensors.gnssX - o.state.x)).toBeLessThan(1.5);
    expect(o.sensors.ax).toBe(o.ax);
  });
  it('dt ≤ 0 is ignored; reset() restores the initial state, clears the command and the clock', () => {
    const s = SimSession.create({ ...base(), initial: { vx: 10 } });
    s.tick(0);
    s.tick(-1);
    expect(s.simTime).toBe(0);
    s.setInput({ throttle: 1 });
    for (let i = 0; i < 20; i++) s.tick(0.005);
    s.reset(initialState({ vx: 3, wheelRadius: 0.32 }));
    expect([s.simTime, s.truth.vx, s.truth.x, s.latchedCommand.throttle]).toEqual([0, 3, 0, 0]);
  });
});
