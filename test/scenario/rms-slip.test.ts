/**
 * rms_slip and rms_slip_moving (issue 27 item 6): VDSim's rms_slip (RMS over every sample of the largest
 * |slip angle| of the four wheels) counts standstill, where a wheel's slip angle atan2(vy, vx) is anything up
 * to π — a lap that waits at a red light reads about 1 rad. rms_slip keeps that definition (VDSim-compatible);
 * rms_slip_moving leaves out the samples with |vx| ≤ SLIP_MOVING_MIN_VX_MPS. Hand-computed cases.
 */
import { describe, expect, it } from 'vitest';
import { vehicleParams } from '../../src/plant/index.js';
import { SLIP_MOVING_MIN_VX_MPS, TRACE_COLUMNS, Trace, computeMetrics, listMetrics } from '../../src/scenario/index.js';

type Row = Partial<Record<(typeof TRACE_COLUMNS)[number], number>>;

function trace(rows: Row[]): Trace {
  const t = new Trace();
  for (const r of rows) t.pushRow(TRACE_COLUMNS.map((c) => r[c] ?? 0));
  return t;
}

const vehicle = vehicleParams();
const slip = (rows: Row[]) => computeMetrics(['rms_slip', 'rms_slip_moving'], { trace: trace(rows), line: null, vehicle });

describe('rms_slip (VDSim, every sample) and rms_slip_moving (standstill left out)', () => {
  it('the threshold is 0.5 m/s', () => {
    expect(SLIP_MOVING_MIN_VX_MPS).toBe(0.5);
  });

  it('standing with slip angles near π (vx ≈ 0): rms_slip reads them, rms_slip_moving only the moving samples', () => {
    const rows: Row[] = [
      { t: 0, vx: 0, a0: 3.1, a1: -3.0 }, // standing: atan2 of tiny velocities
      { t: 1, vx: 0.3, a2: 2.0 }, // creeping below the threshold
      { t: 2, vx: 10, a0: 0.02, a1: -0.03 },
      { t: 3, vx: -6, a3: 0.04 }, // reversing counts as moving
      { t: 4, vx: 0.5, a0: 1.5 }, // at the threshold: left out (strictly above counts)
    ];
    const m = slip(rows);
    expect(m.rms_slip).toBeCloseTo(Math.sqrt((3.1 ** 2 + 2.0 ** 2 + 0.03 ** 2 + 0.04 ** 2 + 1.5 ** 2) / 5), 12);
    expect(m.rms_slip_moving).toBeCloseTo(Math.sqrt((0.03 ** 2 + 0.04 ** 2) / 2), 12);
    expect(m.rms_slip).toBeGreaterThan(1);
    expect(m.rms_slip_moving).toBeLessThan(0.05);
  });

  it('a run that always moves: both the same; one that never moves: rms_slip_moving is NaN', () => {
    const moving = slip([{ vx: 5, a0: 0.1 }, { vx: 6, a1: -0.2 }]);
    expect(moving.rms_slip_moving).toBe(moving.rms_slip);
    const standing = slip([{ vx: 0, a0: 3 }, { vx: 0.1, a1: 2 }]);
    expect(standing.rms_slip).toBeCloseTo(Math.sqrt((9 + 4) / 2), 12);
    expect(standing.rms_slip_moving).toBeNaN();
  });

  it('the descriptions say which is which', () => {
    const d = new Map(listMetrics().map((m) => [m.name, m]));
    expect(d.get('rms_slip')!.description).toMatch(/VDSim/);
    expect(d.get('rms_slip')!.description).toMatch(/standstill counts/);
    expect(d.get('rms_slip_moving')!.description).toMatch(/\|vx\| > 0\.5 m\/s only/);
    expect(d.get('rms_slip_moving')!.description).toMatch(/standstill left out/);
    expect(d.get('rms_slip_moving')!.unit).toBe('rad');
  });
});
