/**
 * The traffic rules live NPCs obey at junctions: a rule layer over the policy, like the shield (`vils eval` never
 * has it). Before each policy step it finds, for every vehicle (NPCs along their planned lanes, egos along the
 * straightest lanes ahead), the junction movement it is approaching or driving, and decides for each NPC whether
 * it may pass its next stop line:
 *
 * - signals: red → stop at the line; yellow → stop where that takes at most YELLOW_DECEL (decided once per
 *   yellow), else go on; green → go; a left turn in a permissive phase gives way to the oncoming traffic;
 * - stop signs (all-way or on minor approaches): a full stop (≤ 0.1 m/s) at the line first, then at an all-way
 *   stop the approaches in the order their vehicles stopped, else giving way to the major road;
 * - yield signs and uncontrolled junctions: giving way by priority (sign, class of the approach, the right-hand
 *   rule; see layout.ts);
 * - always: no entry while a vehicle that entered a conflicting movement (an ego standing in the junction too)
 *   will still be in the way, and never unless the exit has room for the whole vehicle.
 *
 * Giving way is a gap check: the NPC goes if every vehicle with priority on a conflicting movement reaches the
 * conflict zone after the NPC has cleared it (with GAP_S to spare) or leaves it before the NPC gets there. A stop
 * is written into the engine's StopConstraints (the governor brakes for it, the shield never passes it); a rule
 * that would need more than COMMIT_DECEL to obey is not imposed on an NPC that was not already stopping for it
 * (it is committed), except a red light.
 */
import { ConflictKind, insideConvex } from '../../map/junctions.js';
import type { TrafficEngine } from '../../traffic/engine.js';
import type { LaneNetwork, LanePosition } from '../../traffic/lanes.js';
import { MAX_PLAN } from '../../traffic/predict.js';
import { HoldReason, STOP_MARGIN_M, type HoldReasonId } from '../../traffic/stops.js';
import { AgentKind, type World } from '../../traffic/world.js';
import { SignalDetection, type SignalController } from './controller.js';
import type { ControlledJunction, TrafficLayout } from './layout.js';
import { movementStates, type MovementState } from './plan.js';

/** stop on yellow where stopping takes at most this [m/s²] */
export const YELLOW_DECEL = 3;
/** a give-way, stop-order or full-junction hold is imposed only where stopping takes at most this [m/s²] */
const COMMIT_DECEL = 3.5;
/** braking for a red light or a stop sign starts where it takes this [m/s²] */
const COMFORT_DECEL = 2;
/** a red light that would take more than this to stop for is run (and counted): braking harder would stop in the junction */
const HARD_DECEL = 4.5;
/** a full stop: at most this fast [m/s] … */
export const FULL_STOP_SPEED = 0.1;
/** … with its front within this of the line [m], standing this long [s] */
const STOP_ZONE_M = 3;
const STOP_DWELL_S = 1;
/** rules are decided this far ahead of a stop line, and at least as far as stopping comfortably takes [m] */
const DECIDE_M = 40;
/** margin between the NPC clearing a conflict zone and a vehicle with priority reaching it [s] */
const GAP_S = 1.5;
/** acceleration assumed for a vehicle moving off or speeding up to the limit: another, and the NPC itself [m/s²] */
const GO_ACCEL = 1.5;
const OWN_ACCEL = 2;
/** in a merge, the NPC goes when it will be through it this long before the vehicle with priority gets there [s] */
const MERGE_HEADWAY_S = 1;
/** a vehicle slower than this, this close behind another as slow, waits in a queue (it is not coming) */
const QUEUED_MPS = 0.5;
const QUEUE_GAP_M = 8;
/** a vehicle with priority standing longer than this is not coming either [s] */
const STILL_S = 3;
/** the exit must have room for the vehicle plus this (car-following's standstill gap, 2.5 m, and a margin) [m] */
const BOX_GAP_M = 3;
/** room a vehicle takes on a short road between two junctions: its length plus car-following's standstill gap [m] */
const LINK_GAP_M = 2.5;
/** a green counts as lasting long enough to pass the next junction with this to spare [s] */
const GREEN_MARGIN_S = 3;
/** a queue moving off at a green: this pace at most, a vehicle every QUEUE_HEADWAY_S */
const QUEUE_SPEED = 4;
const QUEUE_HEADWAY_S = 2;
/** a vehicle this close to the line of a path merging into ours, which we give way to, will take its room first [m] */
const MERGE_RESERVE_M = 30;
/** a vehicle beyond the exit moving faster than this makes room as it goes: at least what braking hard leaves */
const MOVING_MPS = 2;
const MOVING_ROOM_DECEL = 4;
const MOVING_ROOM_MAX_M = 20;
/** how far ahead along its lanes a vehicle is matched to movements [m] */
const LOOKAHEAD_M = 150;
/** an ego standing at its line at an all-way stop keeps its turn this long, then NPCs go on [s] */
const EGO_TURN_S = 5;
/** a vehicle calls for its signal group within this much time of the line at its speed, or this distance [s, m] */
const CALL_S = 6;
const CALL_M = 40;
/** a vehicle moving this close to its line counts as arriving now; standing this close, as queued [m] */
const DETECT_NEAR_M = 25;
/** a vehicle inside a junction off its planned movements occupies those whose path passes this close [m] */
const OCCUPY_M = 1.8;

