import { describe, expect, it } from 'vitest';
import { Pacer } from '../../src/time/pacer.js';
import { VirtualClock, createSystemClock } from '../../src/time/clock.js';

describe('Pacer: an absolute schedule', () => {
  it('tick k is due at t0 + k·period; lateness never shifts later ticks', () => {
    const p = new Pacer(0.1);
    p.start(5);
    const due: number[] = [];
    for (const late of [0, 0.03, 0, 0.099, 0]) {
      due.push(p.due);
      expect(p.begin(p.due + late)).toBe(1);
    }
    expect(due.map((t) => Number(t.toFixed(9)))).toEqual([5, 5.1, 5.2, 5.3, 5.4]);
    expect(p.stats).toMatchObject({ ticks: 5, overruns: 0, skippedTicks: 0 });
    expect(p.stats.maxLateS).toBeCloseTo(0.099, 9);
  });
  it('a tick a whole period late is an overrun: missed ticks are skipped, the grid is kept', () => {
    const p = new Pacer(0.02);
    p.start(0);
    p.begin(0);
    expect(p.begin(0.095)).toBe(4); // due 0.02; 0.04, 0.06, 0.08 missed
    expect(p.stats).toMatchObject({ overruns: 1, skippedTicks: 3 });
    expect(p.due).toBeCloseTo(0.1, 12);
  });
  it('maxLagTicks tolerates some lag (the ticks then run back to back)', () => {
    const p = new Pacer(0.005, 10);
    p.start(0);
    expect(p.begin(0.03)).toBe(1);
    expect(p.stats.overruns).toBe(0);
  });
  it('setPeriod re-anchors at the next due tick: changing it at any rate never starves the schedule', async () => {
    const clock = new VirtualClock(0);
    const p = new Pacer(0.1);
    p.start(clock.now());
    let ticks = 0;
    for (let i = 0; i < 100; i++) {
      await clock.sleepUntil(p.due);
      p.begin(clock.now());
      ticks++;
      p.setPeriod(i % 2 ? 0.02 : 0.05); // a setting changed on every tick
    }
    expect(ticks).toBe(100);
    expect(clock.now()).toBeLessThan(0.1 + 50 * 0.05 + 50 * 0.02 + 1e-9);
    expect(p.stats.overruns).toBe(0);
    expect(() => p.setPeriod(0)).toThrow(/positive/);
  });
});

describe('Clock.sleepUntil with an abort signal', () => {
  it('the system clock ends a long sleep when the signal aborts (no timer left behind), and skips one already aborted', async () => {
    for (const spinS of [0, 0.0015]) {
      const clock = createSystemClock({ spinS });
      const stop = new AbortController();
      const sleeping = clock.sleepUntil(clock.now() + 3600, stop.signal);
      setTimeout(() => stop.abort(), 10);
      await sleeping; // an hour's sleep, ended by the abort (the test would time out otherwise)
      await clock.sleepUntil(clock.now() + 3600, stop.signal);
    }
  });
  it('the virtual clock does not move for an aborted sleep', async () => {
    const clock = new VirtualClock(2);
    const stop = new AbortController();
    stop.abort();
    await clock.sleepUntil(10, stop.signal);
    expect(clock.now()).toBe(2);
    await clock.sleepUntil(10);
    expect(clock.now()).toBe(10);
  });
});
