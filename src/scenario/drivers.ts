/**
 * Built-in drivers of a simulated vehicle (spec §2.4, §9.2): the autopilot — pure pursuit on the driving line
 * plus a speed controller that slows for the line's speeds ahead and keeps a time gap to the vehicle ahead on
 * the line (NPCs and other egos) — and VDSim's experiment manoeuvres. Both write a pedal command for the
 * plant's true state at plant time t; neither allocates per tick.
 */
import type { VehicleParams } from '../plant/params/vehicle.js';
import type { VehicleState } from '../plant/state.js';
import type { DriverCommand } from '../plant/types.js';
import type { AutopilotSpec, ManeuverSpec } from './ego-config.js';
import { type DrivingLine, type LineProjection, alongDistance, pointAt, project } from './line.js';
import type { StopLine } from '../vehicle/index.js';

/** A vehicle the autopilot may have to follow: position and velocity at `t` (map frame). */
export interface TrafficObject {
  x: number;
  y: number;
  vx: number;
  vy: number;
  length: number;
  /** heading [rad] and width [m], when known: a vehicle across the line blocks it with its length */
  yaw?: number;
  width?: number;
}

export interface TrafficView {
  t: number;
  objects: readonly TrafficObject[];
  /** red and yellow stop lines as of t */
  stops?: readonly StopLine[];
}

/** VDSim's throttle_hold: clamp((v − vx)/3 + 0.05, 0, 1); above the target by more than 0.5 m/s it brakes (−e/3). */
export function speedControl(vTarget: number, vx: number, out: DriverCommand): void {
  const e = vTarget - vx;
  out.throttle = 0;
  out.brake = 0;
  if (vTarget < 0.3 && vx < 0.5) out.brake = 0.3; // hold at a standstill
  else if (e >= -0.5) out.throttle = Math.min(1, Math.max(0, e / 3 + 0.05));
  else out.brake = Math.min(1, -e / 3);
}

/** Pure-pursuit steer toward (tx, ty) for the state s: atan2(2·L·dy, ld²), clamped to the steering limit. */
export function pursuitSteer(vp: Readonly<VehicleParams>, s: Readonly<VehicleState>, tx: number, ty: number): number {
  const ex = tx - s.x, ey = ty - s.y;
  const c = Math.cos(s.yaw), sn = Math.sin(s.yaw);
  const dx = c * ex + sn * ey;
  const dy = -sn * ex + c * ey;
  const ld2 = Math.max(1, dx * dx + dy * dy);
  const max = vp.maxSteerAngleWheel > 0 ? vp.maxSteerAngleWheel : 0.5;
  return Math.min(max, Math.max(-max, Math.atan2(2 * vp.wheelbase * dy, ld2)));
}

const FOLLOW_PERIOD_S = 0.02;
/** a vehicle whose body comes within this of the line is in the way [m] */
const CORRIDOR_HALF_WIDTH_M = 1.5;
const FOLLOW_RANGE_M = 120;
/** crossing vehicles are also checked where they will be this much later [s] */
const PREDICT_S = 2;
/** … sampled at these times: a car crossing at 30 km/h moves 4 m in 0.5 s, less than the corridor it crosses */
const PREDICT_TIMES_S = [0, 0.5, 1, 1.5, PREDICT_S];
/** standing this long for crossing traffic is enough: it goes, and the crossing vehicles must yield [s] */
const DEADLOCK_S = 5;
/** … for as long as the crossing takes [s] */
const DEADLOCK_COMMIT_S = 4;
/**
 * a standing crossing vehicle whose body leaves this much of the line's half corridor is passed [m] (an ego
 * half 0.9 m wide keeps 0.2 m; with 1.3 the car stood for good before an NPC whose nose stopped 1.2 m from its
 * line, the NPC standing for the car that had stopped in its lane: demo lap, seed 1)
 */
const PASS_ROOM_M = 1.1;
/** the front stops this far before a red stop line [m] */
const STOP_LINE_MARGIN_M = 1;
/** on yellow the vehicle stops when it can at this deceleration, as the NPCs (issue 22) [m/s²] */
const YELLOW_DECEL = 3;
/**
 * a red (or chosen yellow) line stays a stop while the front can still stop no further than this past it, braking
 * at most at STOP_HARD_FRACTION of the brakes' full deceleration; a front that cannot has entered (it clears the
 * junction) [m]
 */
