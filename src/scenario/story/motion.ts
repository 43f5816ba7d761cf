/**
 * A scripted actor's kinematics: a point moving along its lane path (successor lanes; at forks its route's lane,
 * else the one that turns least) with a lateral offset from the lane's centre line. Longitudinally it keeps its
 * speed, follows a speed profile (exactly integrated, so where it is does not depend on the step length) or
 * keeps a time gap to another vehicle; laterally it stays at its offset or moves across over a lane change.
 * Its yaw is the lane's direction plus the angle of the lateral rate over the speed. One actor owns one
 * longitudinal and one lateral action at a time (OpenSCENARIO's control domains): the runner ends the one
 * running when another starts.
 *
 * A person crossing the road (start.cross) moves the same way, but across its lane: it stays at one s and its
 * offset grows (or shrinks) by the distance its speed covers, its body turned at right angles to the lane, until
 * it reaches the end of its path and stands.
 */
import type { LaneNetwork, LanePosition } from '../../traffic/lanes.js';
import { along, lanePoseInto, nextLane, projectOnLane, type Along, type LaneProjection } from './geometry.js';
import { shapeIntegral, shapeSlope, shapeValue } from './shapes.js';
import type { ObjectKind, Pose } from '../../vehicle/index.js';
import type { Shape } from './spec.js';
import type { ActorPose, StoryVehicle } from './world.js';

/** slack on times, for steps whose sum is not exactly the duration in floating point [s] */
const EPS_T = 1e-9;
/** below this speed the lateral rate no longer turns the body (yaw = lane direction + atan(rate / max(v, this))) [m/s] */
const YAW_SPEED_FLOOR = 1;
/** keep_time_gap: speed correction per metre of gap error [1/s], speed tracking time constant [s], least gap [m] */
const GAP_GAIN = 0.5;
const GAP_TAU = 0.5;
const GAP_MIN_M = 2;
/** a lane change or take-over needs the actor within this of its new lane's centre line [m] */
export const MAX_LANE_OFFSET_M = 8;

const HALF_PI = Math.PI / 2;

/** advance's result bits */
export const LON_DONE = 1, LAT_DONE = 2, END_OF_ROAD = 4;

export class ScriptedActor implements StoryVehicle {
  x = 0;
  y = 0;
  yaw = 0;
  speed = 0;
  accel = 0;
  /** lane index in the network, s along it, offset left of its centre line */
  lane = -1;
  s = 0;
  offset = 0;
  laneYaw = 0;
  /** lanes to prefer at forks (follow_route) */
  route: Int32Array | null = null;
  endOfRoad = false;
  lon: 'none' | 'profile' | 'gap' = 'none';
  /** crossing the lane: +1 walking to its left, −1 to its right (0: moving along it) */
  across = 0;
  /** … the offset where its path ends */
  acrossEnd = 0;
  lat: 'none' | 'change' = 'none';
  /** keep_time_gap's other vehicle (its id; the runner hands its view to advance) */
  gapTo = '';
  private pT0 = 0;
  private pT = 0;
  private pV0 = 0;
  private pV1 = 0;
  private pShape: Shape = 'linear';
  private gGap = 0;
  private gAhead = true;
  private gMaxA = 0;
  private gMaxD = 0;
  private cT0 = 0;
  private cT = 0;
  private cD0 = 0;
  private cD1 = 0;
  private cShape: Shape = 'sinusoidal';
  private latRate = 0;
  private readonly pose: Pose = { x: 0, y: 0, yaw: 0 };
  private readonly m: Along = { lon: 0, lat: 0, gap: 0, closing: 0, va: 0, inPath: false };
  private readonly proj: LaneProjection = { s: 0, offset: 0 };
  private readonly found: LanePosition = { lane: 0, s: 0, offset: 0 };

  constructor(
    readonly id: string,
    readonly length: number,
    readonly width: number,
    public controller: 'script' | 'policy',
    private readonly net: LaneNetwork,
    readonly kind: ObjectKind = 'vehicle',
  ) {}

  placeAt(lane: number, s: number, offset: number, speed: number, across = 0, acrossEnd = 0): void {
    this.lane = lane;
    this.s = s;
    this.offset = offset;
    this.across = across;
    this.acrossEnd = acrossEnd;
    this.speed = speed;
    this.accel = 0;
    this.lon = 'none';
    this.lat = 'none';
    this.latRate = 0;
    this.endOfRoad = false;
    this.updatePose();
  }