interface MovementRef {
  readonly j: number;
  readonly m: number;
}

function timeToCover(d: number, v: number, a: number, vmax: number): number {
  if (d <= 0) return 0;
  const top = Math.max(vmax, v, 0.5);
  if (v >= top) return d / top;
  const t1 = (top - v) / a;
  const d1 = v * t1 + 0.5 * a * t1 * t1;
  if (d <= d1) return (-v + Math.sqrt(v * v + 2 * a * d)) / a;
  return t1 + (d - d1) / top;
}

export class TrafficRules {
  /** global movement index = base[j] + m */
  readonly base: Int32Array;
  readonly refs: MovementRef[] = [];
  /** per lane: the movements whose entry lies on it */
  private readonly entriesOnLane: number[][];
  /** per lane: movements that drive it after their first piece: [mg, piece index] */
  private readonly laterOnLane: Array<Array<[number, number]>>;
  /** each movement's path from entry, sampled every metre (geometric occupancy) */
  private readonly pathX: Float32Array[] = [];
  private readonly pathY: Float32Array[] = [];
  private readonly bbox: Float32Array;
  /**
   * per movement: distance from its entry to where a vehicle on it is clear of the whole junction (its exit, or
   * further along its last lane where other movements of the junction still run: standing there blocks them)
   */
  readonly clear: Float64Array;
  /** per movement, this step: its state (signalised) and the slots on it */
  readonly code: Uint8Array;
  readonly yields: Uint8Array;
  private readonly occupants: number[][] = [];
  private readonly approachers: number[][] = [];
  private readonly touched: number[] = [];
  private readonly msBuf: MovementState[][] = [];
  /** per slot, this step: the movement it approaches (−1) and its centre's distance to the entry along its lanes */
  readonly apMg: Int32Array;
  readonly apD: Float64Array;
  /** per slot: the movement after that (−1) and its entry's distance */
  readonly ap2Mg: Int32Array;
  readonly ap2D: Float64Array;
  /** per slot: the movement it is in (−1) and its centre's distance past that movement's entry */
  readonly inMg: Int32Array;
  readonly inA: Float64Array;
  /** per slot: its lane and distance along it (−1: off the lanes) */
  readonly laneOf: Int32Array;
  readonly sOf: Float64Array;
  /** per lane: the vehicles on it this step (and the lanes that have any, to clear them) */
  private readonly laneVehicles: number[][];
  private readonly laneTouched: number[] = [];
  // memos per slot (reset when the slot changes hands)
  private readonly memoId: Int32Array;
  /** +mg+1: decided to go on this yellow; −(mg+1): to stop */
  private readonly yellowMemo: Int32Array;
  /** the movement at whose line it made its full stop, and when */
  readonly stopDone: Int32Array;
  readonly stopDoneT: Float64Array;
  /** the movement it was held for in the last step (−1) */
  private readonly heldMg: Int32Array;
  /** since when it has stood at its line (the full stop at a stop sign; egos at an all-way stop) */
  private readonly standSince: Float64Array;
  /** the movement it was in (else approached) in the last step */
  private readonly lastMg: Int32Array;
  /** since when it has been standing (below QUEUED_MPS; −1 moving) */
  private readonly stillSince: Float64Array;
  private readonly seq: Int32Array = new Int32Array(MAX_PLAN + 16);
  /** what the signals' detectors see this step */
  readonly detection: SignalDetection;
  private readonly pos: LanePosition = { lane: 0, s: 0, offset: 0 };
  private time = 0;

