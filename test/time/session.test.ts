/**
 * TimeSession, the conductor of one VILS session (src/time/session.ts): its in-process assets step by the rule
 * and their data dependencies, external assets hold the core in afap and lockstep and never in realtime, a
 * detachable asset that cannot keep up in realtime is left behind and reported, and a reset starts again at 0.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/time/clock.js';
import { TimeSession, type RunnerEvent, type SessionAsset } from '../../src/time/session.js';

/** An in-process asset that records every step it takes. */
function asset(name: string, stepUs: number, opts: Partial<SessionAsset> = {}, log: string[] = []): SessionAsset & { t: number } {
  const a = {
    name, stepUs, t: 0, ...opts,
    step(from: number, to: number) {
      expect(from).toBe(a.t);
      a.t = to;
      log.push(`${name}@${to}`);
    },
  };
  return a;
}

describe('TimeSession: afap and lockstep', () => {
  it('afap: assets of steps 5, 20 and 100 ms reach the target; every check after a count-up finds |Ti − Tj| ≤ dmax', async () => {
    const s = new TimeSession({ mode: 'afap', coreStepUs: 5000, dmaxUs: 100_000, clock: new VirtualClock() });
    const a = asset('a', 5000);
    const b = asset('b', 20_000);
    const w = asset('w', 100_000);
    for (const x of [a, b, w]) s.add(x);
    let worst = 0;
    s.onTc(() => {
      const t = s.status().assets.map((x) => x.timeUs);
      worst = Math.max(worst, Math.max(...t) - Math.min(...t), s.timeUs - Math.min(...t));
    });
    const r = await s.advance(3_000_000);
    expect(r).toEqual({ tcUs: 3_000_000, held: false, waitedS: 0 });
    expect([a.t, b.t, w.t]).toEqual([3_000_000, 3_000_000, 3_000_000]);
    const st = s.status();
    expect(st.violations).toBe(0);
    expect(st.checks).toBeGreaterThan(600);
    expect(worst).toBeLessThanOrEqual(100_000);
    expect(worst).toBeGreaterThan(0); // the core did run ahead: afap, not lockstep
    expect(Math.max(...st.assets.map((x) => x.skewMaxUs))).toBeLessThanOrEqual(100_000);
  });

  it('a data dependency (ready) orders the exchange whatever the order of the assets', async () => {
    const run = async (order: 'ego-first' | 'world-first') => {
      const log: string[] = [];
      const s = new TimeSession({ mode: 'afap', coreStepUs: 5000, dmaxUs: 100_000, clock: new VirtualClock() });
      let worldAt = 0;
      const ego = asset('ego', 5000, { ready: (from) => worldAt >= Math.floor(from / 100_000) * 100_000 }, log);
      const world: SessionAsset = { name: 'world', stepUs: 100_000, ready: (from) => ego.t >= from + 100_000, step: (_f, to) => void log.push(`world@${(worldAt = to)}`) };
      for (const x of order === 'ego-first' ? [ego, world] : [world, ego]) s.add(x);
      await s.advance(1_000_000);
      return log;
    };
    const a = await run('ego-first');
    expect(a).toEqual(await run('world-first'));
    // the world steps at b only once the ego is at b, and the ego passes b only after the world's step at b
    expect(a.indexOf('world@100000')).toBe(a.indexOf('ego@100000') + 1);
  });

  it('lockstep: an external asset that reports late holds the core; maxWaitS returns short of the target, held', async () => {
    const clock = new VirtualClock();
    const s = new TimeSession({ mode: 'lockstep', coreStepUs: 10_000, clock, assetTimeoutS: Infinity });
    const a = asset('a', 10_000);
    s.add(a);
    s.attach('ext', { stepUs: 10_000 });
    // the external never reports: the core reaches one step, the in-process asset follows it, then both wait
    const r = await s.advance(100_000, { maxWaitS: 0.05 });
    expect(r.held).toBe(true);
    expect(r.tcUs).toBe(10_000);
    expect(a.t).toBe(10_000);
    // each report lets the session on by exactly one step: every asset sees every step
    for (let k = 1; k <= 5; k++) {
      expect(s.report('ext', k * 10_000).accepted).toBe(true);
      const rr = await s.advance(100_000, { maxWaitS: 0.05 });
      expect(rr.tcUs).toBe((k + 1) * 10_000);
      expect(a.t).toBe((k + 1) * 10_000);
    }
    const st = s.status();
    expect(st.violations).toBe(0);
    expect(st.assets.find((x) => x.name === 'ext')!.heldCore).toBeGreaterThan(0);
    expect(st.heldAdvances).toBe(6);
  });

  it('afap without maxWaitS waits for an external report, and a silent external is removed after the timeout', async () => {
    const clock = new VirtualClock();
    const s = new TimeSession({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 20_000, clock, assetTimeoutS: 1 });
    s.add(asset('a', 10_000));
    s.attach('ext', { stepUs: 10_000 });
    const events: RunnerEvent[] = [];
    s.onEvent((e) => events.push(e));
    const r = await s.advance(200_000);
    expect(r.tcUs).toBe(200_000);
    expect(r.waitedS).toBeGreaterThan(1);
    expect(events.some((e) => e.type === 'left' && e.name === 'ext' && e.reason === 'timeout')).toBe(true);
  });
});

