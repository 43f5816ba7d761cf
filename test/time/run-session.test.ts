/**
 * runSession (src/time/run-session.ts), the loop of a TimeSession without one of its own: greedy, paced and
 * realtime schedules, the end rule, a silent external asset removed after the timeout, joins during a run, and
 * the abort. Clocks are virtual wherever the test is about what the driver decides.
 */
import { setImmediate as immediate, setTimeout as sleepMs } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { VirtualClock, createSystemClock } from '../../src/time/clock.js';
import { Conductor, JoinError } from '../../src/time/conductor.js';
import { runSession } from '../../src/time/run-session.js';
import { TimeSession, type RunnerEvent, type SessionAsset } from '../../src/time/session.js';

/** Recomputes (a.2), (c.2), (a.5) from the raw status (independently of checkInvariants). */
function invariantBreaches(c: Conductor): string[] {
  const st = c.status();
  const inSync = st.assets.filter((a) => !a.lagging);
  const out: string[] = [];
  for (const a of st.assets) if (a.timeUs > st.coreTimeUs) out.push(`a.2 ${a.name}`);
  if (inSync.length === 0) return out;
  const lo = Math.min(...inSync.map((a) => a.timeUs));
  const hi = Math.max(...inSync.map((a) => a.timeUs));
  if (st.coreTimeUs > lo + st.dmaxUs) out.push(`c.2 Tc ${st.coreTimeUs} min ${lo}`);
  if (hi - lo > st.dmaxUs) out.push(`a.5 ${hi}-${lo}`);
  return out;
}

/** An asset whose step takes a random number of event-loop turns and records the intervals it simulated. */
function jitteryAsset(name: string, stepUs: number, seen: [number, number][], seed: number): SessionAsset {
  let s = seed;
  return {
    name,
    stepUs,
    async step(from, to) {
      seen.push([from, to]);
      s = (s * 1103515245 + 12345) % 2147483648;
      const turns = s % 7;
      for (let i = 0; i < turns; i++) await immediate();
    },
  };
}

/** A virtual clock that calls `hook` after every sleep (an external asset acting "meanwhile"). */
class HookedClock extends VirtualClock {
  hook: () => void = () => undefined;
  override async sleepUntil(t: number): Promise<void> {
    await super.sleepUntil(t);
    this.hook();
  }
}