  constructor(readonly layout: TrafficLayout, readonly controller: SignalController, private readonly lanes: LaneNetwork, readonly engine: TrafficEngine) {
    const J = layout.junctions;
    this.detection = new SignalDetection(layout.groups.length);
    const nl = lanes.lanes.length;
    this.entriesOnLane = Array.from({ length: nl }, () => []);
    this.laterOnLane = Array.from({ length: nl }, () => []);
    this.laneVehicles = Array.from({ length: nl }, () => []);
    this.base = new Int32Array(J.length + 1);
    for (let j = 0; j < J.length; j++) this.base[j + 1] = this.base[j] + J[j].movements.length;
    const total = this.base[J.length];
    this.code = new Uint8Array(total);
    this.yields = new Uint8Array(total);
    this.bbox = new Float32Array(J.length * 4);
    J.forEach((cj, j) => {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      for (const p of cj.junction.polygon) {
        x0 = Math.min(x0, p.x); y0 = Math.min(y0, p.y); x1 = Math.max(x1, p.x); y1 = Math.max(y1, p.y);
      }
      this.bbox.set([x0, y0, x1, y1], j * 4);
      this.msBuf.push(cj.movements.map(() => ({ code: 'r', yields: false })));
      cj.movements.forEach((m, mi) => {
        const mg = this.refs.length;
        this.refs.push({ j, m: mi });
        this.occupants.push([]);
        this.approachers.push([]);
        this.entriesOnLane[m.entry.lane].push(mg);
        m.pieces.forEach((p, q) => {
          if (q > 0) this.laterOnLane[p.lane].push([mg, q]);
        });
        const n = Math.max(2, Math.ceil(m.length) + 1);
        const xs = new Float32Array(n), ys = new Float32Array(n);
        let k = 0;
        for (const p of m.pieces) {
          for (let s = p.s0; s <= p.s1 + 1e-6 && k < n; s += 1) {
            const pt = this.lanes.pose(p.lane, s);
            xs[k] = pt.x; ys[k] = pt.y; k++;
          }
        }
        this.pathX.push(xs.subarray(0, Math.max(k, 1)));
        this.pathY.push(ys.subarray(0, Math.max(k, 1)));
      });
    });
    this.clear = new Float64Array(total);
    J.forEach((cj, j) => cj.movements.forEach((mv, m) => {
      let s1 = mv.exit.s;
      for (let changed = true; changed;) {
        changed = false;
        for (const k of cj.movements) {
          for (const p of k.pieces) {
            if (p.lane === mv.exit.lane && p.s0 <= s1 + 0.5 && p.s1 > s1 + 1e-6) {
              s1 = p.s1;
              changed = true;
            }
          }
        }
      }
      this.clear[this.base[j] + m] = mv.length + (s1 - mv.exit.s);
    }));
    const cap = engine.world.capacity;
    this.apMg = new Int32Array(cap).fill(-1);
    this.apD = new Float64Array(cap);
    this.ap2Mg = new Int32Array(cap).fill(-1);
    this.ap2D = new Float64Array(cap);
    this.inMg = new Int32Array(cap).fill(-1);
    this.inA = new Float64Array(cap);
    this.laneOf = new Int32Array(cap).fill(-1);
    this.sOf = new Float64Array(cap);
    this.memoId = new Int32Array(cap).fill(0x7fffffff);
    this.yellowMemo = new Int32Array(cap);
    this.stopDone = new Int32Array(cap).fill(-1);
    this.stopDoneT = new Float64Array(cap);
    this.heldMg = new Int32Array(cap).fill(-1);
    this.standSince = new Float64Array(cap).fill(-1);
    this.lastMg = new Int32Array(cap).fill(-1);
    this.stillSince = new Float64Array(cap).fill(-1);
  }

  private coverOnLane: Map<number, Array<[number, number]>> | null = null;

  /** Is (lane, s) inside a junction: on a movement between its entry and where a vehicle is clear of the junction? */
  insideJunction(lane: number, s: number): boolean {
    if (!this.coverOnLane) {
      const cover = new Map<number, Array<[number, number]>>();
      this.refs.forEach(({ j, m }, mg) => {
        const mv = this.layout.junctions[j].movements[m];
        const extra = this.clear[mg] - mv.length;
        mv.pieces.forEach((p, q) => push(cover, p.lane, [p.s0, q === mv.pieces.length - 1 ? p.s1 + extra : p.s1] as [number, number]));
      });
      this.coverOnLane = cover;
    }
    for (const [a, b] of this.coverOnLane.get(lane) ?? NONE) if (s >= a - 1 && s <= b + 1) return true;
    return false;
  }

  /** Distance along `lanes` from s0 on the first to the next junction entry (a line an NPC may have to stop at); Infinity when none. */
  distanceToLine(lanes: readonly number[], s0: number): number {
    let d = -s0;
    for (let k = 0; k < lanes.length && d < LOOKAHEAD_M; k++) {
      let best = Infinity;
      for (const mg of this.entriesOnLane[lanes[k]]) {
        const { j, m } = this.refs[mg];
        const e = d + this.layout.junctions[j].movements[m].entry.s;
        if (e >= 0 && e < best) best = e;
      }
      if (best < Infinity) return best;
      d += this.lanes.lanes[lanes[k]].length;
    }
    return Infinity;
  }

  junctionOf(mg: number): ControlledJunction {
    return this.layout.junctions[this.refs[mg].j];
  }

  /** Forgets every memo (a scene reset). */
  reset(): void {
    this.memoId.fill(0x7fffffff);
    this.time = 0;
  }

  /** Decides every NPC's stop line for the policy step at simulation time t. */
  update(t: number): void {
    this.time = t;
    const engine = this.engine;
    const world = engine.world;
    engine.stops.clear();
    for (const mg of this.touched) {
      this.occupants[mg].length = 0;
      this.approachers[mg].length = 0;
    }
    this.touched.length = 0;
    for (const l of this.laneTouched) this.laneVehicles[l].length = 0;
    this.laneTouched.length = 0;
    for (let s = 0; s < world.count; s++) {
      this.apMg[s] = -1;
      this.ap2Mg[s] = -1;
      this.inMg[s] = -1;
      this.laneOf[s] = -1;
      if (!world.present[s]) continue;
      if (world.kind[s] !== AgentKind.Controlled && world.kind[s] !== AgentKind.External) continue;
      if (this.memoId[s] !== world.id[s]) this.forget(s, world.id[s]);
      if (world.kind[s] === AgentKind.External && world.speed(s) > FULL_STOP_SPEED) this.standSince[s] = -1;
      if (world.speed(s) >= QUEUED_MPS) this.stillSince[s] = -1;
      else if (this.stillSince[s] < 0) this.stillSince[s] = t;
      this.locate(world, s);
    }
    // only an actuated plan reads the detectors: fixed-time scenes skip the pass over the vehicles
    if (this.controller.actuated) this.detect(world);
    this.controller.update(t, this.detection);
    this.signalStates();
    for (let s = 0; s < world.count; s++) {
      if (!world.present[s] || world.kind[s] !== AgentKind.Controlled) continue;
      this.decide(world, s);
    }
  }

