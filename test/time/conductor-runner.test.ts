import { setImmediate as immediate, setTimeout as sleepMs } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { VirtualClock, createSystemClock } from '../../src/time/clock.js';
import { Conductor, JoinError } from '../../src/time/conductor.js';
import { ConductorRunner, type InProcessAsset, type RunnerEvent } from '../../src/time/conductor-runner.js';

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
function jitteryAsset(name: string, stepUs: number, seen: [number, number][], seed: number): InProcessAsset {
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

describe('ConductorRunner: in-process assets', () => {
  it('afap (greedy core): asynchronous assets with different steps reach the end, invariants hold at every change, each asset simulates a gapless sequence of steps', async () => {
    const c = new Conductor({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 50_000 });
    const runner = new ConductorRunner(c, { endUs: 2_000_000 });
    const seen = new Map<string, [number, number][]>();
    const steps = [10_000, 10_000, 20_000, 50_000, 30_000];
    steps.forEach((st, i) => {
      const log: [number, number][] = [];
      seen.set(`a${i}`, log);
      runner.addAsset(jitteryAsset(`a${i}`, st, log, i + 1));
    });
    const breaches: string[] = [];
    runner.onTc(() => breaches.push(...invariantBreaches(c)));
    const sum = await runner.run();
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
    const c = new Conductor({ mode: 'lockstep', coreStepUs: 5_000 });
    const runner = new ConductorRunner(c, { endUs: 500_000 });
    const times = new Map<string, number>();
    let spread = 0;
    for (let i = 0; i < 4; i++) {
      const name = `l${i}`;
      times.set(name, 0);
      runner.addAsset({
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
    const sum = await runner.run();
    expect(sum.violations).toBe(0);
    expect(sum.coreTimeUs).toBe(500_000);
    expect([...times.values()]).toEqual([500_000, 500_000, 500_000, 500_000]);
    expect(spread).toBeLessThanOrEqual(5_000);
    expect(c.dmaxUs).toBe(5_000);
  });

  it('realtime: the wall-clock asset is never held, a stalled simulated asset is reported lagging and stale, then in sync again', async () => {
    const clock = new VirtualClock(100);
    const c = new Conductor({ mode: 'realtime', coreStepUs: 10_000, dmaxUs: 100_000 });
    const runner = new ConductorRunner(c, { clock, endUs: 3_000_000 });
    const carTimes: number[] = [];
    const staleSeenByCar = new Set<string>();
    runner.addAsset({
      name: 'car',
      kind: 'wallclock',
      stepUs: 10_000,
      step: (_f, to) => {
        carTimes.push(to);
        staleSeenByCar.add(c.staleOutputs().join(','));
      },
    });
    let stalled = false;
    runner.addAsset({
      name: 'npc-world',
      stepUs: 50_000,
      async step(from) {
        if (from === 1_000_000 && !stalled) {
          stalled = true;
          await clock.sleepUntil(clock.now() + 0.6); // 0.6 s of trouble
        }
      },
    });
    const events: RunnerEvent[] = [];
    runner.onEvent((e) => events.push(e));
    const sum = await runner.run();
    const car = sum.status.assets.find((a) => a.name === 'car')!;
    expect(car.retained).toBe(0);
    expect(carTimes.length).toBe(300); // every 10 ms of the 3 s, none skipped, none late
    expect(carTimes.every((t, k) => t === (k + 1) * 10_000)).toBe(true);
    expect(sum.coreTimeUs).toBe(3_000_000);
    expect(sum.status.core.retained).toBe(0); // the NPC world never held the core
    expect([...staleSeenByCar].sort()).toEqual(['', 'npc-world']); // stale while it lagged
    expect(c.staleOutputs()).toEqual([]);
    const lag = events.filter((e) => e.type === 'lagging' || e.type === 'in_sync').map((e) => `${e.type}:${(e as { name: string }).name}`);
    expect(lag).toEqual(['lagging:npc-world', 'in_sync:npc-world']);
    expect(sum.violations).toBe(0); // (a.2) always; (c.2)/(a.5) over the assets in sync
    expect(sum.status.assets.find((a) => a.name === 'npc-world')!.timeUs).toBe(3_000_000);
  });

  it('an asset whose step throws is removed (error), one whose step never returns is removed after the timeout; the rest reach the end', async () => {
    const c = new Conductor({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 30_000 });
    const runner = new ConductorRunner(c, { endUs: 400_000, assetTimeoutS: 0.5, clock: createSystemClock({ spinS: 0 }) });
    for (let i = 0; i < 3; i++) runner.addAsset({ name: `ok${i}`, stepUs: 10_000, step: () => sleepMs(1) });
    runner.addAsset({
      name: 'thrower',
      stepUs: 10_000,
      step: (from) => {
        if (from === 100_000) throw new Error('plant diverged');
      },
    });
    runner.addAsset({ name: 'hang', stepUs: 20_000, step: (from) => (from === 200_000 ? new Promise<void>(() => undefined) : undefined) });
    const left: string[] = [];
    runner.onEvent((e) => {
      if (e.type === 'left') left.push(`${e.name}:${e.reason}@${e.status.timeUs}`);
    });
    const t0 = performance.now();
    const sum = await runner.run();
    expect(left).toEqual(['thrower:error: plant diverged@100000', 'hang:timeout@200000']);
    expect(sum.coreTimeUs).toBe(400_000);
    expect(sum.status.assets.map((a) => [a.name, a.timeUs])).toEqual([['ok0', 400_000], ['ok1', 400_000], ['ok2', 400_000]]);
    expect(sum.status.departed.map((d) => d.reason)).toEqual(['error: plant diverged', 'timeout']);
    expect(sum.violations).toBe(0);
    expect(performance.now() - t0).toBeLessThan(5_000);
  });

  it('joins mid-run start at the largest multiple of their step not above Tc; refused joins name their reason', async () => {
    const c = new Conductor({ mode: 'afap', coreStepUs: 10_000, dmaxUs: 40_000 });
    const runner = new ConductorRunner(c, { endUs: 1_000_000 });
    const seen: [number, number][] = [];
    runner.addAsset(jitteryAsset('first', 10_000, [], 3));
    let joinedAt = NaN;
    let tcAtJoin = NaN;
    const off = runner.onTc((tc) => {
      if (tc >= 330_000 && Number.isNaN(joinedAt)) {
        tcAtJoin = tc;
        joinedAt = runner.addAsset(jitteryAsset('late', 40_000, seen, 9)).timeUs;
        off();
      }
    });
    const sum = await runner.run();
    expect(joinedAt).toBe(Math.floor(tcAtJoin / 40_000) * 40_000);
    expect(seen[0][0]).toBe(joinedAt);
    expect(sum.violations).toBe(0);
    const refuse = (f: () => unknown): string => {
      try {
        f();
        return 'accepted';
      } catch (e) {
        return e instanceof JoinError ? e.reason : String(e);
      }
    };
    expect(refuse(() => c.join('x', { stepUs: 15_000 }))).toBe('step_not_multiple_of_core');
    expect(refuse(() => c.join('x', { stepUs: 50_000 }))).toBe('step_above_dmax');
    expect(refuse(() => c.join('first', { stepUs: 10_000 }))).toBe('name_taken');
    expect(refuse(() => c.join('car', { stepUs: 10_000, kind: 'wallclock' }))).toBe('wallclock_needs_realtime');
    expect(refuse(() => c.join('bad name', { stepUs: 10_000 }))).toBe('bad_name');
    expect(refuse(() => new Conductor({ mode: 'lockstep', coreStepUs: 10 }).join('y', { stepUs: 20 }))).toBe('lockstep_step');
  });
});