const STOP_OVERRUN_M = 0.5;
const STOP_HARD_FRACTION = 0.9;
/** … and never harder than this [m/s²] */
const STOP_HARD_MAX = 6;
/**
 * on the way to a stop line, once stopping at its stop point takes this share of spec.decel, the brake is set for
 * the deceleration that takes (v²/2d) instead of following the speed target: the speed controller (brake ∝ the
 * excess over the target) trailed the braking curve by ~2 m/s and let its brake fade near the line — the car
 * crept over red lines at 1 m/s (demo lap, seeds 2 and 6)
 */
const STOP_BRAKE_ONSET = 0.8;
/** a stop line whose movement's entry and exit lie this close to the line is on it [m] */
const STOP_ON_LINE_M = 2;

export class Autopilot {
  private readonly proj: LineProjection = { seg: 0, s: 0, cte: 0, heading: 0, x: 0, y: 0 };
  private readonly other: LineProjection = { seg: 0, s: 0, cte: 0, heading: 0, x: 0, y: 0 };
  private hint = -1;
  private traffic: TrafficView | null = null;
  private followT = -Infinity;
  private followV = Infinity;
  /** the gap to the vehicle followed at the last check [m] (Infinity: none) */
  gap = Infinity;
  /** since when the vehicle has stood (slower than 0.3 m/s) [s] */
  private stoppedSince = 0;
  /** until when crossing vehicles are left to yield (after standing DEADLOCK_S for them) [s] */
  private committedUntil = -Infinity;
  /** the yellow line it chose to stop at (the scene rebuilds its stop points on any signal change: matched by place) */
  private yellowStop: StopLine | null = null;
  /** the entry (on the line, s) of the red or chosen yellow line it stops at, as of the last check (NaN: none) */
  private stopS = NaN;
  /** a stop line held it at the last check (standing there is not standing for crossing traffic) */
  private heldAtLine = false;
  /** deceleration at full brake [m/s²] */
  private readonly brakeDecel: number;
  /** the most it brakes to stop at a red line [m/s²] */
  private readonly hardDecel: number;

  constructor(
    readonly spec: AutopilotSpec,
    readonly line: DrivingLine,
    private readonly vp: Readonly<VehicleParams>,
    private readonly length: number,
    /** speed where neither the spec nor the line gives one [m/s] */
    private readonly fallbackSpeed = 10,
  ) {
    const full = vp.maxBrakeTorque / (vp.wheelRadiusNominal * vp.mass);
    this.brakeDecel = Number.isFinite(full) && full > 0 ? full : STOP_HARD_MAX;
    this.hardDecel = Math.min(STOP_HARD_MAX, STOP_HARD_FRACTION * this.brakeDecel);
  }

  reset(): void {
    this.hint = -1;
    this.traffic = null;
    this.followT = -Infinity;
    this.followV = Infinity;
    this.gap = Infinity;
    this.stoppedSince = 0;
    this.committedUntil = -Infinity;
    this.yellowStop = null;
    this.stopS = NaN;
    this.heldAtLine = false;
  }

  /** The vehicles around, as of t (the NPCs after a policy step, other egos). */
  observe(view: TrafficView): void {
    this.traffic = view;
  }

  private lineSpeed(seg: number): number {
    if (this.spec.speed !== null) return this.spec.speed;
    const v = this.line.vs[seg];
    return (Number.isFinite(v) ? v : this.fallbackSpeed) * this.spec.speedFactor;
  }

  /** The highest speed from which the line's speeds ahead can be met braking at `decel`. */
  private anticipated(s: number, v: number): number {
    const decel = this.spec.decel;
    const horizon = (v * v) / (2 * decel) + 10;
    let allowed = this.lineSpeed(this.proj.seg);
    if (this.spec.speed !== null) return allowed;
    const line = this.line;
    const n = line.xs.length;
    let k = this.proj.seg;
    for (let c = 0; c < n; c++) {
      k = k + 1 < n ? k + 1 : line.closed ? 0 : -1;
      if (k < 0) break;
      const d = alongDistance(line, s, line.cum[k]);
      if (d > horizon) break;
      allowed = Math.min(allowed, Math.sqrt(this.lineSpeed(k) ** 2 + 2 * decel * d));
    }
    return allowed;
  }