  /**
   * The signals' detectors: per group, a call from every vehicle (NPC or ego) approaching one of its movements within
   * CALL_S at its speed (or CALL_M), the time the next moving one reaches its line, and whether one stands in a queue
   * close to it. An ego may take any movement of its approach: it calls every group there.
   */
  private detect(world: World): void {
    this.detection.clear();
    for (let s = 0; s < world.count; s++) {
      if (!world.present[s]) continue;
      // the next junction, and the one after it when it is a signal close behind (its queue reaches back through the first)
      this.detectAt(world, s, this.apMg[s], this.apD[s]);
      this.detectAt(world, s, this.ap2Mg[s], this.ap2D[s]);
    }
  }

  private detectAt(world: World, s: number, mg: number, dCentre: number): void {
    if (mg < 0) return;
    const { j, m } = this.refs[mg];
    const cj = this.layout.junctions[j];
    if (cj.control !== 'signal') return;
    const d = Math.max(0, dCentre - 0.5 * world.length[s]);
    const v = world.speed(s);
    if (world.kind[s] === AgentKind.Controlled) this.detectGroup(cj.groupOfMovement[m], d, v);
    else for (const mi of cj.junction.approaches[cj.movements[m].approach].movements) this.detectGroup(cj.groupOfMovement[mi], d, v);
  }

  private detectGroup(g: number, d: number, v: number): void {
    if (g < 0) return;
    const det = this.detection;
    if (d <= Math.max(CALL_M, v * CALL_S)) det.call[g] = 1;
    if (v >= QUEUED_MPS) {
      const arrive = d <= DETECT_NEAR_M ? 0 : d / v;
      if (arrive < det.arrive[g]) det.arrive[g] = arrive;
    } else if (d <= DETECT_NEAR_M) det.queued[g] = 1;
  }

  private forget(s: number, id: number): void {
    this.memoId[s] = id;
    this.yellowMemo[s] = 0;
    this.stopDone[s] = -1;
    this.heldMg[s] = -1;
    this.standSince[s] = -1;
    this.lastMg[s] = -1;
    this.stillSince[s] = -1;
  }

  private signalStates(): void {
    const J = this.layout.junctions;
    for (let j = 0; j < J.length; j++) {
      const cj = J[j];
      const b = this.base[j];
      if (cj.control !== 'signal') {
        for (let m = 0; m < cj.movements.length; m++) {
          this.code[b + m] = 0;
          this.yields[b + m] = 0;
        }
        continue;
      }
      const ms = movementStates(cj, this.layout.groups, this.controller.junctionStates(cj), this.msBuf[j]);
      for (let m = 0; m < ms.length; m++) {
        this.code[b + m] = ms[m].code.charCodeAt(0);
        this.yields[b + m] = ms[m].yields ? 1 : 0;
      }
    }
  }

  /** Finds the movement slot s approaches and the one it is in, along its planned (or likeliest) lanes. */
  private locate(world: World, s: number): void {
    const engine = this.engine;
    const npc = world.kind[s] === AgentKind.Controlled;
    let lanes: Int32Array;
    let off = 0;
    let count: number;
    let s0: number;
    if (npc && engine.planCount[s] > 0) {
      lanes = engine.planLanes;
      off = s * MAX_PLAN;
      count = engine.planCount[s];
      s0 = engine.planS[s];
    } else {
      const at = this.lanes.locate(world.x[s], world.y[s], world.yaw[s], 4, this.pos, Math.PI / 3);
      if (!at) {
        this.occupyByGeometry(world, s);
        return;
      }
      count = this.lanes.lanesAhead(at.lane, at.s, LOOKAHEAD_M, npc ? world.goalX[s] : NaN, npc ? world.goalY[s] : NaN, this.seq);
      lanes = this.seq;
      s0 = at.s;
    }
    const here = lanes[off];
    this.laneOf[s] = here;
    this.sOf[s] = s0;
    if (this.laneVehicles[here].length === 0) this.laneTouched.push(here);
    this.laneVehicles[here].push(s);
    const half = 0.5 * world.length[s];
    // inside a movement whose entry lies on an earlier lane (the plan starts at the current lane): the one it was
    // in or approaching in the last step where several share this lane
    let pick = -1, pickAlong = 0;
    for (const [mg, q] of this.laterOnLane[here]) {
      const { j, m } = this.refs[mg];
      const mv = this.layout.junctions[j].movements[m];
      if (!this.matches(mv.pieces, q, lanes, off, count)) continue;
      let before = 0;
      for (let r = 0; r < q; r++) before += mv.pieces[r].s1 - mv.pieces[r].s0;
      const along = before + (s0 - mv.pieces[q].s0);
      if (!(along + half >= 0 && along - half < this.clear[mg])) continue;
      const known = mg === this.lastMg[s];
      if (pick < 0 || known) {
        pick = mg;
        pickAlong = along;
        if (known) break;
      }
    }
    if (pick >= 0) {
      this.inMg[s] = pick;
      this.inA[s] = pickAlong;
      this.register(this.occupants, pick, s);
    }
    // the movements along the lanes ahead
    let d = -s0;
    for (let k = 0; k < count && d < LOOKAHEAD_M; k++) {
      const lane = lanes[off + k];
      for (const mg of this.entriesOnLane[lane]) {
        const { j, m } = this.refs[mg];
        const mv = this.layout.junctions[j].movements[m];
        if (!this.matches(mv.pieces, 0, lanes, off + k, count - k)) continue;
        const dEntry = d + mv.entry.s;
        if (dEntry - half > 0) {
          if (this.apMg[s] < 0 || dEntry < this.apD[s]) {
            if (this.apMg[s] >= 0 && this.refs[this.apMg[s]].j !== j) {
              this.ap2Mg[s] = this.apMg[s];
              this.ap2D[s] = this.apD[s];
            }
            this.apMg[s] = mg;
            this.apD[s] = dEntry;
          } else if (this.refs[this.apMg[s]].j !== j && (this.ap2Mg[s] < 0 || dEntry < this.ap2D[s])) {
            this.ap2Mg[s] = mg;
            this.ap2D[s] = dEntry;
          }
        } else if (dEntry + this.clear[mg] + half > 0 && this.inMg[s] < 0) {
          this.inMg[s] = mg;
          this.inA[s] = -dEntry;
          this.register(this.occupants, mg, s);
        }
      }
      d += this.lanes.lanes[lane].length;
    }
    if (this.apMg[s] >= 0) {
      if (npc) this.register(this.approachers, this.apMg[s], s);
      else {
        // an ego may take any movement of its approach
        const { j, m } = this.refs[this.apMg[s]];
        const cj = this.layout.junctions[j];
        for (const mi of cj.junction.approaches[cj.movements[m].approach].movements) this.register(this.approachers, this.base[j] + mi, s);
      }
    }
    if (this.inMg[s] < 0) this.occupyByGeometry(world, s);
    this.lastMg[s] = this.inMg[s] >= 0 ? this.inMg[s] : this.apMg[s];
  }

