/**
 * Where a car's fix belongs on the server's clock. A fix carries the car's own stamp (its clock, seconds since
 * the Unix epoch) and arrives some transport latency later: latency = arrival − (stamp − offset), with offset =
 * car clock − server clock. One-way messages cannot tell the offset from the latency (a clock 0.3 s behind looks
 * exactly like 0.3 s more latency), so the estimate is built from what can be observed, best first:
 *
 *  - `probe`: the car answers the server's clock probes (clock_probe / clock_reply on the stream). Each leg's
 *    lower envelope — min(car receipt − server send) = offset + the least downlink delay, and min(server receipt
 *    − car send) = the least uplink delay − offset — bounds the offset, and the fixes, being uplink samples too,
 *    may bound it tighter; the offset is the middle of the bounds, (down − up) / 2 where the least delays are the
 *    same both ways (NTP's assumption). Each envelope uses every sample of its leg, as NTP's clock filter keeps
 *    the samples of least delay.
 *  - `synced`: no probes, and the lower envelope of arrival − stamp (after the configured clock_offset_s) is a
 *    plausible least latency (0 … SYNCED_MAX_LATENCY_S, and within ego_timeout_s): the clocks are taken as synchronised (NTP, PTP or GNSS time, as on a
 *    test track), the offset is clock_offset_s, and each fix's latency is measured.
 *  - `fixes`: no probes and a clock off by more than that: the offset is the lower envelope itself, so the least
 *    latency counts as 0 — unobservable from fixes alone, which the status says.
 *  - `none`: no stamps: fixes are placed at their arrival.
 *
 * A fix that does not fit the estimate — stamped in the future beyond FUTURE_TOLERANCE_S, older than the
 * latency limit, or not after the last one taken (by less than that limit) — is refused with its reason and
 * counted. RESYNC_FIXES
 * misfits in a row that agree with one another, their stamps advancing (a clock that stepped, not a frozen
 * receiver repeating an old fix), start the estimate again from them; any
 * change of the offset by more than CLOCK_JUMP_S between two fixes taken is a clock jump, counted with its time,
 * so an attempt judged across it can say its data did not hold.
 *
 * Pure: no clock is read; the same arrivals, stamps and probe replies give the same decisions.
 */
import { WindowMin } from './window-min.js';

export type ClockSource = 'probe' | 'synced' | 'fixes' | 'none';

/** how long a fix's arrival − stamp counts for the lower envelope [s] */
export const FIX_WINDOW_S = 10;
/** how long a probe leg's delay counts for its envelope [s] */
export const PROBE_WINDOW_S = 120;
/** the probes decide while the newest reply is at most this old [s] */
export const PROBE_VALID_S = 30;
/** the least latency of a link whose clocks are taken as synchronised is at most this [s] (beyond, the clock is off) */
export const SYNCED_MAX_LATENCY_S = 1;
/** a fix stamped later than the server's clock (after the offset) by more than this is refused [s] */
export const FUTURE_TOLERANCE_S = 0.05;
/** misfits in a row that make a clock step (RESYNC: the estimate starts again from them) */
export const RESYNC_FIXES = 5;
/** an offset that moves by more than this between two fixes taken is a clock jump [s] */
export const CLOCK_JUMP_S = 0.1;
/** probe replies in a row that disagree with the estimate before the probe envelopes start again */
const PROBE_RESYNC = 3;
/** a probe reply whose legs span more than this is a lost or replayed one [s] */
const PROBE_MAX_SPAN_S = 10;

export interface FixClockSettings {
  /** the offset clients' clocks are assumed to have (clock_offset_s): car − server [s] */
  assumedOffsetS: number;
  /** a fix older than this on the server clock is refused (ego_timeout_s) [s] */
  maxLatencyS: number;
}

/** Where a fix belongs: it was measured latencyS before it arrived (server clock). */
export interface FixTiming {
  latencyS: number;
  /** the car's clock minus the server's, as estimated [s] */
  offsetS: number;
  source: ClockSource;
}

export type FixDecision =
  | ({ ok: true; jumped: boolean } & FixTiming)
  | { ok: false; reason: 'future' | 'stale' | 'out_of_order'; message: string };

