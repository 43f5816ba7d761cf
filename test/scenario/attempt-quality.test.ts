/**
 * The data-quality gates of an attempt (src/scenario/attempt-quality.ts): each one holds on data that holds and
 * fails — with its value, limit and interval — when what it watches is broken: a car's fixes that stop, a stale,
 * forgotten or disconnected car, a clock that steps, a server that stalls or gives time up, an actor away from
 * its script.
 */
import { describe, expect, it } from 'vitest';
import { AttemptQuality, type CarAtBoundary } from '../../src/scenario/attempt-quality.js';

/** a car with fixes every `dt` from 0, the fixes in `lost` never taken, observed at 10 Hz boundaries until `until` */
function drive(q: AttemptQuality, opts: { dt?: number; until: number; lost?: (k: number) => boolean; stale?: (t: number) => boolean; jumpAt?: number }) {
  const dt = opts.dt ?? 0.1;
  const fixes: number[] = [];
  let k = 0;
  const car = (t: number): CarAtBoundary => {
    while (k * dt <= t + 1e-9) {
      if (!opts.lost?.(k)) fixes.push(k * dt);
      k++;
    }
    return { stale: opts.stale?.(t) ?? false, fixTime: fixes[fixes.length - 1], prevFixTime: fixes[fixes.length - 2] ?? NaN, fixCount: fixes.length, clockJumps: opts.jumpAt !== undefined && t >= opts.jumpAt ? 1 : 0 };
  };
  q.start(0, car(0), 0);
  for (let b = 1; b * 0.1 <= opts.until + 1e-9; b++) {
    const t = b * 0.1;
    q.observeCar(t, car(t));
    q.frame(t, 1000 + t);
    q.observeServer(t, 0);
  }
}

const gate = (q: AttemptQuality, name: string) => q.results().find((g) => g.gate === name)!;

describe('attempt quality gates', () => {
  it('every gate holds on a car that reports at 10 or 20 Hz with single fixes lost (gaps up to 0.3 s are allowed)', () => {
    for (const dt of [0.1, 0.05]) {
      const q = new AttemptQuality('car');
      // two fixes in a row lost at 10 Hz: a 0.3 s gap, at the limit, not over it
      drive(q, { dt, until: 20, lost: (k) => k % 37 === 5 || k % 37 === 6 });
      expect(q.invalid).toBe(false);
      expect(q.results().every((g) => g.ok)).toBe(true);
      expect(q.reason()).toBe('');
    }
  });

  it('a 5 s dropout: fix_gap with its length and when, and stale while it lasted', () => {
    const q = new AttemptQuality('car');
    drive(q, { until: 20, lost: (k) => k >= 80 && k < 130, stale: (t) => t > 8.45 && t < 13 });
    expect(q.invalid).toBe(true);
    expect(gate(q, 'fix_gap')).toMatchObject({ ok: false, value: expect.closeTo(5.1, 6), limit: 0.3, unit: 's', from_s: expect.closeTo(13, 6) });
    expect(gate(q, 'stale')).toMatchObject({ ok: false, from_s: expect.closeTo(8.5, 6), to_s: expect.closeTo(12.9, 6) });
    expect(q.reason()).toMatch(/^data did not hold: stale from 8\.50 to 12\.90 s: car was stale .*; also fix_gap$/);
  });

  it('fixes that queued behind a server stall are not a gap of the car; the stall is', () => {
    const q = new AttemptQuality('car');
    q.start(0, { stale: false, fixTime: 0, prevFixTime: -0.1, fixCount: 1, clockJumps: 0 }, 0);
    q.frame(0, 1000);
    // 0.6 s without a boundary or a frame; then the 6 fixes taken meanwhile all at once
    q.observeCar(0.7, { stale: false, fixTime: 0.6, prevFixTime: 0.5, fixCount: 7, clockJumps: 0 });
    q.frame(0.7, 1000.7);
    expect(gate(q, 'fix_gap').ok).toBe(true);
    expect(gate(q, 'server_stall')).toMatchObject({ ok: false, value: expect.closeTo(0.7, 6), limit: 0.3 });
  });

  it('a forgotten car, a closed connection, a clock jump, time given up, an actor off its script', () => {
    const q = new AttemptQuality('car');
    drive(q, { until: 3, jumpAt: 2 });
    q.observeServer(3.1, 0.4);
    q.observeActor(3.1, 'cutter', 10, 0, { x: 10.2, y: 0 });
    expect(gate(q, 'actor_off_plan').ok).toBe(true);
    q.observeActor(3.2, 'cutter', 10, 0, { x: 11.5, y: 0 });
    q.observeActor(3.3, 'cutter', 10, 0, null);
    q.disconnected(3.4);
    q.observeCar(3.5, null);
    expect(gate(q, 'clock_jump')).toMatchObject({ ok: false, value: 1, from_s: expect.closeTo(2, 6) });
    expect(gate(q, 'behind_plan')).toMatchObject({ ok: false, value: expect.closeTo(0.4, 9) });
    expect(gate(q, 'actor_off_plan')).toMatchObject({ ok: false, value: expect.closeTo(1.5, 9), limit: 0.5, unit: 'm', from_s: expect.closeTo(3.2, 9), to_s: expect.closeTo(3.3, 9) });
    expect(gate(q, 'disconnected')).toMatchObject({ ok: false, from_s: 3.4 });
    expect(gate(q, 'forgotten')).toMatchObject({ ok: false, from_s: 3.5 });
    expect(q.reason()).toMatch(/^data did not hold: clock_jump from 2\.00 to 3\.00 s/);
  });

  it('nothing is judged before the window starts', () => {
    const q = new AttemptQuality('car');
    q.disconnected(1);
    q.observeCar(1, null);
    q.frame(1, 10);
    q.frame(2, 20);
    expect(q.invalid).toBe(false);
  });
});