  /** Do a movement's pieces from index q on follow the lanes lanes[off …] (as far as both go)? */
  private matches(pieces: ReadonlyArray<{ lane: number }>, q: number, lanes: Int32Array, off: number, count: number): boolean {
    for (let r = q, k = 0; r < pieces.length && k < count; r++, k++) if (pieces[r].lane !== lanes[off + k]) return false;
    return true;
  }

  /** A vehicle in a junction off any movement it is matched to: it occupies the movements whose path it is on. */
  private occupyByGeometry(world: World, s: number): void {
    const x = world.x[s], y = world.y[s];
    const J = this.layout.junctions;
    for (let j = 0; j < J.length; j++) {
      const b = this.bbox;
      if (x < b[j * 4] || x > b[j * 4 + 2] || y < b[j * 4 + 1] || y > b[j * 4 + 3]) continue;
      if (!insideConvex(J[j].junction.polygon, x, y)) continue;
      const reach = OCCUPY_M + 0.5 * world.width[s];
      for (let m = 0; m < J[j].movements.length; m++) {
        const mg = this.base[j] + m;
        const xs = this.pathX[mg], ys = this.pathY[mg];
        let best = Infinity, at = 0;
        for (let k = 0; k < xs.length; k++) {
          const dd = (xs[k] - x) ** 2 + (ys[k] - y) ** 2;
          if (dd < best) { best = dd; at = k; }
        }
        if (best <= reach * reach) {
          if (this.inMg[s] < 0) {
            this.inMg[s] = mg;
            this.inA[s] = at;
          }
          this.register(this.occupants, mg, s);
        }
      }
    }
  }

  private register(lists: number[][], mg: number, s: number): void {
    if (lists[mg].length === 0 && this.occupants[mg].length + this.approachers[mg].length === 0) this.touched.push(mg);
    if (!lists[mg].includes(s)) lists[mg].push(s);
  }

  /**
   * The stop (if any) NPC s must make: at the line of the movement it approaches, or of the one after it where the
   * two junctions are close (the NPC is decided for both at once, as a driver looks through the first junction to
   * the second); a stop at the second line that would leave it standing in the first is made at the first line.
   */
  private decide(world: World, s: number): void {
    const half = 0.5 * world.length[s];
    const mg = this.apMg[s];
    if (mg >= 0 && this.rule(world, s, mg, this.apD[s], true)) {
      this.hold(s, mg, this.apD[s]);
      return;
    }
    const mg2 = this.ap2Mg[s];
    if (mg2 >= 0 && this.rule(world, s, mg2, this.ap2D[s], false)) {
      // standing at the second line, where would its rear be?
      const rear = this.ap2D[s] - STOP_MARGIN_M - 2 * half;
      if (mg >= 0 && rear < this.apD[s] + this.clear[mg]) {
        const v = world.speed(s);
        const dFront = this.apD[s] - half;
        const need = (v * v) / (2 * Math.max(dFront - STOP_MARGIN_M, 0.05));
        // too late to wait before the first junction: on into it (the second line is then the next one)
        if (need > COMMIT_DECEL && this.heldMg[s] !== mg2 && this.ruleReason !== HoldReason.Red) {
          this.heldMg[s] = -1;
          return;
        }
        this.hold(s, mg2, this.apD[s]);
        return;
      }
      this.hold(s, mg2, this.ap2D[s]);
      return;
    }
    this.heldMg[s] = -1;
  }

  private ruleReason: HoldReasonId = HoldReason.None;
  private ruleDecel = COMFORT_DECEL;
  private ruleHoldFor = -1;