describe('runSession: greedy and lockstep', () => {
  it('greedy afap: asynchronous assets with different steps reach the end, invariants hold at every change, each asset simulates a gapless sequence of steps', async () => {
    const s = new TimeSession({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 50_000, clock: new VirtualClock() });
    const seen = new Map<string, [number, number][]>();
    const steps = [10_000, 10_000, 20_000, 50_000, 30_000];
    steps.forEach((st, i) => {
      const log: [number, number][] = [];
      seen.set(`a${i}`, log);
      s.add(jitteryAsset(`a${i}`, st, log, i + 1));
    });
    const breaches: string[] = [];
    s.onTc(() => breaches.push(...invariantBreaches(s.conductor)));
    const sum = await runSession(s, { endUs: 2_000_000 });
    expect(breaches).toEqual([]);
    expect(sum.violations).toBe(0);
    expect(sum.checks).toBeGreaterThan(500);
    expect(sum.coreTimeUs).toBe(2_000_000);
    for (const [i, st] of steps.entries()) {
      const log = seen.get(`a${i}`)!;
      expect(log[0][0]).toBe(0);
      for (let k = 1; k < log.length; k++) expect(log[k][0]).toBe(log[k - 1][1]);
      expect(log.at(-1)![1]).toBe(Math.floor(2_000_000 / st) * st);
    }
    // the rule did bite: the core and the assets were held at times
    expect(sum.status.core.retained).toBeGreaterThan(0);
    expect(sum.status.assets.reduce((n, a) => n + a.retained, 0)).toBeGreaterThan(0);
    expect(Math.max(...sum.status.assets.map((a) => a.skewMaxUs))).toBeLessThanOrEqual(50_000);
  });

  it('lockstep: each step of every asset starts only when all assets have finished the previous one', async () => {
    const s = new TimeSession({ mode: 'lockstep', coreStepUs: 5_000, clock: new VirtualClock() });
    const times = new Map<string, number>();
    let spread = 0;
    for (let i = 0; i < 4; i++) {
      const name = `l${i}`;
      times.set(name, 0);
      s.add({
        name,
        stepUs: 5_000,
        async step(from, to) {
          // when any asset starts [from, to], every asset must be at `from` or already at `to`
          for (const t of times.values()) spread = Math.max(spread, Math.abs(t - from), t > to ? Infinity : 0);
          await sleepMs(i === 2 ? 1 : 0);
          times.set(name, to);
        },
      });
    }
    const sum = await runSession(s, { endUs: 500_000 });
    expect(sum.violations).toBe(0);
    expect(sum.coreTimeUs).toBe(500_000);
    expect([...times.values()]).toEqual([500_000, 500_000, 500_000, 500_000]);
    expect(spread).toBeLessThanOrEqual(5_000);
    expect(s.conductor.dmaxUs).toBe(5_000);
  });

  it('greedy: a silent external asset holds the core until the timeout removes it; the rest reach the end', async () => {
    const s = new TimeSession({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 30_000, clock: new VirtualClock(), assetTimeoutS: 1 });
    s.add({ name: 'a', stepUs: 10_000, step: () => undefined });
    s.attach('quiet', { stepUs: 10_000 });
    const sum = await runSession(s, { endUs: 500_000 });
    expect(sum.coreTimeUs).toBe(500_000);
    expect(sum.status.departed).toMatchObject([{ name: 'quiet', reason: 'timeout', atUs: 30_000, final: { timeUs: 0 } }]);
    expect(sum.wallS).toBeGreaterThan(1); // it held the core (at dmax) for the whole timeout
    expect(sum.status.assets.map((a) => [a.name, a.timeUs])).toEqual([['a', 500_000]]);
    expect(sum.violations).toBe(0);
  });

  it('joins during a run start at the largest multiple of their step not above Tc; refused joins name their reason', async () => {
    const s = new TimeSession({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 40_000, clock: new VirtualClock() });
    const seen: [number, number][] = [];
    s.add(jitteryAsset('first', 10_000, [], 3));
    let joinedAt = NaN;
    let tcAtJoin = NaN;
    const off = s.onTc((tc) => {
      if (tc >= 330_000 && Number.isNaN(joinedAt)) {
        tcAtJoin = tc;
        joinedAt = s.add(jitteryAsset('late', 40_000, seen, 9)).timeUs;
        off();
      }
    });
    const sum = await runSession(s, { endUs: 1_000_000 });
    expect(joinedAt).toBe(Math.floor(tcAtJoin / 40_000) * 40_000);
    expect(seen[0][0]).toBe(joinedAt);
    expect(seen.at(-1)![1]).toBe(1_000_000);
    expect(sum.violations).toBe(0);
    const refuse = (f: () => unknown): string => {
      try {
        f();
        return 'accepted';
      } catch (e) {
        return e instanceof JoinError ? e.reason : String(e);
      }
    };
    const step = (): void => undefined;
    expect(refuse(() => s.add({ name: 'x', stepUs: 15_000, step }))).toBe('step_not_multiple_of_core');
    expect(refuse(() => s.add({ name: 'x', stepUs: 50_000, step }))).toBe('step_above_dmax');
    expect(refuse(() => s.add({ name: 'first', stepUs: 10_000, step }))).toBe('name_taken');
    expect(refuse(() => s.attach('car', { stepUs: 10_000, kind: 'wallclock' }))).toBe('wallclock_needs_realtime');
    expect(refuse(() => s.add({ name: 'bad name', stepUs: 10_000, step }))).toBe('bad_name');
    expect(refuse(() => new Conductor({ mode: 'lockstep', coreStepUs: 10 }).join('y', { stepUs: 20 }))).toBe('lockstep_step');
  });

  it('with no asset, greedy time does not run; an abort ends the run', async () => {
    const s = new TimeSession({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 30_000, clock: createSystemClock({ spinS: 0 }) });
    const ac = new AbortController();
    const running = runSession(s, { signal: ac.signal });
    await sleepMs(30);
    ac.abort();
    const sum = await running;
    expect(sum.coreTimeUs).toBe(0);
    expect(sum.status.core.progressed).toBe(0);
  });

  it('refuses what cannot run: a speed of 0, realtime at an infinite speed', async () => {
    await expect(runSession(new TimeSession({ mode: 'afap', coreStepUs: 10, dmaxUs: 10 }), { speed: 0 })).rejects.toThrow(RangeError);
    await expect(runSession(new TimeSession({ mode: 'realtime', coreStepUs: 10, dmaxUs: 10 }), { speed: Infinity })).rejects.toThrow(RangeError);
  });
});

