/**
 * Whether the data an attempt is judged on held: its gates over the judged window (from the moment the actors
 * are placed to the end). A verdict on a car that was not where the scene had it — its fixes gapped, it went
 * stale or was forgotten, its connection closed, its clock stepped — or on a scene that was not where real time
 * put it — the server stalled or gave time up, an actor was not where its script put it — is neither passed nor
 * failed but `invalid`, with the gate, its measured value against its limit, and the interval it failed in.
 * Pure: the host feeds what it sees at each policy boundary and each published frame; no clock, no I/O.
 */

export type GateName = 'fix_gap' | 'stale' | 'forgotten' | 'disconnected' | 'clock_jump' | 'server_stall' | 'behind_plan' | 'actor_off_plan';

import { DEFAULT_QUALITY_LIMITS, type QualityLimits } from './story/spec.js';
import type { GateResult as StoryGateResult } from './story/world.js';

export { DEFAULT_QUALITY_LIMITS, type QualityLimits };

/** One gate over the attempt (JSON, in the attempt's result). */
export interface GateResult extends StoryGateResult {
  gate: GateName;
}

/** What the host knows of the vehicle under test at a boundary (null: not in the scene). */
export interface CarAtBoundary {
  stale: boolean;
  /** simulation time of its newest fix, and of the one before it */
  fixTime: number;
  prevFixTime: number;
  /** fixes taken so far (to tell one gap from several fixes between two boundaries) */
  fixCount: number;
  clockJumps: number;
}

interface Gate {
  name: GateName;
  limit: number | null;
  unit: string;
  value: number | null;
  from: number;
  to: number;
  what: string;
}

const fmt = (x: number, unit: string) => `${x.toFixed(unit === 'm' ? 2 : 3)}${unit ? ` ${unit}` : ''}`;

export class AttemptQuality {
  private readonly gates = new Map<GateName, Gate>();
  private lastFix = NaN;
  private lastCount = 0;
  private jumps0 = NaN;
  private slip0 = NaN;
  private lastFrameWall = NaN;
  private started = false;

  constructor(readonly car: string, readonly limits: QualityLimits = DEFAULT_QUALITY_LIMITS) {}

  /** The judged window begins at t (the actors placed), with the server's given-up time so far. */
  start(t: number, car: CarAtBoundary | null, givenUpS: number): void {
    this.started = true;
    this.lastFix = car ? car.fixTime : NaN;
    this.lastCount = car ? car.fixCount : 0;
    this.jumps0 = car ? car.clockJumps : 0;
    this.slip0 = givenUpS;
    this.lastFrameWall = NaN;
    if (!car) this.trip('forgotten', t, null, null, '', `${this.car} was not in the scene when the attempt started`);
  }

  get active(): boolean {
    return this.started;
  }

  /** A failure of `name` at t (the worst value kept; the interval grown). */
  private trip(name: GateName, t: number, value: number | null, limit: number | null, unit: string, what: string, worse = (a: number, b: number) => a > b): void {
    const g = this.gates.get(name);
    if (!g) {
      this.gates.set(name, { name, limit, unit, value, from: t, to: t, what });
      return;
    }
    g.to = Math.max(g.to, t);
    if (value !== null && (g.value === null || worse(value, g.value))) {
      g.value = value;
      g.what = what;
    }
  }

  /** The vehicle under test at a policy boundary t (null: forgotten or removed). */
  observeCar(t: number, car: CarAtBoundary | null): void {
    if (!this.started) return;
    if (!car) return this.trip('forgotten', t, null, null, '', `${this.car} left the scene (forgotten after its silence, or removed)`);
    if (car.stale) this.trip('stale', t, null, null, '', `${this.car} was stale (no fix for longer than ego_timeout_s): the NPCs and the criteria could not see it`);
    if (car.fixCount > this.lastCount) {
      // the gap before the newest fix; and, when several came since the last boundary, the mean of the ones
      // between the last fix seen and the one before the newest (fixes queued behind a stall are not a gap)
      const fresh = car.fixCount - this.lastCount;
      const gaps = [car.fixTime - (fresh > 1 ? car.prevFixTime : this.lastFix)];
      if (fresh > 2 && this.lastFix === this.lastFix) gaps.push((car.prevFixTime - this.lastFix) / (fresh - 1));
      else if (fresh === 2 && this.lastFix === this.lastFix) gaps.push(car.prevFixTime - this.lastFix);
      for (const gap of gaps) {
        if (gap > this.limits.maxFixGapS + 1e-6) this.trip('fix_gap', t, gap, this.limits.maxFixGapS, 's', `${this.car}'s fixes stopped for ${fmt(gap, 's')} (up to ${fmt(car.fixTime, 's')}): more than ${this.limits.maxFixGapS} s`);
      }
      this.lastFix = car.fixTime;
      this.lastCount = car.fixCount;
    }
    const jumps = car.clockJumps - this.jumps0;
    if (jumps > 0) this.trip('clock_jump', t, jumps, 0, '', `${this.car}'s clock stepped (${jumps} jump${jumps === 1 ? '' : 's'} of more than 0.1 s): its fixes moved in time`);
  }