  private hold(s: number, mg: number, line: number): void {
    this.heldMg[s] = mg;
    this.engine.stops.set(s, line, this.ruleDecel, this.ruleReason, this.ruleHoldFor);
  }

  /**
   * Must NPC s stop before movement mg, whose entry lies `d` ahead of its centre? Sets ruleReason, ruleDecel and
   * ruleHoldFor. `first`: it is the next line ahead (the NPC may still be in the junction before it).
   */
  private rule(world: World, s: number, mg: number, d: number, first: boolean): boolean {
    const half = 0.5 * world.length[s];
    const dFront = d - half;
    const v = world.speed(s);
    const need = (v * v) / (2 * Math.max(dFront - STOP_MARGIN_M, 0.05));
    if (dFront > Math.max(DECIDE_M, (v * v) / (2 * COMFORT_DECEL) + 10)) return false;
    const { j, m } = this.refs[mg];
    const cj = this.layout.junctions[j];
    let reason: HoldReasonId = HoldReason.None;
    let holdFor = -1;
    let decel = COMFORT_DECEL;
    const code = this.code[mg];
    const signal = cj.control === 'signal' && code !== 0 && code !== O;
    // still in the junction before this one, so close that stopping at this line would leave it standing in that
    // one: it gives way only to vehicles in the way, does not wait for room past the exit, and goes on at yellow
    const insideOther = first && this.inMg[s] >= 0 && this.refs[this.inMg[s]].j !== j && this.inA[s] + (dFront - STOP_MARGIN_M) - half < this.clear[this.inMg[s]];
    if (signal && code === R) {
      if (need <= HARD_DECEL || this.heldMg[s] === mg) reason = HoldReason.Red;
    } else if (signal && code === Y) {
      let memo = this.yellowMemo[s];
      if (Math.abs(memo) !== mg + 1) {
        memo = (this.heldMg[s] === mg || need <= YELLOW_DECEL) && !insideOther ? -(mg + 1) : mg + 1;
        this.yellowMemo[s] = memo;
      }
      if (memo < 0) {
        reason = HoldReason.Yellow;
        decel = YELLOW_DECEL;
      }
    } else {
      if (Math.abs(this.yellowMemo[s]) === mg + 1) this.yellowMemo[s] = 0;
      // stop signs: a full stop at the line first
      const approach = cj.approaches[cj.movements[m].approach];
      const mustStop = !signal && (cj.control === 'all_way_stop' || approach.sign === 'stop');
      if (mustStop && this.stopDone[s] !== mg) {
        reason = HoldReason.StopSign;
        if (first && v <= FULL_STOP_SPEED && dFront <= STOP_ZONE_M) {
          if (this.standSince[s] < 0) this.standSince[s] = this.time;
          if (this.time - this.standSince[s] >= STOP_DWELL_S - 1e-9) {
            this.stopDone[s] = mg;
            this.stopDoneT[s] = this.standSince[s];
            reason = HoldReason.None;
          }
        } else this.standSince[s] = -1;
      }
      if (reason === HoldReason.None) {
        const blocker = this.giveWay(world, s, j, m, dFront, v, signal && !insideOther, cj.control === 'all_way_stop' && !signal && !insideOther, insideOther);
        if (blocker !== -2) {
          reason = HoldReason.GiveWay;
          holdFor = blocker;
        } else if (!insideOther && first) {
          const box = this.exitBlocked(world, s, mg, dFront, v);
          if (box !== -2) {
            reason = HoldReason.Box;
            holdFor = box;
          }
        }
      }
      // committed: a rule that came too late to obey comfortably is not imposed (the shield still keeps it clear)
      if ((reason === HoldReason.GiveWay || reason === HoldReason.Box) && need > COMMIT_DECEL && this.heldMg[s] !== mg) reason = HoldReason.None;
    }
    this.ruleReason = reason;
    this.ruleDecel = decel;
    this.ruleHoldFor = holdFor;
    return reason !== HoldReason.None;
  }