describe('runSession: paced', () => {
  it('one core count-up per tick: a retained count-up is lost, a late tick is one count-up, never a burst', async () => {
    const clock = new HookedClock();
    const s = new TimeSession({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 20_000, clock, assetTimeoutS: Infinity });
    s.attach('ext', { stepUs: 10_000 });
    // the external asset keeps up with Tc after every sleep of the driver, except for 50 ms from 0.2 s; at 0.4 s
    // the machine stalls for 45 ms (the Pacer's ticks in between are skipped)
    let stalled = false;
    clock.hook = () => {
      const now = clock.now();
      if (now >= 0.4 && !stalled) {
        stalled = true;
        clock.advance(0.045);
      }
      if (now >= 0.2 && now < 0.25) return;
      const tc = s.timeUs;
      if ((s.conductor.assetTimeUs('ext') ?? 0) < tc) s.report('ext', tc);
    };
    const changes: [number, number][] = [];
    s.onTc((tc) => changes.push([clock.now(), tc]));
    const sum = await runSession(s, { endUs: 600_000, speed: 1 });
    expect(sum.coreTimeUs).toBe(600_000);
    // every change of Tc is one step, each at a tick of its own (the tick after the stall too)
    for (let k = 1; k < changes.length; k++) {
      expect(changes[k][1] - changes[k - 1][1]).toBe(10_000);
      expect(changes[k][0]).toBeGreaterThan(changes[k - 1][0]);
    }
    // held at the ticks of 0.21-0.24 s while the external was quiet: those 4 count-ups were lost, not made up
    expect(sum.status.core).toEqual({ progressed: 60, retained: 4, dragged: 0 });
    const at = (t: number) => changes.find(([c]) => Math.abs(c - t) < 1e-9)?.[1];
    expect([at(0.2), at(0.25)]).toEqual([210_000, 220_000]);
    // the tick due at 0.40 s began at 0.445 s: one count-up, then the next on the grid at 0.45 s
    expect([at(0.39), at(0.445), at(0.45)]).toEqual([360_000, 370_000, 380_000]);
    // 60 steps of 10 ms, 4 ticks held and 4 skipped by the stall
    expect(sum.wallS).toBeCloseTo(0.68, 9);
    expect(sum.violations).toBe(0);
  });
});

describe('runSession: realtime', () => {
  it('the wall clock is never held; a stalled in-process asset is reported lagging and stale, then in sync again', async () => {
    const clock = new VirtualClock(100);
    const s = new TimeSession({ mode: 'realtime', coreStepUs: 10_000, dmaxUs: 100_000, clock });
    // the NPC world: 1 ms of wall time per 50 ms step, and 0.6 s of trouble once, at 1 s
    let stalled = false;
    s.add({
      name: 'npc-world',
      stepUs: 50_000,
      step(from) {
        clock.advance(0.001);
        if (from === 1_000_000 && !stalled) {
          stalled = true;
          clock.advance(0.6);
        }
      },
    });
    const staleSeen = new Set<string>();
    s.onTc(() => staleSeen.add(s.conductor.staleOutputs().join(',')));
    const events: RunnerEvent[] = [];
    s.onEvent((e) => events.push(e));
    const sum = await runSession(s, { endUs: 3_000_000, tickS: 0.01 });
    const wall = sum.status.assets.find((a) => a.name === 'wall-clock')!;
    expect(wall).toMatchObject({ timeUs: 3_000_000, progressed: 300, retained: 0 }); // every 10 ms of the 3 s
    expect(sum.coreTimeUs).toBe(3_000_000);
    expect(sum.status.core.retained).toBe(0); // the NPC world never held the core
    expect([...staleSeen].sort()).toEqual(['', 'npc-world']); // stale while it lagged
    expect(s.conductor.staleOutputs()).toEqual([]);
    const lag = events.filter((e) => e.type === 'lagging' || e.type === 'in_sync').map((e) => `${e.type}:${(e as { name: string }).name}`);
    expect(lag).toEqual(['lagging:npc-world', 'in_sync:npc-world']);
    expect(sum.violations).toBe(0); // (a.2) always; (c.2)/(a.5) over the assets in sync
    expect(sum.status.assets.find((a) => a.name === 'npc-world')!.timeUs).toBe(3_000_000);
  });
});
