import { describe, expect, it } from 'vitest';
import { vehicleParams } from '../../src/plant/index.js';
import { TRACE_COLUMNS, Trace, computeMetrics, lapTimes, listMetrics, makeLine, project } from '../../src/scenario/index.js';

type Row = Partial<Record<(typeof TRACE_COLUMNS)[number], number>>;

function trace(rows: Row[]): Trace {
  const t = new Trace();
  for (const r of rows) t.pushRow(TRACE_COLUMNS.map((c) => r[c] ?? 0));
  return t;
}

const vehicle = vehicleParams(); // wheelbase 2.7

describe('metrics registry (hand-computed cases)', () => {
  const line = makeLine([[0, 0], [100, 0]], false);
  const rows: Row[] = [
    { t: 0, x: 0, y: 1, yaw: 0, vx: 10, ay: 1, a0: 0.01, a1: -0.02 },
    { t: 1, x: 10, y: -1, yaw: 0.1, vx: 10, ay: -3, a0: 0.03 },
    { t: 2, x: 20, y: 2, yaw: -0.2, vx: 10, ay: 2, a2: -0.04 },
    { t: 3, x: 30, y: 0, yaw: 0, vx: 10, vy: 0, ay: 0.5, Fz1: 4200 },
  ];
  const m = computeMetrics(['cte_rms', 'cte_max', 'heading_error_rms', 'heading_error_max', 'dist', 'peak_ay', 'vmax', 'rms_slip', 'max_fz', 'lap_time', 'npc_contacts'], { trace: trace(rows), line, vehicle });

  it('CTE: RMS of (1, −1, 2, 0) = √1.5, max 2', () => {
    expect(m.cte_rms).toBeCloseTo(Math.sqrt(1.5), 12);
    expect(m.cte_max).toBe(2);
  });
  it('heading error: RMS of (0, 0.1, −0.2, 0) = √0.0125, max 0.2', () => {
    expect(m.heading_error_rms).toBeCloseTo(Math.sqrt(0.0125), 12);
    expect(m.heading_error_max).toBeCloseTo(0.2, 12);
  });
  it('distance, peak a_y, v_max, RMS slip, max Fz', () => {
    expect(m.dist).toBeCloseTo(2 * Math.hypot(10, 2) + Math.hypot(10, 3), 12);
    expect(m.peak_ay).toBe(3);
    expect(m.vmax).toBe(10);
    expect(m.rms_slip).toBeCloseTo(Math.sqrt((0.02 ** 2 + 0.03 ** 2 + 0.04 ** 2) / 4), 12);
    expect(m.max_fz).toBe(4200);
  });
  it('no lap on an open run, no NPC figures without an NPC world', () => {
    expect(m.lap_time).toBeNaN();
    expect(m.npc_contacts).toBeNaN();
  });

  it('signed CTE: left of the line positive', () => {
    expect(project(line, 50, 3).cte).toBe(3);
    expect(project(line, 50, -3).cte).toBe(-3);
  });

  it('lap time: a 40 s circle of radius 20 m sampled every second — back within 8 m of the start at t = 38 s, then every 40 s', () => {
    const rowsC: Row[] = [];
    for (let t = 0; t <= 80; t++) {
      const a = (2 * Math.PI * t) / 40;
      rowsC.push({ t, x: 20 * Math.cos(a), y: 20 * Math.sin(a), yaw: a + Math.PI / 2, vx: (2 * Math.PI * 20) / 40 });
    }
    const tr = trace(rowsC);
    expect(lapTimes(tr.column('t'), tr.column('x'), tr.column('y'), tr.column('yaw'))).toEqual([38, 40]);
    const mc = computeMetrics(['lap_time', 'laps'], { trace: tr, line: null, vehicle });
    expect(mc).toEqual({ lap_time: 38, laps: 2 });
  });

  it('a lap needs the start heading: passing the start the other way is no lap', () => {
    const back: Row[] = [{ t: 0, x: 0, y: 0, yaw: 0 }, { t: 1, x: 20, y: 0, yaw: 0 }, { t: 2, x: 2, y: 0, yaw: Math.PI }];
    const tr = trace(back);
    expect(lapTimes(tr.column('t'), tr.column('x'), tr.column('y'), tr.column('yaw'))).toEqual([]);
  });

  it('ISO 7401 figures of a step: r after the step (0, 0.6, 0.55, 0.5, 0.5), a_y 5, δ 0.1 rad at 10 m/s', () => {
    const r = [0, 0, 0, 0, 0.6, 0.55, 0.5, 0.5];
    const rowsS: Row[] = r.map((v, i) => ({ t: i * 0.1, r: v, steer: i >= 3 ? 0.1 : 0, ay: i >= 4 ? 5 : 0, vx: 10 }));
    const s = computeMetrics(['yaw_rate_ss', 'yaw_rate_peak', 'overshoot', 'time_to_peak', 'response_time', 'settling_time', 'ay_ss', 'yaw_rate_gain', 'ay_per_steer', 'understeer_k', 'peak_lat_g'], { trace: trace(rowsS), line: null, vehicle });
    expect(s.yaw_rate_ss).toBe(0.5); // the last 20 % of 5 post-step samples: the last one
    expect(s.yaw_rate_peak).toBe(0.6);
    expect(s.overshoot).toBeCloseTo(1.2, 12);
    expect(s.time_to_peak).toBeCloseTo(0.1, 12);
    expect(s.response_time).toBeCloseTo(0.1, 12); // first ≥ 0.45
    expect(s.settling_time).toBeCloseTo(0.3, 12); // last outside ±0.025 is 0.55 at 0.2 → the next sample, 0.3
    expect(s.ay_ss).toBe(5);
    expect(s.yaw_rate_gain).toBeCloseTo(5, 12);
    expect(s.ay_per_steer).toBeCloseTo(50, 12);
    expect(s.understeer_k).toBeCloseTo((0.1 - (2.7 * 0.5) / 10) / 5, 12);
    expect(s.peak_lat_g).toBeCloseTo(5 / 9.80665, 12);
  });

  it('unknown metric names are refused with the known ones', () => {
    expect(() => computeMetrics(['cte'], { trace: trace([]), line: null, vehicle })).toThrow(/unknown metric 'cte' \(known: cte_rms, /);
    expect(listMetrics().map((d) => d.name)).toContain('heading_error_rms');
  });
});