  /**
   * The vehicle NPC s must give way to before entering movement m (its slot, −1 for one that is not a vehicle of
   * the world), or −2 when it may go.
   */
  private giveWay(world: World, s: number, j: number, m: number, dFront: number, v: number, signal: boolean, allWay: boolean, occupantsOnly = false): number {
    const cj = this.layout.junctions[j];
    const J = cj.junction;
    const n = cj.movements.length;
    const mine = cj.movements[m];
    const vmax = Math.max(this.limitOf(mine.entry.lane), 5);
    const L = world.length[s];
    const myMg = this.base[j] + m;
    for (let c = 0; c < n; c++) {
      const kind = J.conflicts[m * n + c];
      if (kind === ConflictKind.None || cj.movements[c].approach === mine.approach) continue;
      const cg = this.base[j] + c;
      const zsM = cj.zoneStart[m * n + c], zeM = cj.zoneEnd[m * n + c];
      const zsC = cj.zoneStart[c * n + m], zeC = cj.zoneEnd[c * n + m];
      const tArrive = timeToCover(dFront + zsM, v, OWN_ACCEL, vmax);
      // clear of it: past a crossing (its rear out of the zone, and a margin); ahead of it in a merge (its front
      // through the merge, and a headway: the other then follows it)
      const tClear = kind === ConflictKind.Merge
        ? timeToCover(dFront + zeM, v, OWN_ACCEL, vmax) + MERGE_HEADWAY_S
        : timeToCover(dFront + zeM + L, v, OWN_ACCEL, vmax) + GAP_S;
      // whoever is in the conflicting movement and will still be in the way
      for (const w of this.occupants[cg]) {
        if (w === s) continue;
        const along = this.inMg[w] === cg ? this.inA[w] : zsC;
        const hw = 0.5 * world.length[w];
        if (along - hw >= zeC) continue; // past the conflict zone
        const vw = world.speed(w);
        const wArrive = along + hw >= zsC ? 0 : (zsC - (along + hw)) / Math.max(vw, 0.5);
        const wLeave = (zeC - (along - hw)) / Math.max(vw, 0.3);
        if (wArrive < tClear && wLeave + GAP_S > tArrive) return w;
      }
      if (occupantsOnly) continue;
      // who has priority over this movement now
      let priority: boolean;
      if (signal) {
        const cc = this.code[cg];
        priority = this.yields[myMg] === 1 && (cc === G || cc === Y || cc === g) && this.yields[cg] === 0;
      } else priority = !allWay && cj.yields[m * n + c] === 1;
      if (allWay) {
        // the approaches in the order their vehicles stopped; a vehicle already moving in goes first
        const mineT = this.stopDoneT[s];
        for (const w of this.approachers[cg]) {
          const dfw = this.apD[w] - 0.5 * world.length[w];
          if (dfw > STOP_ZONE_M + 1) continue;
          if (world.kind[w] === AgentKind.External) {
            if (world.speed(w) > FULL_STOP_SPEED) return w;
            if (this.standSince[w] < 0) this.standSince[w] = this.time;
            if (this.time - this.standSince[w] < EGO_TURN_S && this.standSince[w] <= mineT) return w;
            continue;
          }
          if (this.stopDone[w] === cg && (this.stopDoneT[w] < mineT || (this.stopDoneT[w] === mineT && w < s))) return w;
        }
        continue;
      }
      for (const w of this.approachers[cg]) {
        if (w === s) continue;
        // one that has no priority but comes too fast to stop comfortably will come all the same
        if (!priority && !this.committed(world, w)) continue;
        const vw = world.speed(w);
        // held at a line of its own (a red light, a stop sign, giving way), standing in a queue, or standing for a
        // while for whatever reason: not coming (a driver goes when the car with priority waits on)
        if (vw < QUEUED_MPS && ((world.kind[w] === AgentKind.Controlled && (this.heldMg[w] >= 0 || this.queued(world, w))) || this.time - this.stillSince[w] > STILL_S)) continue;
        const hw = 0.5 * world.length[w];
        const dist = this.apD[w] - hw + zsC;
        if (dist > LOOKAHEAD_M) continue;
        const wArrive = timeToCover(dist, vw, GO_ACCEL, Math.max(this.limitOf(cj.movements[c].entry.lane), 5));
        const wLeave = wArrive + (zeC - zsC + 2 * hw) / Math.max(vw, 3);
        if (wArrive < tClear && wLeave + GAP_S > tArrive) return w;
      }
    }
    return -2;
  }

  /** Can vehicle w no longer stop comfortably before the line it approaches (it will go in whatever it owes)? */
  private committed(world: World, w: number): boolean {
    const v = world.speed(w);
    if (v < 1) return false;
    const dFront = this.apD[w] - 0.5 * world.length[w] - STOP_MARGIN_M;
    return (v * v) / (2 * Math.max(dFront, 0.05)) > COMMIT_DECEL && this.heldMg[w] < 0;
  }

  /** Is NPC w standing behind a vehicle that stands too (car-following holds it in a queue)? */
  private queued(world: World, w: number): boolean {
    const leader = this.engine.shield?.predictor.leader[w] ?? -1;
    if (leader < 0 || !world.present[leader] || world.speed(leader) >= QUEUED_MPS) return false;
    const gap = Math.hypot(world.x[leader] - world.x[w], world.y[leader] - world.y[w]) - 0.5 * (world.length[leader] + world.length[w]);
    return gap < QUEUE_GAP_M;
  }