  /** A speed that keeps the time gap to the nearest vehicle ahead on the line (Infinity: none). */
  private followSpeed(s: Readonly<VehicleState>, t: number): number {
    const view = this.traffic;
    this.gap = Infinity;
    if (!view || !this.spec.follow) return Infinity;
    const dtv = t - view.t;
    let best = Infinity;
    let leadV = 0;
    let leadLen = 0;
    for (const o of view.objects) {
      // where it is, and — for a vehicle crossing the line — where it will be in PREDICT_S: yield before the crossing
      for (const ahead of PREDICT_TIMES_S) {
        const ox = o.x + o.vx * (dtv + ahead), oy = o.y + o.vy * (dtv + ahead);
        if (Math.abs(ox - s.x) > FOLLOW_RANGE_M || Math.abs(oy - s.y) > FOLLOW_RANGE_M) continue;
        project(this.line, ox, oy, this.other, this.proj.seg, FOLLOW_RANGE_M, 0);
        const rel = o.yaw === undefined ? 0 : o.yaw - this.other.heading;
        const crossing = Math.abs(Math.cos(rel)) <= 0.7;
        if (ahead > 0 && !crossing) continue;
        // standing DEADLOCK_S at a crossing (a crossing vehicle standing too, or a stream of them that never
        // ends): go, and let the crossing vehicles yield, for as long as the crossing takes (moving resets
        // stoppedSince: without the commitment it crept 8 cm and stood again, for minutes)
        // Committed, it still waits for a crossing vehicle in its way now: one moving through (it clears) or
        // one standing with its body across the way (it cannot pass it)
        if (crossing && t - this.stoppedSince > DEADLOCK_S) this.committedUntil = t + DEADLOCK_COMMIT_S;
        const committed = crossing && t < this.committedUntil;
        if (committed && ahead > 0) continue;
        const extent = (o.length / 2) * Math.abs(Math.sin(rel)) + ((o.width ?? 1.8) / 2) * Math.abs(Math.cos(rel));
        const room = Math.abs(this.other.cte) - extent;
        if (room > CORRIDOR_HALF_WIDTH_M) continue;
        if (committed && Math.hypot(o.vx, o.vy) < 0.3 && room > PASS_ROOM_M) continue;
        const d = alongDistance(this.line, this.proj.s, this.other.s);
        if (!(d > 0 && d < FOLLOW_RANGE_M) || d >= best) continue;
        best = d;
        leadV = ahead > 0 ? 0 : o.vx * Math.cos(this.other.heading) + o.vy * Math.sin(this.other.heading);
        leadLen = o.length;
      }
    }
    if (!Number.isFinite(best)) return Infinity;
    const gap = best - (this.length + leadLen) / 2;
    this.gap = gap;
    const { timeGapS, minGapM, decel } = this.spec;
    const lead = Math.max(0, leadV);
    if (gap <= minGapM) return 0;
    const safe = Math.sqrt(lead * lead + 2 * decel * (gap - minGapM));
    const keep = lead + (gap - minGapM - timeGapS * Math.max(s.vx, lead)) / Math.max(timeGapS, 0.1);
    return Math.max(0, Math.min(safe, Math.max(keep, 0)));
  }

  /**
   * The highest speed that stops the front before the nearest red (or stoppable yellow) line ahead (Infinity:
   * none); sets stopS. A line holds while the front can still stop no more than STOP_OVERRUN_M past it at
   * hardDecel (a car creeping up to a line that turns red stops: it used to ignore a line once its front was
   * 0.2 m over, at any speed); past that, the vehicle has entered and clears the junction.
   */
  private stopLineSpeed(s: Readonly<VehicleState>): number {
    this.stopS = NaN;
    const stops = this.traffic?.stops;
    // the chosen yellow is forgotten once it no longer shows yellow (red holds by itself; the next yellow is new)
    if (this.yellowStop) {
      let shown = false;
      for (const p of stops ?? []) if (p.yellow && sameMovement(p, this.yellowStop)) shown = true;
      if (!shown) this.yellowStop = null;
    }
    if (!stops || stops.length === 0 || !this.spec.follow) return Infinity;
    const half = this.length / 2;
    const v = Math.max(0, s.vx);
    let best = Infinity;
    let bestS = NaN;
    for (const p of stops) {
      if (Math.abs(p.x - s.x) > FOLLOW_RANGE_M || Math.abs(p.y - s.y) > FOLLOW_RANGE_M) continue;
      project(this.line, p.x, p.y, this.other, this.proj.seg, FOLLOW_RANGE_M, 0);
      if (Math.abs(this.other.cte) > STOP_ON_LINE_M || Math.cos(p.yaw - this.other.heading) < 0.7) continue;
      const front = alongDistance(this.line, this.proj.s, this.other.s) - half;
      if (!(front > -STOP_OVERRUN_M && front < FOLLOW_RANGE_M) || front >= best) continue;
      // it cannot stop before the line (+ STOP_OVERRUN_M) any more: it goes through
      if (v * v > 2 * this.hardDecel * (front + STOP_OVERRUN_M)) continue;
      const entryS = this.other.s;
      project(this.line, p.exitX, p.exitY, this.other, this.other.seg, p.length + 20, 0);
      const through = alongDistance(this.line, entryS, this.other.s);
      if (Math.abs(this.other.cte) > STOP_ON_LINE_M || through < 0.5 * p.length || through > 1.5 * p.length + 5) continue;
      const room = front - STOP_LINE_MARGIN_M;
      // a yellow it has chosen to stop for stays a stop (braking, it would soon be too close to stop "comfortably")
      if (p.yellow) {
        const kept = this.yellowStop !== null && sameMovement(p, this.yellowStop);
        if (!kept && v * v > 2 * YELLOW_DECEL * Math.max(room, 0.01)) continue;
        if (!kept) this.yellowStop = p;
      }
      best = front;
      bestS = entryS;
    }
    if (!Number.isFinite(best)) return Infinity;
    this.stopS = bestS;
    const room = best - STOP_LINE_MARGIN_M;
    return room <= 0.3 ? 0 : Math.sqrt(2 * this.spec.decel * room);
  }