  /** A speed change from t (dimension rate or time); true when it is done at once (a step, or nothing to change at a rate). */
  startProfile(t: number, target: number, rate: number | null, duration: number | null, shape: Shape): boolean {
    const dv = target - this.speed;
    const T = shape === 'step' ? 0 : duration ?? Math.abs(dv) / (rate as number);
    if (T <= EPS_T) {
      this.speed = target;
      this.accel = 0;
      this.lon = 'none';
      return true;
    }
    this.lon = 'profile';
    this.pT0 = t;
    this.pT = T;
    this.pV0 = this.speed;
    this.pV1 = target;
    this.pShape = shape;
    return false;
  }

  startGap(to: string, gap: number, ahead: boolean, maxAccel: number, maxDecel: number): void {
    this.lon = 'gap';
    this.gapTo = to;
    this.gGap = gap;
    this.gAhead = ahead;
    this.gMaxA = maxAccel;
    this.gMaxD = maxDecel;
  }

  /** Ends the longitudinal action: the actor keeps its present speed. */
  endLon(): void {
    this.lon = 'none';
    this.accel = 0;
  }

  /** Ends the lateral action: the actor keeps its present offset. */
  endLat(): void {
    this.lat = 'none';
    this.latRate = 0;
  }

  /**
   * A lane change from t onto `target` (a lane index): the actor moves onto that lane's coordinates where it is
   * and its offset goes to `endOffset` over `duration`. False when it is not beside that lane.
   */
  startLaneChange(t: number, target: number, duration: number, shape: Shape, endOffset: number): boolean {
    projectOnLane(this.net, target, this.x, this.y, this.proj);
    if (Math.abs(this.proj.offset) > MAX_LANE_OFFSET_M) return false;
    this.lane = target;
    this.s = this.proj.s;
    this.offset = this.proj.offset;
    this.lat = 'change';
    this.cT0 = t;
    this.cT = duration;
    this.cD0 = this.proj.offset;
    this.cD1 = endOffset;
    this.cShape = shape;
    return true;
  }

  /** Takes the actor over from wherever `v` is (after the policy drove it); false when it is off every lane. */
  seedFrom(v: StoryVehicle): boolean {
    const p = this.net.locate(v.x, v.y, v.yaw, MAX_LANE_OFFSET_M, this.found);
    if (!p) return false;
    projectOnLane(this.net, p.lane, v.x, v.y, this.proj);
    this.placeAt(p.lane, this.proj.s, this.proj.offset, Math.max(0, v.speed));
    return true;
  }

  /** While the policy drives it: the actor is where the host says (lane fields located for the output). */
  mirror(v: StoryVehicle): void {
    this.x = v.x;
    this.y = v.y;
    this.yaw = v.yaw;
    this.speed = v.speed;
    this.accel = v.accel;
    const p = this.net.locate(v.x, v.y, v.yaw, MAX_LANE_OFFSET_M, this.found);
    if (!p) {
      this.lane = -1;
      return;
    }
    projectOnLane(this.net, p.lane, v.x, v.y, this.proj);
    this.lane = p.lane;
    this.s = this.proj.s;
    this.offset = this.proj.offset;
    this.laneYaw = this.net.headingAt(p.lane, this.proj.s);
  }

