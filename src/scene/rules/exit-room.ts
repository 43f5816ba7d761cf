/**
 * Don't block the box: an NPC enters a junction only when its exit has room for the whole vehicle — counting those
 * ahead that move away, those in the junction bound for the same exit, and, where the next junction is close, the
 * queue the road between will hold when the NPC may have to stop there. Apart from giving way because it looks
 * past the junction (along the lanes after the exit), not at the conflicts in it.
 */
import { ConflictKind } from '../../map/junctions.js';
import type { TrafficEngine } from '../../traffic/engine.js';
import type { LaneNetwork } from '../../traffic/lanes.js';
import { MAX_PLAN } from '../../traffic/predict.js';
import { GOVERNOR_STOP_MARGIN_M } from '../../traffic/tuning.js';
import { AgentKind, type World } from '../../traffic/world.js';
import type { MovementIndex } from '../junction-kit/movement-index.js';
import { GREEN, GREEN_YIELD, OFF, type MovementSignalStates } from '../junction-kit/handoff.js';
import { speedLimitOf, timeToCover } from '../junction-kit/kinematics.js';
import type { RightOfWay } from './right-of-way.js';
import type { RuleMemory } from './rule-memory.js';
import {
  BOX_GAP_M, GO_ACCEL, GREEN_MARGIN_S, IMPATIENT_DECEL, IMPATIENT_S, LINK_GAP_M, MERGE_RESERVE_M, MOVING_MPS, MOVING_ROOM_DECEL, MOVING_ROOM_MAX_M, QUEUE_HEADWAY_S, QUEUE_SPEED, QUEUED_MPS,
} from './rule-params.js';
import type { VehiclePlaces } from './vehicle-places.js';
import { AT_LINE_M } from './rule-params.js';


export class ExitRoom {
  constructor(
    private readonly index: MovementIndex,
    private readonly places: VehiclePlaces,
    private readonly signals: MovementSignalStates,
    private readonly memory: RuleMemory,
    private readonly rightOfWay: RightOfWay,
    private readonly lanes: LaneNetwork,
    private readonly engine: TrafficEngine,
  ) {}

