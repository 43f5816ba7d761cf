/**
 * The clocks of a scene's real cars, one FixClock (src/time/fix-clock.ts) per ego id: where each stamped fix
 * belongs on the server's clock, fed by the fixes and by the answers to the clock probes the stream sends to
 * every connection that drives an ego. Forgotten with the ego. The stream plugin is the only writer; the
 * status reads the stats.
 */
import { FixClock, type FixClockSettings, type FixClockStats, type FixDecision } from '../time/fix-clock.js';
import type { EgoFixTiming } from '../scene/index.js';

/** a connection that drives an ego is probed this often [s of the runner's clock] */
export const CLOCK_PROBE_PERIOD_S = 1;
/** the probes a connection may answer (the newest; an answer to an older one is ignored) */
export const CLOCK_PROBES_KEPT = 8;

export type PlacedFix = { ok: true; timing: EgoFixTiming; decision: FixDecision & { ok: true } } | { ok: false; decision: FixDecision & { ok: false } };

export class EgoClocks {
  private readonly clocks = new Map<string, FixClock>();

  constructor(private readonly settings: () => FixClockSettings) {}

  private clock(egoId: string): FixClock {
    let c = this.clocks.get(egoId);
    if (!c) {
      c = new FixClock(this.settings());
      this.clocks.set(egoId, c);
    } else c.configure(this.settings());
    return c;
  }

  /** A fix of egoId stamped `stampS` (the car's clock; none: placed at arrival) that arrived at arrivalS (server epoch seconds). */
  place(egoId: string, arrivalS: number, stampS: number | undefined): PlacedFix {
    const c = this.clock(egoId);
    const decision = c.place(arrivalS, stampS);
    if (!decision.ok) return { ok: false, decision };
    return { ok: true, decision, timing: { latencyS: decision.latencyS, offsetS: decision.offsetS, source: decision.source, outOfOrder: c.outOfOrder, clockJumps: c.jumps } };
  }

  /** A probe answered by the connection that drives these egos (times as FixClock.addProbe). */
  probe(egoIds: Iterable<string>, t1: number, t2: number, t3: number, t4: number): void {
    for (const id of egoIds) this.clocks.get(id)?.addProbe(t1, t2, t3, t4);
  }

  forget(egoId: string): void {
    this.clocks.delete(egoId);
  }

  stats(egoId: string): FixClockStats | null {
    return this.clocks.get(egoId)?.stats() ?? null;
  }
}
