/**
 * Where a car's stamped fix belongs on the server's clock (src/time/fix-clock.ts): the estimator's decisions on
 * made-up arrivals and stamps, no clock read. A car whose clock is synchronised has its latency measured; one off
 * by seconds is placed by its answers to clock probes (NTP's two legs), or, without them, by the lower envelope of
 * its fixes; fixes stamped in the future, too old or out of order are refused with the reason and counted; a clock
 * that steps is followed after a few fixes and the jump counted.
 */
import { describe, expect, it } from 'vitest';
import { CLOCK_JUMP_S, FixClock, FUTURE_TOLERANCE_S, RESYNC_FIXES } from '../../src/time/fix-clock.js';
import { WindowMin } from '../../src/time/window-min.js';
import { SeededRandom } from '../../src/util/random.js';

const mulberry32 = (seed: number) => {
  const r = new SeededRandom(seed);
  return () => r.next();
};

const T0 = 1.8e9;

/** fixes every dt from T0, the car's clock `offset` ahead of the server's, each arriving latency(i) after it was taken */
function drive(clock: FixClock, n: number, opts: { dt?: number; offset?: number; latency: (i: number) => number; start?: number }) {
  const out = [];
  const dt = opts.dt ?? 0.1, offset = opts.offset ?? 0;
  for (let i = 0; i < n; i++) {
    const taken = (opts.start ?? T0) + i * dt;
    const latency = opts.latency(i);
    out.push({ truth: latency, d: clock.place(taken + latency, taken + offset) });
  }
  return out;
}

describe('WindowMin: the lower envelope over a sliding window', () => {
  it('is the smallest sample of the last windowS seconds', () => {
    const w = new WindowMin(1, 8);
    const rnd = mulberry32(3);
    const samples: Array<[number, number]> = [];
    for (let i = 0; i < 200; i++) {
      const t = i * 0.05, v = rnd();
      samples.push([t, v]);
      w.push(t, v);
      const want = Math.min(...samples.filter(([s]) => s >= t - 1).map(([, x]) => x));
      // a capacity of 8 may lose old minima, never report a value that was not a sample of the window
      expect(w.min).toBeGreaterThanOrEqual(want);
      expect(samples.some(([s, x]) => s >= t - 1 && x === w.min)).toBe(true);
    }
    const big = new WindowMin(1, 64);
    for (const [t, v] of samples) big.push(t, v);
    expect(big.min).toBe(Math.min(...samples.filter(([s]) => s >= samples[samples.length - 1][0] - 1).map(([, x]) => x)));
  });
});