/** What the status, the inspector and the recording show of a car's clock. */
export interface FixClockStats {
  offset_s: number;
  source: ClockSource;
  /** the latest taken fix's latency [s] (null before one) */
  latency_s: number | null;
  out_of_order: number;
  refused_future: number;
  refused_stale: number;
  jumps: number;
  /** server epoch seconds of the latest jump (null: none) and by how much the offset moved [s] */
  last_jump_at: number | null;
  last_jump_s: number;
  probes: number;
}

export class FixClock {
  private readonly fixEnv = new WindowMin(FIX_WINDOW_S, 2048);
  private readonly downEnv = new WindowMin(PROBE_WINDOW_S, 512);
  private readonly upEnv = new WindowMin(PROBE_WINDOW_S, 512);
  private lastProbeAt = -Infinity;
  private lastStamp = -Infinity;
  private taken = 0;
  private misfits = 0;
  private misfitMin = Infinity;
  private misfitMax = -Infinity;
  private misfitStamp = -Infinity;
  private probeMisfits = 0;
  offsetS: number;
  source: ClockSource = 'none';
  latencyS = NaN;
  outOfOrder = 0;
  refusedFuture = 0;
  refusedStale = 0;
  jumps = 0;
  lastJumpAt = NaN;
  lastJumpS = 0;
  probes = 0;

  constructor(private settings: FixClockSettings) {
    this.offsetS = settings.assumedOffsetS;
  }

  configure(settings: FixClockSettings): void {
    this.settings = settings;
  }

  /**
   * The offset the probes give at server time nowS (NaN: no probe reply lately). The offset lies between
   * −(least uplink delay) and the least downlink delay; every fix is an uplink sample too (it cannot arrive before
   * it was taken), so the least arrival − stamp of the fixes raises the lower bound. The middle of what is left
   * (NTP's estimate when the fixes add nothing).
   */
  private probeOffset(nowS: number): number {
    if (nowS - this.lastProbeAt > PROBE_VALID_S || this.downEnv.empty || this.upEnv.empty) return NaN;
    const hi = this.downEnv.min;
    let lo = -this.upEnv.min;
    this.fixEnv.expire(nowS);
    if (!this.fixEnv.empty && -this.fixEnv.min > lo && -this.fixEnv.min <= hi) lo = -this.fixEnv.min;
    return (lo + hi) / 2;
  }

  /** The offset and its source for a fix arriving at arrivalS with arrival − stamp = d, before it is taken. */
  private estimate(arrivalS: number, d: number): { offset: number; source: ClockSource } {
    const probe = this.probeOffset(arrivalS);
    if (probe === probe) return { offset: probe, source: 'probe' };
    this.fixEnv.expire(arrivalS);
    // the first fix (or the first after a silence longer than the window) judges itself
    const least = this.fixEnv.empty ? d : this.fixEnv.min;
    const cfg = this.settings.assumedOffsetS;
    const leastLatency = least + cfg;
    if (leastLatency >= -FUTURE_TOLERANCE_S && leastLatency <= Math.min(SYNCED_MAX_LATENCY_S, this.settings.maxLatencyS)) return { offset: cfg, source: 'synced' };
    return { offset: -least, source: 'fixes' };
  }