  /** Moves the actor from t to t + dt; `gapTarget` is keep_time_gap's vehicle now (null: absent). Returns LON_DONE | LAT_DONE | END_OF_ROAD bits. */
  advance(t: number, dt: number, gapTarget: StoryVehicle | null): number {
    let bits = 0;
    const t1 = t + dt;
    let ds: number;
    if (this.lon === 'profile') {
      const dv = this.pV1 - this.pV0, T = this.pT;
      const tau1 = t1 - this.pT0;
      ds = this.profileDistance(tau1) - this.profileDistance(t - this.pT0);
      if (tau1 >= T - EPS_T) {
        this.speed = this.pV1;
        this.accel = 0;
        this.lon = 'none';
        bits |= LON_DONE;
      } else {
        this.speed = this.pV0 + dv * shapeValue(this.pShape, tau1 / T);
        this.accel = (dv / T) * shapeSlope(this.pShape, tau1 / T);
      }
    } else if (this.lon === 'gap') {
      let a = 0;
      if (gapTarget) {
        // the gap measured along the actor's lane, signed: negative when it is on the wrong side of the other
        const m = this.gAhead ? along(gapTarget, this, this.laneYaw, this.m) : along(this, gapTarget, this.laneYaw, this.m);
        const signed = m.lon - (Math.abs(m.lon) - m.gap);
        const vOther = gapTarget.speed * Math.cos(gapTarget.yaw - this.laneYaw);
        const err = signed - Math.max(GAP_MIN_M, this.gGap * vOther);
        const vCmd = Math.max(0, this.gAhead ? vOther - GAP_GAIN * err : vOther + GAP_GAIN * err);
        a = Math.min(this.gMaxA, Math.max(-this.gMaxD, (vCmd - this.speed) / GAP_TAU));
      }
      const v1 = Math.max(0, this.speed + a * dt);
      ds = 0.5 * (this.speed + v1) * dt;
      this.accel = (v1 - this.speed) / dt;
      this.speed = v1;
    } else {
      ds = this.speed * dt;
      this.accel = 0;
    }
    if (this.lat === 'change') {
      const u = (t1 - this.cT0) / this.cT;
      if (u >= 1 - EPS_T / this.cT || this.cShape === 'step') {
        this.offset = this.cD1;
        this.latRate = 0;
        this.lat = 'none';
        bits |= LAT_DONE;
      } else {
        this.offset = this.cD0 + (this.cD1 - this.cD0) * shapeValue(this.cShape, u);
        this.latRate = ((this.cD1 - this.cD0) / this.cT) * shapeSlope(this.cShape, u);
      }
    }
    if (this.across !== 0) {
      // across the lane: the distance covered moves it sideways, up to the end of its path
      this.offset += this.across * ds;
      if (this.across * (this.offset - this.acrossEnd) >= 0) {
        this.offset = this.acrossEnd;
        bits = this.stopAtEnd(bits);
      }
      this.updatePose();
      return bits;
    }
    this.s += ds;
    for (let hops = 0; hops < 64 && this.s > this.net.lanes[this.lane].length; hops++) {
      const nx = nextLane(this.net, this.lane, this.preferredNext());
      if (nx < 0) {
        this.s = this.net.lanes[this.lane].length;
        bits = this.stopAtEnd(bits);
        break;
      }
      this.s -= this.net.lanes[this.lane].length;
      this.lane = nx;
    }
    this.updatePose();
    return bits;
  }

  /** distance covered τ seconds into the speed profile (exact: the shape's integral, then the target speed) */
  private profileDistance(tau: number): number {
    const T = this.pT;
    return this.pV0 * tau + (this.pV1 - this.pV0) * (T * shapeIntegral(this.pShape, tau / T) + Math.max(0, tau - T));
  }

  private preferredNext(): number {
    const r = this.route;
    if (!r) return -1;
    for (let i = 0; i < r.length - 1; i++) if (r[i] === this.lane) return r[i + 1];
    return -1;
  }

  /** at the end of its path or road: it stands, its longitudinal action done (the bits say what changed) */
  private stopAtEnd(bits: number): number {
    this.speed = 0;
    this.accel = 0;
    if (this.lon !== 'none') bits |= LON_DONE;
    this.lon = 'none';
    if (!this.endOfRoad) bits |= END_OF_ROAD;
    this.endOfRoad = true;
    return bits;
  }

  private updatePose(): void {
    lanePoseInto(this.net, this.lane, this.s, this.pose);
    this.laneYaw = this.pose.yaw;
    const c = Math.cos(this.pose.yaw), sn = Math.sin(this.pose.yaw);
    this.x = this.pose.x - this.offset * sn;
    this.y = this.pose.y + this.offset * c;
    this.yaw = this.across !== 0 ? this.pose.yaw + this.across * HALF_PI : this.pose.yaw + Math.atan2(this.latRate, Math.max(this.speed, YAW_SPEED_FLOOR));
  }

  writeTo(out: ActorPose): void {
    out.x = this.x;
    out.y = this.y;
    out.yaw = this.yaw;
    out.speed = this.speed;
    out.accel = this.accel;
    out.lane = this.lane >= 0 ? this.net.lanes[this.lane].id : '';
    out.s = this.s;
    out.offset = this.offset;
    out.controller = this.controller;
    out.kind = this.kind;
  }
}