  /** The vehicle that leaves no room past the exit of movement mg for NPC s (−2: there is room). */
  exitBlocked(world: World, s: number, mg: number, dFront: number, v: number): number {
    const index = this.index;
    const { apD, ap2Mg, ap2D, inMg, inA, laneOf, sOf, laneVehicles, occupants, approachers } = this.places;
    const heldMg = this.memory.heldMg;
    const heldForPeople = this.memory.heldForPeople;
    const { j, m } = index.refs[mg];
    const cj = index.layout.junctions[j];
    const mv = cj.movements[m];
    const need = world.length[s] + BOX_GAP_M;
    let room = Infinity;
    let blocker = -1;
    // the first vehicle past where it is clear of the junction, on the exit lane or the lanes after it
    const exitLane = mv.exit.lane;
    const L = this.lanes.lanes[exitLane];
    const clear = index.clear[mg];
    const exitS = Math.min(L.length, mv.exit.s + (clear - mv.length));
    // the junction after this one, and the road between
    const next = ap2Mg[s];
    const between = next >= 0 ? ap2D[s] - (apD[s] + clear) : Infinity;
    let linkUse = 0;
    let linkHeld = false;
    const consider = (w: number, dist: number) => {
      if (w === s || dist < 0) return;
      const vw = world.speed(w);
      if (dist <= between + 0.5 * world.length[w]) {
        linkUse += world.length[w] + LINK_GAP_M;
        // one standing on the road between, or held at the next line: a queue there that this NPC may join
        if (vw < QUEUED_MPS || heldMg[w] >= 0 || heldForPeople[w] === 1) linkHeld = true;
      }
      let r = dist - 0.5 * world.length[w];
      // a vehicle moving away makes room as it goes; one stopping for a line of its own does not
      if (vw > MOVING_MPS && heldMg[w] < 0 && heldForPeople[w] === 0) r += Math.min(MOVING_ROOM_MAX_M, (vw * vw) / (2 * MOVING_ROOM_DECEL));
      if (r < room) {
        room = r;
        blocker = w;
      }
    };
    for (const w of laneVehicles[exitLane]) consider(w, sOf[w] - exitS);
    // … and on the lanes after it, as far as the room needed, a queue behind a line there and the next junction reach
    let lane = exitLane, reach = L.length - exitS;
    for (let hop = 0; hop < 4 && (reach < need + 30 || reach < between); hop++) {
      const nx = this.nextLaneOf(s, lane);
      if (nx < 0) break;
      for (const w of laneVehicles[nx]) consider(w, reach + sOf[w]);
      reach += this.lanes.lanes[nx].length;
      lane = nx;
    }
    // a junction just past the exit where it may have to stop (a red light, a stop sign, or a green that ends before
    // it gets there): the road between holds what is on it now and, after them, this NPC, or it waits here; where
    // that road cannot hold it at all, it goes only when it can pass the next line on green with the road clear
    if (next >= 0) {
      // … and those in this junction bound for the same exit lane, who will be on that road first (FMTC's J7 into J6,
      // 5.7 m: an NPC went in as the one ahead, still in J7, was stopping at J6's line, and stood in J7 behind it)
      let bound = false;
      for (let k = 0; k < cj.movements.length && !bound; k++) {
        const kg = index.base[j] + k;
        if (cj.movements[k].exit.lane !== exitLane) continue;
        for (const w of occupants[kg]) {
          if (w === s || inMg[w] !== kg || inA[w] - 0.5 * world.length[w] >= index.clear[kg]) continue;
          bound = true;
          if (world.speed(w) < QUEUED_MPS || heldMg[w] >= 0 || heldForPeople[w] === 1) linkHeld = true;
        }
      }
      const nj = index.junctionOf(next);
      const nc = this.signals.code[next];
      const signal = nj.control === 'signal' && nc !== 0 && nc !== OFF;
      const stopSign = !signal && (nj.control === 'all_way_stop' || (nj.control === 'stop' && nj.approaches[nj.movements[index.refs[next].m].approach].sign === 'stop'));
      let greenThrough = false;
      if (signal && (nc === GREEN || nc === GREEN_YIELD)) {
        // it gets there at a queue's pace, behind the vehicles on the road between
        const group = nj.groupOfMovement[index.refs[next].m];
        const dist = dFront + clear + between;
        const t = Math.max(timeToCover(dist, v, GO_ACCEL, Math.max(speedLimitOf(this.lanes, mv.entry.lane), 5)), dist / QUEUE_SPEED) + QUEUE_HEADWAY_S * Math.round(linkUse / 7);
        greenThrough = this.signals.timeToChange(group) > t + GREEN_MARGIN_S;
      }
      // … or it will have to give way there (an NPC on a minor approach may wait at that line)
      const nm = index.refs[next].m, nn = nj.movements.length;
      let givesWay = false;
      if (!signal && !stopSign) for (let c = 0; c < nn && !givesWay; c++) givesWay = nj.yields[nm * nn + c] === 1;
      // (a line with priority may still hold its vehicles: for room past its own exit, FMTC's J4 for J3's queue)
      const mayStop = stopSign || givesWay || (signal && !greenThrough) || linkHeld;
      const free = between - linkUse;
      if (between < need) {
        // the road between cannot hold it: it goes only with that road empty and the next line passable now (green
        // long enough, or nothing there to give way to)
        const nextDFront = dFront + clear + between;
        const passable = signal ? greenThrough : this.rightOfWay.giveWay(world, s, index.refs[next].j, nm, nextDFront, v, false, false) === -2;
        if ((linkUse > 0 || bound || !passable) && free < room) {
          room = Math.max(0, free);
          blocker = -1;
        }
      } else if (mayStop && free < room) {
        room = free;
        blocker = -1;
      }
    }
    // vehicles in the junction bound for the same exit (its lane, or a path merging into ours) take their room first,
    // and so do those about to enter a merging path that this NPC gives way to — unless it has stood at its line so
    // long that it takes a gap they can stop for (right-of-way.ts's impatience) — and those that have stood that long
    // at the line of a movement that gives way to this one (the stream with priority lets them in: on FMTC's J15 the
    // minor road stood 180 s while every gap in the queue towards J4, held for people, went to the main road)
    const n = cj.movements.length;
    const unsignalled = (cj.control !== 'signal' || this.signals.code[mg] === 0 || this.signals.code[mg] === OFF) && cj.control !== 'all_way_stop';
    const impatient = unsignalled && this.impatientAt(world, s, mg);
    let reserved = 0;
    for (let k = 0; k < n; k++) {
      const kg = index.base[j] + k;
      const merging = cj.junction.conflicts[m * n + k] === ConflictKind.Merge;
      if (k !== m && cj.movements[k].exit.lane !== exitLane && !merging) continue;
      for (const w of occupants[kg]) {
        // (one already past the exit on the exit lane was counted above)
        if (w === s || (laneOf[w] === exitLane && sOf[w] >= exitS)) continue;
        if (inMg[w] === kg && inA[w] - 0.5 * world.length[w] < index.clear[kg]) reserved += world.length[w] + 1;
      }
      if (merging && cj.yields[m * n + k] === 1) {
        for (const w of approachers[kg]) {
          if (w === s || heldMg[w] === kg) continue;
          if (impatient && world.kind[w] === AgentKind.Controlled && this.canStopGently(world, w)) continue;
          if (apD[w] - 0.5 * world.length[w] < MERGE_RESERVE_M) reserved += world.length[w] + LINK_GAP_M;
        }
      }
      if (unsignalled && k !== m && cj.yields[k * n + m] === 1) {
        for (const w of approachers[kg]) {
          // (held there and not yet impatient: it waits; once it goes, it is on its way in, however slowly it starts)
          if (w === s || world.kind[w] !== AgentKind.Controlled || !this.atLine(world, w, kg)) continue;
          if (heldMg[w] !== kg || this.impatientAt(world, w, kg)) reserved += world.length[w] + LINK_GAP_M;
        }
      }
    }
    room -= reserved;
    return room < need ? blocker : -2;
  }