describe('TimeSession: realtime', () => {
  it('the wall clock drags Tc; a slow detachable asset is left behind, reported lagging, and not waited for; the rest step', async () => {
    const clock = new VirtualClock();
    const s = new TimeSession({ mode: 'realtime', coreStepUs: 1000, dmaxUs: 100_000, clock });
    // a plant that takes 20 ms of wall time per 5 ms step (4× slower than real time)
    const slow: SessionAsset & { t: number } = { name: 'slow', stepUs: 5000, t: 0, step: (_f, to) => { clock.advance(0.02); slow.t = to; } };
    let worldSawSlowBehind = 0;
    const world: SessionAsset & { t: number } = {
      name: 'world', stepUs: 100_000, detachable: false, t: 0,
      ready: (from) => slow.t >= from + 100_000 || !s.waitsFor('slow'),
      step: (_f, to) => { if (slow.t < to) worldSawSlowBehind++; world.t = to; },
    };
    s.add(slow);
    s.add(world);
    const events: RunnerEvent[] = [];
    s.onEvent((e) => events.push(e));
    // ticks of 100 ms, each with a budget of 50 ms of wall time for detachable assets
    for (let k = 1; k <= 20; k++) {
      const r = await s.advance(k * 100_000, { budgetS: 0.05 });
      expect(r.held).toBe(false);
      expect(r.tcUs).toBe(k * 100_000); // never held: Tc is the wall clock's
      expect(world.t).toBe(k * 100_000); // the world is never left behind
      clock.advance(0.1);
    }
    expect(slow.t).toBeLessThan(2_000_000 - 100_000);
    expect(s.lagging()).toEqual(['slow']);
    expect(s.waitsFor('slow')).toBe(false);
    expect(events.some((e) => e.type === 'lagging' && e.name === 'slow')).toBe(true);
    expect(worldSawSlowBehind).toBeGreaterThan(10);
    const st = s.status();
    expect(st.assets.find((a) => a.name === 'slow')!.lagging).toBe(true);
    // (c.2) and (a.5) are reported for a lagging asset, not checked: no violation among those in sync
    expect(st.violations).toBe(0);
  });

  it('an external asset never holds the core; behind by more than dmax it is lagging, in sync again when it catches up', async () => {
    const s = new TimeSession({ mode: 'realtime', coreStepUs: 1000, dmaxUs: 50_000, clock: new VirtualClock() });
    s.attach('ext', { stepUs: 10_000 });
    await s.advance(200_000);
    expect(s.timeUs).toBe(200_000);
    expect(s.lagging()).toEqual(['ext']);
    expect(s.report('ext', 300_000).reason).toBe('ahead_of_core');
    expect(s.report('ext', 190_000).accepted).toBe(true);
    expect(s.lagging()).toEqual([]);
  });

  it('a caller-stepped asset (a plant on its own loop): mayStep drags the wall clock in realtime, holds by the rule in lockstep', async () => {
    const rt = new TimeSession({ mode: 'realtime', coreStepUs: 5000, dmaxUs: 100_000, clock: new VirtualClock() });
    rt.track('plant', 5000);
    rt.attach('ext', { stepUs: 5000 });
    for (let k = 1; k <= 10; k++) {
      expect(rt.mayStep('plant', k * 5000)).toBe(true); // the external never reports: the plant is never held
      rt.stepped('plant');
    }
    expect(rt.conductor.assetTimeUs('plant')).toBe(50_000);

    const ls = new TimeSession({ mode: 'lockstep', coreStepUs: 5000, clock: new VirtualClock(), assetTimeoutS: Infinity });
    ls.track('plant', 5000);
    ls.attach('ext', { stepUs: 5000 });
    let ticks = 0;
    for (let k = 1; k <= 10; k++) {
      if (ls.mayStep('plant', k * 5000)) {
        ls.stepped('plant');
        ticks++;
      }
      if (k % 2 === 0) ls.report('ext', ls.timeUs); // the external keeps up on every other loop tick only
    }
    expect(ticks).toBeLessThan(10);
    expect(ticks).toBeGreaterThan(2);
    expect(Math.abs((ls.conductor.assetTimeUs('plant') ?? 0) - (ls.conductor.assetTimeUs('ext') ?? 0))).toBeLessThanOrEqual(5000);
    expect(ls.status().violations).toBe(0);
  });

  it('reset: back to 0 with the same in-process assets; external assets are removed (they register again)', async () => {
    const s = new TimeSession({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 100_000, clock: new VirtualClock() });
    s.add(asset('a', 10_000));
    s.attach('ext', { stepUs: 10_000 });
    s.report('ext', 0);
    const events: RunnerEvent[] = [];
    s.onEvent((e) => events.push(e));
    s.reset();
    expect(s.timeUs).toBe(0);
    expect(s.conductor.names()).toEqual(['a']);
    expect(events).toContainEqual(expect.objectContaining({ type: 'left', name: 'ext', reason: 'reset' }));
  });
});
