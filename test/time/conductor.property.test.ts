/**
 * Property-based tests of the conductor's rules and invariants (fast-check): random asset counts, steps,
 * speeds, stalls and join/leave events; after every count-up, join and leave the invariants are recomputed
 * here from the raw times (not with the conductor's own checkInvariants), and every count-up's outcome is
 * compared with the rule. A deliberately broken core rule run through the same harness shows it can fail.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Conductor, type ConductorMode } from '../../src/time/conductor.js';

/** mulberry32: the per-tick decisions of one scenario come from its seed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    let t = (s = (s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What the harness needs of a conductor (so that a broken one can be run through it too). */
interface System {
  readonly timeUs: number;
  readonly dmaxUs: number;
  readonly coreStepUs: number;
  join(name: string, opts: { stepUs: number; kind?: 'simulated' | 'wallclock' }): { timeUs: number };
  leave(name: string): unknown;
  countUp(name: string): boolean;
  countUpCore(): boolean;
  assetTimeUs(name: string): number | undefined;
  lagging(): string[];
}

interface Scenario {
  mode: ConductorMode;
  coreStep: number;
  /** asset steps as multiples of the core step */
  stepMults: number[];
  wallMults: number[];
  dmaxExtra: number;
  /** per-asset probability of counting up at a tick */
  speeds: number[];
  coreSpeed: number;
  /** count-ups the core attempts per tick (its wall interval is shorter than the assets') */
  coreBurst: number;
  stallProb: number;
  maxStall: number;
  joinProb: number;
  leaveProb: number;
  ticks: number;
  seed: number;
}

interface Tally {
  countUps: number;
  coreProgress: number;
  assetProgress: number;
  retained: number;
  joins: number;
  leaves: number;
  violations: Record<string, number>;
  firstViolation: string;
  ruleMismatches: number;
  deadlocks: number;
  lockstepGaps: number;
  wallRetained: number;
  laggingSeen: number;
}

function newTally(): Tally {
  return {
    countUps: 0, coreProgress: 0, assetProgress: 0, retained: 0, joins: 0, leaves: 0, violations: {}, firstViolation: '', ruleMismatches: 0,
    deadlocks: 0, lockstepGaps: 0, wallRetained: 0, laggingSeen: 0,
  };
}

interface Live {
  name: string;
  step: number;
  wall: boolean;
  speed: number;
  stallLeft: number;
  /** lockstep: the last time this asset progressed to */
  last: number;
}

function dmaxOf(s: Scenario): number {
  const maxMult = Math.max(1, ...s.stepMults, ...s.wallMults);
  return s.mode === 'lockstep' ? s.coreStep : s.coreStep * maxMult + s.dmaxExtra;
}

function makeConductor(s: Scenario): Conductor {
  return new Conductor({ mode: s.mode, coreStepUs: s.coreStep, dmaxUs: s.mode === 'lockstep' ? undefined : dmaxOf(s) });
}