  /** The vehicle that leaves no room past the exit of movement mg for NPC s (−2: there is room). */
  private exitBlocked(world: World, s: number, mg: number, dFront: number, v: number): number {
    const { j, m } = this.refs[mg];
    const cj = this.layout.junctions[j];
    const mv = cj.movements[m];
    const need = world.length[s] + BOX_GAP_M;
    let room = Infinity;
    let blocker = -1;
    // the first vehicle past where it is clear of the junction, on the exit lane or the lanes after it
    const exitLane = mv.exit.lane;
    const L = this.lanes.lanes[exitLane];
    const clear = this.clear[mg];
    const exitS = Math.min(L.length, mv.exit.s + (clear - mv.length));
    // the junction after this one, and the road between
    const next = this.ap2Mg[s];
    const between = next >= 0 ? this.ap2D[s] - (this.apD[s] + clear) : Infinity;
    let linkUse = 0;
    const consider = (w: number, dist: number) => {
      if (w === s || dist < 0) return;
      if (dist <= between + 0.5 * world.length[w]) linkUse += world.length[w] + LINK_GAP_M;
      let r = dist - 0.5 * world.length[w];
      const vw = world.speed(w);
      // a vehicle moving away makes room as it goes; one stopping for a line of its own does not
      if (vw > MOVING_MPS && this.heldMg[w] < 0) r += Math.min(MOVING_ROOM_MAX_M, (vw * vw) / (2 * MOVING_ROOM_DECEL));
      if (r < room) {
        room = r;
        blocker = w;
      }
    };
    for (const w of this.laneVehicles[exitLane]) consider(w, this.sOf[w] - exitS);
    // … and on the lanes after it, as far as the room needed, a queue behind a line there and the next junction reach
    let lane = exitLane, reach = L.length - exitS;
    for (let hop = 0; hop < 4 && (reach < need + 30 || reach < between); hop++) {
      const nx = this.nextLaneOf(s, lane);
      if (nx < 0) break;
      for (const w of this.laneVehicles[nx]) consider(w, reach + this.sOf[w]);
      reach += this.lanes.lanes[nx].length;
      lane = nx;
    }
    // a junction just past the exit where it may have to stop (a red light, a stop sign, or a green that ends before
    // it gets there): the road between holds what is on it now and, after them, this NPC, or it waits here; where
    // that road cannot hold it at all, it goes only when it can pass the next line on green with the road clear
    if (next >= 0) {
      const nj = this.junctionOf(next);
      const nc = this.code[next];
      const signal = nj.control === 'signal' && nc !== 0 && nc !== O;
      const stopSign = !signal && (nj.control === 'all_way_stop' || (nj.control === 'stop' && nj.approaches[nj.movements[this.refs[next].m].approach].sign === 'stop'));
      let greenThrough = false;
      if (signal && (nc === G || nc === g)) {
        // it gets there at a queue's pace, behind the vehicles on the road between
        const group = nj.groupOfMovement[this.refs[next].m];
        const dist = dFront + clear + between;
        const t = Math.max(timeToCover(dist, v, GO_ACCEL, Math.max(this.limitOf(mv.entry.lane), 5)), dist / QUEUE_SPEED) + QUEUE_HEADWAY_S * Math.round(linkUse / 7);
        greenThrough = this.controller.timeToChange(group) > t + GREEN_MARGIN_S;
      }
      // … or it will have to give way there (an NPC on a minor approach may wait at that line)
      const nm = this.refs[next].m, nn = nj.movements.length;
      let givesWay = false;
      if (!signal && !stopSign) for (let c = 0; c < nn && !givesWay; c++) givesWay = nj.yields[nm * nn + c] === 1;
      const mayStop = stopSign || givesWay || (signal && !greenThrough);
      const free = between - linkUse;
      if (between < need) {
        // the road between cannot hold it: it goes only with that road empty and the next line passable now (green
        // long enough, or nothing there to give way to)
        const nextDFront = dFront + clear + between;
        const passable = signal ? greenThrough : this.giveWay(world, s, this.refs[next].j, nm, nextDFront, v, false, false) === -2;
        if ((linkUse > 0 || !passable) && free < room) {
          room = Math.max(0, free);
          blocker = -1;
        }
      } else if (mayStop && free < room) {
        room = free;
        blocker = -1;
      }
    }
    // vehicles in the junction bound for the same exit (its lane, or a path merging into ours) take their room first,
    // and so do those about to enter a merging path that this NPC gives way to
    const J = this.layout.junctions[j];
    const n = J.movements.length;
    let reserved = 0;
    for (let k = 0; k < n; k++) {
      const kg = this.base[j] + k;
      const merging = J.junction.conflicts[m * n + k] === ConflictKind.Merge;
      if (k !== m && J.movements[k].exit.lane !== exitLane && !merging) continue;
      for (const w of this.occupants[kg]) {
        // (one already past the exit on the exit lane was counted above)
        if (w === s || (this.laneOf[w] === exitLane && this.sOf[w] >= exitS)) continue;
        if (this.inMg[w] === kg && this.inA[w] - 0.5 * world.length[w] < this.clear[kg]) reserved += world.length[w] + 1;
      }
      if (merging && J.yields[m * n + k] === 1) {
        for (const w of this.approachers[kg]) {
          if (w === s || this.heldMg[w] === kg) continue;
          if (this.apD[w] - 0.5 * world.length[w] < MERGE_RESERVE_M) reserved += world.length[w] + LINK_GAP_M;
        }
      }
    }
    room -= reserved;
    return room < need ? blocker : -2;
  }

  /** The lane slot s plans to take after `lane` (its plan, else the straightest). */
  private nextLaneOf(s: number, lane: number): number {
    const e = this.engine;
    const n = e.planCount[s];
    for (let k = 0; k + 1 < n; k++) if (e.planLanes[s * MAX_PLAN + k] === lane) return e.planLanes[s * MAX_PLAN + k + 1];
    const next = this.lanes.lanes[lane].next;
    return next.length > 0 ? next[0] : -1;
  }

  private limitOf(lane: number): number {
    const v = this.lanes.lanes[lane].speedLimit;
    return Number.isFinite(v) ? v : 50 / 3.6;
  }
}

const NONE: ReadonlyArray<[number, number]> = [];
const G = 'G'.charCodeAt(0);
const g = 'g'.charCodeAt(0);
const Y = 'y'.charCodeAt(0);
const R = 'r'.charCodeAt(0);
const O = 'o'.charCodeAt(0);

function push<K, V>(map: Map<K, V[]>, k: K, v: V): void {
  let l = map.get(k);
  if (!l) map.set(k, (l = []));
  l.push(v);
}