  /**
   * A fix stamped stampS (car clock) that arrived at arrivalS (server clock, epoch seconds): where it belongs, or
   * why it is refused. Without a stamp it is placed at its arrival.
   */
  place(arrivalS: number, stampS: number | undefined): FixDecision {
    if (stampS === undefined) {
      if (this.taken === 0) this.source = 'none';
      this.latencyS = 0;
      return { ok: true, jumped: false, latencyS: 0, offsetS: this.offsetS, source: this.source };
    }
    // (a stamp far behind the last one is judged as stale below: a clock stepped back is followed like one stepped ahead)
    if (stampS <= this.lastStamp && this.lastStamp - stampS <= this.settings.maxLatencyS) {
      this.outOfOrder++;
      return { ok: false, reason: 'out_of_order', message: `out of order: stamped ${(this.lastStamp - stampS).toFixed(3)} s before the last fix taken; dropped` };
    }
    const d = arrivalS - stampS;
    let est = this.estimate(arrivalS, d);
    let latency = d + est.offset;
    let resynced = false;
    if (latency < -FUTURE_TOLERANCE_S || latency > this.settings.maxLatencyS) {
      // a stepped clock still ticks: a run of misfits counts only while their stamps advance (a frozen receiver
      // repeating one old fix is stale, not a clock that stepped back)
      if (stampS <= this.misfitStamp) {
        this.misfits = 0;
        this.misfitMin = Infinity;
        this.misfitMax = -Infinity;
      }
      this.misfitStamp = stampS;
      this.misfits++;
      this.misfitMin = Math.min(this.misfitMin, d);
      this.misfitMax = Math.max(this.misfitMax, d);
      // a run of misfits that agree among themselves: the car's clock stepped; start again from them
      if (this.misfits >= RESYNC_FIXES && this.misfitMax - this.misfitMin <= this.settings.maxLatencyS) {
        this.fixEnv.clear();
        this.fixEnv.push(arrivalS, this.misfitMin);
        this.downEnv.clear();
        this.upEnv.clear();
        this.lastProbeAt = -Infinity;
        est = this.estimate(arrivalS, d);
        latency = d + est.offset;
        resynced = true;
      } else {
        const onServer = `on the server clock (offset ${this.offsetS.toFixed(3)} s, ${this.source})`;
        if (latency < 0) {
          this.refusedFuture++;
          return { ok: false, reason: 'future', message: `stamped ${(-latency).toFixed(3)} s in the future ${onServer}, more than ${FUTURE_TOLERANCE_S} s; not used` };
        }
        this.refusedStale++;
        return { ok: false, reason: 'stale', message: `stale fix: ${latency.toFixed(3)} s old ${onServer}, more than ego_timeout_s ${this.settings.maxLatencyS}; not used` };
      }
    }
    this.misfits = 0;
    this.misfitMin = Infinity;
    this.misfitMax = -Infinity;
    this.misfitStamp = -Infinity;
    this.fixEnv.push(arrivalS, d);
    this.lastStamp = stampS;
    const moved = est.offset - this.offsetS;
    const jumped = this.taken > 0 && (resynced || Math.abs(moved) > CLOCK_JUMP_S);
    if (jumped) {
      this.jumps++;
      this.lastJumpAt = arrivalS;
      this.lastJumpS = moved;
    }
    this.taken++;
    this.offsetS = est.offset;
    this.source = est.source;
    // a fix judged by a new lower envelope may come out a hair below 0: it is the least latency
    this.latencyS = Math.max(0, latency);
    return { ok: true, jumped, latencyS: this.latencyS, offsetS: est.offset, source: est.source };
  }

  /**
   * A reply to a clock probe: the server sent it at t1 (server clock), the car received it at t2 and answered
   * at t3 (car clock), the answer arrived at t4 (server clock). false when the times cannot be (a reply to a
   * probe never sent is refused by the caller).
   */
  addProbe(t1: number, t2: number, t3: number, t4: number): boolean {
    if (!(t4 >= t1 && t4 - t1 <= PROBE_MAX_SPAN_S && t3 >= t2 && t3 - t2 <= PROBE_MAX_SPAN_S)) return false;
    const down = t2 - t1, up = t4 - t3;
    const sample = (down - up) / 2;
    const rtt = t4 - t1 - (t3 - t2);
    const current = this.probeOffset(t4);
    if (current === current && Math.abs(sample - current) > rtt / 2 + CLOCK_JUMP_S) {
      // a reply that cannot be squared with the estimate: a few in a row and the car's clock has stepped
      if (++this.probeMisfits < PROBE_RESYNC) return true;
      this.downEnv.clear();
      this.upEnv.clear();
    }
    this.probeMisfits = 0;
    this.downEnv.push(t4, down);
    this.upEnv.push(t4, up);
    this.lastProbeAt = t4;
    this.probes++;
    return true;
  }

  stats(): FixClockStats {
    return {
      offset_s: this.offsetS, source: this.source, latency_s: this.latencyS === this.latencyS ? this.latencyS : null,
      out_of_order: this.outOfOrder, refused_future: this.refusedFuture, refused_stale: this.refusedStale,
      jumps: this.jumps, last_jump_at: this.lastJumpAt === this.lastJumpAt ? this.lastJumpAt : null, last_jump_s: this.lastJumpS, probes: this.probes,
    };
  }
}