  /** The connection that drove the car closed at t. */
  disconnected(t: number): void {
    if (this.started) this.trip('disconnected', t, null, null, '', `${this.car}'s connection closed`);
  }

  /** A frame published at wall-clock wallS [s] for simulation time t. */
  frame(t: number, wallS: number): void {
    if (!this.started) return;
    const gap = wallS - this.lastFrameWall;
    if (gap > this.limits.maxFrameGapS + 1e-6) this.trip('server_stall', t, gap, this.limits.maxFrameGapS, 's', `the server sent no frame for ${fmt(gap, 's')}: more than ${this.limits.maxFrameGapS} s (the car's stack saw the scene frozen)`);
    this.lastFrameWall = wallS;
  }

  /** The simulation time the server has given up so far (slipped or held), at boundary t. */
  observeServer(t: number, givenUpS: number): void {
    if (!this.started) return;
    const behind = givenUpS - this.slip0;
    if (behind > 1e-6) this.trip('behind_plan', t, behind, 0, 's', `simulation time fell ${fmt(behind, 's')} behind real time (a stall longer than max_catch_up_s, or the time conductor held the scene): the actors were behind their real-time plan`);
  }

  /** A scripted actor at boundary t: where the scene has it against where its script put it (null: not in the scene). */
  observeActor(t: number, id: string, plannedX: number, plannedY: number, actual: { x: number; y: number } | null): void {
    if (!this.started) return;
    if (!actual) return this.trip('actor_off_plan', t, null, this.limits.maxActorErrorM, 'm', `actor ${id} was not in the scene where its script had it`);
    const err = Math.hypot(actual.x - plannedX, actual.y - plannedY);
    if (err > this.limits.maxActorErrorM) this.trip('actor_off_plan', t, err, this.limits.maxActorErrorM, 'm', `actor ${id} was ${fmt(err, 'm')} from where its script put it: more than ${this.limits.maxActorErrorM} m`);
  }

  /** Any gate failed. */
  get invalid(): boolean {
    return this.gates.size > 0;
  }

  /** The first gate to fail, as a sentence with its interval ('' while every gate holds). */
  reason(): string {
    let first: Gate | null = null;
    for (const g of this.gates.values()) if (!first || g.from < first.from) first = g;
    if (!first) return '';
    const when = first.to > first.from ? `from ${first.from.toFixed(2)} to ${first.to.toFixed(2)} s` : `at ${first.from.toFixed(2)} s`;
    const more = this.gates.size > 1 ? `; also ${[...this.gates.keys()].filter((k) => k !== first!.name).join(', ')}` : '';
    return `data did not hold: ${first.name} ${when}: ${first.what}${more}`;
  }

  /** Every gate, held or failed, for the result. */
  results(): GateResult[] {
    const all: Array<[GateName, number | null, string]> = [
      ['fix_gap', this.limits.maxFixGapS, 's'], ['stale', null, ''], ['forgotten', null, ''], ['disconnected', null, ''], ['clock_jump', 0, ''],
      ['server_stall', this.limits.maxFrameGapS, 's'], ['behind_plan', 0, 's'], ['actor_off_plan', this.limits.maxActorErrorM, 'm'],
    ];
    return all.map(([name, limit, unit]) => {
      const g = this.gates.get(name);
      if (!g) return { gate: name, ok: true, value: null, limit, unit, from_s: null, to_s: null, detail: 'held' };
      return { gate: name, ok: false, value: g.value, limit: g.limit, unit: g.unit, from_s: g.from, to_s: g.to, detail: g.what };
    });
  }
}