describe('FixClock', () => {
  it('a synchronised car: its latency is measured on every fix (200 ms ± 30 ms), the offset is clock_offset_s', () => {
    const rnd = mulberry32(1);
    const c = new FixClock({ assumedOffsetS: 0, maxLatencyS: 0.5 });
    const r = drive(c, 100, { latency: () => 0.2 + (rnd() - 0.5) * 0.06 });
    for (const { truth, d } of r) {
      expect(d.ok).toBe(true);
      if (d.ok) {
        expect(d.source).toBe('synced');
        expect(d.offsetS).toBe(0);
        expect(d.latencyS).toBeCloseTo(truth, 6);
      }
    }
    expect(c.jumps).toBe(0);
    // GPS time against UTC: the configured offset is the assumption
    const gps = new FixClock({ assumedOffsetS: 18, maxLatencyS: 0.5 });
    const g = drive(gps, 10, { offset: 18, latency: () => 0.15 });
    expect(g.every((x) => x.d.ok && x.d.source === 'synced' && Math.abs(x.d.latencyS - 0.15) < 1e-6)).toBe(true);
  });

  it('a clock 2 s off without probes: the offset from the lower envelope (the least latency counts as 0), said as "fixes"', () => {
    const rnd = mulberry32(2);
    const c = new FixClock({ assumedOffsetS: 0, maxLatencyS: 0.5 });
    const r = drive(c, 100, { offset: 2, latency: () => 0.1 + rnd() * 0.06 });
    const last = r[r.length - 1].d;
    expect(last.ok && last.source).toBe('fixes');
    // offset = 2 − least latency seen; each fix's latency is its own less that least one
    const least = Math.min(...r.map((x) => x.truth));
    if (last.ok) {
      expect(last.offsetS).toBeCloseTo(2 - least, 6);
      expect(last.latencyS).toBeCloseTo(r[r.length - 1].truth - least, 6);
    }
  });

  it('a clock 2 s off that answers probes: offset and latency measured to a few milliseconds (300 ms ± 30 ms each way)', () => {
    const rnd = mulberry32(4);
    const lat = () => 0.3 + (rnd() - 0.5) * 0.06;
    const c = new FixClock({ assumedOffsetS: 0, maxLatencyS: 0.5 });
    const OFF = 2;
    // a minute of probes, once a second: sent at t1 (server), received after the downlink, answered at once
    for (let k = 0; k < 60; k++) {
      const t1 = T0 + k;
      const t2 = t1 + lat() + OFF;
      const t4 = t2 - OFF + lat();
      expect(c.addProbe(t1, t2, t2, t4)).toBe(true);
    }
    const r = drive(c, 50, { offset: OFF, latency: lat, start: T0 + 60 });
    for (const { truth, d } of r) {
      expect(d.ok && d.source).toBe('probe');
      if (d.ok) {
        expect(Math.abs(d.offsetS - OFF)).toBeLessThan(0.006);
        expect(Math.abs(d.latencyS - truth)).toBeLessThan(0.006);
      }
    }
    // a reply whose times cannot be is not taken
    expect(c.addProbe(T0 + 100, T0 + 102, T0 + 101, T0 + 100.5)).toBe(false);
  });

  it('refuses with the reason and counts: stamped in the future, older than ego_timeout_s, out of order; none stops the estimate', () => {
    const c = new FixClock({ assumedOffsetS: 0, maxLatencyS: 0.5 });
    drive(c, 20, { latency: () => 0.1 });
    const t = T0 + 3;
    const future = c.place(t, t + FUTURE_TOLERANCE_S + 0.1);
    expect(future).toMatchObject({ ok: false, reason: 'future' });
    expect(!future.ok && future.message).toMatch(/^stamped 0\.150 s in the future on the server clock \(offset 0\.000 s, synced\), more than 0\.05 s; not used$/);
    const stale = c.place(t + 0.1, t + 0.1 - 0.7);
    expect(stale).toMatchObject({ ok: false, reason: 'stale' });
    expect(!stale.ok && stale.message).toMatch(/stale fix: 0\.700 s old/);
    expect(c.place(t + 0.2, t + 0.1)).toMatchObject({ ok: true });
    const back = c.place(t + 0.3, t + 0.05);
    expect(back).toMatchObject({ ok: false, reason: 'out_of_order' });
    expect(c.place(t + 0.4, t + 0.3)).toMatchObject({ ok: true, latencyS: expect.closeTo(0.1, 6) });
    expect([c.refusedFuture, c.refusedStale, c.outOfOrder, c.jumps]).toEqual([1, 1, 1, 0]);
    // without a stamp a fix is placed at its arrival
    expect(new FixClock({ assumedOffsetS: 0, maxLatencyS: 0.5 }).place(T0, undefined)).toMatchObject({ ok: true, latencyS: 0, source: 'none' });
  });

  it('a clock that steps 1 s ahead: RESYNC_FIXES fixes refused, then followed again; the jump is counted with its size', () => {
    const c = new FixClock({ assumedOffsetS: 0, maxLatencyS: 0.5 });
    drive(c, 50, { latency: () => 0.1 });
    const r = drive(c, 20, { offset: 1, latency: () => 0.1, start: T0 + 5 });
    const refused = r.filter((x) => !x.d.ok).length;
    expect(refused).toBe(RESYNC_FIXES - 1);
    expect(r[RESYNC_FIXES - 1].d).toMatchObject({ ok: true, jumped: true, source: 'fixes' });
    expect(c.jumps).toBe(1);
    expect(c.lastJumpS).toBeCloseTo(1 - 0.1, 6);
    expect(r.slice(RESYNC_FIXES).every((x) => x.d.ok && !x.d.jumped)).toBe(true);
  });

  it('a few stray fixes do not move the estimate (one jump needs RESYNC_FIXES misfits that agree)', () => {
    const c = new FixClock({ assumedOffsetS: 0, maxLatencyS: 0.5 });
    let i = 0;
    const r = drive(c, 200, { latency: () => (++i % 7 === 0 ? 0.8 : 0.1) });
    expect(r.filter((x) => !x.d.ok).length).toBe(Math.floor(200 / 7));
    expect(c.jumps).toBe(0);
    expect(c.source).toBe('synced');
    expect(CLOCK_JUMP_S).toBe(0.1);
  });
});

describe('FixClock: a clock stepped back', () => {
  it('is refused as stale (not silently as out of order) until RESYNC_FIXES agree, then followed', () => {
    const c = new FixClock({ assumedOffsetS: 0, maxLatencyS: 0.5 });
    drive(c, 50, { latency: () => 0.1 });
    const r = drive(c, 10, { offset: -5, latency: () => 0.1, start: T0 + 5 });
    expect(r.slice(0, RESYNC_FIXES - 1).map((x) => !x.d.ok && x.d.reason)).toEqual(Array(RESYNC_FIXES - 1).fill('stale'));
    expect(r[RESYNC_FIXES - 1].d).toMatchObject({ ok: true, jumped: true });
    expect(c.outOfOrder).toBe(0);
  });
});

describe('FixClock: a frozen receiver', () => {
  it('repeating one old fix is refused every time (stale), never taken as a clock that stepped back', () => {
    const c = new FixClock({ assumedOffsetS: 0, maxLatencyS: 0.5 });
    drive(c, 50, { latency: () => 0.1 });
    for (let i = 0; i < 20; i++) expect(c.place(T0 + 6 + i * 0.1, T0 + 2)).toMatchObject({ ok: false, reason: 'stale' });
    expect(c.jumps).toBe(0);
  });
});