/** Runs one scenario against `sys`, checking everything after every event. */
function runScenario(s: Scenario, sys: System, t: Tally): void {
  const rnd = prng(s.seed);
  const dmax = sys.dmaxUs;
  const live: Live[] = [];
  let serial = 0;
  let wallTime = 0;
  const realtime = s.mode === 'realtime';
  const fail = (inv: string, detail: string): void => {
    t.violations[inv] = (t.violations[inv] ?? 0) + 1;
    if (!t.firstViolation) t.firstViolation = `${inv}: ${detail} (scenario ${JSON.stringify(s)})`;
  };
  const check = (): void => {
    const tc = sys.timeUs;
    let lo = Infinity;
    let hi = -Infinity;
    const lagging = new Set(sys.lagging());
    for (const a of live) {
      const ti = sys.assetTimeUs(a.name) ?? NaN;
      if (!(ti <= tc)) fail('a.2', `${a.name} ${ti} > Tc ${tc}`);
      const late = tc - ti > dmax;
      if (realtime && !a.wall) {
        if (late !== lagging.has(a.name)) fail('lagging', `${a.name} skew ${tc - ti}, listed ${lagging.has(a.name)}`);
        if (late) {
          t.laggingSeen++;
          continue; // reported, not prevented: (c.2)/(a.5) are over the assets in sync
        }
      } else if (lagging.has(a.name)) fail('lagging', `${a.name} listed outside realtime`);
      lo = Math.min(lo, ti);
      hi = Math.max(hi, ti);
    }
    if (lo === Infinity) return;
    if (tc > lo + dmax) fail('c.2', `Tc ${tc} > min Ti ${lo} + ${dmax}`);
    if (hi - lo > dmax) fail('a.5', `${hi} − ${lo} > ${dmax}`);
  };
  const join = (mult: number, wall: boolean, speed: number): void => {
    const name = `${wall ? 'w' : 'a'}${serial++}`;
    const step = s.coreStep * mult;
    const tc = sys.timeUs;
    const st = sys.join(name, { stepUs: step, kind: wall ? 'wallclock' : 'simulated' });
    if (st.timeUs !== Math.floor(tc / step) * step) t.ruleMismatches++;
    live.push({ name, step, wall, speed, stallLeft: 0, last: st.timeUs });
    t.joins++;
    check();
  };
  s.stepMults.forEach((m, i) => join(m, false, s.speeds[i % s.speeds.length]));
  if (realtime) s.wallMults.forEach((m) => join(m, true, 1));

  for (let tick = 0; tick < s.ticks; tick++) {
    wallTime += s.coreStep;
    // liveness: some participant can always count up when nobody is stalled (the rule cannot deadlock)
    if (!realtime && live.length > 0 && live.every((a) => a.stallLeft === 0)) {
      const tc = sys.timeUs;
      const minT = Math.min(...live.map((a) => sys.assetTimeUs(a.name) ?? Infinity));
      const coreCan = tc + s.coreStep - minT <= dmax;
      const assetCan = live.some((a) => (sys.assetTimeUs(a.name) ?? Infinity) + a.step <= tc);
      if (!coreCan && !assetCan) t.deadlocks++;
    }
    // join / leave
    if (rnd() < s.joinProb && live.length < 12) {
      const mults = s.mode === 'lockstep' ? [1] : s.stepMults;
      join(mults[Math.floor(rnd() * mults.length)], false, 0.2 + 0.8 * rnd());
    }
    if (rnd() < s.leaveProb && live.length > 0) {
      const sims = live.filter((a) => !a.wall);
      const a = sims[Math.floor(rnd() * sims.length)];
      if (a) {
        sys.leave(a.name);
        live.splice(live.indexOf(a), 1);
        t.leaves++;
        check();
      }
    }
    // every participant counts up (or not, by its speed and stalls), in a random order
    const order: (Live | 'core')[] = [...live, 'core'];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const p of order) {
      if (p === 'core') {
        if (realtime) {
          // the wall clock is the master: the core is paced by it and only wall-clock assets may hold it
          while (sys.timeUs + s.coreStep <= wallTime) {
            const walls = live.filter((a) => a.wall).map((a) => sys.assetTimeUs(a.name) ?? Infinity);
            const expect = sys.timeUs + s.coreStep - Math.min(Infinity, ...walls) <= dmax;
            const before = sys.timeUs;
            const got = sys.countUpCore();
            t.countUps++;
            if (got !== expect || sys.timeUs !== before + (got ? s.coreStep : 0)) t.ruleMismatches++;
            if (got) t.coreProgress++;
            else {
              t.retained++;
              check();
              break;
            }
            check();
          }
          continue;
        }
        for (let k = 0; k < s.coreBurst; k++) {
          if (rnd() >= s.coreSpeed) continue;
          const tc = sys.timeUs;
          const minT = Math.min(Infinity, ...live.map((a) => sys.assetTimeUs(a.name) ?? Infinity));
          const expect = tc + s.coreStep - minT <= dmax;
          const got = sys.countUpCore();
          t.countUps++;
          if (got !== expect || sys.timeUs !== tc + (got ? s.coreStep : 0)) t.ruleMismatches++;
          if (got) t.coreProgress++;
          else t.retained++;
          check();
        }
        continue;
      }
      if (!live.includes(p)) continue;
      if (p.wall) {
        // a wall-clock asset follows the wall clock and is never held back
        while ((sys.assetTimeUs(p.name) ?? Infinity) + p.step <= wallTime) {
          const before = sys.assetTimeUs(p.name) ?? NaN;
          const got = sys.countUp(p.name);
          t.countUps++;
          if (!got) t.wallRetained++;
          if (sys.assetTimeUs(p.name) !== before + p.step) t.ruleMismatches++;
          t.assetProgress++;
          check();
        }
        continue;
      }
      if (p.stallLeft > 0) {
        p.stallLeft--;
        continue;
      }
      if (rnd() < s.stallProb) {
        p.stallLeft = 1 + Math.floor(rnd() * s.maxStall);
        continue;
      }
      if (rnd() >= p.speed) continue;
      const ti = sys.assetTimeUs(p.name) ?? NaN;
      const tc = sys.timeUs;
      const expect = ti + p.step <= tc;
      const got = sys.countUp(p.name);
      t.countUps++;
      const now = sys.assetTimeUs(p.name) ?? NaN;
      if (got !== expect || now !== ti + (got ? p.step : 0)) t.ruleMismatches++;
      if (got) {
        t.assetProgress++;
        if (s.mode === 'lockstep') {
          if (now !== p.last + p.step) t.lockstepGaps++;
          p.last = now;
        }
      } else t.retained++;
      check();
    }
  }
}

