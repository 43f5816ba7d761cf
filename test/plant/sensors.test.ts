import { describe, expect, it } from 'vitest';
import { SensorDelay, SensorMeasurement, SensorModel, VehicleState, neutralCommand, sensorNoise, sensorParams } from '../../src/plant/index.js';
import { SeededNormal } from '../../src/plant/sensors/random.js';

function truth(): VehicleState {
  const s = new VehicleState();
  s.x = 10;
  s.y = -4;
  s.yaw = Math.PI / 2;
  s.vx = 5;
  s.vy = 1;
  s.rollRate = 0.01;
  s.pitchRate = -0.02;
  s.yawRate = 0.3;
  s.wheelSpin.set([15, 16, 17, 18]);
  return s;
}
const accel = { ax: 0.5, ay: -1.5 };
const steer = { ...neutralCommand(), steer: 0.12 };

describe('sensor model (spec §7.8)', () => {
  it('disabled: measured = truth, az = 9.81, GNSS velocity in ENU', () => {
    const m = new SensorModel(sensorParams()).apply(truth(), accel, steer, 0.005, new SensorMeasurement()).snapshot();
    expect(m).toEqual({ ax: 0.5, ay: -1.5, az: 9.81, wx: 0.01, wy: -0.02, wz: 0.3, wheelSpeed: [15, 16, 17, 18], steer: 0.12, gnssX: 10, gnssY: -4, gnssVx: expect.closeTo(-1, 12), gnssVy: expect.closeTo(5, 12) });
  });
  it('constant bias is added to every channel of its group', () => {
    const p = sensorParams({ enabled: true, imuGyro: sensorNoise({ bias: 0.01 }), gnssPos: sensorNoise({ bias: 2 }) });
    const m = new SensorModel(p).apply(truth(), accel, steer, 0.005, new SensorMeasurement());
    expect([m.wx, m.wy, m.wz]).toEqual([0.02, -0.01, 0.31]);
    expect([m.gnssX, m.gnssY, m.ax]).toEqual([12, -2, 0.5]);
  });
  it('white noise has the configured σ and zero mean; the same seed gives the same stream', () => {
    const p = sensorParams({ enabled: true, seed: 42, imuAccel: sensorNoise({ noiseStd: 0.05 }) });
    const a = new SensorModel(p);
    const b = new SensorModel(p);
    const out = new SensorMeasurement();
    const xs: number[] = [];
    for (let i = 0; i < 20000; i++) {
      a.apply(truth(), accel, steer, 0.005, out);
      xs.push(out.ax - 0.5);
      if (i < 50) expect(b.apply(truth(), accel, steer, 0.005, new SensorMeasurement()).ax).toBe(out.ax);
    }
    const mean = xs.reduce((s, v) => s + v, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((s, v) => s + (v - mean) ** 2, 0) / xs.length);
    expect(Math.abs(mean)).toBeLessThan(0.002);
    expect(sd).toBeCloseTo(0.05, 2);
    const c = new SensorModel({ ...p, seed: 43 });
    expect(c.apply(truth(), accel, steer, 0.005, new SensorMeasurement()).ax).not.toBe(new SensorModel(p).apply(truth(), accel, steer, 0.005, new SensorMeasurement()).ax);
  });
  it('the bias random walk grows like bias_rw·√t (std over many seeds)', () => {
    const finals: number[] = [];
    for (let seed = 1; seed <= 300; seed++) {
      const m = new SensorModel(sensorParams({ enabled: true, seed, gnssPos: sensorNoise({ biasRw: 0.1 }) }));
      const out = new SensorMeasurement();
      for (let i = 0; i < 400; i++) m.apply(truth(), accel, steer, 0.01, out);
      finals.push(out.gnssX - 10);
    }
    const sd = Math.sqrt(finals.reduce((s, v) => s + v * v, 0) / finals.length);
    expect(sd / (0.1 * Math.sqrt(4))).toBeGreaterThan(0.85);
    expect(sd / (0.1 * Math.sqrt(4))).toBeLessThan(1.15);
  });
  it('reset restarts the seeded stream and zeroes the walks', () => {
    const m = new SensorModel(sensorParams({ enabled: true, seed: 9, wheelSpeed: sensorNoise({ noiseStd: 1, biasRw: 1 }) }));
    const first = m.apply(truth(), accel, steer, 0.01, new SensorMeasurement()).wheelSpeed[2];
    m.apply(truth(), accel, steer, 0.01, new SensorMeasurement());
    m.reset();
    expect(m.apply(truth(), accel, steer, 0.01, new SensorMeasurement()).wheelSpeed[2]).toBe(first);
  });
  it('the normal generator is standard normal', () => {
    const g = new SeededNormal(123);
    let s = 0;
    let s2 = 0;
    const n = 50000;
    for (let i = 0; i < n; i++) {
      const v = g.normal();
      s += v;
      s2 += v * v;
    }
    expect(Math.abs(s / n)).toBeLessThan(0.02);
    expect(s2 / n).toBeCloseTo(1, 1);
  });
});

describe('sensor delay (spec §7.7): whole states, round(delay/dt) samples old', () => {
  it('returns the state N = round(delay/dt) ticks back, the initial state until then', () => {
    const d = new SensorDelay(0.012, 0.005); // round(2.4) = 2
    const s = new VehicleState();
    d.reset(s);
    const out = new VehicleState();
    const seen: number[] = [];
    for (let k = 1; k <= 5; k++) {
      s.x = k;
      d.apply(s, 0.005, out);
      seen.push(out.x);
    }
    expect(seen).toEqual([0, 0, 1, 2, 3]);
  });
  it('zero delay is the identity; a shorter tick than the nominal one grows the buffer', () => {
    const s = new VehicleState();
    s.x = 7;
    expect(new SensorDelay(0, 0.005).apply(s, 0.005, new VehicleState()).x).toBe(7);
    const d = new SensorDelay(0.01, 0.005);
    d.reset(new VehicleState());
    const out = new VehicleState();
    const seen: number[] = [];
    for (let k = 1; k <= 8; k++) {
      s.x = k;
      seen.push(d.apply(s, 0.001, out).x); // N = 10 samples at 1 ms
    }
    expect(seen).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    for (let k = 9; k <= 12; k++) {
      s.x = k;
      seen.push(d.apply(s, 0.001, out).x);
    }
    expect(seen.slice(8)).toEqual([0, 0, 1, 2]);
  });
});