  update(s: Readonly<VehicleState>, t: number, out: DriverCommand): DriverCommand {
    if (s.vx > 0.3 || this.heldAtLine) this.stoppedSince = t;
    const p = project(this.line, s.x, s.y, this.proj, this.hint, 40, 20);
    this.hint = p.seg;
    const ld = this.spec.lookaheadM + this.spec.lookaheadGainS * Math.max(0, s.vx);
    const target = pointAt(this.line, p.s + ld);
    out.steer = pursuitSteer(this.vp, s, target.x, target.y);
    out.gear = 1;
    out.handbrake = false;
    if (t - this.followT >= FOLLOW_PERIOD_S - 1e-9) {
      this.followT = t;
      const follow = this.followSpeed(s, t);
      const atLine = this.stopLineSpeed(s);
      this.heldAtLine = atLine <= follow && atLine < Infinity;
      this.followV = Math.min(follow, atLine);
    }
    const v = Math.min(this.anticipated(p.s, Math.max(0, s.vx)), this.followV);
    speedControl(v, s.vx, out);
    // a stop line ahead: on its braking curve, brake for the deceleration that stops the front at its stop point
    if (!Number.isNaN(this.stopS) && s.vx > 0.05) {
      const front = alongDistance(this.line, p.s, this.stopS) - this.length / 2;
      if (front < FOLLOW_RANGE_M) {
        const need = (s.vx * s.vx) / (2 * Math.max(front - STOP_LINE_MARGIN_M, 0.05));
        if (need >= STOP_BRAKE_ONSET * this.spec.decel) {
          out.throttle = 0;
          out.brake = Math.max(out.brake, Math.min(1, need / this.brakeDecel));
        }
      }
    }
    if (this.gap < this.spec.minGapM * 0.6) {
      out.throttle = 0;
      out.brake = 1;
    }
    return out;
  }
}

/** Are two stop points the same movement's (the scene rebuilds them on every signal change)? */
function sameMovement(a: StopLine, b: StopLine): boolean {
  return a.x === b.x && a.y === b.y && a.exitX === b.exitX && a.exitY === b.exitY;
}

/** VDSim's experiment manoeuvres (spec §6.7, §9.2); `path` is the autopilot with no following. */
export class ManeuverDriver {
  constructor(
    readonly m: ManeuverSpec,
    private readonly path: Autopilot | null,
  ) {}

  update(s: Readonly<VehicleState>, t: number, out: DriverCommand): DriverCommand {
    const m = this.m;
    out.steer = 0;
    out.gear = 1;
    out.handbrake = false;
    const after = t >= m.t0 - 1e-9;
    switch (m.type) {
      case 'constant_speed':
        speedControl(m.v, s.vx, out);
        break;
      case 'path':
        this.path!.update(s, t, out);
        break;
      case 'step_steer':
        speedControl(m.v, s.vx, out);
        out.throttle = Math.min(1, Math.max(0, (m.v - s.vx) / 3 + 0.05));
        out.brake = 0;
        if (after) out.steer = m.steer;
        break;
      case 'accel':
        out.throttle = m.throttle;
        out.brake = 0;
        break;
      case 'brake':
        if (after) {
          out.throttle = 0;
          out.brake = m.brake;
        } else speedControl(m.v, s.vx, out);
        break;
      case 'iso7401':
        out.throttle = 0;
        out.brake = 0;
        if (after) out.steer = m.steer;
        break;
    }
    return out;
  }
}