const scenarioArb = (mode: ConductorMode, ticks: number): fc.Arbitrary<Scenario> =>
  fc.record({
    mode: fc.constant(mode),
    coreStep: fc.constantFrom(1, 2, 5, 10, 1000),
    stepMults: mode === 'lockstep' ? fc.array(fc.constant(1), { minLength: 1, maxLength: 10 }) : fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 10 }),
    wallMults: mode === 'realtime' ? fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 0, maxLength: 2 }) : fc.constant<number[]>([]),
    dmaxExtra: fc.integer({ min: 0, max: 40 }),
    speeds: fc.array(fc.double({ min: 0.05, max: 1, noNaN: true }), { minLength: 1, maxLength: 10 }),
    coreSpeed: fc.double({ min: 0.1, max: 1, noNaN: true }),
    coreBurst: fc.integer({ min: 1, max: 8 }),
    stallProb: fc.double({ min: 0, max: 0.05, noNaN: true }),
    maxStall: fc.integer({ min: 1, max: 60 }),
    joinProb: fc.double({ min: 0, max: 0.03, noNaN: true }),
    leaveProb: fc.double({ min: 0, max: 0.03, noNaN: true }),
    ticks: fc.constant(ticks),
    seed: fc.integer(),
  });

function expectClean(t: Tally): void {
  if (process.env.TALLY) console.log(JSON.stringify(t));
  expect(t.firstViolation).toBe('');
  expect(t.violations).toEqual({});
  expect(t.ruleMismatches).toBe(0);
  expect(t.deadlocks).toBe(0);
  expect(t.lockstepGaps).toBe(0);
  expect(t.wallRetained).toBe(0);
}

/** Runs `numRuns` random scenarios of a mode through the harness (stopping at the first failure) and checks the tally. */
function property(mode: ConductorMode, ticks: number, numRuns: number, seed: number): Tally {
  const t = newTally();
  const clean = (): boolean => t.firstViolation === '' && t.ruleMismatches === 0 && t.deadlocks === 0 && t.lockstepGaps === 0 && t.wallRetained === 0;
  fc.assert(
    fc.property(scenarioArb(mode, ticks), (s) => {
      runScenario(s, makeConductor(s), t);
      return clean();
    }),
    { numRuns, seed },
  );
  expectClean(t);
  return t;
}

describe('conductor properties (fast-check)', () => {
  it('afap: (a.2), (c.2), (a.5) after every count-up, join and leave; every count-up follows the rule; never deadlocks', () => {
    const t = property('afap', 800, 150, 14);
    expect(t.countUps).toBeGreaterThan(100_000);
    // the scenarios exercise both outcomes of both rules, and membership changes
    expect(t.coreProgress).toBeGreaterThan(1000);
    expect(t.assetProgress).toBeGreaterThan(1000);
    expect(t.retained).toBeGreaterThan(1000);
    expect(t.joins).toBeGreaterThan(150);
    expect(t.leaves).toBeGreaterThan(50);
  });

  it('lockstep: every asset sees every step, the core waits for all of them, invariants hold with dmax = one step', () => {
    const t = property('lockstep', 600, 60, 15);
    expect(t.countUps).toBeGreaterThan(20_000);
    expect(t.retained).toBeGreaterThan(1000);
  });

  it('realtime: wall-clock assets are never retained, simulated ones never hold the core; (a.2) always, lagging exactly when Tc − Ti > dmax, (c.2)/(a.5) over the assets in sync', () => {
    const t = property('realtime', 600, 80, 16);
    expect(t.countUps).toBeGreaterThan(20_000);
    expect(t.laggingSeen).toBeGreaterThan(100); // slow and stalled simulated assets did fall behind, and were reported
  });

  it('the harness catches a core rule that lets Tc run one step past dmax', () => {
    // the same rules with an off-by-one-step core: progress iff T'c − min Ti ≤ dmax + ΔTc
    class Broken implements System {
      timeUs = 0;
      readonly t = new Map<string, { time: number; step: number }>();
      constructor(readonly coreStepUs: number, readonly dmaxUs: number) {}
      join(name: string, o: { stepUs: number }) {
        const time = Math.floor(this.timeUs / o.stepUs) * o.stepUs;
        this.t.set(name, { time, step: o.stepUs });
        return { timeUs: time };
      }
      leave(name: string) {
        return this.t.delete(name);
      }
      countUp(name: string) {
        const a = this.t.get(name)!;
        if (a.time + a.step > this.timeUs) return false;
        a.time += a.step;
        return true;
      }
      countUpCore() {
        const min = Math.min(Infinity, ...[...this.t.values()].map((a) => a.time));
        if (this.timeUs + this.coreStepUs - min > this.dmaxUs + this.coreStepUs) return false;
        this.timeUs += this.coreStepUs;
        return true;
      }
      assetTimeUs(name: string) {
        return this.t.get(name)?.time;
      }
      lagging() {
        return [];
      }
    }
    const t = newTally();
    const s: Scenario = {
      mode: 'afap', coreStep: 10, stepMults: [1, 1, 2], wallMults: [], dmaxExtra: 20, speeds: [0.3, 0.9, 0.6], coreSpeed: 1, coreBurst: 2, stallProb: 0.01, maxStall: 20,
      joinProb: 0, leaveProb: 0, ticks: 500, seed: 1,
    };
    runScenario(s, new Broken(s.coreStep, dmaxOf(s)), t);
    expect(t.violations['c.2']).toBeGreaterThan(0);
    expect(t.ruleMismatches).toBeGreaterThan(0);
  });
});