  /** Is vehicle w's front within AT_LINE_M of the line of movement mg, which it approaches? */
  private atLine(world: World, w: number, mg: number): boolean {
    return this.places.apMg[w] === mg && this.places.apD[w] - 0.5 * world.length[w] - GOVERNOR_STOP_MARGIN_M < AT_LINE_M;
  }

  /** Has vehicle w stood at the line of movement mg longer than IMPATIENT_S? */
  private impatientAt(world: World, w: number, mg: number): boolean {
    const memory = this.memory;
    return this.atLine(world, w, mg) && memory.stillSince[w] >= 0 && memory.time - memory.stillSince[w] > IMPATIENT_S;
  }

  /** Can vehicle w stop before the line it approaches at IMPATIENT_DECEL or less (as right-of-way.ts asks)? */
  private canStopGently(world: World, w: number): boolean {
    const v = world.speed(w);
    const dFront = this.places.apD[w] - 0.5 * world.length[w] - GOVERNOR_STOP_MARGIN_M;
    return dFront > 0 && v * v <= 2 * IMPATIENT_DECEL * dFront;
  }

  /** The lane slot s plans to take after `lane` (its plan, else the straightest). */
  private nextLaneOf(s: number, lane: number): number {
    const e = this.engine;
    const n = e.planCount[s];
    for (let k = 0; k + 1 < n; k++) if (e.planLanes[s * MAX_PLAN + k] === lane) return e.planLanes[s * MAX_PLAN + k + 1];
    const next = this.lanes.lanes[lane].next;
    return next.length > 0 ? next[0] : -1;
  }
}
